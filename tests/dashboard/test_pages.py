"""People and other families on the plate pages: the ΔE2000 page fits plate rows only (an illusion
staircase's signed ΔE2000 is not a plate's contrast), and a person's series reads "person: participant-…"."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from plates.dashboard import pages
from plates.dashboard import views as dashboard
from plates.models.base import Reply
from plates.results import ResultsWriter
from plates.runs.experiment import ModelSpec
from plates.runs.rows import build_row
from plates.runs.staircase import Staircase
from plates.stimuli.illusions import IllusionSpec
from plates.stimuli.ishihara.plate import PlateSpec
from tests.support.dashboard_rows import concat, rows, write_part


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A model and a person on plates (24 each), and the model on 60 illusion trials (more rows than plates)."""
    out = tmp_path_factory.mktemp("mixed")
    model = ModelSpec("openai", "vlm-z")
    plate = Staircase(PlateSpec("12", size=64, palette="huemanity-01"), "huemanity-numeric", model)
    illusion = Staircase(IllusionSpec("simultaneous-contrast", size=64), "rcid-compare-human", model)
    rng = np.random.Generator(np.random.PCG64(3))
    with ResultsWriter(out, "mixed") as writer:
        n = 0
        for who, backend, threshold in (("vlm-z", "openai", 8.0), ("participant-0123abcd", "human", 4.0)):
            for level in np.geomspace(1.0, 30.0, 24):
                shown = plate.present(n, float(level))
                reads = rng.random() < expit(2.0 * (float(level) - threshold))
                writer.add(build_row(plate.asked(shown, run_id="mixed", dataset="quiz", model=who, backend=backend),
                                     Reply(shown.question.target if reads else "?")))
                n += 1
        for level in np.linspace(-10.0, 10.0, 60):
            shown = illusion.present(n, float(level))
            writer.add(build_row(illusion.asked(shown, run_id="mixed", dataset="staircase", model="vlm-z",
                                                backend="openai"), Reply("II" if level > 0 else "I")))
            n += 1
    return out


def test_the_delta_e_page_fits_plates_only_and_names_the_person(folder):
    view = dashboard.View(dashboard.open_results(folder))
    condition = pages.conditions(view)[0]
    prompts = pages.plate_prompts(view, condition)
    assert list(prompts.index) == ["huemanity-numeric"] and int(prompts.iloc[0]) == 48  # 60 illusion rows left out
    page = pages.delta_e(view)
    names = {trace.name for trace in page.figure.data if trace.name}
    assert any(name.startswith("person: participant-0123abcd") for name in names)
    assert not any(name.startswith("participant-") for name in names)
    with pytest.raises(ValueError, match="rcid-compare-human.*no plate answers.*allowed: huemanity-numeric"):
        pages.delta_e(view, prompt="rcid-compare-human")
    # the condition order counts the plates' levels only: the 60 illusion levels are not a sweep of plates
    levels = pages.plate_levels(view)
    assert set(levels["prompt_name"]) == {"huemanity-numeric"} and (levels["level"] > 0).all()


def test_the_delta_e_page_scans_the_levels_once_per_view_and_axis(folder, monkeypatch):
    """The page's controls (the condition order) and its figure run in one script run on one view: the ΔE2000
    levels come from one scan per axis, and the figure's numbers are those of a fresh view's."""
    scans = []
    levels = dashboard.queries.levels
    monkeypatch.setattr(dashboard.queries, "levels", lambda *a, **k: scans.append(k.get("x")) or levels(*a, **k))
    view = dashboard.View(dashboard.open_results(folder))
    pages.delta_e_conditions(view)
    first = pages.delta_e(view)
    again = pages.delta_e(view)
    assert scans == ["delta_e"]
    assert first.table.equals(again.table) and first.figure.to_json() == again.figure.to_json()
    drawn = pages.delta_e(view, x="delta_e_drawn_median")
    assert scans == ["delta_e", "delta_e_drawn_median"]
    fresh = pages.delta_e(dashboard.View(dashboard.open_results(folder)), x="delta_e_drawn_median")
    assert drawn.figure.to_json() == fresh.figure.to_json()


def test_the_overview_names_the_person_too(folder):
    table = pages.overview(dashboard.View(dashboard.open_results(folder))).table
    labels = set(map(str, table.get("series", table.get("model", []))))
    assert any(label.startswith("person: participant-0123abcd") for label in labels), labels


def test_accuracy_beside_the_papers_leaves_out_answers_without_a_key(folder):
    from plates.analysis.people import people_accuracy
    from plates.results import load_results

    frame = load_results(folder).frame
    keyed = frame[(frame["prompt_name"] == "rcid-compare-human") & (frame["expected"].fillna("") != "")]
    assert 0 < len(keyed) < 60  # most staircase trials have no human key (a trap's is undetermined)
    table = people_accuracy(frame)
    rcid = table[table["prompt_name"] == "rcid-compare-human"]
    assert int(rcid["n"].sum()) == len(keyed)
    plates = table[table["prompt_name"] == "huemanity-numeric"].set_index("model")
    assert set(plates.index) == {"vlm-z", "participant-0123abcd"} and (plates["n"] == 24).all()


def test_the_overview_shows_one_stimulus_family_at_a_time_when_asked():
    from tests.support import ROOT

    view = dashboard.View(dashboard.open_results(ROOT / "results"))  # the shipped first-start results
    assert pages.overview_families(view) == ["plates", "illusions", "scenes"]
    plates = pages.overview(view, family="plates").table
    assert set(plates["prompt_name"]) <= {"cbe-open", "cbe-open-clear", "huemanity-numeric"}
    scenes = pages.overview(view, family="scenes").table
    assert set(scenes["prompt_name"]) and all(p.startswith("colorbench-") for p in scenes["prompt_name"])
    with pytest.raises(ValueError, match="allowed: plates, illusions, scenes"):
        pages.overview(view, family="plate")


