"""plates.datasets: preset contents, deterministic seeds, generation, manifest, resume, loading."""

import json
import multiprocessing as mp
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

import plates.storage
from plates.datasets import (
    MANIFEST,
    MANIFEST_COLUMNS,
    PRESETS,
    generate,
    item_seed,
    load_dataset,
    plate_order,
    preset_items,
    preset_size,
    relative_path,
)
from plates.datasets.family_presets import presets_by_family
from plates.stimuli.ishihara.labels import HUEMANITY_ALNUM, HUEMANITY_DATASET
from plates.storage import TEMPORARIES
from tests.support import ROOT


def test_preset_sizes_match_the_papers():
    assert preset_size("colorblindnesseval") == 1000  # CBE §2.1: 500 pairs
    assert preset_size("huemanity-numeric") == 90 * 25
    assert preset_size("huemanity-alnum") == 3364 * 25
    assert preset_size("huemanity") == 83850  # HueManity §3's count: 3,354 strings x 25 pairs
    assert len(HUEMANITY_DATASET) == 3354 and set(HUEMANITY_DATASET) < set(HUEMANITY_ALNUM)
    with pytest.raises(ValueError, match="allowed: colorblindnesseval"):
        preset_size("ishihara")


def test_items_are_deterministic_unique_and_paired():
    a = list(preset_items("colorblindnesseval"))
    b = list(preset_items("colorblindnesseval"))
    assert a == b and len(a) == 1000 and len({i.item_id for i in a}) == 1000
    std, clear = a[0], a[1]
    assert (std.variant, clear.variant) == ("standard", "clear") and std.spec == clear.spec
    # the CBE preset draws in its paper's style with Arial's regular stand-in; the dense style and
    # Liberation Sans Bold it had before stay available as colorblindnesseval-dense, with the same plate seeds
    assert std.spec.font == "liberation-sans" and std.spec.style == "cbe" and std.spec.jitter_rgb == 0
    dense = next(preset_items("colorblindnesseval-dense"))
    assert (dense.spec.font, dense.spec.style, dense.spec.seed) == ("liberation-sans-bold", "dense", std.spec.seed)
    seeds = {i.spec.seed for i in a}
    assert len(seeds) == 500
    other = next(preset_items("colorblindnesseval", seed=1))
    assert other.spec.seed != std.spec.seed and other.label == std.label
    hm = next(preset_items("huemanity-numeric", size=300))
    assert hm.spec.size == 300 and hm.spec.font == "dejavu-sans-bold-oblique" and hm.spec.jitter_shift == 0.3
    assert item_seed(0, "x", "y", "z") == item_seed(0, "x", "y", "z") < 2**63


def test_paths_unique_even_on_case_insensitive_file_systems():
    paths = [relative_path("huemanity-alnum", pal, li, lab, "standard").lower()
             for li, lab, pal in plate_order("huemanity-alnum", 0)]
    assert len(paths) == len(set(paths)) == 84100


def test_generate_manifest_resume_and_load(tmp_path):
    s = generate("colorblindnesseval", tmp_path, limit=3, size=128, workers=1, progress=False)
    assert s["written"] == 6 and s["rows"] == 6
    table = pq.read_table(tmp_path / MANIFEST)
    # the ImageFolder convention's file_name (= path) ends the manifest (plates.datasets.items.publish_manifest)
    assert tuple(table.column_names) == (*MANIFEST_COLUMNS, "file_name") and table.num_rows == 6
    assert table.column("file_name").to_pylist() == table.column("path").to_pylist()
    assert set(table.column("variant").to_pylist()) == {"standard", "clear"}
    items = load_dataset(tmp_path)
    from plates.stimuli.ishihara.plate import render

    assert table.column("delta_e")[0].as_py() == pytest.approx(render(items[0].spec).stats.delta_e)
    assert len(items) == 6 and all(i.path.is_file() for i in items)
    for it in items[:2]:  # files hold exactly what the spec renders
        assert np.array_equal(np.asarray(it.image()), np.asarray(it.__class__(**{**it.__dict__, "path": None}).image()))
    # resume: a lost image and a leftover temporary file from a killed run
    victim = items[3].path
    victim.unlink()
    (victim.parent / f".{victim.name}.999.tmp").write_bytes(b"half")
    s2 = generate("colorblindnesseval", tmp_path, limit=3, size=128, workers=1, progress=False)
    assert (s2["written"], s2["skipped"], s2["rows"]) == (1, 5, 6)
    assert victim.is_file() and not list(victim.parent.glob(".*.tmp"))
    assert len(load_dataset(tmp_path, limit=4)) == 4


