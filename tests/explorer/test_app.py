"""The Gradio explorer built in-process, launched on a free port, driven with gradio_client."""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path

import pytest
from PIL import Image

gradio_client = pytest.importorskip("gradio_client")
from gradio_client import Client
from gradio_client.exceptions import AppError

from plates.explorer import app as explorer_app
from plates.explorer import plate as ex
from plates.explorer.concurrency import QUEUE_SIZE
from plates.explorer.policy import Policy
from plates.explorer.specs import decode_spec, spec_from_text, spec_to_json
from tests.support import ROOT
from tests.support.chat_server import ChatServer
from tests.support.imports import HEAVY, HOW_TO_FIND, heavy_in, loaded_after

KEY = "sk-test-Zq8vR2mKpL4xW9nT"
NO_MODEL = dict(hf_id="", api_model="", base_url="")


def _launch(policy):
    demo = explorer_app.build_app(policy)
    demo.launch(prevent_thread_lock=True, quiet=True, **explorer_app.launch_options(policy=policy))
    return demo


@pytest.fixture(scope="module")
def running():
    demo = _launch(Policy())
    yield demo
    demo.close()


@pytest.fixture()
def client(running):
    return Client(running.local_url, verbose=False)


def render(client, **changes):
    c = ex.spec_to_controls(ex.default_spec())
    values = {**c.__dict__, **changes}
    return client.predict(*values.values(), api_name="/render")


#: Positions in /render's outputs: six views, then these.
STATS, SPEC_JSON, SPEC_FILE, SHARE, FG, BG, DRAWN, DOT_MIN, DOT_MAX = range(6, 15)


def test_render_returns_every_view_at_the_asked_size_with_stats(client):
    out = render(client, size=320, delta_e=8.0, text="47", seed=3)
    views, stats, spec_json = out[:6], out[STATS], out[SPEC_JSON]
    spec_file, share = out[SPEC_FILE], out[SHARE]
    for path in views:
        with Image.open(path) as im:
            assert im.size == (320, 320)
    assert Path(views[0]).suffix == ".png"  # the plate itself: exact, lossless pixels
    spec = spec_from_text(spec_json)
    assert (spec.text, spec.size, spec.delta_e, spec.seed) == ("47", 320, 8.0, 3)
    plate = ex.render(spec)
    with Image.open(views[0]) as im:
        assert im.convert("RGB").tobytes() == plate.image.tobytes()
    assert stats == ex.stats_text(plate) and "(asked 8.00)" in stats
    assert json.loads(Path(spec_file).read_text()) == json.loads(spec_json)
    assert share.startswith("?spec=") and decode_spec(share.split("?spec=")[1]) == spec  # no page: relative
    # the swatches: a preset's pickers show the colours drawn after ΔE moved the background
    assert (out[FG], out[BG]) == (ex.to_hex(spec.colours[0][0]), ex.to_hex(spec.colours[1][0]))
    assert out[BG] in out[DRAWN]


def test_no_run_history_keeps_inputs(running):
    assert running.run_history is False and "runs" not in running.footer_links
    assert explorer_app.launch_options(policy=Policy(public=True))["max_file_size"] == "1mb"