def test_the_pages_choose_families_by_the_rows_own_family_column():
    """The cube carries the rows' ``family``: a row with no family (a file written before the column) is a
    plate, recoloured scenes are scenes, and every stimulus family has an Overview label, so no page needs the
    task registry to tell plates from illusions."""
    import pandas as pd

    from plates.stimuli import STIMULI
    from plates.tasks import TASKS

    shown = [f for fams in pages.OVERVIEW_FAMILIES.values() for f in fams]
    assert sorted(shown) == sorted(STIMULI) and len(shown) == len(set(shown))
    label = {f: name for name, fams in pages.OVERVIEW_FAMILIES.items() for f in fams}
    # every stimulus a task asks about sits under its task's label: the rows' family groups as the tasks did
    assert {n: {label[f] for f in t.families} for n, t in TASKS.items()} == {
        n: {label[t.family]} for n, t in TASKS.items()}
    cube = pd.DataFrame({"family": pd.Categorical(["ishihara", None, "illusion", "scene-recolour", "scene"])})
    assert pages.of_families(cube, ("ishihara",)).tolist() == [True, True, False, False, False]
    assert pages.of_families(cube, pages.OVERVIEW_FAMILIES["scenes"]).tolist() == [False, False, False, True, True]
    assert pages.of_families(cube, ("illusion",)).tolist() == [False, False, True, False, False]


def test_the_grayscale_page_pairs_once_per_view_whatever_condition_is_drawn(tmp_path, monkeypatch):
    """The condition control and the figure ask for the grayscale page in one run on one view (the figure for
    the condition chosen): one pairing scan, and the same table and notes as a fresh view's."""
    items = [f"i{i}" for i in range(8)]
    frame = concat(*(rows(8, item_id=items, size=size, grayscale=gray, correct=[(i + gray) % 3 > 0 for i in range(8)])
                     for size in (900, 512) for gray in (False, True)))
    write_part(tmp_path / "run" / "part-0.parquet", frame)
    scans = []
    pairs = dashboard.queries.grayscale_pairs
    monkeypatch.setattr(dashboard.queries, "grayscale_pairs", lambda *a, **k: scans.append(1) or pairs(*a, **k))
    view = dashboard.View(dashboard.open_results(tmp_path))
    default = pages.grayscale(view)
    conditions = default.figure.layout.meta["others"]
    chosen = pages.grayscale(view, condition=conditions[0])
    assert len(scans) == 1 and chosen.table.equals(default.table) and chosen.notes == default.notes
    fresh = pages.grayscale(dashboard.View(dashboard.open_results(tmp_path)), condition=conditions[0])
    assert len(scans) == 2 and fresh.figure.to_json() == chosen.figure.to_json()
    assert set(default.table["pairs"]) == {8}


def test_resolution_by_pixels_seen_and_delta_e_after_the_view(tmp_path):
    """Rows with a view plot against the pixels seen; a part written before the view columns existed still
    loads (its rows have no view and stay off that chart)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from plates.results.schema import COLUMNS, VIEW_COLUMNS
    from tests.support.dashboard_rows import typed

    viewed = rows(8, model="vlm-v", size=[300] * 4 + [900] * 4, correct=[True, True, False, False] + [True] * 4,
                  view_family="llava-1.5", view_seen_width=336, view_seen_height=336, view_tiles=1,
                  view_cropped_fraction=0.0, view_figure_cut=False,
                  view_delta_e_median=[10.0, 10.0, 10.0, 10.0, 20.0, 20.0, 20.0, 20.0])
    write_part(tmp_path / "new" / "part-0.parquet", viewed)
    old = typed(rows(4, model="vlm-old", size=300, correct=True)).drop(columns=list(VIEW_COLUMNS))
    schema = pa.schema([pa.field(n, t) for n, (t, _) in COLUMNS.items() if n not in VIEW_COLUMNS])
    (tmp_path / "old").mkdir()
    pq.write_table(pa.Table.from_pandas(old, schema=schema, preserve_index=False), tmp_path / "old" / "part-0.parquet")
    view = dashboard.View(dashboard.open_results(tmp_path))
    page = pages.resolution(view, x="seen")
    assert [t.name for t in page.figure.data] == ["vlm-v · llava-1.5"]
    assert list(page.table["seen_pixels"]) == [112896, 112896] and list(page.table["accuracy"]) == [0.5, 1.0]
    assert len(pages.resolution(view).figure.data) >= 2  # the size sent, as before, for both models
    levels = pages.plate_levels(view, "view_delta_e_median")
    assert sorted(levels["level"].unique()) == [10.0, 20.0] and set(levels["model"]) == {"vlm-v"}
    with pytest.raises(ValueError, match="allowed: size, seen"):
        pages.resolution(view, x="tiles")


def test_how_replies_were_read_follows_the_overviews_stimulus_family(folder):
    view = dashboard.View(dashboard.open_results(folder))
    everything = pages.reading(view)
    plates_only = pages.reading(view, family="plates")
    illusions = pages.reading(view, family="illusions")
    assert set(plates_only.table["prompt_name"]) == {"huemanity-numeric"}
    assert set(illusions.table["prompt_name"]) == {"rcid-compare-human"}
    assert plates_only.table["replies"].sum() + illusions.table["replies"].sum() == everything.table["replies"].sum()
    assert set(plates_only.table["series"]) == {"mixed0", "person: participant-0123abcd"}  # vlm-z's run, by its folder
    with pytest.raises(ValueError, match="family 'fonts' is not known; allowed: plates, illusions, scenes"):
        pages.reading(view, family="fonts")
