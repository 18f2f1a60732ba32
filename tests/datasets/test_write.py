"""Manifests per family (plates.datasets.write): each family's items show its own columns, no family's field
sits in another's column, old manifests still load, and `plates run` reads a generated folder of each family;
worker processes write the same set as one process, and a family preset's ``--size`` is honoured or refused
naming the allowed sizes."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import subprocess
import sys
import threading

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from plates.cli import main
from plates.colour.spaces import colour_science
from plates.datasets import generate, load_dataset
from plates.datasets.family_presets import FAMILY_PRESETS
from plates.datasets.items import COMMON_COLUMNS, MANIFEST, MANIFEST_COLUMNS
from plates.datasets.write import Entry, check_same_set, measured_values, write_items, write_plate
from plates.results import load_results
from plates.stimuli import render
from plates.stimuli.illusions import IllusionSpec
from plates.stimuli.ishihara import PlateSpec
from plates.stimuli.scenes.colours import farthest_point_bound, palette_subsets
from plates.storage import TEMPORARIES
from tests.support import ROOT, family_hashes
from tests.support.chat_server import ChatServer, last_user_text

ILLUSION_COLUMNS = ["kind", "item_class", "strength", "signed_delta_e2000", "predicted_percept", "human_key"]
SCENE_COLUMNS = ["task", "answer", "answer_text", "options"]


def _generate(preset: str, out, limit: int) -> list[dict]:
    assert main(["generate", "--preset", preset, "--out", str(out), "--limit", str(limit), "--size", "128",
                 "--no-progress"]) == 0
    return pq.read_table(out / MANIFEST).to_pylist()


def test_an_illusion_manifest_speaks_illusion(tmp_path):
    rows = _generate("illusions-classic", tmp_path / "ill", 5)  # control, 2 illusions, 2 traps (±3 ΔE2000)
    # no label, colour_set or plate ΔE column; the ImageFolder convention's file_name last
    assert list(rows[0]) == [*COMMON_COLUMNS, *ILLUSION_COLUMNS, "file_name"]
    assert [r["item_class"] for r in rows] == ["control", "illusion", "illusion", "trap", "trap"]
    assert [r["strength"] for r in rows] == [0.0, 0.5, 1.0, 1.0, 1.0]
    for r in rows:
        spec = IllusionSpec.from_json(r["spec_json"])
        truth = render(spec).truth
        assert (r["family"], r["kind"], r["group"]) == ("illusion", spec.kind, spec.kind)
        assert r["signed_delta_e2000"] == truth["signed_delta_e2000"]  # as drawn, not as asked
        assert r["predicted_percept"] == truth["perceived_lighter"]
    assert rows[0]["signed_delta_e2000"] == 0.0 and rows[0]["predicted_percept"] == "same"
    traps = [r["signed_delta_e2000"] for r in rows[3:]]
    assert traps[0] == pytest.approx(3.0, abs=0.1) and traps[1] == pytest.approx(-3.0, abs=0.1)


def test_the_filter_kind_predicts_colour_names(tmp_path):
    spec = IllusionSpec(kind="rcid-filter", size=128, strength=1.0)
    write_items("f", [Entry("f:0", spec, group="rcid-filter")], tmp_path)
    row = pq.read_table(tmp_path / MANIFEST).to_pylist()[0]
    names = render(spec).truth["colour_names"]
    assert row["predicted_percept"] == f"A: {names['A']['perceived']}, B: {names['B']['perceived']}"


def test_a_scene_manifest_shows_its_question(tmp_path):
    rows = _generate("colorbench-colour-counting", tmp_path / "scn", 3)
    assert list(rows[0]) == [*COMMON_COLUMNS, *SCENE_COLUMNS, "file_name"]
    for r in rows:
        question = json.loads(r["question_json"])
        assert (r["family"], r["task"], r["answer"]) == ("scene", "colour-counting", question["answer"])
        assert json.loads(r["options"]) == question["options"]
        assert r["answer_text"] == question["options"][question["answer"]]


def test_mixed_families_leave_each_others_columns_null(tmp_path):
    plate = PlateSpec(text="12", size=128, palette="colorblindnesseval-1")
    illusion = IllusionSpec(kind="whites", size=128, strength=1.0)
    write_items("mixed", [Entry("p", plate, label="12", group="colorblindnesseval-1"),
                          Entry("i", illusion, group="whites")], tmp_path)
    table = pq.read_table(tmp_path / MANIFEST)
    plate_row, illusion_row = table.to_pylist()
    assert set(MANIFEST_COLUMNS) <= set(table.column_names)  # the plate keeps its columns
    assert plate_row["colour_set"] == "colorblindnesseval-1" and plate_row["delta_e_drawn_median"] > 0
    assert all(plate_row[c] is None for c in ILLUSION_COLUMNS)
    assert all(illusion_row[c] is None for c in ("label", "colour_set", "delta_e", "font", "delta_e_drawn_median"))
    assert illusion_row["kind"] == "whites"
    items = {i.item_id: i for i in load_dataset(tmp_path)}
    assert (items["p"].label, items["p"].group, items["i"].label, items["i"].group) == (
        "12", "colorblindnesseval-1", "", "whites")
    assert items["p"].drawn["delta_e_drawn_median"] == plate_row["delta_e_drawn_median"] and items["i"].drawn is None


def _answer(body: dict) -> str:
    text = last_user_text(body)
    return "(A)" if "(A)" in text else "III"


@pytest.mark.parametrize(("preset", "prompt", "family"), [
    ("rcid-contrast", "rcid-compare-pixel", "illusion"),
    ("colorbench-colour-counting", "colorbench-colour-counting", "scene"),
])
def test_plates_run_over_a_generated_folder_of_each_family(tmp_path, preset, prompt, family):
    rows = _generate(preset, tmp_path / "data", 4)
    with ChatServer(answer=_answer, models=("m",)) as server:
        assert main(["run", "--dataset", str(tmp_path / "data"), "--prompt", prompt, "--backend", "openai",
                     "--model", "m", "--base-url", server.url, "--no-api-key", "--no-progress",
                     "--out", str(tmp_path / "out")]) == 0
    frame = load_results(tmp_path / "out").frame.set_index("item_id")
    assert sorted(frame.index) == sorted(r["item_id"] for r in rows)
    assert set(frame["family"]) == {family} and frame["correct"].notna().all()
    for r in rows:  # the rows' group is the manifest's; colour_set is a plate's only
        assert frame.loc[r["item_id"], "group"] == r["group"]
        assert pd.isna(frame.loc[r["item_id"], "colour_set"])


def _files(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.png"))}


def test_a_family_preset_on_two_workers_is_the_serial_set_byte_for_byte(tmp_path, monkeypatch):
    methods = []
    real = mp.get_context
    monkeypatch.setattr(mp, "get_context", lambda method=None: methods.append(method) or real(method))
    # robustness jobs make 10 entries each: a limit of 13 stops inside the second job
    one = generate("colorbench-robustness", tmp_path / "one", limit=13, size=96, workers=1, progress=False)
    two = generate("colorbench-robustness", tmp_path / "two", limit=13, size=96, workers=2, progress=False)
    assert one["rows"] == two["rows"] == 13
    # alone (a plain `plates generate`), workers fork with what this process imported; a whole-suite run may
    # have left other tests' server threads running, and then they are spawned
    assert methods == ["fork" if threading.active_count() == 1 else "spawn"]
    serial, parallel = _files(tmp_path / "one"), _files(tmp_path / "two")
    assert len(serial) == 13 and serial == parallel
    a = pq.read_table(tmp_path / "one" / "manifest.parquet")
    b = pq.read_table(tmp_path / "two" / "manifest.parquet")
    assert a.equals(b)
    for root in (tmp_path / "one", tmp_path / "two"):  # the ImageFolder link is the manifest; no temporary left
        assert (root / "metadata.parquet").read_bytes() == (root / MANIFEST).read_bytes()
        assert not list(root.rglob(TEMPORARIES))
    assert set(a.column("size").to_pylist()) == {96}
    assert len(set(a.column("item_id").to_pylist())) == 13


def test_family_size_default_honoured_and_refused(tmp_path):
    generate("illusions-classic", tmp_path / "d", limit=1, workers=1, progress=False)
    default = FAMILY_PRESETS["illusions-classic"].default_size
    assert pq.read_table(tmp_path / "d" / "manifest.parquet").column("size").to_pylist() == [default]
    generate("illusions-classic", tmp_path / "s", limit=2, size=900, workers=1, progress=False)
    assert pq.read_table(tmp_path / "s" / "manifest.parquet").column("size").to_pylist() == [900, 900]
    with pytest.raises(ValueError, match=r"size=3000 is not valid; allowed: an integer in \[80, 2048\] "
                                         r"for preset 'illusions-classic'"):
        generate("illusions-classic", tmp_path / "x", limit=1, size=3000, workers=1, progress=False)
    with pytest.raises(ValueError, match=r"workers=0 is not valid"):
        generate("illusions-classic", tmp_path / "x", limit=1, workers=0, progress=False)


def test_a_threaded_caller_gets_spawned_workers_and_the_same_set(tmp_path, monkeypatch):
    methods = []
    real = mp.get_context
    monkeypatch.setattr(mp, "get_context", lambda method=None: methods.append(method) or real(method))
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)  # a caller's thread: forking would copy its locks
    other.start()
    try:
        generate("illusions-classic", tmp_path / "two", limit=3, size=96, workers=2, progress=False)
    finally:
        stop.set()
        other.join()
    generate("illusions-classic", tmp_path / "one", limit=3, size=96, workers=1, progress=False)
    assert methods == ["spawn"]
    assert len(_files(tmp_path / "one")) == 3 and _files(tmp_path / "one") == _files(tmp_path / "two")


def test_family_items_do_not_depend_on_what_the_process_made_before():
    """Every illusion and scene preset's first jobs, made again in the reverse order after the caches they fill
    are emptied (the scene colours' feasibility bound and palette subsets, colour-science's caches), draw the
    same pixels and manifest values: no state carried from one item to the next decides a pixel."""
    jobs = family_hashes.preset_jobs()
    first = family_hashes.hashes(jobs)
    farthest_point_bound.cache_clear()
    palette_subsets.cache_clear()
    colour_science().utilities.CACHE_REGISTRY.clear_all_caches()
    again = family_hashes.hashes(jobs[::-1])
    assert len(first) == len(again) > len(jobs) and again == first


def test_family_items_draw_the_same_in_a_process_with_other_threads_and_heap():
    """The same items from a fresh process with one BLAS/OpenMP thread (this one: the library's default), a
    random hash seed and glibc filling every allocation with junk (``MALLOC_PERTURB_``: an array read before it
    is written would differ) hash the same as here (pixels and manifest values)."""
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
    env.update(PYTHONPATH=str(ROOT), PYTHONHASHSEED="random", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               MALLOC_PERTURB_="165", PYTHONWARNINGS="ignore")
    out = subprocess.run([sys.executable, "-m", "tests.support.family_hashes"], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=300, check=True).stdout
    assert json.loads(out) == family_hashes.hashes(family_hashes.preset_jobs())


def test_write_plate_stores_only_what_is_not_on_disk_whole_and_measures_the_plate(tmp_path):
    """The one plate writer: images missing or damaged are written, whole ones kept; the plate is measured."""
    spec = PlateSpec(text="7", size=96, palette="colorblindnesseval-1")
    paths = (("standard", "set/a/0000_7_standard.png"), ("mask", "set/a/0000_7_mask.png"))
    written, skipped, nbytes, key, values = write_plate(("k", str(tmp_path), spec, paths, 2))
    plate = render(spec)
    assert (written, skipped, key) == (2, 0, "k") and values == measured_values(plate)
    sizes = [(tmp_path / rel).stat().st_size for _, rel in paths]
    assert nbytes == sum(sizes)
    (tmp_path / paths[1][1]).write_bytes(b"\x89PNG\r\n\x1a\n")  # a damaged file with the final name
    assert write_plate(("k", str(tmp_path), spec, paths, 2))[:3] == (1, 1, sizes[1])
    assert write_plate(("k", str(tmp_path), spec, paths, 2))[:3] == (0, 2, 0)


def test_check_same_set_records_once_and_refuses_another_record_or_dataset(tmp_path):
    record = tmp_path / "set" / "made.json"
    check_same_set(tmp_path, "set", "grid", record, {"size": 96}, mismatch=lambda held: f"held {held}")
    assert json.loads(record.read_text()) == {"size": 96}
    check_same_set(tmp_path, "set", "grid", record, {"size": 96}, mismatch=lambda held: f"held {held}")
    with pytest.raises(ValueError, match=r"^held \{'size': 96\}$"):
        check_same_set(tmp_path, "set", "grid", record, {"size": 128}, mismatch=lambda held: f"held {held}")
    with pytest.raises(ValueError, match=r"^made otherwise$"):  # an unrecorded folder's assumed record differs
        check_same_set(tmp_path / "old", "set", "grid", tmp_path / "old" / "made.json", {"size": 96},
                       mismatch=lambda held: "made otherwise", held={"size": 900})
    pq.write_table(pa.table({"dataset": ["other"]}), tmp_path / MANIFEST)
    with pytest.raises(ValueError, match=r"already holds dataset 'other' \(its manifest\.parquet\); allowed: a "
                                         r"separate --out for grid 'set'"):
        check_same_set(tmp_path, "set", "grid", record, {"size": 96}, mismatch=lambda held: "")
