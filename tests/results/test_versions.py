"""`plates.results.versions`: rows counted per scoring-rules version, from a pandas frame or from opened results
(DuckDB over real Parquet parts), and the note both apps show when versions are mixed."""

from __future__ import annotations

import pandas as pd
import pytest

from plates.results.query import open_results
from plates.results.schema import UNVERSIONED
from plates.results.versions import mixed_rules_note, rules_versions
from tests.support.dashboard_rows import rows, write_part


def test_a_frame_is_counted_per_version_ascending_with_nulls_unversioned():
    frame = pd.DataFrame({"rules_version": [3, 1, None, 3, 3]})
    assert list(rules_versions(frame).items()) == [(UNVERSIONED, 1), (1, 1), (3, 3)]


def test_a_frame_without_the_column_is_all_unversioned_and_an_empty_one_is_nothing():
    assert rules_versions(pd.DataFrame({"model": ["a", "b"]})) == {UNVERSIONED: 2}
    assert rules_versions(pd.DataFrame({"model": []})) == {}


def test_opened_results_are_counted_in_duckdb_with_a_where_clause(tmp_path):
    write_part(tmp_path / "old" / "part-000.parquet", rows(2, model="a", rules_version=[None, None]))
    write_part(tmp_path / "new" / "part-000.parquet", rows(3, model="b", rules_version=[2, 2, 2]))
    results = open_results(tmp_path)
    assert rules_versions(results) == {UNVERSIONED: 2, 2: 3}
    assert rules_versions(results, "WHERE model = $m", {"m": "b"}) == {2: 3}


def test_anything_else_is_refused_naming_what_is_allowed():
    with pytest.raises(ValueError, match="needs a results DataFrame or opened Results, got list"):
        rules_versions([1, 2])


def test_one_version_or_none_needs_no_note():
    assert mixed_rules_note({}) is None
    assert mixed_rules_note({2: 10}) is None


def test_mixed_versions_are_named_with_their_row_counts_and_the_fix():
    note = mixed_rules_note({2: 1500, UNVERSIONED: 3})
    assert note.startswith("These results were judged under 2 versions of the scoring rules "
                           "(unversioned (before versions were recorded): 3 rows, v2: 1,500 rows)")
    assert "`plates rescore RESULTS`" in note