@pytest.mark.parametrize("preset, size", [("colorblindnesseval", 128), ("rcid-contrast", 96)])
def test_resume_redraws_planted_empty_truncated_and_damaged_images(tmp_path, preset, size):
    """A resume trusted any file with the final name: a planted 0-byte, truncated, bit-flipped or wrong-size
    PNG was skipped as done. Both writers (plates and the other families) now draw those again."""
    from PIL import Image

    generate(preset, tmp_path, limit=4, size=size, workers=1, progress=False)
    items = load_dataset(tmp_path)
    good = {it.path: it.path.read_bytes() for it in items}
    empty, truncated, flipped, small = (it.path for it in items[:4])
    empty.write_bytes(b"")
    truncated.write_bytes(good[truncated][: len(good[truncated]) // 2])
    damaged = bytearray(good[flipped])
    damaged[len(damaged) // 2] ^= 0xFF
    flipped.write_bytes(bytes(damaged))
    Image.new("RGB", (8, 8)).save(small)
    again = generate(preset, tmp_path, limit=4, size=size, workers=1, progress=False)
    if preset == "colorblindnesseval":
        assert (again["written"], again["skipped"]) == (4, len(items) - 4)
    for path, data in good.items():
        assert path.read_bytes() == data, path  # every damaged file is the exact image again
    assert not list(tmp_path.rglob(TEMPORARIES)) and not list(tmp_path.rglob(".tmp-*"))


def test_generate_parallel_matches_serial(tmp_path, monkeypatch):
    methods = []
    real = mp.get_context
    monkeypatch.setattr(mp, "get_context", lambda method=None: methods.append(method) or real(method))
    alone = threading.active_count() == 1
    generate("huemanity-numeric", tmp_path / "b", limit=4, size=96, workers=2, progress=False)
    # alone (a plain `plates generate`), the workers fork from this process, even with its progress bar: the pool
    # starts before tqdm's monitor thread (which then outlives the bar); a whole-suite run may have left other
    # tests' threads (tqdm's among them), and then they are spawned
    assert methods == ["fork" if alone else "spawn"]
    generate("huemanity-numeric", tmp_path / "a", limit=4, size=96, workers=1, progress=False)
    serial, parallel = sorted((tmp_path / "a").rglob("*.png")), sorted((tmp_path / "b").rglob("*.png"))
    assert len(serial) == 4  # with no PNG on either side the loop below would assert nothing
    for pa_, pb in zip(serial, parallel, strict=True):
        assert pa_.name == pb.name and pa_.read_bytes() == pb.read_bytes()
    assert pq.read_table(tmp_path / "a" / MANIFEST).equals(pq.read_table(tmp_path / "b" / MANIFEST))


@pytest.mark.parametrize("kw, match", [(dict(limit=-2), "limit"), (dict(workers=0), "workers"),
                                       (dict(size=10), "size"), (dict(compress_level=11), "compress_level")])
def test_generate_bad_input(tmp_path, kw, match):
    with pytest.raises(ValueError, match=match):
        generate("colorblindnesseval", tmp_path, progress=False, **kw)


def test_presets_named_in_contract():
    assert {"colorblindnesseval", "huemanity-numeric", "huemanity-alnum"} <= set(PRESETS)


def test_resume_refuses_another_size_seed_or_preset(tmp_path):
    """Rerunning into a folder made with another --size or --seed skipped every existing image and wrote a
    manifest (size, spec_json) describing pixels that were not on disk; another preset overwrote the manifest."""
    generate("colorblindnesseval", tmp_path, limit=1, size=96, workers=1, progress=False)
    assert generate("colorblindnesseval", tmp_path, limit=2, size=96, workers=1, progress=False)["written"] == 2
    with pytest.raises(ValueError, match=r"made with size=96 seed=0, not size=128 seed=0; allowed: the same"):
        generate("colorblindnesseval", tmp_path, limit=2, size=128, workers=1, progress=False)
    with pytest.raises(ValueError, match=r"not size=96 seed=5"):
        generate("colorblindnesseval", tmp_path, limit=2, size=96, seed=5, workers=1, progress=False)
    with pytest.raises(ValueError, match=r"already holds dataset 'colorblindnesseval'.*allowed: a separate --out"):
        generate("huemanity-numeric", tmp_path, limit=1, size=96, workers=1, progress=False)
    (tmp_path / "colorblindnesseval" / "generate.json").unlink()  # a folder from before the marker existed
    with pytest.raises(ValueError, match=r"made with size=96"):
        generate("colorblindnesseval", tmp_path, limit=2, size=128, workers=1, progress=False)
    assert len(load_dataset(tmp_path)) == 4 and {i.spec.size for i in load_dataset(tmp_path)} == {96}


@pytest.mark.parametrize("preset", ["colorblindnesseval", "illusions-classic"])
def test_the_images_are_flushed_to_disk_before_a_manifest_names_them(tmp_path, monkeypatch, preset):
    """Images are written without an fsync each; the set is flushed once, after its last image and before its
    manifest's name appears (plates.storage.sync_filesystem), so every image a manifest lists is on disk."""
    seen = []

    def flushed(folder):
        seen.append((Path(folder), len(list(tmp_path.rglob("*.png"))), (tmp_path / MANIFEST).exists()))

    # every manifest writer (plate presets streaming theirs, family sets writing theirs whole) goes through
    # plates.storage.written_in_place, which flushes by this
    monkeypatch.setattr(plates.storage, "sync_filesystem", flushed)
    summary = generate(preset, tmp_path, limit=2, size=96, workers=1, progress=False)
    assert seen == [(tmp_path, summary["rows"], False)]
    assert (tmp_path / MANIFEST).is_file() and not list(tmp_path.rglob(TEMPORARIES))


def test_a_family_forks_every_presets_workers_from_its_one_process(tmp_path):
    """`generate_family` pays the imports once: one pool, forked (a spawned worker re-imports colour-science,
    ~1.2 s of CPU), draws every preset. In a fresh interpreter,
    as `plates generate --family` runs (this test process may run other tests' threads)."""
    script = f"""
import json
from plates.datasets import workers
from plates.datasets.generate import generate_family
methods, real = [], workers.mp.get_context
workers.mp.get_context = lambda method=None: methods.append(method) or real(method)
summary = generate_family("illusion", {str(tmp_path)!r}, limit=1, size=96, workers=2, progress=True)
print(json.dumps([methods, summary["rows"]]))
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=300, check=True)
    methods, rows = json.loads(done.stdout.splitlines()[-1])
    assert methods == ["fork"] and rows == len(presets_by_family()["illusion"])  # one pool for the family
