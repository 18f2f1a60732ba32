"""People beside models on the illusions and the plates: each participant's and each model's point of
subjective equality and ΔE2000 threshold, with a pooled "people (K participants)" fit, in the library
(`plates.charts.people`) and on the dashboard's People and Illusions pages (streamlit AppTest over real
Parquet parts).

The rows are built as the explorer's quiz and `plates staircase` build them (`Staircase.present` ->
`Staircase.asked` -> `build_row`), answered by scripted observers: a person or model with a known PSE on the
illusions, and a known threshold on the plates, with seeded noise. Every expected number is computed again here
from the Parquet rows with `fit_pse` / `fit_psychometric`, independently of the tables under test.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from plates.analysis import illusions as ia
from plates.analysis import people as pa
from plates.analysis.pse import fit_pse
from plates.analysis.psychometric_fits import fit_psychometric
from plates.charts import illusions as fc
from plates.charts import people as pc
from plates.models.base import Reply
from plates.results import ResultsWriter, load_results
from plates.results.reference import load_reference
from plates.runs.rows import build_row
from plates.runs.staircase import parse_staircase
from tests.support.dashboard_app import open_page
from tests.support.dashboard_rows import outcomes, write_part

os.environ.setdefault("STREAMLIT_BROWSER_GATHER_USAGE_STATS", "false")

P1, P2 = "participant-00000000000000a1", "participant-00000000000000b2"
#: observer -> (backend, PSE on the illusion in ΔE2000 towards the induced target, plate threshold ΔE2000)
OBSERVERS = {P1: ("human", -4.0, 6.0), P2: ("human", -1.5, 10.0), "model-a": ("openai", 0.5, 14.0)}
ILLUSION_LEVELS = np.linspace(-10.0, 8.0, 10)
PLATE_LEVELS = np.array([2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 17.0, 20.0, 25.0])
CODES = {"A darker": -1, "same": 0, "B darker": 1}


def _stair(prompt: str, stimulus: dict, model: str, backend: str, tmp: Path):
    return parse_staircase({"prompt": prompt, "stimulus": stimulus, "seed": 7, "out": str(tmp),
                            "models": [{"backend": "baseline" if backend == "human" else backend, "model": model}]})


def _illusion_rows(model: str, backend: str, pse: float, rng: np.random.Generator, tmp: Path) -> list[dict]:
    """Three answers per level: the observer sees the physical difference in favour of the induced target minus
    its PSE, plus Gaussian noise (sd 1.5), and says "same" within ±1 of it."""
    stair = _stair("rcid-compare-human", {"kind": "simultaneous-contrast", "size": 128}, model, backend, tmp)
    rows = []
    for n, level in enumerate(np.repeat(ILLUSION_LEVELS, 3)):
        shown = stair.present(n, float(level))
        asked = stair.asked(shown, run_id=f"quiz-{model}" if backend == "human" else "run-illusion",
                            dataset="quiz" if backend == "human" else "staircase", model=model, backend=backend)
        truth = json.loads(build_row(asked, Reply(""))["truth_json"])
        flip = truth["induced_lighter"] == "B"
        seen = (-shown.level_drawn if flip else shown.level_drawn) - pse + rng.normal(0.0, 1.5)
        induced = "lighter" if seen > 1.0 else "darker" if seen < -1.0 else "same"
        claim = {"same": "same", "lighter": "A darker" if flip else "B darker",
                 "darker": "B darker" if flip else "A darker"}[induced]
        option = next(k for k, v in truth["meanings"].items() if v == claim)
        rows.append(build_row(asked, Reply(option)))
    return rows


def _plate_rows(model: str, backend: str, threshold: float, rng: np.random.Generator, tmp: Path) -> list[dict]:
    """Two answers per level: right (the label) when the level plus noise (sd 2) is above ``threshold``."""
    stair = _stair("huemanity-numeric", {"palette": "huemanity-02", "size": 128, "font": "dejavu-sans-bold"},
                   model, backend, tmp)
    rows = []
    for n, level in enumerate(np.repeat(PLATE_LEVELS, 2)):
        shown = stair.present(n, float(level))
        asked = stair.asked(shown, run_id=f"quiz-{model}" if backend == "human" else "run-plates",
                            dataset="quiz" if backend == "human" else "staircase", model=model, backend=backend)
        seen = shown.level_drawn + rng.normal(0.0, 2.0) > threshold
        rows.append(build_row(asked, Reply(shown.question.expected if seen else "?")))
    return rows


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("people")
    rng = np.random.Generator(np.random.PCG64(15))
    for model, (backend, pse, threshold) in OBSERVERS.items():
        for family, rows in (("illusion", _illusion_rows(model, backend, pse, rng, root / "scratch")),
                             ("plates", _plate_rows(model, backend, threshold, rng, root / "scratch"))):
            out = root / (f"human-{family}" if backend == "human" else "runs")
            with ResultsWriter(out, f"{family}-{model}") as writer:
                for row in rows:
                    writer.add(row)
    return root


@pytest.fixture(scope="module")
def frame(folder) -> pd.DataFrame:
    return load_results(folder).frame


def _expected_pse(rows: pd.DataFrame) -> float:
    """fit_pse on the rows, straight from their truth_json (independent of magnitude_table / pse_table)."""
    x, r = [], []
    for t, parsed in zip(rows["truth_json"], rows["parsed"]):
        truth = json.loads(t)
        flip = truth["induced_lighter"] == "B"
        code = CODES[truth["meanings"][parsed]]
        x.append(-truth["signed_delta_e"] if flip else truth["signed_delta_e"])
        r.append(-code if flip else code)  # +1: the other target darker = the induced target named lighter
    return fit_pse(x, r, alternatives=3).pse


def _expected_threshold(rows: pd.DataFrame) -> float:
    return fit_psychometric(rows["delta_e"], rows["correct"].astype(bool), guess=1 / 90).threshold


def _illusions(frame, models=None):
    rows = frame[frame["family"] == "illusion"]
    return rows if models is None else rows[rows["model"].isin(models)]


def test_pse_people_table_fits_each_participant_the_pool_and_the_models(frame):
    table = pa.pse_people_table(frame)
    assert list(table["model"]) == [pa.pooled_label(2), P1, P2, "model-a"]  # pooled people, people, models
    assert list(table["who"]) == ["person", "person", "person", "model"]
    assert list(table["pooled"]) == [True, False, False, False]
    assert set(table["framing"]) == {"human"} and set(table["kind"]) == {"simultaneous-contrast"}
    assert (table["status"] == "fit").all() and (table["n"] == 30).sum() == 3
    assert table.loc[0, "n"] == 60  # the pool holds both participants' answers
    got = dict(zip(table["model"], table["pse"]))
    for model in (P1, P2, "model-a"):
        assert got[model] == pytest.approx(_expected_pse(_illusions(frame, [model])), abs=1e-6)
        assert got[model] == pytest.approx(OBSERVERS[model][1], abs=1.5)  # the scripted PSE, recovered
    assert got[pa.pooled_label(2)] == pytest.approx(_expected_pse(_illusions(frame, [P1, P2])), abs=1e-6)
    assert table["magnitude"].to_numpy() == pytest.approx(-table["pse"].to_numpy())
    assert (table["ci_low"] <= table["pse"]).all() and (table["pse"] <= table["ci_high"]).all()
    alone = pa.pse_people_table(frame, pooled=False)
    assert list(alone["model"]) == [P1, P2, "model-a"]


def test_pse_people_figure_marks_people_apart_from_models(frame):
    fig = pc.pse_people_figure(pa.pse_people_table(frame))
    by_name = {t.name: t for t in fig.data}
    assert set(by_name) == {f"{pa.pooled_label(2)} (human framing)", f"person: {P1} (human framing)",
                            f"person: {P2} (human framing)", "model-a (human framing)"}
    pooled, person, model = (by_name[f"{pa.pooled_label(2)} (human framing)"],
                             by_name[f"person: {P1} (human framing)"], by_name["model-a (human framing)"])
    assert pooled.marker.symbol == "diamond" and person.marker.symbol == "star"
    assert {pooled.legendgroup, person.legendgroup, model.legendgroup} == {"person", "model"}
    assert person.marker.color != model.marker.color
    assert person.x[0] == pytest.approx(_expected_pse(_illusions(frame, [P1])), abs=1e-6)
    # grouped side by side along y (a vertical grouping would shift the markers along the ΔE2000 axis)
    assert fig.layout.scattermode == "group" and {t.orientation for t in fig.data} == {"h"}


def test_thresholds_with_the_pooled_people(frame):
    plates = frame[frame["family"] == "ishihara"]
    table = pa.threshold_table(frame, pooled=True)
    assert list(table["model"]) == [pa.pooled_label(2), P1, P2, "model-a"]
    assert list(table["pooled"]) == [True, False, False, False]
    got = dict(zip(table["model"], table["threshold"]))
    for model in (P1, P2, "model-a"):
        assert got[model] == pytest.approx(_expected_threshold(plates[plates["model"] == model]), abs=1e-6)
    pooled = _expected_threshold(plates[plates["model"].isin([P1, P2])])
    assert got[pa.pooled_label(2)] == pytest.approx(pooled, abs=1e-6)
    assert got[P1] < got[pa.pooled_label(2)] < got[P2]
    # the default stays per participant, and the figure keeps two traces, the pool a diamond among the people
    assert pa.pooled_label(2) not in set(pa.threshold_table(frame)["model"])
    people = next(t for t in pc.threshold_figure(table).data if t.name == "people")
    assert people.marker.symbol[0] == "diamond" and list(people.marker.symbol[1:]) == ["circle", "circle"]


def test_accuracy_of_people_pooled_beside_the_papers_people(frame):
    acc = pa.people_accuracy(frame, load_reference(), pooled=True)
    plates = frame[(frame["family"] == "ishihara") & frame["backend"].eq("human")]
    pooled = acc[acc["pooled"] & (acc["prompt_name"] == "huemanity-numeric")].iloc[0]
    assert pooled["model"] == pa.pooled_label(2) and pooled["who"] == "person" and pooled["n"] == len(plates)
    assert pooled["accuracy"] == pytest.approx(plates["correct"].astype(bool).mean())
    assert pooled["paper_human"] == pytest.approx(0.9937)  # HueManity Table 2, human accuracy (numeric)
    assert pooled["paper_source"].startswith("HueManity")
    assert not pa.people_accuracy(frame, load_reference())["pooled"].any()


def test_labels_and_pooling_helpers(frame):
    labelled = pa.label_people(frame)
    assert set(labelled["model"]) == {f"person: {P1}", f"person: {P2}", pa.pooled_label(2), "model-a"}
    assert len(labelled) == len(frame) + int((frame["backend"] == "human").sum())
    assert (labelled.loc[labelled["model"] == "model-a", "who"] == "model").all()
    plain = pa.label_people(frame, pooled=False)
    assert len(plain) == len(frame) and not plain["pooled"].any()
    models_only = frame[frame["backend"] != "human"]
    assert len(pa.with_pooled(models_only)) == len(models_only)
    assert pa.pooled_label(1) == "people (1 participant)"
    for bad in (0, -2, 1.5, True):
        with pytest.raises(ValueError, match=f"participants={bad!r} is not valid; allowed: an integer >= 1"):
            pa.pooled_label(bad)
    with pytest.raises(ValueError, match="backend and model"):
        pa.with_pooled(frame.drop(columns=["backend"]))
    assert pa.pse_people_table(frame[frame["family"] == "ishihara"]).empty


def test_people_in_the_illusion_charts_are_named_and_coloured_as_people(frame):
    rows = pa.label_people(ia.family_rows(frame, "illusion"))
    rcid = fc.rcid_long(rows)
    assert {f"person: {P1}", pa.pooled_label(2), "model-a"} <= set(rcid["model"])
    fig = fc.rcid_figure(rcid, "trap accuracy")
    colours = {t.name: t.marker.color for t in fig.data}
    assert colours[pa.pooled_label(2)] == "#a04000" and colours[f"person: {P1}"] == "#e67e22"
    assert colours["model-a"] not in {"#a04000", "#e67e22", "#FFA15A"}
    pse = ia.pse_table(rows)
    assert dict(zip(pse["model"], pse["pse"]))[f"person: {P2}"] == pytest.approx(
        _expected_pse(_illusions(frame, [P2])), abs=1e-6)


def _table(at: AppTest, column: str) -> pd.DataFrame:
    tables = [d.value for d in at.dataframe if column in d.value.columns]
    assert len(tables) == 1, [list(d.value.columns) for d in at.dataframe]
    return tables[0]


def _section(at: AppTest, name: str) -> AppTest:
    """The People page switched to its section ``name`` (one section at a time, each its own scan)."""
    at.radio(key="people_section").set_value(name).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_people_page_shows_thresholds_and_pses_of_people_and_models(monkeypatch, folder, frame):
    at = open_page(monkeypatch, folder, "people")
    assert len(at.get("plotly_chart")) == 1 and "Thresholds (ΔE2000)" in [h.value for h in at.header]
    thresholds = _table(at, "threshold")
    plates = frame[frame["family"] == "ishihara"]
    assert dict(zip(thresholds["model"], thresholds["threshold"]))[pa.pooled_label(2)] == pytest.approx(
        _expected_threshold(plates[plates["model"].isin([P1, P2])]), abs=1e-6)
    _section(at, "Illusions (PSE)")
    assert len(at.get("plotly_chart")) == 1
    assert "Illusions: point of subjective equality (ΔE2000)" in [h.value for h in at.header]
    pse = _table(at, "pse")
    assert list(pse["model"]) == [pa.pooled_label(2), P1, P2, "model-a"]
    got = dict(zip(pse["model"], pse["pse"]))
    assert got[P1] == pytest.approx(_expected_pse(_illusions(frame, [P1])), abs=1e-6)
    assert got[pa.pooled_label(2)] == pytest.approx(_expected_pse(_illusions(frame, [P1, P2])), abs=1e-6)
    chart = at.get("plotly_chart")[0].proto.spec
    assert f"person: {P1}" in chart and pa.pooled_label(2) in chart
    _section(at, "Accuracy beside the papers")
    accuracy = _table(at, "paper_human")
    beside = accuracy[(accuracy["model"] == pa.pooled_label(2)) & (accuracy["prompt_name"] == "huemanity-numeric")]
    assert beside["paper_human"].tolist() == pytest.approx([0.9937])


def test_illusions_page_names_people_as_people(monkeypatch, folder, frame):
    at = open_page(monkeypatch, folder, "illusions")
    assert any("person: participant-" in c.value for c in at.caption)
    pse = _table(at, "magnitude")
    assert {f"person: {P1}", f"person: {P2}", pa.pooled_label(2), "model-a"} == set(pse["model"])
    assert P1 not in set(pse["model"])  # never shown as if it were a model


def test_people_page_without_human_rows_says_how_to_get_them(monkeypatch, tmp_path, frame):
    write_part(tmp_path / "run" / "part-000.parquet", outcomes("a", 7, 10))
    at = open_page(monkeypatch, tmp_path, "people")
    assert len(at.get("plotly_chart")) == 0
    assert any("No human rows" in i.value and "quiz" in i.value for i in at.info), [i.value for i in at.info]


def test_people_page_with_human_plate_rows_only_says_where_illusion_pses_come_from(monkeypatch, folder, tmp_path):
    for part in [*(folder / "runs").rglob("*.parquet"), *(folder / "human-plates").rglob("*.parquet")]:
        target = tmp_path / part.relative_to(folder)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(part.read_bytes())
    at = open_page(monkeypatch, tmp_path, "people")
    assert len(at.get("plotly_chart")) == 1  # the thresholds
    _section(at, "Illusions (PSE)")
    assert len(at.get("plotly_chart")) == 1  # the models' own PSEs (no person's yet)
    assert any("No human illusion rows" in i.value for i in at.info), [i.value for i in at.info]


def test_thresholds_are_one_fit_per_condition_and_colour_set_never_pooled():
    """The bundled reader's complaint: 2,040 rows pooled over colour and grayscale got a 'fit' of 32.3 ΔE2000
    whose accuracy moved with grayscale, not ΔE2000; a model at chance everywhere got 'fit' too."""
    rng = np.random.Generator(np.random.PCG64(21))
    levels = np.repeat(np.arange(1.0, 21.0), 12)
    rows = []
    for model, grayscale, colour_set, p in (
            ("reader", False, "huemanity-01", lambda x: 0.01 + 0.98 / (1 + np.exp(-1.5 * (x - 6.0)))),
            ("reader", True, "huemanity-01", lambda x: np.full(x.shape, 0.01)),
            ("reader", False, "huemanity-02", lambda x: 0.01 + 0.98 / (1 + np.exp(-1.5 * (x - 12.0)))),
            ("chance", False, "huemanity-01", lambda x: np.full(x.shape, 0.5))):
        right = rng.random(levels.size) < p(levels)
        rows += [{"family": "ishihara", "backend": "openai", "model": model, "run_id": "r",
                  "prompt_name": "cbe-yn-correct" if model == "chance" else "huemanity-numeric",
                  "delta_e": x, "correct": bool(c), "grayscale": grayscale, "size": 300, "variant": "standard",
                  "colour_set": colour_set} for x, c in zip(levels, right)]
    frame = pd.DataFrame(rows)
    table = pa.threshold_table(frame)
    assert len(table) == 4 and set(table["condition"]) == {"original @300px", "gray @300px"}
    by = {(r.model, r.condition, r.colour_set): r for r in table.itertuples()}
    colour = by[("reader", "original @300px", "huemanity-01")]
    other_set = by[("reader", "original @300px", "huemanity-02")]
    assert colour.status == "fit" and 5.0 < colour.threshold < 7.0 and colour.n == levels.size
    assert other_set.status == "fit" and 11.0 < other_set.threshold < 13.0
    assert by[("reader", "gray @300px", "huemanity-01")].status in ("above-range", "at-chance")
    chance = by[("chance", "original @300px", "huemanity-01")]
    assert chance.status in ("at-chance", "above-range") and math.isnan(chance.threshold)
    fig = pc.threshold_figure(table)
    labels = [y for trace in fig.data for y in trace.y]
    assert "reader · huemanity-numeric · gray @300px · huemanity-01" in labels
    assert any("no threshold" in t or "above tested range" in t for trace in fig.data for t in trace.text)
