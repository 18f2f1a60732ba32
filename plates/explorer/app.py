"""The live plate explorer: the Gradio app the Hugging Face Space's `app.py` launches.

Thin on purpose: every decision lives in the widget-free modules beside it (plates.explorer.plate, .specs,
.policy, .concurrency, .backends, .models, .sweep, .history); this file lays out the Plate tab and wires its
events, and ``build_app()`` puts the tabs together (the Model tab with its sweep: `plates.explorer.model_tab`;
Illusions, Scenes, Try it yourself: `plates.explorer.family_tabs`; what they share: `plates.explorer.context`). ``build_app()`` returns the Blocks (tests build and drive it); ``main()`` launches it
(`app.py`, ``python -m plates.explorer``). Env: ``GRADIO_SERVER_NAME`` / ``GRADIO_SERVER_PORT`` (host/port),
``PLATES_ALLOWED_BASE_URLS``, ``PLATES_ALLOWED_HF_MODELS``. Bound to loopback (the default, 127.0.0.1) it is
private; on any other address it is public unless ``--private`` or ``PLATES_PUBLIC=0``; on a hosted Space
(``SPACE_ID`` / ``SYSTEM=spaces``) always public (`plates.explorer.policy.Policy.from_env`).
"""

from __future__ import annotations

import argparse
import functools
import inspect
import logging
import os
import tempfile
import uuid

import gradio as gr
from starlette.middleware import Middleware

from plates.admission import SESSION_TTL_S, Admission, UploadGate, hosted_space
from plates.explorer import family_tabs, seen
from plates.explorer import plate as ex
from plates.explorer.backends import FAILED_LOAD_MEMORY_S, ModelCache
from plates.explorer.concurrency import concurrency, pool_bound, render_workers
from plates.explorer.context import INTERNAL, AppContext, PlateTab, Scratch
from plates.explorer.ellipse_tab import ellipse_tab
from plates.explorer.model_tab import model_tab
from plates.explorer.policy import Policy
from plates.explorer.pool import ExplorerPool
from plates.explorer.specs import QUERY_PARAM, decode_spec, share_link, spec_from_text, spec_to_json
from plates.images import image_to_png_bytes
from plates.integrations.answers_push import answers_scheduler
from plates.secrets import clean_message

log = logging.getLogger("plates.app")


def guarded(fn, secrets_from=None, hide_paths=False):
    """Run a handler; bad input becomes a clear gr.Error, anything else a short message with no trace.

    A ``ValueError`` or ``ImportError`` (the project's messages name the bad value and what is allowed) becomes
    a ``gr.Error`` with the same message, scrubbed (`plates.secrets.clean_message`); a ``gr.Error`` passes
    through as it is; any other exception is logged by its type name only and becomes a ``gr.Error`` naming
    just its type. The original traceback is dropped (``from None``). A generator handler (a streaming one)
    gets a generator wrapper, so Gradio still streams it.

    Parameters
    ----------
    fn : callable
        The Gradio handler, a function or a generator function of positional arguments.
    secrets_from : callable or None
        ``secrets_from(args)``, given the handler's positional arguments, names the values (the session's key)
        to scrub from every message; None scrubs no secrets.
    hide_paths : bool
        Public mode: cut absolute server paths in messages to their last component.

    Returns
    -------
    callable
        The wrapped handler (``functools.wraps`` of ``fn``), taking the same positional arguments.

    Raises
    ------
    gradio.Error
        Raised by the returned handler (not by ``guarded`` itself) for every exception ``fn`` raises, as above.
    """

    def scrub(msg, args):
        return clean_message(msg, secrets_from(args) if secrets_from else (), hide_paths=hide_paths)

    if inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def gen(*args):
            try:
                yield from fn(*args)
            except gr.Error:
                raise
            except (ValueError, ImportError) as exc:  # our messages: they name the value and what is allowed
                raise gr.Error(scrub(str(exc), args)) from None
            except Exception as exc:  # noqa: BLE001 - the page never sees a trace
                log.error("handler %s failed: %s", fn.__name__, type(exc).__name__)
                raise gr.Error(f"Something went wrong ({type(exc).__name__}); please try other settings.") from None
        return gen

    @functools.wraps(fn)
    def run(*args):
        try:
            return fn(*args)
        except gr.Error:
            raise
        except (ValueError, ImportError) as exc:
            raise gr.Error(scrub(str(exc), args)) from None
        except Exception as exc:  # noqa: BLE001
            log.error("handler %s failed: %s", fn.__name__, type(exc).__name__)
            raise gr.Error(f"Something went wrong ({type(exc).__name__}); please try other settings.") from None
    return run


