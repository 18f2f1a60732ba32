"""The runner's tests' shared items (tests/runs/test_runner.py, test_plan.py, test_builder.py)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def pool_items():
    """Three labels x 5 colour sets x (standard, clear) of ColorBlindnessEval: 3 plates per colour set and variant."""
    from plates.datasets import load_dataset

    return load_dataset("colorblindnesseval", limit=30)
