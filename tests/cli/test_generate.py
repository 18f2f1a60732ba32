"""`plates generate` end to end: a real subprocess, killed with SIGKILL mid-run, then resumed."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pyarrow.parquet as pq
import pytest
from PIL import Image

from plates.cli import build_parser, main
from plates.datasets import MANIFEST, MANIFEST_COLUMNS, load_dataset
from plates.datasets import workers as workers_module
from plates.datasets.family_presets import presets_by_family
from plates.stimuli.ishihara.plate import render
from tests.support import ROOT
from tests.support.grids import GRID


def _cmd(out, *extra):
    return [sys.executable, "-m", "plates.cli", "generate", "--preset", "huemanity-numeric", "--out", str(out),
            "--size", "200", "--no-progress", *extra]


def test_registered_and_bad_preset_is_exit_2(tmp_path, capsys):
    assert "generate" in build_parser().format_help()
    assert main(["generate", "--preset", "nope", "--out", str(tmp_path)]) == 2
    assert "allowed: plate: colorblindnesseval" in capsys.readouterr().err


def test_generate_small_in_process(tmp_path, capsys):
    assert main(["generate", "--preset", "colorblindnesseval", "--out", str(tmp_path), "--limit", "2",
                 "--size", "96", "--workers", "1", "--no-progress"]) == 0
    assert '"written": 4' in capsys.readouterr().out
    assert pq.read_table(tmp_path / MANIFEST).num_rows == 4


def test_the_cli_passes_workers_and_size_to_a_family_preset(tmp_path, capsys):
    assert main(["generate", "--preset", "rcid-contrast", "--out", str(tmp_path), "--limit", "3", "--size", "128",
                 "--workers", "2", "--no-progress"]) == 0
    assert pq.read_table(tmp_path / "manifest.parquet").column("size").to_pylist() == [128] * 3
    assert main(["generate", "--preset", "rcid-contrast", "--out", str(tmp_path / "b"), "--size", "4000",
                 "--no-progress"]) == 2
    assert "allowed: an integer in [64, 2048] for preset 'rcid-contrast'" in capsys.readouterr().err


@pytest.mark.slow
def test_kill_9_then_resume(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = tmp_path / "set"
    proc = subprocess.Popen(_cmd(out, "--limit", "400", "--workers", "2"), cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline and len(list(out.rglob("*.png"))) < 20:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # the whole process group: main process and its workers
    proc.wait(timeout=30)
    done = list(out.rglob("*.png"))
    assert 20 <= len(done) < 400, "the run should be interrupted part-way"
    assert all(not p.name.startswith(".tmp-") for p in done)  # partial files never look like PNGs
    for p in done:  # every image on disk is complete
        with Image.open(p) as im:
            im.load()
    assert not (out / MANIFEST).exists()

    res = subprocess.run(_cmd(out, "--limit", "400", "--workers", "2"), cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    assert not list(out.rglob(".tmp-*"))
    items = load_dataset(out)
    assert len(items) == 400 == len(list(out.rglob("*.png")))
    for it in items[::97]:  # written by other processes, byte-identical to rendering here
        with Image.open(it.path) as im:
            assert np.array_equal(np.asarray(im.convert("RGB")), np.asarray(render(it.spec).image))


def test_out_under_a_file_is_one_line_not_a_traceback(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    assert main(["generate", "--preset", "colorblindnesseval", "--limit", "1", "--size", "64",
                 "--no-progress", "--out", str(blocker / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(blocker) in err and "allowed:" in err
    assert blocker.read_text() == "x"


def _pairs(spec) -> list[float]:
    """CIEDE2000 of every drawn foreground x background pair, computed here (sRGB 0-255 -> colour-science)."""
    from plates.colour import delta_e2000

    fg, bg = spec.colours
    return [float(delta_e2000(np.array(f, float), np.array(b, float))) for f in fg for b in bg]


def test_a_grid_file_makes_a_dataset_with_its_manifest(tmp_path, capsys):
    """Regression: custom benchmark sets were possible only from Python. A grid file -> PNGs + manifest that
    load_dataset and `plates run` read; pixels equal the spec's; ΔE2000 drawn and asked in the manifest."""
    grid = tmp_path / "grid.toml"
    grid.write_text(GRID)
    out = tmp_path / "set"
    assert main(["generate", "--grid", str(grid), "--out", str(out), "--workers", "1", "--no-progress"]) == 0
    summary = json.loads(capsys.readouterr().out)
    # 2 labels x 2 colour sets x 2 fonts x 2 ΔE2000 x 1 size, 2 variants each
    assert (summary["plates"], summary["written"], summary["rows"]) == (16, 32, 32)
    frame = pq.read_table(out / MANIFEST).to_pandas()
    # the preset manifests' columns, drawn ΔE2000 included, and the ImageFolder convention's file_name
    assert tuple(frame.columns) == (*MANIFEST_COLUMNS, "file_name")
    assert set(frame["colour_set"]) == {"colorblindnesseval-1", "brick-on-sage"}
    assert frame["item_id"].is_unique
    items = load_dataset(out)
    assert len(items) == 32 == len(list(out.rglob("*.png")))
    for item, row in zip(items, frame.itertuples()):
        with Image.open(item.path) as im:  # the file's pixels are the spec's plate
            expected = np.asarray(render(item.spec).variant(item.variant))
            assert np.array_equal(np.asarray(im.convert("RGB")), expected)
        assert row.delta_e == pytest.approx(np.mean(_pairs(item.spec)), abs=1e-9)
        assert (row.delta_e_target is None or np.isnan(row.delta_e_target)) == (item.spec.delta_e is None)
        pairs = _pairs(item.spec)  # no jitter here: every drawn dot pair is one of the colour set's pairs
        assert min(pairs) - 1e-6 <= row.delta_e_drawn_min <= row.delta_e_drawn_median <= max(pairs) + 1e-6
    asked = frame[frame["delta_e_target"] == 4]
    assert set(asked["colour_set"]) == {"colorblindnesseval-1", "brick-on-sage"}
    # each plate at ΔE2000 4 has its own CIELAB direction and one background colour within 0.05 of 4 as drawn
    at_4 = [item.spec for item in items if item.spec.delta_e == 4]
    assert len({s.delta_e_direction for s in at_4}) == len(at_4) // 2  # two variants per plate
    from plates.stimuli.ishihara.directions import drawn_delta_e

    assert all(len(s.colours[1]) == 1 and abs(drawn_delta_e(s) - 4) <= 0.05 for s in at_4)
    # the same label, colour set, font and size: the same dots at every ΔE2000 (only colours change)
    same = frame[(frame["label"] == "12") & (frame["colour_set"] == "brick-on-sage")
                 & (frame["font"] == "liberation-sans-bold") & (frame["variant"] == "standard")]
    assert len(set(same["seed"])) == 1 and len(same) == 2
    from plates.datasets.grid import load_grid

    line = tmp_path / "line.toml"
    line.write_text(GRID.replace("[0, 4]", "[0, 4]\ndirections = 'palette'"))
    assert all(load_grid(line).spec("12", c, "liberation-sans-bold", 4.0, 96).delta_e_direction is None
               for c in load_grid(line).colour_sets)
    again = main(["generate", "--grid", str(grid), "--out", str(out), "--workers", "1", "--no-progress"])
    assert again == 0 and json.loads(capsys.readouterr().out)["skipped"] == 32  # resumable
    grid.write_text(GRID.replace("[0, 4]", "[0, 5]"))
    assert main(["generate", "--grid", str(grid), "--out", str(out), "--no-progress"]) == 2
    assert "made from another grid file" in capsys.readouterr().err
    # and a model runs on it like on any generated folder
    assert main(["run", "--dataset", str(out), "--prompt", "plain-open", "--backend", "baseline",
                 "--limit", "4", "--no-progress", "--out", str(tmp_path / "runs")]) == 0, \
        capsys.readouterr().err