def admission_for(policy: Policy) -> Admission | None:
    """Public mode's limits per address and server-wide, or None in private mode.

    Parameters
    ----------
    policy : Policy
        This server's limits.

    Returns
    -------
    Admission or None
        `plates.admission.Admission` (addresses from the Space's proxy on a hosted Space) in public mode; None
        in
        private mode.
    """
    return Admission(behind_proxy=hosted_space()) if policy.public else None


def build_app(policy: Policy | None = None, admission: Admission | None = None) -> gr.Blocks:
    """The explorer's Blocks: plate panel (live), model panel with its ΔE sweep, and the family tabs.

    Nothing is launched here.

    Parameters
    ----------
    policy : Policy or None
        This server's limits; None reads them from the environment (`Policy.from_env`).
    admission : Admission or None
        The limits the app checks; None: :func:`admission_for` the policy (pass the same object to
        :func:`launch_options`, whose upload gate shares it).

    Returns
    -------
    gradio.Blocks
        The app, its queue bounded (`plates.explorer.concurrency`).

    Raises
    ------
    ValueError
        When the environment names a bad setting (``PLATES_PUBLIC``, ``PLATES_RENDER_WORKERS``).
    """
    policy = policy or Policy.from_env()
    admission = admission if admission is not None else admission_for(policy)
    # renders and the reader's answers in worker processes, one per core, in public mode (plates.explorer.pool)
    workers = render_workers(policy)
    slots = concurrency(policy, workers)  # events at once per group, up to the cores, and the queue's bound
    work = ExplorerPool(workers, max_pending=pool_bound(slots, workers))
    shared = AppContext(
        policy=policy, admission=admission, guard=functools.partial(guarded, hide_paths=policy.public), slots=slots,
        # public mode remembers a model that failed to load, so retries do not take the model slot again;
        # the bundled reader answers in the workers
        cache=ModelCache(work.make_backend,
                         remember_failures_s=FAILED_LOAD_MEMORY_S if policy.public else 0.0),
        plates_seen=work.plates,  # the plates on screen, reused when a model is asked about them
        scratch=Scratch(tempfile.mkdtemp(prefix="plates-explorer-")),  # files we name, never user paths
        ttl=SESSION_TTL_S if admission is not None else None,  # public mode: no state outlives it unused
        work=work)
    # Warm up before serving: fonts, packing and colour-science load now, not in a visitor's first request.
    # colour-science also registers a stand-in `matplotlib` module when matplotlib is absent; importing it
    # inside a request would break Gradio's matplotlib backend guard around that request.
    ex.render_views(ex.default_spec())
    work.start()  # the workers, if any, start and warm while the page is built
    with gr.Blocks(title="plates · live plate explorer", delete_cache=(900, 1800)) as demo:
        gr.Markdown("# plates · live plate explorer\nTweak one Ishihara-style plate, see it through other eyes, "
                    "and ask a model what it reads.")
        gr.Markdown(policy.mode_markdown(), elem_id="mode")  # which mode, why, and what it allows
        base_state = gr.State("")  # JSON of a pasted/linked spec: fields the controls do not show survive
        # the visitor's API key: this session only (public mode: gone after the session TTL), never an output
        key_state = gr.State("", time_to_live=shared.ttl)
        history_state = gr.State([], time_to_live=shared.ttl)
        run_state = gr.State("")  # this session's run id (set on load)
        demo.load(lambda: f"explorer-{uuid.uuid4().hex[:12]}", None, run_state, **INTERNAL)
        plate = _plate_tab(shared, demo, base_state)
        model = model_tab(shared, plate, demo, key_state, history_state, run_state)
        # the family tabs: Illusions, Scenes, Try it yourself
        family_tabs.add_family_tabs(policy, guard=shared.guard, cache=shared.cache, scratch=shared.scratch,
                                    model=model, key_state=key_state, slots=slots, admission=admission, work=work)
        ellipse_tab(shared, model, key_state)  # the chosen model's ellipse at one of MacAdam's centres
    set_queue(demo, max_size=shared.slots["queue"], default_concurrency_limit=shared.slots["default"])
    demo.close = _closing(demo.close, work)
    pusher = answers_scheduler()  # people's answers to the owner's dataset: only when the owner configured it
    if pusher is not None:  # stopped with the app (it commits once more when the process exits)
        close = demo.close

        @functools.wraps(close)
        def close_and_stop(*args, **kwargs):
            try:
                return close(*args, **kwargs)
            finally:
                pusher.stop()
        demo.close = close_and_stop
    return demo


