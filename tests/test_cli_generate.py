"""`plates generate` end to end: a real subprocess, killed with SIGKILL mid-run, then resumed."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from PIL import Image

from plates.cli import build_parser, main
from plates.datasets import MANIFEST, load_dataset
from plates.stimuli.ishihara.plate import render

ROOT = Path(__file__).resolve().parents[1]


def _cmd(out, *extra):
    return [sys.executable, "-m", "plates.cli", "generate", "--preset", "huemanity-numeric", "--out", str(out),
            "--size", "200", "--no-progress", *extra]


def test_registered_and_bad_preset_is_exit_2(tmp_path, capsys):
    assert "generate" in build_parser().format_help()
    assert main(["generate", "--preset", "nope", "--out", str(tmp_path)]) == 2
    assert "allowed: colorblindnesseval" in capsys.readouterr().err


def test_generate_small_in_process(tmp_path, capsys):
    assert main(["generate", "--preset", "colorblindnesseval", "--out", str(tmp_path), "--limit", "2",
                 "--size", "96", "--workers", "1", "--no-progress"]) == 0
    assert '"written": 4' in capsys.readouterr().out
    assert pq.read_table(tmp_path / MANIFEST).num_rows == 4


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
