"""The explorer's CPU work in worker processes (plates.explorer.pool): plates, illusions and scenes drawn there
with the same bytes as in this process (and, for the plate's views, as Gradio's own encoder), the bundled
reader's answers and the quiz's images computed there and not here, a full pool refusing in words, the worker count from the
environment, and a public app whose work runs in real workers serving what a private app serves."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import gradio as gr
import psutil
import pytest
from gradio.processing_utils import encode_pil_to_bytes

from plates.admission import Refused
from plates.analysis.adaptive import AdaptiveState
from plates.explorer import families as fv
from plates.explorer import models as em
from plates.explorer import plate as ex
from plates.explorer import quiz as qv
from plates.explorer.backends import ModelCache, ModelChoice
from plates.explorer.concurrency import RENDER_WORKERS_ENV
from plates.explorer.policy import Policy
from plates.explorer.pool import ExplorerPool, PooledBaseline, encode_views, jpeg_bytes
from plates.explorer.sweep import requested_delta_e, sweep
from plates.images import StoredPng
from plates.models.baseline import BaselineBackend
from plates.reader.reader import BaselineReader
from plates.runs import staircase
from plates.runs.quiz import QuizLimits, QuizSession
from tests.support import pool_tasks

SPEC = ex.default_spec().replace(size=256, delta_e=6.0, seed=11, text="38")
CONTROLS = tuple(ex.spec_to_controls(SPEC).__dict__.values())
POLICY = Policy(public=True)
ILLUSION = fv.IllusionControls("whites", 1.0, -3.0, "up-down", False, 5, 256)
SCENE = fv.SceneControls(seed=2, size=256, palette="xkcd-basic-11")
ASK = em.Ask("cbe-open")
SWEEP = [3.0, 6.0, 9.0, 12.0, 15.0]
#: What the reader's answer decides in a row (latency and row key differ from ask to ask).
ANSWERED = ("reply", "parsed", "expected", "correct", "parse_status", "model", "backend", "model_revision",
            "generation_json", "delta_e", "spec_json")


@pytest.fixture(scope="module")
def work():
    pool = ExplorerPool(2)
    pool.start()
    assert pool.pool.wait_ready(180)
    yield pool
    pool.close()


def _gone(pids: list[int]) -> bool:
    return not any(psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE for p in pids)


def _unreadable(self, image, space):
    raise AssertionError("the reader ran in the server process")


def test_views_are_encoded_byte_for_byte_as_gradio_encodes_them():
    views = ex.render_views(SPEC)
    encoded = encode_views(SPEC)
    assert encoded.png == ex.png_bytes(views.images["plate"]) and encoded.stats == views.stats
    assert set(encoded.jpeg) == set(ex.VIEWS[1:])
    for v in ex.VIEWS[1:]:
        assert encoded.jpeg[v] == jpeg_bytes(views.images[v]) == encode_pil_to_bytes(views.images[v], "jpeg")


def test_worker_renders_equal_this_processs_and_fill_the_plates_on_screen(work):
    here = encode_views(SPEC)
    calls = work.pool.calls
    there = work.from_controls(POLICY, None, *CONTROLS)
    assert there.plate.spec == SPEC
    assert (there.png, there.jpeg, there.stats) == (here.png, here.jpeg, here.stats)
    assert len(work.pool.pids()) == 2
    assert work.plates(SPEC) is there.plate  # a model asked about it does not render it again
    other = SPEC.replace(seed=12)  # a plate not on screen (a sweep's) is drawn by a worker too
    assert work.plates(other).image.tobytes() == ex.render(other).image.tobytes()
    assert work.pool.calls == calls + 2


def test_a_sweeps_plates_are_drawn_at_once_in_the_workers_and_kept_for_it(work):
    specs = [SPEC.replace(delta_e=v, seed=40 + i) for i, v in enumerate(SWEEP)]
    calls = work.pool.calls
    drawn = work.plates_for(specs)
    assert work.pool.calls == calls + len(specs)
    for spec in specs:
        assert drawn(spec).image.tobytes() == ex.render(spec).image.tobytes()
    assert work.pool.calls == calls + len(specs)  # asking about them draws nothing more
    assert ExplorerPool(0).plates_for(specs)(specs[0]).spec == specs[0]  # in this process: drawn when asked


def test_closing_stops_the_workers_and_a_later_call_starts_fresh_ones():
    work = ExplorerPool(1)
    try:
        work.start()
        pids = work.pool.pids()
        work.close()
        assert work.pool is None and _gone(pids)
        assert work.illusion(ILLUSION, POLICY, False).png  # fresh workers
        assert not set(work.pool.pids()) & set(pids)
    finally:
        work.close()


def test_in_process_work_goes_through_the_cache_and_the_readers_own_backend():
    work = ExplorerPool(0)
    encoded = work.from_controls(POLICY, None, *CONTROLS)
    assert encoded.plate.spec == SPEC and work.plates(SPEC) is encoded.plate
    assert isinstance(work.make_backend("baseline"), BaselineBackend)
    assert work.illusion(ILLUSION, POLICY, True).png and work.pool is None  # no worker was started


def test_a_bad_control_is_refused_in_words_from_a_worker_too(work):
    bad = (ex.CUSTOM, "not-a-colour", *CONTROLS[2:])  # custom colours, a bad foreground
    for where in (ExplorerPool(0), work):
        with pytest.raises(ValueError, match="foreground colour 'not-a-colour' is not a colour"):
            where.from_controls(POLICY, None, *bad)
        with pytest.raises(ValueError, match="task 'nope' is not known; allowed: colour-extraction, "):
            where.scene(SCENE, POLICY, "nope")
        with pytest.raises(ValueError, match=r"image size \(px\)=8 is not valid"):
            where.illusion(fv.IllusionControls(size=8), POLICY, True)


def test_illusions_and_scenes_drawn_in_a_worker_equal_this_processs(work):
    here = ExplorerPool(0)
    calls = work.pool.calls
    for outline in (True, False):
        assert work.illusion(ILLUSION, POLICY, outline) == here.illusion(ILLUSION, POLICY, outline)
    assert work.scene(SCENE, POLICY, "colour-counting") == here.scene(SCENE, POLICY, "colour-counting")
    assert work.scene(SCENE, POLICY, "colour-comparison").question.startswith(
        "**Not askable:** this scene cannot carry a colour-comparison question")
    stim, mine = work.stimulus(ILLUSION, POLICY), fv.render_illusion_controls(ILLUSION, POLICY)
    assert stim.image.tobytes() == mine.image.tobytes() and stim.truth == mine.truth
    assert all((stim.masks[k] == mine.masks[k]).all() for k in ("A", "B"))
    assert work.pool.calls == calls + 5


def test_the_readers_answers_are_computed_in_the_workers_not_here(work, monkeypatch):
    reader = ModelCache().get(ModelChoice())  # in this process, before the reader is made unusable here
    one = em.ask_plate(SPEC, ASK, reader, colour_set="x", run_id="r")
    swept = sorted(sweep(SPEC, SWEEP, ASK, reader, colour_set="x", run_id="r"), key=requested_delta_e)
    monkeypatch.setattr(BaselineReader, "read", _unreadable)  # this process only: the workers never see it
    with pytest.raises(AssertionError, match="the reader ran in the server process"):
        em.ask_plate(SPEC, ASK, reader, colour_set="x", run_id="r")  # so the check below can fail
    pooled = ModelCache(work.make_backend).get(ModelChoice())
    assert isinstance(pooled, PooledBaseline) and (pooled.kind, pooled.model) == (reader.kind, reader.model)
    calls = work.pool.calls
    there, _ = em.ask_one(SPEC, ASK, pooled, colour_set="x", run_id="r", renderer=work.plates)
    assert {k: there[k] for k in ANSWERED} == {k: one[k] for k in ANSWERED} and there["correct"]
    rows = sorted(sweep(SPEC, SWEEP, ASK, pooled, colour_set="x", run_id="r"), key=requested_delta_e)
    assert [{k: r[k] for k in ANSWERED} for r in rows] == [{k: r[k] for k in ANSWERED} for r in swept]
    assert work.pool.calls >= calls + 1 + len(SWEEP)  # the sweep's plates were rendered here (no cache given)


def test_the_quiz_readers_staircase_runs_in_a_worker_with_the_same_estimate(work, tmp_path, monkeypatch):
    config = qv.QuizConfig(trials=8, illusion_trials=3, size=128)
    person = qv.start_session(config, agreed=True, started=0).staircase
    here = qv.ReaderCache(tmp_path / "here").estimate(person)
    monkeypatch.setattr(BaselineReader, "read", _unreadable)  # this process only
    calls = work.pool.calls
    there = qv.ReaderCache(tmp_path / "there", run=work.run).estimate(person)
    assert work.pool.calls == calls + 1
    assert (there.threshold, there.ci_low, there.ci_high, there.trials) == (
        here.threshold, here.ci_low, here.ci_high, here.trials)


def test_a_quiz_trials_image_is_drawn_and_encoded_in_a_worker_with_this_processs_bytes(work, monkeypatch):
    """Both blocks (plates and the illusion) of two sessions with one seed and the same answers: the worker
    chooses the same levels and its trials carry the PNG it encoded (sent back as those bytes), byte for byte
    this process's, and record the same rows."""
    limits = QuizLimits(min_seconds_between=0.0)
    start = dict(trials=3, illusion_trials=3, size=128, seed=5, limits=limits)
    here, there = QuizSession.start(**start), QuizSession.start(**start)
    answers = ["12", "I", "?", "III", "7", "II"]
    mine = []
    for text in answers:
        trial = here.next_trial()
        mine.append((trial, ex.png_bytes(trial.image)))
        here.answer(text)
    monkeypatch.setattr(staircase, "render", _drawn_here)  # this process only: the workers never see it
    monkeypatch.setattr(AdaptiveState, "next_level", _drawn_here)  # nor is the next level chosen here
    with pytest.raises(AssertionError, match="a quiz trial was drawn in the server process"):
        QuizSession.start(**start).next_trial()  # so the checks below can fail
    calls = work.pool.calls
    for (trial, png), text in zip(mine, answers):
        theirs = there.next_trial(work.quiz_trial)
        assert isinstance(theirs.image, StoredPng) and ex.png_bytes(theirs.image) == png
        assert (theirs.number, theirs.block, theirs.level, theirs.prompt, theirs.options) == (
            trial.number, trial.block, trial.level, trial.prompt, trial.options)
        there.answer(text)
    assert work.pool.calls == calls + len(answers)
    assert {t.block for t, _ in mine} == {"plate", "illusion"}
    fields = ("item_id", "spec_json", "delta_e", "parsed", "correct", "family", "size", "truth_json")
    assert [{k: r[k] for k in fields} for r in there.rows] == [{k: r[k] for k in fields} for r in here.rows]