def set_queue(demo: gr.Blocks, *, max_size: int, default_concurrency_limit: int) -> None:
    """The queue's bound and default concurrency, as ``demo.queue(max_size=..., default_concurrency_limit=...)``
    sets them, without the FastAPI app ``Blocks.queue`` also builds: ``launch`` builds the served one anyway, and
    each build registers Gradio's ~80 routes and its page configuration again (about a tenth of a second of CPU
    at every start). Gradio gives every Blocks a queue when it is made (``Blocks.__init__`` calls ``queue()``);
    its events take their limits from it when they are first queued, after launch.

    Parameters
    ----------
    demo : gradio.Blocks
        The built app, not launched yet.
    max_size : int
        Events waiting at most (a further one is refused with "queue full").
    default_concurrency_limit : int
        Events at once for each listener that names no ``concurrency_limit``.

    Raises
    ------
    RuntimeError
        ``demo`` has no queue (a Gradio that no longer makes one in ``Blocks.__init__``), naming what it needs.
    """
    queue = getattr(demo, "_queue", None)
    if queue is None or not hasattr(queue, "default_concurrency_limit"):
        raise RuntimeError("this Gradio's Blocks has no queue before launch (Blocks._queue); allowed: a Gradio "
                           "whose Blocks.__init__ calls queue(), as the pinned 6.31 does")
    queue.max_size = max_size
    queue.default_concurrency_limit = default_concurrency_limit


def _closing(close, work: ExplorerPool):
    """The Blocks' ``close`` that also stops its workers (Gradio has no hook for it). A server killed
    without closing leaves none either: each worker exits when its parent dies (`plates.workers`)."""
    @functools.wraps(close)
    def close_all(*args, **kwargs):
        try:
            return close(*args, **kwargs)
        finally:
            work.close()
    return close_all


# ------------------------------------------------------------------------------------------------ plate tab
def _plate_tab(shared: AppContext, demo: gr.Blocks, base_state: gr.State) -> PlateTab:
    """The Plate tab: its controls and views, redrawn live, and the spec paste / upload / link."""
    with gr.Tab("Plate"):
        with gr.Row():
            with gr.Column(scale=1, min_width=300):
                w = _plate_controls(shared.policy)
            with gr.Column(scale=3):
                w |= _plate_views()
    return _wire_plate(shared, demo, base_state, w)


