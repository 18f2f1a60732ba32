"""plates.dashboard.queries: DuckDB over real Parquet parts gives the same numbers as the row-level metrics on the
rows load_results reads (how the parts are opened: tests/results/test_query.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from plates.analysis import metrics
from plates.charts import ishihara as charts
from plates.dashboard import queries
from plates.results import load_results
from plates.results.query import open_results
from tests.support.dashboard_rows import concat, rows, write_part


def mixed(seed: int = 0, n_items: int = 12) -> pd.DataFrame:
    """Two models, model a in two runs over the same items, colour and grayscale, two sizes, a CoT pair, the
    yes/no pair, failed requests and failure modes; verdicts at random."""
    rng = np.random.default_rng(seed)
    items = [f"i{i}" for i in range(n_items)]

    def some(model, run, **columns):
        correct = [
            None if f else bool(c) for c, f in zip(rng.random(n_items) < 0.6, rng.random(n_items) < 0.1)
        ]
        mode = [None if c is not False else rng.choice(["hallucination", "evasion", None]) for c in correct]
        return rows(
            n_items,
            model=model,
            run_id=run,
            item_id=items,
            correct=correct,
            failure_mode=mode,
            delta_e=list(np.round(rng.uniform(2, 30, n_items), 3)),
            colour_set=[f"colorblindnesseval-{1 + i % 3}" for i in range(n_items)],
            **columns,
        )

    return concat(
        some("a", "run-1"),
        some("a", "run-1", grayscale=True),
        some("a", "run-1", size=300),
        some("a", "run-2"),
        some("a", "run-2", grayscale=True),
        some("b", "run-3", prompt_name="colorbench-mc", task="colorbench-mc"),
        some("b", "run-3", prompt_name="colorbench-mc-cot", task="colorbench-mc-cot"),
        some("b", "run-3", prompt_name="cbe-yn-correct", task="cbe-yn-correct"),
        some("b", "run-3", prompt_name="cbe-yn-incorrect", task="cbe-yn-incorrect", text_only=True),
    )


@pytest.fixture
def folder(tmp_path):
    frame = mixed()
    half = len(frame) // 2
    write_part(tmp_path / "run" / "part-0.parquet", frame.iloc[:half])
    write_part(tmp_path / "run" / "deep" / "part-1.parquet", frame.iloc[half:])
    return tmp_path


def _plain(table: pd.DataFrame) -> pd.DataFrame:
    table = table.reset_index(drop=True)
    for c in table.columns:
        if table[c].dtype.kind in "OUSb" or str(table[c].dtype) in ("category", "str", "string", "boolean"):
            table[c] = [
                None if v is None or (not isinstance(v, (list, np.ndarray)) and pd.isna(v)) else v
                for v in table[c].astype(object)
            ]
    return table


def test_the_cube_is_the_row_counts(folder):
    results = open_results(folder)
    frame = load_results(folder).frame
    got = queries.cube(results)
    want = charts.counts_from_rows(frame)
    pd.testing.assert_frame_equal(_plain(got), _plain(want[list(got.columns)]), check_dtype=False)
    assert results.row_count() == len(frame) == int((got["n"] + got["errors"]).sum())


@pytest.mark.parametrize("by", [["model"], ["run_id", "model", "task", "size"]])
def test_grayscale_pairs_give_metrics_grayscale_delta(folder, by):
    results, frame = open_results(folder), load_results(folder).frame
    pairs = queries.grayscale_pairs(results, queries.Where(), by)
    got = metrics.grayscale_from_pairs(pairs, by)
    want = metrics.grayscale_delta(frame, by)
    pd.testing.assert_frame_equal(_plain(got), _plain(want), check_dtype=False)
    assert (got["pairs"] > 0).any()


def test_items_of_another_dataset_or_backend_never_pair(tmp_path):
    """The same item id in two datasets (or from two backends) of one model and prompt is two items: colour
    in one and grayscale in the other make no pair, although each column alone looks droppable."""
    items = [f"i{i}" for i in range(6)]
    frame = concat(
        rows(6, item_id=items, dataset="d1"),
        rows(6, item_id=items, dataset="d2", grayscale=True),
        rows(6, item_id=items, dataset="d3", backend="b1", correct=[True, False] * 3),
        rows(6, item_id=items, dataset="d3", backend="b2", grayscale=True),
        rows(6, item_id=items, dataset="d3", backend="b1", grayscale=True, correct=False),
    )
    write_part(tmp_path / "run" / "part-0.parquet", frame)
    results = open_results(tmp_path)
    got = metrics.grayscale_from_pairs(queries.grayscale_pairs(results, queries.Where(), ["model"]), ["model"])
    want = metrics.grayscale_delta(load_results(tmp_path).frame, ["model"])
    pd.testing.assert_frame_equal(_plain(got), _plain(want), check_dtype=False)
    assert got["pairs"].tolist() == [6]  # d3 from b1 only


def test_the_runs_named_are_those_whose_rows_made_pairs(tmp_path):
    """runs_a / runs_b: only runs with rows of paired items, one run per side (read from the cube) or
    several (per item); a group without pairs names none."""
    items = [f"i{i}" for i in range(4)]
    frame = concat(
        rows(4, item_id=items, model="one", run_id="colour"),  # one run per side
        rows(4, item_id=items, model="one", run_id="gray", grayscale=True),
        rows(4, item_id=[f"x{i}" for i in range(4)], model="many", run_id="r3"),  # never paired
        rows(2, item_id=items[:2], model="many", run_id="r1"),  # r1 and r6 pair with r2
        rows(2, item_id=items[2:], model="many", run_id="r6"),
        rows(4, item_id=items, model="many", run_id="r2", grayscale=True),
        rows(4, item_id=items, model="none", run_id="r4"),  # no grayscale row: no pairs
        rows(4, item_id=[f"y{i}" for i in range(4)], model="none", run_id="r5", grayscale=True),
    )
    write_part(tmp_path / "run" / "part-0.parquet", frame)
    got = queries.grayscale_pairs(open_results(tmp_path), queries.Where(), ["model"]).set_index("model")
    assert got.loc["one", "runs_a"] == ["colour"] and got.loc["one", "runs_b"] == ["gray"]
    assert got.loc["many", "runs_a"] == ["r1", "r6"] and got.loc["many", "runs_b"] == ["r2"]
    assert got.loc["none", "runs_a"] == [] and got.loc["none", "runs_b"] == [] and got.loc["none", "pairs"] == 0
    assert got["pairs"].to_dict() == {"many": 4, "none": 0, "one": 4}


def test_cot_pairs_give_metrics_cot_delta(folder):
    results, frame = open_results(folder), load_results(folder).frame
    pairs = queries.cot_pairs(results, queries.Where(), ["model"], "colorbench-mc", "colorbench-mc-cot")
    got = metrics.cot_from_pairs(pairs, ["model"], prompt="colorbench-mc", cot_prompt="colorbench-mc-cot")
    want = metrics.cot_delta(frame, ["model"])
    pd.testing.assert_frame_equal(_plain(got), _plain(want[want["model"] == "b"]), check_dtype=False)


def test_levels_failure_counts_and_filters_match_the_rows(folder):
    results, frame = open_results(folder), load_results(folder).frame
    where = queries.Where(
        {"model": ["a"]},
        [
            dict(
                variant="standard",
                size=900,
                grayscale=False,
                hue_shift=0.0,
                cvd="none",
                cvd_severity=0.0,
                text_only=None,
            )
        ],
    )
    keep = (frame["model"] == "a") & (frame["size"] == 900) & ~frame["grayscale"]
    got = queries.levels(results, where, ["run_id", "colour_set"])
    want = charts.levels_from_rows(frame[keep])
    want = want.groupby(["run_id", "colour_set", "level"], as_index=False)[["n", "correct"]].sum()
    pd.testing.assert_frame_equal(_plain(got), _plain(want), check_dtype=False)
    wrong = queries.failure_counts(results, queries.Where(), ["model"])
    assert wrong["wrong"].sum() == int((frame["correct"] == False).sum())
    counts = wrong.set_index(["model", "failure_mode"])["wrong"].to_dict()
    assert counts[("a", "evasion")] == int(
        ((frame["model"] == "a") & (frame["failure_mode"] == "evasion")).sum()
    )


def test_drilldown_pages_follow_the_row_choice_in_a_stable_order(folder):
    results, frame = open_results(folder), load_results(folder).frame
    where = queries.Where({"model": ["a"]})
    wrong = int(((frame["model"] == "a") & (frame["correct"] == False)).sum())
    assert queries.drilldown_count(results, where, "incorrect") == wrong
    assert queries.drilldown_count(results, where, "failed") == int(
        ((frame["model"] == "a") & frame["correct"].isna()).sum()
    )
    first = queries.drilldown(results, where, only="incorrect", limit=5)
    second = queries.drilldown(results, where, only="incorrect", limit=5, offset=5)
    assert (first["correct"] == False).all() and len(first) == 5
    assert not set(zip(first["run_id"], first["item_id"], first["size"], first["grayscale"])) & set(
        zip(second["run_id"], second["item_id"], second["size"], second["grayscale"])
    )
    with pytest.raises(ValueError, match="allowed"):
        queries.drilldown_count(results, where, "maybe")


def test_repeated_items_are_found_across_runs(folder):
    results = open_results(folder)
    table = queries.repeated_items(results, queries.Where(), models=["a"])
    assert (
        set(table["prompt_name"]) == {"cbe-open"}
        and (table["items"] == 12).all()
        and (table["asked"] == 24).all()
    )
    assert [list(r) for r in table["runs"]] == [["run-1", "run-2"]] * len(table)
    assert queries.repeated_items(results, queries.Where(), models=["b"]).empty


def test_filter_values_are_parameters_not_sql(folder):
    results = open_results(folder)
    evil = "a'); DROP TABLE part_files; --"
    assert queries.drilldown_count(results, queries.Where({"model": [evil]})) == 0
    assert results.row_count() > 0
