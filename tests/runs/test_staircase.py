"""plates staircase: QUEST+ against a backend, every trial a row, resumable after a kill."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import pytest

from plates.models.base import Backend, Reply
from plates.results import load_results
from plates.runs.staircase import parse_staircase, run_staircase
from tests.support import ROOT
from tests.support.chat_server import ChatServer, Fault, image_urls
from tests.support.pixel_observer import ComparingObserver, option_for, targets_difference


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
    assert frame["group"].notna().all() and frame["group"].equals(frame["colour_set"])  # a plate's group: its palette
    assert (frame["delta_e"].between(1.0 - 0.05, 30.0 + 0.05)).all()


def test_each_trial_draws_its_own_direction_at_the_level_and_records_it(tmp_path):
    import json

    import numpy as np

    from plates.stimuli.ishihara.directions import TOLERANCE, drawn_delta_e
    from plates.stimuli.ishihara.plate import PlateSpec

    stair = _stair(tmp_path, trials=12, min_trials=12)
    result = run_staircase(stair, make_backend=lambda *a, **k: Observer(12.0))
    frame = load_results(tmp_path / "out").frame.sort_values("item_id")
    specs = [PlateSpec.from_json(s) for s in frame["spec_json"]]
    directions = {s.delta_e_direction for s in specs}
    assert None not in directions and len(directions) == 12  # one direction per trial, in every row
    assert np.allclose(frame["delta_e"], [drawn_delta_e(s) for s in specs])  # the row's level is as drawn
    assert all(abs(drawn_delta_e(s) - s.delta_e) <= TOLERANCE for s in specs)
    assert [level for level, _ in result.history] == frame["delta_e"].tolist()
    assert result.estimate.status == "fit"  # checked: the scripted observer is monotonic in ΔE2000
    # "palette" keeps the palette's own line (one colour per level), under another run id
    line = _stair(tmp_path, directions="palette")
    assert line.run_id != stair.run_id and line.trial(0, 5.0).delta_e_direction is None
    assert json.loads(line.trial(0, 5.0).to_json()).get("delta_e_direction") is None
    with pytest.raises(ValueError, match="directions"):
        _stair(tmp_path, directions="sideways")


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
    cmd = [sys.executable, "-m", "plates.cli", "staircase", "--prompt", "huemanity-numeric", "--trials", "30",
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
    assert len(frame) == 30 and frame["row_key"].is_unique and "threshold ΔE2000" in done.stdout


def test_bad_staircases_name_what_is_allowed(tmp_path):
    with pytest.raises(ValueError, match="unknown key.*colour.*allowed"):
        parse_staircase({"colour": 1, "prompt": "cbe-open", "models": [{"backend": "baseline", "model": "m"}]})
    with pytest.raises(ValueError, match="plain-open.*cannot drive a staircase.*allowed.*cbe-open.*rcid-compare-pixel"):
        _stair(tmp_path, prompt="plain-open")
    with pytest.raises(ValueError, match="stimulus.kind: missing.*allowed"):
        _stair(tmp_path, prompt="rcid-compare-human", stimulus={"size": 128})
    with pytest.raises(ValueError, match="stimulus.family.*allowed: 'illusion'"):
        _stair(tmp_path, prompt="rcid-compare-human", stimulus={"family": "ishihara", "kind": "whites"})
    with pytest.raises(ValueError, match="high=40.0.*not reachable.*allowed"):
        _stair(tmp_path, prompt="rcid-compare-human", low=-5, high=40,
               stimulus={"kind": "neon-spreading", "size": 128})
    with pytest.raises(ValueError, match="rcid-filter.*allowed"):
        _stair(tmp_path, prompt="rcid-compare-human", stimulus={"kind": "rcid-filter", "size": 128})
    with pytest.raises(ValueError, match="low='x' is not valid; allowed: a number or None \\(a ΔE2000"):
        _stair(tmp_path, low="x")
    with pytest.raises(ValueError, match="exactly one"):
        _stair(tmp_path, models=[])


def _illusion(tmp_path, **kw):
    return _stair(tmp_path, prompt="rcid-compare-human", low=-12.0, high=12.0, trials=30, min_trials=30,
                  stimulus={"kind": "simultaneous-contrast", "size": 128}, **kw)


def test_an_illusion_staircase_finds_a_scripted_observers_pse(tmp_path):
    stair = _illusion(tmp_path)
    assert stair.family == "illusion" and stair.measure == "pse"
    observer = ComparingObserver(-4.0)
    result = run_staircase(stair, make_backend=lambda *a, **k: observer)
    e = result.estimate
    assert result.measure == "pse" and result.answered == 30
    # within 1, and the interval within half a ΔE2000 of it (8-bit targets draw the levels within 0.5)
    assert abs(e.threshold - (-4.0)) < 1.0 and e.ci_low - 0.5 <= -4.0 <= e.ci_high + 0.5
    frame = load_results(tmp_path / "out").frame
    assert len(frame) == 30 and set(frame["family"]) == {"illusion"}
    assert set(frame["group"]) == {"simultaneous-contrast"} and frame["colour_set"].isna().all()  # no palette
    # each row records the difference the image draws, which is what the observer measured from its pixels
    assert frame.sort_values("item_id")["delta_e"].to_numpy() == pytest.approx(observer.seen, abs=0.05)
    assert frame["delta_e"].min() < -4.0 < frame["delta_e"].max()
    # the outcome codes replayed from the rows are the observer's answers
    codes = [stair.outcome(r) for r in frame.sort_values("item_id").to_dict("records")]
    assert codes == [1 if x > -3.5 else -1 if x < -4.5 else 0 for x in observer.seen]


def test_an_illusion_staircase_resumes_and_asks_again_after_replies_that_claim_nothing(tmp_path):
    class Stopping(ComparingObserver):
        def ask(self, queries):
            if len(self.seen) >= 10:
                raise KeyboardInterrupt  # the process is stopped mid-run
            yield from super().ask(queries)

    class Mumbler(ComparingObserver):
        def ask(self, queries):
            for i, reply in super().ask(queries):
                yield i, (Reply("I cannot tell from here.") if len(self.seen) % 3 == 0 else reply)

    whole = run_staircase(_illusion(tmp_path / "a"), make_backend=lambda *a, **k: ComparingObserver(2.0))
    stair = _illusion(tmp_path / "b")
    with pytest.raises(KeyboardInterrupt):
        run_staircase(stair, make_backend=lambda *a, **k: Stopping(2.0))
    assert len(load_results(tmp_path / "b" / "out").frame) == 10
    resumed = run_staircase(stair, make_backend=lambda *a, **k: ComparingObserver(2.0))
    assert resumed.history == whole.history and resumed.estimate == whole.estimate
    mumbled = run_staircase(_illusion(tmp_path / "c"), make_backend=lambda *a, **k: Mumbler(2.0))
    assert mumbled.answered == 30 and mumbled.queries == 44  # every third reply claimed nothing: asked again
    frame = load_results(tmp_path / "c" / "out").frame
    assert (frame["parse_status"] != "ok").sum() == 14
    assert abs(mumbled.estimate.threshold - 2.0) < 1.0


def _compare_from_png(body):
    """The chat server's "model": decodes the PNG it was sent and answers as `ComparingObserver` with PSE -3,
    in words (the options' text, as a chatty model would)."""
    from plates.images import data_url_to_image

    x = targets_difference(data_url_to_image(image_urls(body)[-1]))
    return {"II": "II. Right is darker", "I": "I. Left is darker",
            "III": "III. They are exactly same"}[option_for(x, -3.0, 0.5)]


def test_plates_staircase_measures_an_api_models_pse_through_a_real_http_server(tmp_path, capsys):
    from plates.cli import main

    with ChatServer(answer=_compare_from_png, faults=[None, None, Fault.http(400, message="bad request")],
                    models=("comparer",)) as server:
        args = ["staircase", "--prompt", "rcid-compare-pixel", "--kind", "simultaneous-contrast", "--size", "128",
                "--trials", "24", "--low", "-10", "--high", "10", "--backend", "openai", "--model", "comparer",
                "--base-url", server.url, "--no-api-key", "--out", str(tmp_path / "out")]
        assert main(args) == 0, capsys.readouterr().err
        assert server.count == 25  # 24 answers and one failed request, asked again
    out = capsys.readouterr()
    pse = float(re.search(r"PSE \(signed ΔE2000, \+ = A lighter\) (-?[\d.]+) ", out.out).group(1))
    assert abs(pse - (-3.0)) < 1.0 and "after 24 answers, 25 queries (1 failed)" in out.out
    assert "B darker" in out.err and "A darker" in out.err
    frame = load_results(tmp_path / "out").frame
    assert len(frame) == 25 and (frame["parse_status"] == "error").sum() == 1
    assert set(frame["model"]) == {"comparer"} and set(frame["backend"]) == {"openai"}


def test_plates_staircase_jitter_puts_huemanitys_per_dot_jitter_on_every_trial_and_refuses_more(tmp_path, capsys):
    import json

    from plates.cli import main
    from plates.stimuli.ishihara.jitter import HUEMANITY_JITTER

    base = ["staircase", "--prompt", "huemanity-numeric", "--size", "96", "--trials", "2", "--out"]
    assert main([*base, str(tmp_path / "half"), "--jitter", "0.5"]) == 0, capsys.readouterr().err
    specs = [json.loads(s) for s in load_results(tmp_path / "half").frame["spec_json"]]
    assert len(specs) == 2 and all(s[k] == v * 0.5 for s in specs for k, v in HUEMANITY_JITTER.items())
    assert main([*base, str(tmp_path / "none")]) == 0, capsys.readouterr().err
    specs = [json.loads(s) for s in load_results(tmp_path / "none").frame["spec_json"]]
    assert all(s["jitter_rgb"] == 0 and s["jitter_shift"] == 0 for s in specs)  # the default: no jitter
    capsys.readouterr()
    assert main([*base, str(tmp_path / "bad"), "--jitter", "1.5"]) == 2
    assert "jitter=1.5 is not valid; allowed: a number in [0, 1]" in capsys.readouterr().err
    assert not (tmp_path / "bad").exists()


@pytest.mark.parametrize(("name", "measure"), [("staircase-baseline.toml", "threshold"),
                                               ("staircase-illusion.toml", "pse")])
def test_the_example_staircases_load(name, measure):

    from plates.runs.staircase import load_staircase

    stair = load_staircase(ROOT / "examples" / name)
    assert stair.measure == measure and stair.trials == 40


def test_missing_and_broken_toml_files_are_named_for_every_kind_of_file(tmp_path):
    from plates.datasets.grid import load_grid
    from plates.runs.experiment import load_experiment
    from plates.runs.staircase import load_staircase
    from plates.tasks.prompts import load_prompt_file

    broken = tmp_path / "broken.toml"
    broken.write_text("name = [unclosed\n")
    for load, what in ((load_grid, "grid"), (load_experiment, "experiment"), (load_staircase, "staircase"),
                       (load_prompt_file, "prompt")):
        with pytest.raises(ValueError, match=f"{what} file '.*missing.toml' does not exist"):
            load(tmp_path / "missing.toml")
        with pytest.raises(ValueError, match=f"{what} file '.*broken.toml' is not valid TOML"):
            load(broken)