def _plate_controls(policy: Policy) -> dict:
    """The plate's controls (left column), by name."""
    fonts = ex.font_choices()
    defaults = ex.spec_to_controls(ex.default_spec())
    w: dict = {}
    w["colour_pair"] = gr.Dropdown(ex.colour_pair_choices(), value=defaults.colour_pair,
                                   label="Colour pair (CBE sets 1-5, HueManity pairs) or custom")
    with gr.Row():
        w["fg"] = gr.ColorPicker(defaults.foreground, label="Palette foreground", elem_id="fg")
        w["bg"] = gr.ColorPicker(defaults.background, label="Palette background (ΔE2000 moves it)", elem_id="bg")
    w["drawn"] = gr.HTML(ex.drawn_swatches(ex.default_spec()), elem_id="drawn-colours")
    w["delta_e"] = gr.Slider(0, 40, value=defaults.delta_e, step=0.5, label="ΔE2000 (0 = colours as given)",
                             elem_id="delta-e")
    w["font"] = gr.Dropdown(fonts, value=defaults.font, label="Font", allow_custom_value=True, elem_id="font",
                            info=("a listed font or an alias (liberation-sans-regular, ...)"
                                  if policy.public else "a listed font, an alias, or a .ttf/.otf path"))
    w["plate_style"] = gr.Radio(ex.style_choices(), value=defaults.style, elem_id="plate-style",
                                label="Plate style (dense: ours; cbe: CBE App. D; huemanity: HueManity §3)")
    w["text"] = gr.Textbox(defaults.text, label="Text", max_length=policy.max_text_chars, elem_id="plate-text")
    with gr.Row():
        w["label_buttons"] = {s: gr.Button(f"random {s}", size="sm") for s in ex.label_space_choices()}
    min_hi, max_hi = ex.dot_slider_limits(ex.default_spec())  # follow the plate size
    with gr.Row():
        w["dot_min"] = gr.Slider(0, min_hi, value=defaults.dot_min, step=0.5,
                                 label="Dot radius min (px, 0 = auto)", elem_id="dot-min")
        w["dot_max"] = gr.Slider(0, max_hi, value=defaults.dot_max, step=0.5,
                                 label="Dot radius max (px, 0 = auto)", elem_id="dot-max")
    with gr.Row():
        w["density"] = gr.Slider(0.05, 0.80, value=defaults.density, step=0.01, elem_id="density",
                                 label=ex.DENSITY_LABEL, info=ex.density_info(defaults.style),
                                 interactive=ex.density_is_free(defaults.style))
        w["jitter"] = gr.Slider(0, 1, value=defaults.jitter, step=0.01, label="Colour jitter (1 = HueManity §3)")
    with gr.Row():
        w["size"] = gr.Slider(policy.min_plate_size, policy.max_plate_size, value=defaults.size, step=16,
                              label="Plate size (px)")
        w["seed"] = gr.Number(defaults.seed, precision=0, label="Seed")
    return w


def _plate_views() -> dict:
    """The plate's views, statistics, share link and spec box (right column), by name."""
    w: dict = {"stats": gr.Markdown(elem_id="plate-stats")}
    with gr.Row():
        # the plate is served as the exact PNG we write; the other views as JPEG (display only)
        images = {v: gr.Image(label=v, type="pil", format="jpeg", interactive=False,
                              elem_id=f"view-{v}", buttons=["download", "fullscreen"])
                  for v in ex.VIEWS[:3]}
    with gr.Row():
        images |= {v: gr.Image(label=f"{v} view", type="pil", format="jpeg", interactive=False,
                               elem_id=f"view-{v}", buttons=["fullscreen"])
                   for v in ex.VIEWS[3:]}
    w["images"] = images
    with gr.Accordion("As the model sees it: a VLM family's image processing applied", open=False):
        w["seen_family"] = gr.Dropdown(seen.family_choices(), value=seen.OFF, elem_id="seen-family",
                                       label="Family (plates.models.views; docs/model-views.md)")
        w["seen_summary"] = gr.Markdown(elem_id="seen-summary")
        with gr.Row():
            w["seen_original"] = gr.Image(label="the plate, with what the model sees outlined", type="filepath",
                                          format="png", interactive=False, elem_id="seen-original")
            w["seen_view"] = gr.Image(label="as the model sees it (tiles in order, exact pixels)",
                                      type="filepath", format="png", interactive=False, elem_id="seen-view")
    w["share"] = gr.Textbox(label="Share link (opens this exact plate)", elem_id="share",
                            interactive=False, buttons=["copy"])
    with gr.Accordion("Spec: download, paste or upload to reproduce a plate exactly", open=False):
        w["spec_box"] = gr.Code(language="json", label="Spec JSON (editable)", interactive=True)
        with gr.Row():
            w["apply_btn"] = gr.Button("Apply pasted spec")
            w["spec_upload"] = gr.File(label="Upload a spec (.json)", type="binary", file_types=[".json"])
            w["spec_download"] = gr.DownloadButton("Download spec JSON")
    return w