def test_analytics_are_off_and_errors_reach_the_page_without_details():
    """The Space entry app.py (through plates.explorer) turns Gradio's analytics off (conftest sets the variable
    too, so check a fresh process without it) and launches with show_error=False (no raw exception text on the
    page)."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "GRADIO_ANALYTICS_ENABLED"}
    code = "import app, gradio.analytics as a; print(a.analytics_enabled())"
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT,
                         capture_output=True, text=True, timeout=120, check=False)
    assert out.stdout.strip().splitlines()[-1] == "False", out.stderr[-2000:]
    assert explorer_app.launch_options(policy=Policy())["show_error"] is False


def test_a_bad_value_leaves_the_plate_marked_not_redrawn_with_the_reason(client):
    out = render(client, colour_pair=ex.CUSTOM, foreground="not-a-colour")
    assert out[STATS].startswith("⚠️ **Not redrawn:** foreground colour 'not-a-colour' is not a colour; "
                                 "allowed: '#rrggbb'")
    assert render(client, text="")[STATS] == ("⚠️ **Not redrawn:** text '' is empty; type the label to draw "
                                              "(e.g. '12' or 'A7'), or press a 'random' button")
    assert "Dot radius min 8 px is larger than the automatic dot radius max at 256 px (4.3 px)" in render(
        client, dot_min=8.0, size=256)[STATS]


def test_out_of_range_values_are_refused_with_what_is_allowed(client):
    with pytest.raises(AppError, match="4000 is greater than maximum value 2048"):  # the slider's own bound
        render(client, size=4000)


def test_the_dot_sliders_range_follows_the_plate_size(client):
    out = render(client, size=256)
    assert (out[DOT_MIN]["maximum"], out[DOT_MAX]["maximum"]) == ex.dot_slider_limits(
        ex.default_spec().replace(size=256)) == (4.0, 32.0)


def test_the_api_page_lists_only_the_named_endpoints(running):
    """Regression: chained internal steps appeared as nine /render_plate_N endpoints."""
    family_tabs = ["/illusion_ask", "/illusion_render", "/quiz_answer", "/quiz_option_0", "/quiz_option_1",
                   "/quiz_option_2", "/quiz_start", "/scene_ask", "/scene_render"]
    assert sorted(running.get_api_info()["named_endpoints"]) == sorted(["/apply_spec", "/ask", "/compare", "/render", "/set_key", "/sweep_compared",
                                                                        "/sweep", "/ellipse", *family_tabs])


def test_pasted_spec_reproduces_the_plate(client):
    spec = ex.default_spec().replace(text="8", palette="huemanity-05", jitter_rgb=7.0, seed=12, size=256)
    controls = client.predict(spec_to_json(spec), api_name="/apply_spec")
    assert list(controls) == list(ex.spec_to_controls(spec).__dict__.values())
    # the session keeps the pasted spec: fields no control shows (jitter_rgb alone) survive the re-render
    spec_json = client.predict(*controls, api_name="/render")[SPEC_JSON]
    assert spec_from_text(spec_json) == spec
    with pytest.raises(AppError, match="spec is not valid JSON"):
        client.predict("{not json", api_name="/apply_spec")


def test_public_mode_refuses_endpoints_off_the_allow_list_and_needs_the_visitors_key():
    demo = _launch(Policy(public=True, allowed_base_urls=("https://allowed.example/v1",), max_plate_size=1024,
                          max_sweep_points=12))
    try:
        client = Client(demo.local_url, verbose=False)
        with pytest.raises(AppError, match=r"base URL 'http://127.0.0.1:9/v1' is not allowed here.*allowed: .*"
                                           r"https://allowed.example/v1"):
            client.predict(kind="openai", hf_id="", api_model="m", base_url="http://127.0.0.1:9/v1", api_name="/ask")
        with pytest.raises(AppError, match="an API key is needed"):
            client.predict(kind="openai", hf_id="", api_model="m", base_url="https://allowed.example/v1",
                           api_name="/ask")
        # no Hugging Face model allowed here: the kind is not offered at all (the page's choices refuse it)
        with pytest.raises(Exception, match=r"'hf'.* is not in the list of choices: \['baseline', 'openai'\]"):
            client.predict(kind="hf", hf_id="org/any", api_model="", base_url="", api_name="/ask")
        with pytest.raises(AppError, match="30 is greater than maximum value 12"):
            client.predict(1.0, 9.0, 30, "baseline", *NO_MODEL.values(), api_name="/sweep")
    finally:
        demo.close()


def test_public_mode_follows_no_redirect_and_never_shows_the_other_servers_reply():
    """Regression: an allowed endpoint answering 301/302/307 sent the request on to another address on the
    server's network (a 307 re-sent the whole POST), and that address's reply text appeared in the error."""
    from tests.support.redirect_server import RedirectServer

    statuses = (301, 302, 307)
    with ChatServer(answer=lambda body: "INTERNAL-SECRET-REPLY") as inner, ExitStack() as stack:
        outers = [stack.enter_context(RedirectServer(inner.url, status)) for status in statuses]
        demo = _launch(Policy(public=True, allowed_base_urls=tuple(o.url for o in outers)))  # one app, three
        try:
            client = Client(demo.local_url, verbose=False)
            client.predict(KEY, api_name="/set_key")
            for status, outer in zip(statuses, outers):
                with pytest.raises(AppError) as err:
                    client.predict(kind="openai", hf_id="", api_model="test-model", base_url=outer.url,
                                   api_name="/ask")
                assert outer.requests, "the allowed endpoint was asked"
                message = str(err.value)
                assert f"HTTP {status}: the endpoint answered with a redirect, which is not followed" in message
                assert "INTERNAL" not in message and "moved to" not in message and KEY not in message
        finally:
            demo.close()
        assert inner.count == 0 and not inner.records  # the other address never saw a request


def test_public_mode_caps_pasted_specs_and_prompts_at_the_door():
    """Regression: a pasted spec had no size cap (2,200 x 2,200 colours took 11.7 s), prompts no length cap."""
    policy = Policy.from_env({"PLATES_PUBLIC": "1"})
    demo = _launch(policy)
    try:
        client = Client(demo.local_url, verbose=False)
        huge = json.dumps({"text": "12", "palette": None, "foreground": ["#102030"] * 2200,
                           "background": ["#a0b0c0"] * 2200})
        with pytest.raises(AppError, match="allowed: at most 8192 characters of JSON"):
            client.predict(huge, api_name="/apply_spec")
        many = json.dumps({"text": "12", "palette": None, "foreground": ["#102030"] * 40,
                           "background": ["#a0b0c0"]})
        with pytest.raises(AppError, match="foreground has 40 colours; allowed: 1-16"):
            client.predict(many, api_name="/apply_spec")
        status = client.predict("sk-" + "x" * 400, api_name="/set_key")
        assert status == "No key set: it has 403 characters; allowed: at most 300."
        long_prompt = "What number? " * 200
        with pytest.raises(AppError, match=r"prompt text has 2600 characters; allowed: at most 1000"):
            client.predict(kind="baseline", **NO_MODEL, prompt_text=long_prompt, api_name="/ask")
    finally:
        demo.close()


def test_public_mode_fails_fast_on_an_allowed_hf_model_that_is_not_here():
    """Regression: an allowed Hugging Face id that could not be loaded held the single model slot for 42 s.
    Offline (tests/conftest.py sets HF_HUB_OFFLINE=1) and not in the cache, it is refused before any load."""
    demo = _launch(Policy(public=True, allowed_hf_models=("org/not-downloaded-here",)))
    try:
        client = Client(demo.local_url, verbose=False)
        with pytest.raises(AppError, match="'org/not-downloaded-here' is not downloaded on this server and "
                                           "the hub is offline"):
            client.predict(kind="hf", hf_id="org/not-downloaded-here", api_model="", base_url="",
                           api_name="/ask")
    finally:
        demo.close()


def test_public_mode_queues_model_calls_one_at_a_time_in_a_bounded_queue(monkeypatch):
    """Expensive calls are queued with limits (a shared model slot, a capped queue); renders run up
    to the cores (here said to be 6)."""
    monkeypatch.setattr("plates.explorer.concurrency.cores", lambda: 6)
    demo = explorer_app.build_app(Policy(public=True))
    limits = {f.api_name: (f.concurrency_limit, f.concurrency_id) for f in demo.fns.values()}
    assert limits["ask"] == limits["sweep"] == (1, "model")  # ask and sweep share one slot
    assert limits["render"] == (6, "render") and demo._queue.max_size == 32
    groups = {f.concurrency_id: f.concurrency_limit for f in demo.fns.values() if f.concurrency_id == "render"}
    assert groups == {"render": 6}  # the family tabs' redraws share the same slots


def test_private_mode_answers_and_renders_up_to_the_cores_in_a_bounded_queue(monkeypatch):
    monkeypatch.setattr("plates.explorer.concurrency.cores", lambda: 3)
    demo = explorer_app.build_app(Policy(public=False))
    limits = {f.api_name: (f.concurrency_limit, f.concurrency_id) for f in demo.fns.values()}
    assert limits["ask"] == limits["sweep"] == (3, "model") and limits["render"] == (3, "render")
    assert demo._queue.max_size == QUEUE_SIZE[False] and demo._queue.default_concurrency_limit == 3


def _python(code: str):
    """``code`` run by a fresh Python in the repository's root (this checkout's ``plates``)."""
    import os
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=600)


def test_a_serving_process_loads_no_notebook_helpers_and_a_notebook_keeps_them():
    """`plates.explorer.serving_process` (the entries `python -m plates.explorer` and `app.py` call it before
    Gradio is imported): Gradio then sees no notebook, and a process already running IPython keeps it."""
    done = _python("import sys; from plates.explorer import serving_process; serving_process(); "
                   "import plates.explorer.app, gradio.utils; "
                   "print(sys.modules['IPython'] is None, gradio.utils.ipython_check(), gradio.utils.colab_check())")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False", "False"]
    pytest.importorskip("IPython")
    done = _python("import sys, IPython; from plates.explorer import serving_process; serving_process(); "
                   "print(sys.modules['IPython'] is IPython)")
    assert done.stdout.split() == ["True"], done.stderr


def test_a_serving_process_does_not_rewrite_gradios_stubs_and_gradio_still_works():
    """In a serving process Gradio's per-class stub rewriter (`gradio.component_meta.create_or_modify_pyi`,
    ~40% of its import time) is the no-op of `plates.explorer`, and components and events still work; a process
    that imported Gradio first keeps Gradio's own."""
    done = _python("import plates.explorer as e; e.serving_process(); import gradio as gr, gradio.component_meta as cm\n"
                   "with gr.Blocks() as demo:\n    box = gr.Textbox('a')\n    box.change(lambda x: x, box, box)\n"
                   "print(cm.create_or_modify_pyi is e._no_stub_rewrite, len(demo.fns), "
                   "any(type(f).__name__ == '_NoStubRewrite' for f in __import__('sys').meta_path))")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "1", "False"]  # skipped; the event is wired; the finder left
    done = _python("import gradio.component_meta as cm, plates.explorer as e; e.serving_process(); "
                   "print(cm.create_or_modify_pyi is e._no_stub_rewrite)")
    assert done.stdout.split() == ["False"], done.stderr