def test_grid_takes_no_preset_flags(tmp_path, capsys):
    (tmp_path / "g.toml").write_text(GRID)
    assert main(["generate", "--grid", str(tmp_path / "g.toml"), "--size", "200",
                 "--out", str(tmp_path)]) == 2
    assert "--size cannot be combined with --grid" in capsys.readouterr().err


def test_the_command_keeps_freed_memory_as_its_workers_do(tmp_path, monkeypatch, capsys):
    # a --workers 1 run renders in the command's own process: glibc keeps its freed arrays there too (measured:
    # half the system CPU of a colour-counting or HueManity run on one worker)
    calls = []
    monkeypatch.setattr(workers_module, "keep_freed_memory", lambda: calls.append(True) or True)
    assert main(["generate", "--preset", "colorblindnesseval", "--limit", "1", "--size", "64", "--workers", "1",
                 "--out", str(tmp_path / "one"), "--no-progress"]) == 0
    assert calls == [True] and json.loads(capsys.readouterr().out)["rows"] == 2


def _tree(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_family_writes_every_preset_as_preset_would(tmp_path, capsys):
    """`--family illusion` = `--preset P --out OUT/P` for each illusion preset, file for file (PNGs, manifest,
    generate.json), with workers forked in this one process for every preset (a worker count of 2 against 1)."""
    names = presets_by_family()["illusion"]
    assert main(["generate", "--family", "illusion", "--out", str(tmp_path / "fam"), "--limit", "2",
                 "--size", "96", "--workers", "2", "--no-progress"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["family"] == "illusion" and list(summary["presets"]) == list(names)
    assert summary["rows"] == 2 * len(names)
    assert sorted(p.name for p in (tmp_path / "fam").iterdir()) == sorted(names)
    for name in names:
        assert main(["generate", "--preset", name, "--out", str(tmp_path / "one" / name), "--limit", "2",
                     "--size", "96", "--workers", "1", "--no-progress"]) == 0
        got, want = _tree(tmp_path / "fam" / name), _tree(tmp_path / "one" / name)
        assert len(got) >= 4 and got == want, name  # 2 PNGs, the manifest, generate.json at least


def test_family_refuses_a_size_one_preset_cannot_take_before_writing_anything(tmp_path, capsys):
    out = tmp_path / "fam"
    assert main(["generate", "--family", "illusion", "--out", str(out), "--size", "3000", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "size=3000 is not valid; allowed: an integer in [64, 2048] for preset 'rcid-contrast'" in err
    assert not out.exists()


@pytest.mark.parametrize(("argv", "message"), [
    (["--family", "plate"], "family 'plate' is not known; allowed: illusion, scene (plate presets: one at a time"),
    (["--family", "ilusion"], "did you mean 'illusion'?"),
    (["--family", "scene", "--sample", "5"], "--sample cannot be combined with --family"),
])
def test_family_bad_input_names_what_is_allowed(tmp_path, capsys, argv, message):
    assert main(["generate", *argv, "--out", str(tmp_path / "x"), "--no-progress"]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_family_and_preset_are_one_choice(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["generate", "--family", "scene", "--preset", "rcid-contrast", "--out", str(tmp_path)])
    assert "not allowed with argument" in capsys.readouterr().err


def test_family_shards_into_one_out_equal_the_unsharded_family(tmp_path, capsys):
    common = ["--family", "illusion", "--limit", "3", "--size", "96", "--workers", "1", "--no-progress"]
    assert main(["generate", *common, "--out", str(tmp_path / "whole")]) == 0
    for i in (1, 2):
        assert main(["generate", *common, "--out", str(tmp_path / "sharded"), "--shard", f"{i}/2"]) == 0
    capsys.readouterr()
    got, want = _tree(tmp_path / "sharded"), _tree(tmp_path / "whole")
    assert {k: v for k, v in got.items() if "manifest.shards" not in k} == want


def test_a_family_refuses_limit_with_shard_before_writing_anything(tmp_path, capsys):
    out = tmp_path / "scenes"
    assert main(["generate", "--family", "scene", "--limit", "2", "--shard", "1/2", "--out", str(out),
                 "--no-progress"]) == 2
    assert "preset 'colorbench-robustness', whose items are several images each" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("preset", ["illusions-classic", "illusion-magnitude"])
def test_a_size_too_small_for_a_presets_stripes_is_refused_before_writing(tmp_path, capsys, preset):
    """White's-illusion items draw 40 stripes of at least 1 px: 72 px was accepted, then failed mid-set."""
    out = tmp_path / "set"
    assert main(["generate", "--preset", preset, "--size", "72", "--out", str(out), "--no-progress"]) == 2
    assert f"size=72 is not valid; allowed: an integer in [80, 2048] for preset {preset!r}" in capsys.readouterr().err
    assert not out.exists()
    assert main(["generate", "--preset", preset, "--size", "80", "--limit", "3", "--workers", "1", "--out",
                 str(out), "--no-progress"]) == 0