def _density_update(spec, shown: ex.Controls) -> dict:
    """The Density control after a render: the spec's density where the style packs to it; where the style
    fixes it, disabled with the reason and the visitor's own value kept (back in the dense style it applies)."""
    free = ex.density_is_free(spec.style)
    return gr.update(interactive=free, info=ex.density_info(spec.style), **({"value": shown.density} if free else {}))


def _wire_plate(shared: AppContext, demo: gr.Blocks, base_state: gr.State, w: dict) -> PlateTab:
    """The Plate tab's events: live redraw, colour presets and pickers, random labels, spec paste / upload,
    and a share link opened on load."""
    policy, guard, slots, scratch = shared.policy, shared.guard, shared.slots, shared.scratch
    sent = ex.SentColours()  # what this app's renders put in the pickers, per session
    images, fg, bg, text, font, colour_pair = w["images"], w["fg"], w["bg"], w["text"], w["font"], w["colour_pair"]
    controls = [colour_pair, fg, bg, w["delta_e"], font, text, w["dot_min"], w["dot_max"], w["density"],
                w["jitter"], w["size"], w["seed"], w["plate_style"]]
    plate_inputs = [base_state, *controls]
    plate_outputs = [*(images[v] for v in ex.VIEWS), w["stats"], w["spec_box"], w["spec_download"], w["share"],
                     fg, bg, w["drawn"], w["dot_min"], w["dot_max"], w["density"]]

    def render_plate(request: gr.Request, base_json, *vals):  # Gradio fills `request` (first: before *vals)
        try:  # the spec's colour search and the render: in a worker process in public mode (plates.explorer.pool)
            encoded = shared.work.from_controls(policy, base_json, *vals)
        except ValueError as exc:  # the plate on screen stays, marked not redrawn, with the reason in words
            message = clean_message(str(exc), (), hide_paths=policy.public)
            gr.Warning(message)
            return (*[gr.skip()] * len(ex.VIEWS), f"⚠️ **Not redrawn:** {message}",
                    *[gr.skip()] * (len(plate_outputs) - len(ex.VIEWS) - 1))
        spec = encoded.plate.spec
        spec_json = spec_to_json(spec)
        plate_png = scratch.write("plate", "png", encoded.png)  # exact pixels
        shown_views = [scratch.write(f"view-{v}", "jpeg", encoded.jpeg[v]) for v in ex.VIEWS[1:]]
        spec_file = scratch.write("plate-spec", "json", spec_json.encode())
        page = request.headers.get("referer") if request is not None else None  # the page the visitor is on
        share = share_link(spec, page)
        shown = ex.spec_to_controls(spec)
        sent.remember(getattr(request, "session_hash", None), shown.foreground, shown.background)
        min_hi, max_hi = ex.dot_slider_limits(spec)
        return (plate_png, *shown_views, encoded.stats, spec_json, spec_file, share,
                shown.foreground, shown.background, ex.drawn_swatches(spec), gr.update(maximum=min_hi),
                gr.update(maximum=max_hi), _density_update(spec, shown))

    def picker_changed(request: gr.Request, base_json, *vals):
        """A colour picker's value changed: typed (hex box), picked or dragged by the visitor, or set by a
        render or a preset. The visitor's change makes the colours custom and redraws; a value a render of this
        session put there (`plates.explorer.plate.SentColours`: the latest or an earlier one, arriving late
        during fast ΔE changes) or the current plate already shows changes nothing."""
        c = ex.Controls(*vals)
        if sent.was_sent(getattr(request, "session_hash", None), c.foreground, c.background):
            return (gr.skip(),) * (1 + len(plate_outputs))  # a render's own update, perhaps an earlier one's
        if c.colour_pair != ex.CUSTOM:
            try:
                shown = ex.spec_to_controls(shared.make_spec(base_json, *vals))
            except ValueError:
                shown = None
            if shown is not None and (c.foreground.lower(), c.background.lower()) == (
                    shown.foreground.lower(), shown.background.lower()):
                return (gr.skip(),) * (1 + len(plate_outputs))
        custom = (ex.CUSTOM, *vals[1:])
        return (ex.CUSTOM, *render_plate(request, base_json, *custom))

    def preset_colours(name):
        if name == ex.CUSTOM:
            return gr.update(), gr.update()
        fg, bg = ex.preset_hex(name)
        return fg, bg

    def apply_spec_text(text):
        spec = spec_from_text(text, policy)
        return (spec_to_json(spec), *ex.spec_to_controls(spec).__dict__.values())

    def apply_spec_file(data):
        if data is None:
            raise ValueError("no spec file was uploaded")
        return apply_spec_text(data)

    def on_load(request: gr.Request):
        code = dict(request.query_params).get(QUERY_PARAM) if request is not None else None
        if not code:
            return (gr.update(),) * (1 + len(controls))
        try:
            return apply_spec_text(spec_to_json(decode_spec(code, policy)))
        except ValueError as exc:
            gr.Warning(f"The link's plate could not be opened: {exc}")
            return (gr.update(),) * (1 + len(controls))

    def model_view(spec_text, family):
        """The plate on screen (its spec box) as ``family``'s model sees it (`plates.explorer.seen`)."""
        shown = seen.seen_by(spec_from_text(spec_text, policy), family) if spec_text else None
        if shown is None:
            return None, None, ""
        return (scratch.write("seen-original", "png", image_to_png_bytes(shown.original, compress_level=1)),
                scratch.write("seen-view", "png", image_to_png_bytes(shown.view, compress_level=1)),
                shown.summary)

    seen_kw = dict(fn=guard(model_view), inputs=[w["spec_box"], w["seen_family"]],
                   outputs=[w["seen_original"], w["seen_view"], w["seen_summary"]], trigger_mode="always_last",
                   concurrency_limit=slots["render"], concurrency_id="render")
    w["seen_family"].change(**seen_kw, **INTERNAL)
    w["spec_box"].change(**seen_kw, **INTERNAL)

    render_kw = dict(fn=guard(render_plate), inputs=plate_inputs, outputs=plate_outputs,
                     concurrency_limit=slots["render"], concurrency_id="render")
    # The text box re-renders on `change`: its `input` event misses Backspace and select-all + Delete
    live = (w["delta_e"], w["dot_min"], w["dot_max"], w["density"], w["jitter"], w["size"], w["seed"],
            w["plate_style"])
    # the font box re-renders on `change` too: a typed path or alias arrives without an `input` event
    gr.on([text.change, font.change, *(c.input for c in live)],
          api_name="render", trigger_mode="always_last", **render_kw)
    colour_pair.input(guard(preset_colours), colour_pair, [fg, bg], **INTERNAL).then(**render_kw, **INTERNAL)
    for picker in (fg, bg):  # `change`: a typed hex value arrives without an `input` event
        picker.change(guard(picker_changed), plate_inputs, [colour_pair, *plate_outputs],
                      trigger_mode="always_last", concurrency_limit=slots["render"], concurrency_id="render",
                      **INTERNAL)
    for space, button in w["label_buttons"].items():  # the new text's `change` re-renders
        button.click(functools.partial(ex.random_label, space), None, text, **INTERNAL)
    w["apply_btn"].click(guard(apply_spec_text), w["spec_box"], [base_state, *controls], api_name="apply_spec").then(
        **render_kw, **INTERNAL)
    w["spec_upload"].upload(guard(apply_spec_file), w["spec_upload"], [base_state, *controls], **INTERNAL).then(
        **render_kw, **INTERNAL)
    demo.load(on_load, None, [base_state, *controls], **INTERNAL).then(**render_kw, **INTERNAL)
    return PlateTab(controls=controls, plate_inputs=plate_inputs, render_kw=render_kw)


