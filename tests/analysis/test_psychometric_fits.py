"""plates.analysis.psychometric_fits on a realistic table: the synthetic results the dashboard bench reads
(tests/support/synthetic_results.py: sweeps of 20 ΔE2000 levels per colour set, people from the quiz), through
the dashboard's DuckDB counts, fitted with the batched monotonicity bootstrap and with the reference that tests
each group alone (tests/support/reference_monotone.py): the same tables to the last digit."""

from __future__ import annotations

import pandas as pd
import pytest

from plates.analysis import people, psychometric_fits
from plates.charts import delta_e
from plates.dashboard import family_queries, pages
from plates.dashboard import views as dashboard
from tests.support.reference_monotone import monotone_one_by_one
from tests.support.synthetic_results import write_synthetic


@pytest.fixture(scope="module")
def view(tmp_path_factory):
    folder = tmp_path_factory.mktemp("synthetic")
    write_synthetic(folder, 60_000, parts=2)
    return dashboard.View(dashboard.open_results(folder))


def _tables(view) -> tuple[pd.DataFrame, pd.DataFrame]:
    counts = family_queries.people_counts(view.opened.results, view.where, parts=("plates",))["plates"]
    thresholds = people.threshold_table(counts, pooled=True)
    levels = pages.plate_levels(view).drop(columns=["condition"])
    fits = delta_e.psychometric_fits(levels=view.label(levels)).drop(columns=["fit"])
    return thresholds, fits


def test_batched_bootstrap_gives_the_tables_of_one_group_at_a_time(view, monkeypatch):
    fast = _tables(view)
    monkeypatch.setattr(psychometric_fits, "monotone_from_counts", monotone_one_by_one)
    reference = _tables(view)
    thresholds, fits = fast
    assert len(thresholds) > 50 and len(fits) > 50
    # the bootstrap settled many groups (a p between its floor and 1), and some groups are non-monotonic or not
    assert thresholds["monotone_p"].between(1 / 1001, 1, inclusive="neither").sum() > 10
    for got, want in zip(fast, reference):
        pd.testing.assert_frame_equal(got, want, check_exact=True)
