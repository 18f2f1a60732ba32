"""The reproduce box (plates.explorer.reproduce): its Python lines and CLI lines are run for real (the baseline
reader) and must give what the explorer gave: the same image sent, reply, answer read and verdict, and the
same plate pixels from ``plates generate --spec``."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from PIL import Image

from plates.explorer import models as em
from plates.explorer import plate as ex
from plates.explorer import reproduce
from plates.explorer.backends import ModelCache
from plates.explorer.policy import Policy
from plates.explorer.share import ModelView
from plates.install import installed_root
from plates.stimuli.ishihara.plate import render

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
CASES = {
    "as rendered": (ex.default_spec().replace(size=256), ModelView()),
    "a condition": (ex.default_spec().replace(text="74", palette="huemanity-06", seed=5, delta_e=12.0, size=320),
                    ModelView(prompt_name="huemanity-numeric", size=192, grayscale=True, hue_shift=90.0,
                              cvd="deutan")),
}


def explorer_answer(spec, view: ModelView):
    """What the Model tab's "Ask the model" gives for ``view`` (the same library call the tab makes)."""
    backend = ModelCache().get(view.choice())
    row, seen = em.ask_one(spec, view.ask(Policy()), backend, colour_set="x", run_id="r")
    return row, seen


def run_python(snippet: str, tmp_path: Path) -> dict:
    probe = ("\nimport hashlib, json\nprint('RESULT', json.dumps([hashlib.sha256(image.tobytes()).hexdigest(), "
             "reply.text, score.parsed, score.correct]))\n")
    done = subprocess.run([sys.executable, "-c", snippet + probe], cwd=tmp_path, env=ENV, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    shown = [line for line in done.stdout.splitlines() if not line.startswith("RESULT")]
    result = json.loads(next(line for line in done.stdout.splitlines() if line.startswith("RESULT"))[7:])
    return {"image": result[0], "reply": result[1], "parsed": result[2], "correct": result[3], "shown": shown}


@pytest.mark.parametrize("case", CASES)
def test_the_python_lines_give_the_explorers_answer(case, tmp_path):
    spec, view = CASES[case]
    row, seen = explorer_answer(spec, view)
    got = run_python(reproduce.python_lines(spec, view), tmp_path)
    assert got["image"] == hashlib.sha256(seen.tobytes()).hexdigest()  # the image as sent, pixel for pixel
    assert (got["reply"], got["parsed"], got["correct"]) == (row["reply"], row["parsed"], row["correct"])
    assert got["shown"] == [f"{row['reply']!r} -> {row['parsed']} {'correct' if row['correct'] else 'wrong'}"]


def test_the_python_lines_carry_what_the_cli_cannot(tmp_path):
    spec = ex.default_spec().replace(size=256, text="8")
    view = ModelView(prompt_text="Which number is drawn in this image? Answer with the number only.",
                     variant="clear", cvd="protan", cvd_severity=0.4)
    row, seen = explorer_answer(spec, view)
    got = run_python(reproduce.python_lines(spec, view), tmp_path)
    assert got["image"] == hashlib.sha256(seen.tobytes()).hexdigest()
    assert (got["reply"], got["parsed"], got["correct"]) == (row["reply"], row["parsed"], row["correct"])
    missing = reproduce.cli_lines(spec, view).missing
    assert len(missing) == 3 and "edited prompt text" in missing[0] and "clear plate" in missing[1]
    assert "CVD severity 0.4" in missing[2]
    assert reproduce.cli_lines(spec, view).text().startswith("# not in these lines (the Python lines have it): ")


def run_cli(line: str, cwd: Path) -> None:
    argv = shlex.split(line)
    assert argv[0] == "plates"
    done = subprocess.run([sys.executable, "-m", "plates.cli", *argv[1:]], cwd=cwd, env=ENV, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_the_cli_lines_give_the_explorers_plate_and_answer(case, tmp_path):
    spec, view = CASES[case]
    row, _ = explorer_answer(spec, view)
    lines = reproduce.cli_lines(spec, view)
    assert lines.missing == () and len(lines.lines) == 2
    for line in lines.lines:
        run_cli(line, tmp_path)
    data = Path(shlex.split(lines.lines[0])[-1])
    manifest = pq.read_table(tmp_path / data / "manifest.parquet").to_pylist()
    assert len(manifest) == 1
    drawn = np.asarray(Image.open(tmp_path / data / manifest[0]["path"]).convert("RGB"))
    assert drawn.tobytes() == np.asarray(render(spec).image).tobytes()  # the explorer's plate, pixel for pixel
    out = tmp_path / reproduce.run_folder(view.choice())
    [cli_row] = pq.read_table(sorted(out.rglob("*.parquet"))).to_pylist()
    for column in ("reply", "parsed", "correct", "prompt_text", "spec_json", "grayscale", "hue_shift", "cvd",
                   "size", "variant"):
        assert cli_row[column] == row[column], column


def test_the_lines_never_hold_a_key_or_url_credentials():
    secret = "sk-repro-7Hn3Qw9Zx"
    view = ModelView(kind="openai", model="m", base_url=f"https://me:{secret}@api.example/v1?key={secret}")
    python, cli = reproduce.reproduce_box(ex.default_spec(), view)
    for text in (python, cli):
        assert secret not in text and "me:" not in text
        assert "https://api.example/v1" in text and reproduce.API_KEY_ENV in text


@pytest.mark.skipif(installed_root() is None, reason="plates is not installed: nothing can be shadowed")
def test_the_python_lines_name_a_shadowing_checkout_before_anything_else(tmp_path):
    # a clone's plates/ (its Python files only: no weights) in the folder the snippet runs in; the installed
    # plates lies elsewhere
    shutil.copytree(ROOT / "plates", tmp_path / "clone" / "plates", ignore=lambda folder, names: [
        n for n in names if not (n.endswith(".py") or os.path.isdir(os.path.join(folder, n)))])
    snippet = reproduce.python_lines(ex.default_spec().replace(size=256), ModelView())
    guard = "\n".join(reproduce.GUARD_LINES) + "\nprint('guard passed')\n"
    assert snippet.startswith("\n".join(reproduce.GUARD_LINES))  # the guard runs before any other import
    runs = {}
    for folder in ("clone", "elsewhere"):
        (tmp_path / folder).mkdir(exist_ok=True)
        runs[folder] = subprocess.run([sys.executable, "-c", guard], cwd=tmp_path / folder, env=ENV,
                                      capture_output=True, text=True, timeout=300)
    assert runs["clone"].returncode == 1 and runs["clone"].stdout == ""
    assert f"`plates` was imported from {(tmp_path / 'clone' / 'plates').resolve()}" in runs["clone"].stderr
    assert "weights" not in runs["clone"].stderr  # the cause is named, not what that checkout lacks
    assert (runs["elsewhere"].returncode, runs["elsewhere"].stdout) == (0, "guard passed\n")
