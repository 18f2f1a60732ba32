"""plates staircase (issue 15): QUEST+ against a backend, every trial a row, resumable after a kill."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from plates.models.base import Backend, Reply
from plates.results import load_results
from plates.runs.staircase import parse_staircase, run_staircase


class Observer(Backend):
    """A scripted observer with a true threshold: correct above ``threshold`` ΔE2000, wrong below. It reads the
    level the runner asked for from the plate itself: a plate's ΔE2000 is measured on its two colours."""

    kind, model = "scripted", "observer"

    def __init__(self, threshold: float, stop_after: int | None = None) -> None:
        self.threshold, self.stop_after, self.asked = threshold, stop_after, 0

    def ask(self, queries):
        import numpy as np

        from plates.colour import delta_e2000

        for i, q in enumerate(queries):
            self.asked += 1
            if self.stop_after is not None and self.asked > self.stop_after:
                raise KeyboardInterrupt  # the process is stopped mid-run
            pixels = np.asarray(q.turns[-1].images[-1]).reshape(-1, 3)
            colours, counts = np.unique(pixels, axis=0, return_counts=True)
            a, b = colours[np.argsort(counts)[-3:-1]]  # the two dot colours (the most common is the canvas)
            seen = delta_e2000(a, b) > self.threshold
            label = q.turns[-1].text  # the yes/no prompt names its candidate
            yield i, Reply("yes" if seen == ("is" in label) else "no")


def _stair(tmp_path, **kw):
    data = {"prompt": "cbe-yn-correct", "trials": 25, "min_trials": 25, "low": 1.0, "high": 30.0, "seed": 3,
            "out": str(tmp_path / "out"), "models": [{"backend": "baseline", "model": "baseline-cnn"}],
            "stimulus": {"palette": "huemanity-02", "size": 128, "font": "dejavu-sans-bold"}, **kw}
    return parse_staircase(data)


def test_the_estimate_approaches_a_scripted_observers_threshold(tmp_path):
    stair = _stair(tmp_path)
    result = run_staircase(stair, make_backend=lambda *a, **k: Observer(12.0))
    assert result.answered == 25 and result.errors == 0
    assert result.estimate.ci_low - 1.5 <= 12.0 <= result.estimate.ci_high + 1.5
    frame = load_results(tmp_path / "out").frame
    assert len(frame) == 25 and set(frame["dataset"]) == {"staircase"} and frame["row_key"].is_unique
    assert sorted(frame["item_id"]) == [f"trial-{n:04d}" for n in range(25)]
    assert (frame["delta_e"].between(1.0, 30.0)).all()


def test_a_stopped_staircase_continues_to_the_same_answers(tmp_path):
    whole = run_staircase(_stair(tmp_path / "a"), make_backend=lambda *a, **k: Observer(9.0))
    stair = _stair(tmp_path / "b")
    with pytest.raises(KeyboardInterrupt):
        run_staircase(stair, make_backend=lambda *a, **k: Observer(9.0, stop_after=11))
    assert len(load_results(tmp_path / "b" / "out").frame) == 11  # every answered trial was kept
    resumed = run_staircase(stair, make_backend=lambda *a, **k: Observer(9.0))
    assert resumed.history == whole.history and resumed.estimate == whole.estimate
    assert resumed.queries == 25


@pytest.mark.slow
def test_kill_9_then_rerun_finishes_the_run(tmp_path):
    cmd = [sys.executable, "-m", "plates.cli", "staircase", "--prompt", "huemanity-numeric", "--trials", "60",
           "--size", "128", "--out", str(tmp_path / "out")]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, start_new_session=True)
    seen = 0
    while seen < 8:  # wait for some trials to be answered and written
        line = proc.stderr.readline()
        seen += line.startswith("trial")
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    time.sleep(0.2)
    before = len(load_results(tmp_path / "out").frame)
    assert before >= 7
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    frame = load_results(tmp_path / "out").frame
    assert len(frame) == 60 and frame["row_key"].is_unique and "threshold ΔE2000" in done.stdout


def test_bad_staircases_name_what_is_allowed(tmp_path):
    with pytest.raises(ValueError, match="unknown key.*colour.*allowed"):
        parse_staircase({"colour": 1, "prompt": "cbe-open", "models": [{"backend": "baseline", "model": "m"}]})
    with pytest.raises(ValueError, match="no label space.*allowed"):
        _stair(tmp_path, prompt="plain-open")
    with pytest.raises(ValueError, match="exactly one"):
        _stair(tmp_path, models=[])
