"""How replies were read (plates.charts.reading): shares of correct / wrong / ambiguous / unread / refused beside
accuracy, and the judge model's part, from hand-made rows; DuckDB's counts (plates.dashboard.queries) equal the
pandas ones on the same Parquet part."""

from __future__ import annotations

import numpy as np
import pytest

from plates.charts.reading import READINGS, reading_counts_from_rows, reading_figure, reading_table
from plates.dashboard import queries
from plates.results.query import open_results
from tests.support.dashboard_rows import concat, rows, write_part


def _model_rows():
    """Model a: 10 replies: 4 correct, 2 wrong, 2 ambiguous, 1 unread, 1 refused (+ 2 failed requests, not
    replies). Model b: 4 replies all read; a judge asked about all 4 (judge-all), reading the same answer as the
    rules on 2 of the 3 both read, and deciding 1 the rules left unread."""
    status = ["ok"] * 6 + ["ambiguous"] * 2 + ["unparsed", "refusal"]
    a = rows(10, model="a", parse_status=status, correct=[i < 4 for i in range(10)],
             parsed=["12"] * 4 + ["7"] * 2 + [None] * 4, rules_parse_status=status, decided_by="rules")
    failed = rows(2, model="a", parse_status="error", correct=None, reply=None, parsed=None)
    b = rows(4, model="b", parse_status="ok", correct=[True, True, False, True], parsed=["12", "12", "7", "12"],
             rules_parse_status=["ok", "ok", "ok", "unparsed"], rules_parsed=["12", "12", "9", None],
             judge_model="j", judge_status="read", judge_parsed=["12", "12", "7", "12"],
             decided_by="judge")
    return concat(a, failed, b)


def test_shares_partition_the_replies_and_accuracy_counts_unread_as_not_correct():
    table = reading_table(_model_rows()).set_index("series")
    a, b = table.loc["a"], table.loc["b"]
    assert a["replies"] == 10 and b["replies"] == 4  # failed requests are not replies
    assert [a[f"{r}_share"] for r in READINGS] == pytest.approx([0.4, 0.2, 0.2, 0.1, 0.1])
    assert sum(b[f"{r}_share"] for r in READINGS) == pytest.approx(1.0)
    assert a["accuracy"] == pytest.approx(0.4) and a["read_accuracy"] == pytest.approx(4 / 6)
    assert a["ci_low"] < 0.4 < a["ci_high"]
    assert (a["judge_asked"], a["judge_decided"], a["both_read"]) == (0, 0, 0) and np.isnan(a["agreement"])
    assert (b["judge_asked"], b["judge_decided"], b["both_read"], b["agree"]) == (4, 4, 3, 2)
    assert b["agreement"] == pytest.approx(2 / 3)


def test_the_figure_stacks_the_readings_and_writes_the_accuracy_above():
    fig = reading_figure(_model_rows())
    bars = [t for t in fig.data if t.type == "bar"]
    assert [t.name for t in bars] == list(READINGS)
    unread = next(t for t in bars if t.name == "unread")
    assert list(unread.x) == ["a", "b"] and list(unread.y) == pytest.approx([0.1, 0.0])
    assert "unread: 10.0% (1 of 10 replies)" in unread.hovertext[0]
    labels = next(t for t in fig.data if t.type == "scatter").text
    assert labels[0] == "accuracy 40%<br>of read 67%"
    assert fig.layout.barmode == "stack" and fig.layout.meta["condition"]
    assert "unread is not wrong" in fig.layout.title.text


def test_no_replies_is_an_empty_figure_that_says_so():
    fig = reading_figure(rows(2, parse_status="error", correct=None, reply=None, parsed=None))
    assert fig.layout.meta["empty"] == "no replies with text"
    with pytest.raises(ValueError, match="give the result rows"):
        reading_table()


def test_duckdb_counts_equal_the_pandas_counts_on_the_same_part(tmp_path):
    frame = _model_rows()
    write_part(tmp_path / "run" / "part-000.parquet", frame)
    results = open_results(tmp_path)
    try:
        by = ["run_id", "model", *queries.CONDITION_KEYS, "prompt_name"]
        duck = queries.reading_counts(results, queries.Where(), by)
        # later calls sum the table the first one made, under the view's filters
        only_b = queries.reading_counts(results, queries.Where(values={"model": ["b"]}), ["model"])
        assert only_b.to_dict("records") == [{"model": "b", **{c: int(duck.loc[1, c]) for c in queries.READING_COUNTS}}]
        assert results.query(f"SELECT count(*) AS n FROM {queries.READING_TABLE}")["n"].iloc[0] == 2
        with pytest.raises(ValueError, match=r"groups by \['item_id'\], which the reading table does not hold"):
            queries.reading_counts(results, queries.Where(), ["item_id"])
    finally:
        results.close()
    mine = reading_counts_from_rows(frame, tuple(by))
    columns = list(queries.READING_COUNTS)
    assert duck[columns].astype(int).to_dict("records") == mine[columns].astype(int).to_dict("records")
    assert list(duck["model"]) == ["a", "b"]