def test_a_directions_trial_is_drawn_in_a_worker_with_this_processs_bytes_and_rows(work, monkeypatch):
    """The quiz's directions mode: two sessions with one seed and the same answers; the worker picks the same
    levels and draws the same plates (its PNG byte for byte this process's), and the rows are the same."""
    from plates.runs import ellipse_trials
    from plates.runs.quiz_directions import DirectionsSession

    start = dict(directions=3, trials=10, size=128, seed=7, limits=QuizLimits(min_seconds_between=0.0))
    here, there = DirectionsSession.start(**start), DirectionsSession.start(**start)
    answers = ["12", "?", "7", "12", "?"]
    mine = []
    for text in answers:
        trial = here.next_trial()
        mine.append((trial, ex.png_bytes(trial.image)))
        here.answer(text)
    monkeypatch.setattr(ellipse_trials, "render", _drawn_here)  # this process only: the workers never see it
    monkeypatch.setattr(AdaptiveState, "next_level", _drawn_here)
    with pytest.raises(AssertionError, match="drawn in the server process"):
        DirectionsSession.start(**start).next_trial()
    calls = work.pool.calls
    for (trial, png), text in zip(mine, answers, strict=True):
        theirs = there.next_trial(work.direction_trial)
        assert isinstance(theirs.image, StoredPng) and ex.png_bytes(theirs.image) == png
        assert (theirs.number, theirs.block, theirs.level) == (trial.number, trial.block, trial.level)
        there.answer(text)
    assert work.pool.calls == calls + len(answers)
    fields = ("item_id", "spec_json", "level", "level_shown", "parsed", "correct", "direction")
    assert [{k: r[k] for k in fields} for r in there.rows] == [{k: r[k] for k in fields} for r in here.rows]