def test_importing_the_explorer_loads_no_heavy_library():
    """`plates.explorer.app` imports neither local models (torch, transformers, onnxruntime), nor statistics or
    fits (scipy.stats, scipy.optimize), nor plotting (matplotlib, colour-science's plotting): each loads where
    it is used. A serving process (`plates.explorer.serving_process`) does not import colour-science either."""
    code = "import plates.explorer.app"
    assert heavy_in(loaded_after(code)) == [], HOW_TO_FIND.replace("CODE", code)
    code = "import plates.explorer as e; e.serving_process(); import plates.explorer.app"
    assert heavy_in(loaded_after(code), (*HEAVY, "colour")) == [], HOW_TO_FIND.replace("CODE", code)


def test_building_the_explorer_loads_no_model_or_statistics_library():
    """Building the app (its warm-up draws the first page's plate with colour-science) loads no local model
    library and no statistics: those wait for a tab that uses them."""
    modules = loaded_after("from plates.explorer.app import build_app\nfrom plates.explorer.policy import Policy\n"
                           "build_app(Policy()).close()")
    assert "colour" in modules  # the warm-up ran: the first page's plate was drawn
    assert heavy_in(modules, ("torch", "transformers", "onnxruntime", "scipy.stats")) == [], HOW_TO_FIND
    # the charts (the sweep's, the ellipses') and plotly's subplots wait for the first chart
    assert heavy_in(modules, ("plates.charts", "plotly.subplots")) == [], HOW_TO_FIND


