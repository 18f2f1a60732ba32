"""The family results the chart tests share: the family presets run through `plates run` against
tests/support/chat_server.py plus quiz rows of two simulated people (tests/support/family_rows.py), written once
per session (minutes of runs) for tests/charts/test_illusions.py and test_scenes.py; the published tables."""

from __future__ import annotations

import pandas as pd
import pytest

from plates.results import load_results
from plates.results.reference import load_reference
from tests.support.family_rows import write_family_results


@pytest.fixture(scope="session")
def folder(tmp_path_factory):
    return write_family_results(tmp_path_factory.mktemp("families"))


@pytest.fixture(scope="session")
def frame(folder) -> pd.DataFrame:
    return load_results(folder).frame


@pytest.fixture(scope="session")
def reference() -> pd.DataFrame:
    return load_reference()