def _drawn_here(_):
    raise AssertionError("a quiz trial was drawn in the server process")


def test_a_full_pool_tells_the_visitor_the_server_is_busy_for_answers_and_family_renders():
    work = ExplorerPool(1, max_pending=1)
    try:
        work.start()
        assert work.pool.wait_ready(180)
        plates = ex.PlateCache()
        plates(SPEC)  # on screen: asking about it needs only the answer
        reader = work.make_backend("baseline")
        busy = threading.Thread(target=work.run, args=(pool_tasks.sleep, 3.0))
        busy.start()
        deadline = time.monotonic() + 10
        while work.pool.calls < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        attempts = {"an answer": lambda: em.ask_one(SPEC, ASK, reader, colour_set="x", run_id="r", renderer=plates),
                    "an illusion": lambda: work.illusion(ILLUSION, POLICY, True),
                    "a scene": lambda: work.scene(SCENE, POLICY, "colour-counting"),
                    "a stimulus to ask about": lambda: work.stimulus(SCENE, POLICY),
                    "a quiz trial": lambda: QuizSession.start(size=64).next_trial(work.quiz_trial)}
        for attempt in attempts.values():
            with pytest.raises(Refused, match="this server is busy: 1 renders and answers are waiting or "
                                              "running, its most at once. Please try again in a few seconds."):
                attempt()
        from plates.explorer import app as explorer_app

        shown = explorer_app.guarded(attempts["an illusion"], hide_paths=True)  # what the page says
        with pytest.raises(gr.Error, match="this server is busy.*Please try again in a few seconds"):
            shown()
        busy.join()
        assert em.ask_one(SPEC, ASK, reader, colour_set="x", run_id="r", renderer=plates)[0]["correct"]
    finally:
        work.close()