def test_building_the_explorer_builds_gradios_app_only_as_often_as_gradio_itself(monkeypatch):
    """Setting the explorer's queue (`app.set_queue`) builds no FastAPI app of its own: building the explorer
    builds Gradio's app as often as an empty Blocks does (its ``__init__`` and ``__exit__``; ``launch`` builds the
    served one), and the queue has the explorer's bound and default concurrency."""
    import gradio as gr
    from gradio import routes

    built = []
    create = routes.App.create_app
    monkeypatch.setattr(routes.App, "create_app", staticmethod(lambda *a, **k: built.append(1) or create(*a, **k)))
    with gr.Blocks():
        pass
    gradio_own, built[:] = len(built), []
    monkeypatch.setattr("plates.explorer.concurrency.cores", lambda: 3)
    demo = explorer_app.build_app(Policy(public=False))
    try:
        assert len(built) == gradio_own == 2
        assert (demo._queue.max_size, demo._queue.default_concurrency_limit) == (QUEUE_SIZE[False], 3)
    finally:
        demo.close()


def test_setting_the_queue_needs_the_queue_gradio_makes_and_says_so():
    with pytest.raises(RuntimeError, match=r"no queue before launch \(Blocks._queue\)"):
        explorer_app.set_queue(object(), max_size=1, default_concurrency_limit=1)
