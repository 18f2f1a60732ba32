"""The family dashboard tables (plates.charts.illusions, people_charts; the scene charts' in test_scenes.py) on
real rows: the family presets run through `plates run` against tests/support/chat_server.py, plus quiz rows of two
simulated people (tests/support/family_rows.py; written once per session by tests/charts/conftest.py). Expected numbers are recounted here from the raw rows' truth_json, not from the
metrics modules."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from plates.analysis import illusions as ia
from plates.analysis import people as pa
from plates.charts import illusions as fc
from plates.charts import people as pc
from plates.charts import scenes as sc


def _facts(rows: pd.DataFrame) -> list[dict]:
    return [json.loads(t) for t in rows["truth_json"]]


def test_rcid_shares_recounted_from_the_raw_rows(frame, reference):
    long = fc.rcid_long(frame, reference)
    ours = long[long["source"] == "ours"]
    rows = frame[frame["task"].isin(["rcid-compare", "rcid-name"])]  # the filter kind is asked to name a colour
    facts = _facts(rows)
    checked = 0
    for (model, framing), part in ours[ours["metric"] == "Human-like"].groupby(["model", "framing"]):
        for _, cell in part.iterrows():
            hits = n = 0
            for (_, row), f in zip(rows.iterrows(), facts):
                if (row["model"], f["framing"], f["kind"], f["strength"], f["item_class"]) != (
                        model, framing, cell["kind"], cell["strength"], "illusion") or f["human_answer"] is None:
                    continue
                n += 1
                hits += (f.get("meanings") or {}).get(row["parsed"], row["parsed"]) == f["human_answer"]
            assert cell["n"] == n > 0
            assert cell["value"] == pytest.approx(hits / n)
            assert cell["low"] <= cell["value"] <= cell["high"]
            checked += 1
    assert checked >= 4
    # HL + NI + N/A = 1 in every cell
    wide = ours[ours["metric"].isin(["Human-like", "No-illusion", "N/A"])].groupby(
        ["model", "framing", "kind", "strength"])["value"].sum()
    assert np.allclose(wide.to_numpy(), 1.0)
    # RCID Table 1 beside ours, the paper's numbers unchanged
    paper = long[long["source"] == "RCID Table 1"]
    printed = reference[(reference["source"] == "RCID Table 1") & (reference["task"] == "Contrast Illusion")
                        & (reference["condition"] == "pixel-based prompt")
                        & (reference["metric"] == "human_like_rate")]
    got = paper[(paper["kind"] == "rcid-contrast") & (paper["framing"] == "pixel") & (paper["metric"] == "Human-like")]
    assert sorted(got["value"]) == sorted(printed["value"]) and len(got) == 2
    fig = fc.rcid_figure(long, "Human-like")
    names = {t.name for t in fig.data}
    assert {"model-a", "model-b"} <= names and any(n.startswith("RCID Table 1") for n in names)


def test_illusionbench_accuracy_and_yes_bias(frame, reference):
    long = fc.illusionbench_long(frame, reference)
    tf = frame[frame["task"] == "illusionbench-tf"]
    for model, part in tf.groupby("model"):
        said = part["parsed"].astype(object)
        truth = part["expected"].astype(str) == "True"
        fp = int(((said == "True") & ~truth).sum())
        fn = int(((said == "False") & truth).sum())
        cell = long[(long["source"] == "ours") & (long["model"] == model) & (long["task"] == "true/false")
                    & (long["column"] == "All")].iloc[0]
        assert cell["value"] == pytest.approx(part["correct"].astype(bool).mean())
        assert fp + fn > 0 and cell["yes_bias"] == pytest.approx(fp / (fp + fn))
    human = long[(long["source"] == "IllusionBench+ Table III") & (long["model"] == "Human")]
    assert dict(zip(human["column"], human["value"]))["All"] == pytest.approx(0.8975)
    assert len(fc.illusionbench_figure(long).data) >= 3


def _pixel_observer(rows: pd.DataFrame, magnitude: float) -> pd.DataFrame:
    """The same rows answered by a scripted observer fooled by ``magnitude`` ΔE2000: it names the induced
    target lighter whenever that target is physically lighter by more than −``magnitude``."""
    parsed = []
    for f in _facts(rows):
        x = f["signed_delta_e"] if f["induced_lighter"] == "A" else -f["signed_delta_e"]
        induced_lighter = x > -magnitude
        darker = ("B" if f["induced_lighter"] == "A" else "A") if induced_lighter else f["induced_lighter"]
        parsed.append({v: k for k, v in f["meanings"].items()}[f"{darker} darker"])
    return rows.assign(parsed=parsed)


def test_pse_of_a_scripted_observer_is_its_magnitude(frame):
    rows = frame[(frame["dataset"] == "illusion-magnitude")]
    table = ia.pse_table(_pixel_observer(rows, 3.0))
    assert len(table) == 2 * 2  # two models x two strengths of one kind, pixel framing
    for _, fit in table.iterrows():
        assert fit["status"] == "fit" and fit["n"] == 42
        assert -4.2 < fit["pse"] < -1.8 and fit["magnitude"] == pytest.approx(-fit["pse"])
        assert fit["ci_low"] <= fit["pse"] <= fit["ci_high"]
    fig = fc.pse_figure(table)
    assert len(fig.data) == 2 and all(len(t.x) == 2 for t in fig.data)
    # the random scripted model: one fit per model x framing x kind x strength, whatever its status
    assert set(ia.pse_table(frame)["status"]) <= {"fit", "below-range", "above-range", "too-few"}


def test_pse_table_groups_categorical_keys_as_text_keys(frame):
    """pse_table's groups are `illusions._groups`' (observed keys only): categorical model and kind columns, with
    categories no row has, give the same table as text columns, one row per group that has rows."""
    rows = _pixel_observer(frame[(frame["dataset"] == "illusion-magnitude")], 3.0)
    as_text = ia.pse_table(rows)
    categorical = rows.assign(model=pd.Categorical(rows["model"], categories=[*sorted(rows["model"].unique()),
                                                                              "never-asked"]))
    table = ia.pse_table(categorical)
    assert len(table) == len(as_text) == 4 and "never-asked" not in set(table["model"].astype(str))
    pd.testing.assert_frame_equal(table.assign(model=table["model"].astype(as_text["model"].dtype)), as_text)


def test_people_thresholds_beside_models(frame, reference):
    table = pa.threshold_table(frame)
    people = table[table["who"] == "person"].sort_values("threshold")
    assert len(people) == 2 and set(people["prompt_name"]) == {"huemanity-numeric"}
    # the simulated people answer right above 6 and 10 dE2000 (tests/support/family_rows.py)
    assert people["threshold"].to_numpy() == pytest.approx([6.0, 10.0], abs=1.5)
    assert people["guess"].to_numpy() == pytest.approx([1 / 90, 1 / 90])
    models = table[table["who"] == "model"]
    guess = models["prompt_name"].map({"cbe-open": 1 / 100, "huemanity-numeric": 1 / 90})  # label spaces
    assert set(models["model"]) == {"model-a", "model-b"} and models["guess"].to_numpy() == pytest.approx(guess)
    drawn = {"people"} | ({"models"} if models["status"].ne("too-few").any() else set())  # too-few: counted only
    assert {t.name for t in pc.threshold_figure(table).data} == drawn
    acc = pa.people_accuracy(frame, reference)
    humans = acc[acc["who"] == "person"]
    assert humans["paper_human"].tolist() == pytest.approx([0.9937, 0.9937])
    assert len(pa.human_reference(reference)) >= 20
    assert pa.guess_of_row("plain-open")[0] == 0.0 and "no finite" in pa.guess_of_row("plain-open")[1]


def test_no_rows_of_a_family_give_empty_tables(frame):
    plates_only = frame[frame["family"] == "ishihara"]
    assert ia.family_rows(plates_only, "illusion").empty
    assert (fc.rcid_long(plates_only)["source"] != "ours").all()
    assert ia.pse_table(plates_only).empty and fc.illusionbench_long(plates_only).empty
    assert sc.task_long(plates_only).empty and sc.difficulty_params(plates_only) == []
    assert not pa.has_people(frame[frame["backend"] != "human"])
    with pytest.raises(ValueError, match="allowed: .*Human-like"):
        fc.rcid_figure(fc.rcid_long(frame), "deception")


def test_rows_read_through_duckdb_give_the_same_tables(frame, folder):
    """The dashboard reads collapsed rows through DuckDB (`plates.dashboard.family_queries`, filters applied):
    the same numbers as the Parquet rows read by pandas; a model filter keeps that model's rows only."""
    from plates.dashboard.family_queries import illusion_counts, scene_counts
    from plates.dashboard.queries import Where
    from plates.results.query import open_results

    results = open_results(folder)
    scenes = scene_counts(results, Where())
    ours = sc.task_long(scenes)
    expected = sc.task_long(frame)
    cols = ["model", "task", "value", "n"]
    ours, expected = (t[cols].sort_values(cols[:2]).to_numpy().tolist() for t in (ours, expected))
    assert ours == expected
    only_a = illusion_counts(results, Where({"model": ["model-a"]}))
    assert set(only_a["model"]) == {"model-a"} and set(only_a["family"]) == {"illusion"}
    assert len(ia.pse_table(only_a)) > 0