def test_a_bad_worker_count_is_refused():
    with pytest.raises(ValueError, match=r"workers=-1 is not valid; allowed: an integer >= 0"):
        ExplorerPool(-1)


def test_a_public_app_working_in_workers_serves_what_a_private_app_serves(monkeypatch):
    from gradio_client import Client

    from plates.explorer import app as explorer_app

    controls = ex.spec_to_controls(SPEC).__dict__
    # the model box, prompt and condition (as the bench asks: baseline, cbe-open, the plate as rendered)
    model = ["baseline", "", "", "", "cbe-open", None, 0, False, 0, "none", 1.0, "standard"]
    outs = {}
    for public, count in ((False, "0"), (True, "2")):
        monkeypatch.setenv(RENDER_WORKERS_ENV, count)
        before = {p.pid for p in psutil.Process().children(recursive=True)}
        policy = Policy(public=public)
        demo = explorer_app.build_app(policy)
        demo.launch(prevent_thread_lock=True, quiet=True, **explorer_app.launch_options(policy=policy))
        try:
            client = Client(demo.local_url, verbose=False)
            with monkeypatch.context() as here:
                if public:  # the public app's reader answers in its workers: this process could not
                    here.setattr(BaselineReader, "read", _unreadable)
                outs[public] = (client.predict(*controls.values(), api_name="/render"),
                                client.predict(*model, *controls.values(), api_name="/ask"),
                                client.predict(True, "rcid-compare-human", *ILLUSION.__dict__.values(),
                                               api_name="/illusion_render"),
                                client.predict("colour-counting", *{**SCENE.__dict__, "shapes": list(SCENE.shapes)}
                                               .values(), api_name="/scene_render"))
            spawned = [p for p in psutil.Process().children(recursive=True) if p.pid not in before]
            workers = [p.pid for p in spawned if "resource_tracker" not in " ".join(p.cmdline())]
        finally:
            demo.close()
        assert len(workers) == int(count)  # a private app works in its own threads
        assert _gone(workers)  # the app's close stopped its workers
    (private, p_ask, p_ill, p_scene), (public, q_ask, q_ill, q_scene) = outs[False], outs[True]
    for mine, theirs in zip([*private[:6], p_ill[0], p_scene[0]], [*public[:6], q_ill[0], q_scene[0]]):
        assert Path(mine).read_bytes() == Path(theirs).read_bytes()
    assert private[6:8] == public[6:8]  # the stats line and the spec JSON
    assert p_ill[1:] == q_ill[1:] and p_scene[1:] == q_scene[1:]
    assert p_ask[0] == q_ask[0] == "38" and "✅ correct" in p_ask[1] and "✅ correct" in q_ask[1]