#: The page's own style: the exact request's prompt (a Markdown code block) wraps instead of scrolling sideways.
EXPLORER_CSS = """
#sent-request pre, #sent-request pre code, #compare-request pre, #compare-request pre code {
  white-space: pre-wrap !important; overflow-wrap: anywhere; word-break: break-word; overflow-x: hidden;
}
"""

#: Public mode: browser sessions whose Gradio state is kept at once (Gradio's default is 10,000; each holds a
#: copy of the page's configuration, 6-9 MB after a render and a sweep); the least recently used go first.
PUBLIC_SESSION_CAPACITY = 96


def launch_options(port: int | None = None, policy: Policy | None = None,
                   admission: Admission | None = None) -> dict:
    """How the explorer is launched (tests and the bench use the same).

    Host and port from the environment, the page's style (`EXPLORER_CSS`), no raw errors on the page, no run
    history (it would keep inputs, a visitor's key among them, in the browser or a bucket), and in public mode
    uploads capped at 1 MB a file (a spec is a few hundred bytes) and per address and in total by an upload
    gate
    in front of Gradio's upload route (``admission.uploads``), and at most `PUBLIC_SESSION_CAPACITY` sessions'
    state kept.

    Parameters
    ----------
    port : int or None
        The port; None reads ``GRADIO_SERVER_PORT`` (unset: Gradio's choice).
    policy : Policy or None
        This server's limits; None reads them from the environment.
    admission : Admission or None
        Public mode's limits; None: :func:`admission_for` the policy.

    Returns
    -------
    dict
        Keyword arguments of ``gradio.Blocks.launch``.
    """
    policy = policy or Policy.from_env()
    if port is None and os.environ.get("GRADIO_SERVER_PORT"):
        port = int(os.environ["GRADIO_SERVER_PORT"])
    options = dict(server_name=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"), server_port=port,
                   show_error=False, run_history=False, footer_links=["api", "settings"], css=EXPLORER_CSS)
    if policy.public:
        admission = admission if admission is not None else admission_for(policy)
        options["max_file_size"] = "1mb"
        options["state_session_capacity"] = PUBLIC_SESSION_CAPACITY
        options["app_kwargs"] = {"middleware": [Middleware(UploadGate, rate=admission.uploads,
                                                           behind_proxy=admission.behind_proxy)]}
    return options


def main(argv: list[str] | None = None) -> None:
    """Build and serve the explorer (the Space entry `app.py` and ``python -m plates.explorer``).

    Port 7860 unless ``GRADIO_SERVER_PORT`` says otherwise; private on loopback, public on any other address
    unless ``--private`` (or ``PLATES_PUBLIC=0``), and always public on a hosted Space.

    Parameters
    ----------
    argv : list of str or None
        Command-line arguments (``--private``); None reads ``sys.argv``.
    """
    cli = argparse.ArgumentParser(description="Serve the plate explorer: private on 127.0.0.1 (the default), "
                                  "public on any other address (GRADIO_SERVER_NAME) unless --private.")
    cli.add_argument("--private", action="store_true", help="a private instance on any address: your own "
                     "endpoints and larger caps (ignored on a hosted Space, which is always public)")
    policy = Policy.from_env(private=cli.parse_args(argv).private)
    log.warning("%s mode (%s)", "public" if policy.public else "private", policy.reason)
    admission = admission_for(policy)
    build_app(policy, admission).launch(**launch_options(
        port=None if os.environ.get("GRADIO_SERVER_PORT") else 7860, policy=policy, admission=admission))
