"""The live plate explorer: the Gradio app the Hugging Face Space's `app.py` launches.

Thin on purpose: every decision lives in plates.explorer.plate / plates.explorer.models; this file lays out widgets
and wires events. ``build_app()`` returns the Blocks (tests build and drive it); ``main()`` launches it
(`app.py`, ``python -m plates.explorer``). Env: ``GRADIO_SERVER_NAME`` / ``GRADIO_SERVER_PORT`` (host/port),
``PLATES_ALLOWED_BASE_URLS``, ``PLATES_ALLOWED_HF_MODELS``. Public mode is the default; ``--private`` or
``PLATES_PUBLIC=0`` serves a private instance, except on a hosted Space (``SPACE_ID`` / ``SYSTEM=spaces``),
which is always public (`plates.explorer.plate.Policy.from_env`).
"""

from __future__ import annotations

import argparse
import functools
import inspect
import logging
import os
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass

import gradio as gr
from starlette.middleware import Middleware

from plates.admission import SESSION_TTL_S, Admission, UploadGate, hosted_space
from plates.conditions import Condition
from plates.explorer import family_tabs
from plates.explorer import models as em
from plates.explorer import plate as ex
from plates.secrets import clean_message
from plates.stimuli.ishihara.plate import PlateSpec

log = logging.getLogger("plates.app")
#: Seconds between the sweep's page updates (answers arriving faster are shown together).
SWEEP_UPDATE_S = 0.5


def _guard(fn, secrets_from=None, hide_paths=False):
    """Run a handler; bad input becomes a clear gr.Error, anything else a short message with no trace.

    ``secrets_from(args)`` names values (the session's key) to scrub from every message; ``hide_paths``
    (public mode) cuts server paths out of messages.
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


def admission_for(policy: ex.Policy) -> Admission | None:
    """Public mode's limits per address and server-wide (`plates.admission.Admission`; addresses from the
    Space's proxy on a hosted Space), None in private mode."""
    return Admission(behind_proxy=hosted_space()) if policy.public else None


#: Chained steps and events the page wires for itself: not endpoints of the API page.
INTERNAL = dict(api_visibility="private")


@dataclass
class _Shared:
    """What every tab of one app uses: the policy and admission limits, the error guard, the concurrency
    slots, the model cache, the plates on screen, the scratch folder for the files we name, and the session
    state's time to live."""

    policy: ex.Policy
    admission: Admission | None
    guard: Callable
    slots: dict
    cache: em.ModelCache
    plates_seen: ex.PlateCache
    scratch: ex.Scratch
    ttl: float | None

    def make_spec(self, base_json, *vals):
        """The Plate tab's controls (and the pasted/linked spec they sit on) as a PlateSpec."""
        base = ex.spec_from_text(base_json, self.policy) if base_json else None
        return ex.controls_to_spec(ex.Controls(*vals), self.policy, base=base)

    def parquet(self, history):
        return self.scratch.write("explorer-history", "parquet", em.history_parquet(history))


@dataclass
class _PlateTab:
    """The Plate tab's widgets other tabs read: its controls, their inputs (the base spec first) and the
    render event's arguments."""

    controls: list
    plate_inputs: list
    render_kw: dict


def build_app(policy: ex.Policy | None = None, admission: Admission | None = None) -> gr.Blocks:
    """The explorer's Blocks: plate panel (live), model panel with its ΔE sweep, and the family tabs.
    Nothing is launched here. ``admission``: the limits the app checks (default: `admission_for` the policy;
    pass the same object to `launch_options`, whose upload gate shares it)."""
    policy = policy or ex.Policy.from_env()
    admission = admission if admission is not None else admission_for(policy)
    shared = _Shared(
        policy=policy, admission=admission, guard=functools.partial(_guard, hide_paths=policy.public),
        slots=ex.concurrency(policy),  # events at once per group, up to the cores, and the queue's bound
        # public mode remembers a model that failed to load, so retries do not take the model slot again
        cache=em.ModelCache(remember_failures_s=em.FAILED_LOAD_MEMORY_S if policy.public else 0.0),
        plates_seen=ex.PlateCache(),  # the plates on screen, reused when a model is asked about them
        scratch=ex.Scratch(tempfile.mkdtemp(prefix="plates-explorer-")),  # files we name, never user paths
        ttl=SESSION_TTL_S if admission is not None else None)  # public mode: no state outlives it unused
    # Warm up before serving: fonts, packing and colour-science load now, not in a visitor's first request.
    # colour-science also registers a stand-in `matplotlib` module when matplotlib is absent; importing it
    # inside a request would break Gradio's matplotlib backend guard around that request.
    ex.render_views(ex.default_spec())
    with gr.Blocks(title="plates · live plate explorer", delete_cache=(900, 1800)) as demo:
        gr.Markdown("# plates · live plate explorer\nTweak one Ishihara-style plate, see it through other eyes, "
                    "and ask a model what it reads." + (" *(public mode)*" if policy.public else ""))
        base_state = gr.State("")  # JSON of a pasted/linked spec: fields the controls do not show survive
        key_state = gr.State("")  # the visitor's API key: this session only, never an output
        history_state = gr.State([], time_to_live=shared.ttl)
        run_state = gr.State("")  # this session's run id (set on load)
        demo.load(lambda: f"explorer-{uuid.uuid4().hex[:12]}", None, run_state, **INTERNAL)
        plate = _plate_tab(shared, demo, base_state)
        model = _model_tab(shared, plate, key_state, history_state, run_state)
        # the family tabs: Illusions, Scenes, Try it yourself
        family_tabs.add_family_tabs(policy, guard=shared.guard, cache=shared.cache, scratch=shared.scratch,
                                    model=model, key_state=key_state, admission=admission)
    demo.queue(max_size=shared.slots["queue"], default_concurrency_limit=shared.slots["default"])
    return demo


# ------------------------------------------------------------------------------------------------ plate tab
def _plate_tab(shared: _Shared, demo: gr.Blocks, base_state: gr.State) -> _PlateTab:
    """The Plate tab: its controls and views, redrawn live, and the spec paste / upload / link."""
    with gr.Tab("Plate"):
        with gr.Row():
            with gr.Column(scale=1, min_width=300):
                w = _plate_controls(shared.policy)
            with gr.Column(scale=3):
                w |= _plate_views()
    return _wire_plate(shared, demo, base_state, w)


def _plate_controls(policy: ex.Policy) -> dict:
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
                                 label="Density (dot coverage; the dense style only)",
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
    w["share"] = gr.Textbox(label="Share link (opens this exact plate)", elem_id="share",
                            interactive=False, buttons=["copy"])
    with gr.Accordion("Spec: download, paste or upload to reproduce a plate exactly", open=False):
        w["spec_box"] = gr.Code(language="json", label="Spec JSON (editable)", interactive=True)
        with gr.Row():
            w["apply_btn"] = gr.Button("Apply pasted spec")
            w["spec_upload"] = gr.File(label="Upload a spec (.json)", type="binary", file_types=[".json"])
            w["spec_download"] = gr.DownloadButton("Download spec JSON")
    return w


def _wire_plate(shared: _Shared, demo: gr.Blocks, base_state: gr.State, w: dict) -> _PlateTab:
    """The Plate tab's events: live redraw, colour presets and pickers, random labels, spec paste / upload,
    and a share link opened on load."""
    policy, guard, slots, scratch, plates_seen = (shared.policy, shared.guard, shared.slots, shared.scratch,
                                                  shared.plates_seen)
    images, fg, bg, text, font, colour_pair = w["images"], w["fg"], w["bg"], w["text"], w["font"], w["colour_pair"]
    controls = [colour_pair, fg, bg, w["delta_e"], font, text, w["dot_min"], w["dot_max"], w["density"],
                w["jitter"], w["size"], w["seed"], w["plate_style"]]
    plate_inputs = [base_state, *controls]
    plate_outputs = [*(images[v] for v in ex.VIEWS), w["stats"], w["spec_box"], w["spec_download"], w["share"],
                     fg, bg, w["drawn"], w["dot_min"], w["dot_max"], w["density"]]

    def render_plate(request: gr.Request, base_json, *vals):  # Gradio fills `request` (first: before *vals)
        try:
            spec = shared.make_spec(base_json, *vals)
        except ValueError as exc:  # the plate on screen stays, marked not redrawn, with the reason in words
            message = clean_message(str(exc), (), hide_paths=policy.public)
            gr.Warning(message)
            return (*[gr.skip()] * len(ex.VIEWS), f"⚠️ **Not redrawn:** {message}",
                    *[gr.skip()] * (len(plate_outputs) - len(ex.VIEWS) - 1))
        views = ex.render_views(spec, renderer=plates_seen)
        spec_json = ex.spec_to_json(spec)
        plate_png = scratch.write("plate", "png", ex.png_bytes(views.images["plate"]))  # exact pixels
        spec_file = scratch.write("plate-spec", "json", spec_json.encode())
        page = request.headers.get("referer") if request is not None else None  # the page the visitor is on
        share = ex.share_link(spec, page)
        shown = ex.spec_to_controls(spec)
        min_hi, max_hi = ex.dot_slider_limits(spec)
        return (plate_png, *(views.images[v] for v in ex.VIEWS[1:]), views.stats, spec_json, spec_file, share,
                shown.foreground, shown.background, ex.drawn_swatches(spec), gr.update(maximum=min_hi),
                gr.update(maximum=max_hi), gr.update(value=shown.density, interactive=ex.density_is_free(spec.style)))

    def picker_changed(request: gr.Request, base_json, *vals):
        """A colour picker's value changed: typed (hex box), picked or dragged by the visitor, or set by a
        render or a preset. The visitor's change makes the colours custom and redraws; a value the current
        plate already shows (our own update) changes nothing."""
        c = ex.Controls(*vals)
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
        spec = ex.spec_from_text(text, policy)
        return (ex.spec_to_json(spec), *ex.spec_to_controls(spec).__dict__.values())

    def apply_spec_file(data):
        if data is None:
            raise ValueError("no spec file was uploaded")
        return apply_spec_text(data)

    def on_load(request: gr.Request):
        code = dict(request.query_params).get(ex.QUERY_PARAM) if request is not None else None
        if not code:
            return (gr.update(),) * (1 + len(controls))
        try:
            return apply_spec_text(ex.spec_to_json(ex.decode_spec(code, policy)))
        except ValueError as exc:
            gr.Warning(f"The link's plate could not be opened: {exc}")
            return (gr.update(),) * (1 + len(controls))

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
    return _PlateTab(controls=controls, plate_inputs=plate_inputs, render_kw=render_kw)


# ------------------------------------------------------------------------------------------------ model tab
def _model_tab(shared: _Shared, plate: _PlateTab, key_state: gr.State, history_state: gr.State,
               run_state: gr.State) -> tuple:
    """The Model tab: the plate to ask about, the model and prompt, one question, the ΔE2000 sweep and this
    session's history. Returns the model widgets (kind, hf_id, api_model, base_url) the family tabs ask with."""
    with gr.Tab("Model") as model_tab:
        w = _model_widgets(shared.policy)
        with gr.Accordion("ΔE2000 sweep: the same text at a range of differences", open=True):
            sweep = _sweep_widgets(shared.policy)
        w["history_table"] = gr.Dataframe(headers=em.history_headers(), label="This session's queries",
                                          interactive=False, elem_id="history")
        w["history_download"] = gr.DownloadButton("Download history (Parquet, results schema)")
    model_inputs = [w["kind"], w["hf_id"], w["api_model"], w["base_url"], w["prompt_name"], w["prompt_text"],
                    w["cond_size"], w["grayscale"], w["hue"], w["cvd"], w["severity"], w["variant"],
                    *plate.plate_inputs]
    _wire_model(shared, plate, model_tab, w, model_inputs, key_state, history_state, run_state)
    _wire_sweep(shared, w, sweep, model_inputs, key_state, history_state, run_state)
    return w["kind"], w["hf_id"], w["api_model"], w["base_url"]


def _model_widgets(policy: ex.Policy) -> dict:
    """The Model tab's widgets above the sweep, by name."""
    w: dict = {}
    with gr.Row():
        with gr.Column():
            w["asked_plate"] = gr.Image(label="The plate to ask about", type="pil", format="jpeg",
                                        interactive=False, height=160, elem_id="asked-plate-image")
            w["asked_caption"] = gr.Markdown(elem_id="asked-plate")
            w["kind"] = gr.Radio(list(em.MODEL_KINDS), value="baseline", label="Model",
                                 info=em.MODEL_KIND_INFO["baseline"], elem_id="model-kind")
            field_cap = policy.max_field_chars
            w["hf_id"] = gr.Textbox(label="Hugging Face model id", visible=False, max_length=field_cap,
                                    info=("allowed: " + ", ".join(policy.allowed_hf_models)) if policy.public else None)
            w["api_model"] = gr.Textbox(label="API model name", placeholder="gpt-4o-mini", visible=False,
                                        max_length=field_cap)
            w["base_url"] = gr.Textbox(label="OpenAI-compatible base URL", placeholder="https://api.openai.com/v1",
                                       info=("allowed: " + (", ".join(policy.allowed_base_urls) or "none"))
                                       if policy.public else None, visible=False, max_length=field_cap)
            w["key_box"] = gr.Textbox(label="API key (kept in your session only)", type="password",
                                      visible=False, max_length=field_cap)
            w["key_status"] = gr.Markdown("No key set.", visible=False)
        with gr.Column():
            w["prompt_name"] = gr.Dropdown(list(em.PROMPTS), value="cbe-open", label="Prompt", elem_id="prompt-name")
            w["prompt_text"] = gr.Textbox(em.prompt_template_text("cbe-open"), lines=4,
                                          label="Prompt text (editable)", max_length=policy.max_prompt_chars)
            with gr.Row():
                w["variant"] = gr.Dropdown(list(em.VARIANTS), value="standard", label="Variant")
                w["cond_size"] = gr.Number(0, precision=0, label="Image size px (0 = as rendered)")
                w["grayscale"] = gr.Checkbox(False, label="Grayscale")
            with gr.Row():
                w["hue"] = gr.Slider(-180, 180, value=0, step=5, label="Hue shift (°)")
                w["cvd"] = gr.Dropdown(["none", "protan", "deutan", "tritan"], value="none", label="CVD view")
                w["severity"] = gr.Slider(0, 1, value=1, step=0.05, label="CVD severity")
    w["ask_btn"] = gr.Button("Ask the model", variant="primary")
    with gr.Row():
        w["seen"] = gr.Image(label="What the model received", type="pil", format="png", interactive=False,
                             height=220, scale=1, elem_id="seen")
        with gr.Column(scale=3):
            w["reply"] = gr.Textbox(label="Raw reply (after a sweep: every point's)", lines=3, elem_id="reply")
            w["verdict"] = gr.Markdown(elem_id="verdict")
            w["request_md"] = gr.Markdown(elem_id="sent-request")
    return w


def _make_ask(policy: ex.Policy, prompt_name, prompt_text, size, grayscale, hue, cvd, severity, variant) -> em.Ask:
    size = int(size) if size else None
    cond = Condition(size=size, grayscale=bool(grayscale), hue_shift=float(hue), cvd=cvd,
                     cvd_severity=float(severity))
    ask = em.Ask(prompt_name=prompt_name, prompt_text=prompt_text, condition=cond, variant=variant)
    ask.validate(policy)
    return ask


def _secrets(args):  # the session's key: the first input of ask and sweep
    return (args[0],)


def _wire_model(shared: _Shared, plate: _PlateTab, model_tab: gr.Tab, w: dict, model_inputs: list,
                key_state: gr.State, history_state: gr.State, run_state: gr.State) -> None:
    """The Model tab's events: the plate to ask about on opening, the model fields, the key, the prompt's
    defaults, and one question."""
    policy, guard, admission, cache, scratch, plates_seen = (shared.policy, shared.guard, shared.admission,
                                                             shared.cache, shared.scratch, shared.plates_seen)

    def show_asked_plate(base_json, *vals):
        """The Model tab's picture and caption of the plate it will ask about (the Plate tab's, from the cache:
        the plate controls live on the other tab, so the picture is current whenever this tab is open)."""
        try:
            spec = shared.make_spec(base_json, *vals)
        except ValueError as exc:
            why = clean_message(str(exc), (), hide_paths=policy.public)
            return None, f"⚠️ **The Plate tab's plate cannot be drawn:** {why}"
        plate = plates_seen(spec)
        return plate.image, ex.plate_caption(plate)

    def store_key(key):
        key = (key or "").strip()
        if len(key) > policy.max_field_chars:  # never echoed: only its length is named
            return "", f"No key set: it has {len(key)} characters; allowed: at most {policy.max_field_chars}."
        return key, ("A key is set for this session only." if key else "No key set.")

    def ask_model(key, history, run_id, kind, hf_id, api_model, base_url, prompt_name, prompt_text, size,
                  grayscale, hue, cvd, severity, variant, base_json, *vals):
        if admission is not None:
            admission.memory.check("a model call")
        spec = shared.make_spec(base_json, *vals)
        ask = _make_ask(policy, prompt_name, prompt_text, size, grayscale, hue, cvd, severity, variant)
        run_id = run_id or f"explorer-{uuid.uuid4().hex[:12]}"
        choice = em.ModelChoice(kind, hf_id if kind == "hf" else api_model, base_url)
        backend, close = em.open_backend(choice, key, policy, cache)
        try:
            row, seen = em.ask_one(spec, ask, backend, colour_set=vals[0], run_id=run_id, secrets=(key,),
                                   gpu=cache.ask_on_gpu, renderer=plates_seen)
        finally:
            if close:
                backend.close()
        history = [*history, row][-em.MAX_HISTORY:]
        seen_png = scratch.write("model-input", "png", ex.png_bytes(seen))  # exact pixels, fast encoder
        return (row["reply"] or "", em.result_markdown(row), history, em.history_frame(history),
                shared.parquet(history), run_id, seen_png, em.sent(spec, ask, plates_seen)[1])

    kind, hf_id, api_model, base_url, key_box, key_status = (w["kind"], w["hf_id"], w["api_model"], w["base_url"],
                                                             w["key_box"], w["key_status"])
    model_tab.select(guard(show_asked_plate), plate.plate_inputs, [w["asked_plate"], w["asked_caption"]],
                     show_progress="hidden", **INTERNAL)
    kind.change(lambda k: (gr.update(info=em.MODEL_KIND_INFO.get(k, "")), gr.update(visible=k == "hf"),
                           *[gr.update(visible=k == "openai")] * 4), kind,
                [kind, hf_id, api_model, base_url, key_box, key_status], show_progress="hidden", **INTERNAL)
    key_box.change(store_key, key_box, [key_state, key_status], api_name="set_key", show_progress="hidden")
    w["prompt_name"].input(guard(em.prompt_defaults), w["prompt_name"], [w["prompt_text"], w["variant"]],
                           **INTERNAL)
    w["ask_btn"].click(guard(ask_model, _secrets), [key_state, history_state, run_state, *model_inputs],
                       [w["reply"], w["verdict"], history_state, w["history_table"], w["history_download"],
                        run_state, w["seen"], w["request_md"]],
                       api_name="ask", concurrency_limit=shared.slots["model"], concurrency_id="model")


# ---------------------------------------------------------------------------------------------------- sweep
def _sweep_widgets(policy: ex.Policy) -> dict:
    """The ΔE2000 sweep's range, points, button and plot, by name."""
    w: dict = {}
    with gr.Row():
        w["sweep_lo"] = gr.Number(1.0, label="ΔE2000 from")
        w["sweep_hi"] = gr.Number(20.0, label="ΔE2000 to")
        w["sweep_n"] = gr.Slider(2, policy.max_sweep_points, value=min(8, policy.max_sweep_points), step=1,
                                 label="Points")
        w["sweep_btn"] = gr.Button("Run sweep")
    w["sweep_plot"] = gr.Plot(label="Answers and accuracy vs ΔE2000 drawn", elem_id="sweep-plot")
    return w


def _wire_sweep(shared: _Shared, model: dict, w: dict, model_inputs: list, key_state: gr.State,
                history_state: gr.State, run_state: gr.State) -> None:
    """The sweep's event: the same question at a range of ΔE2000, the page updated as answers arrive (every
    `SWEEP_UPDATE_S`); it shares the model slot with one question."""
    policy, admission, cache, scratch, plates_seen = (shared.policy, shared.admission, shared.cache,
                                                      shared.scratch, shared.plates_seen)

    def run_sweep(key, history, run_id, low, high, points, kind, hf_id, api_model, base_url, prompt_name,
                  prompt_text, size, grayscale, hue, cvd, severity, variant, base_json, *vals):
        if admission is not None:
            admission.memory.check("a sweep")
        spec = shared.make_spec(base_json, *vals)
        values = em.sweep_values(float(low), float(high), int(points), policy)
        run_id = run_id or f"explorer-{uuid.uuid4().hex[:12]}"
        ask = _make_ask(policy, prompt_name, prompt_text, size, grayscale, hue, cvd, severity, variant)
        plan = em.sweep_plan(spec, values)  # values these colours cannot reach are named, not fatal
        if not plan.specs:
            raise ValueError(f"no ΔE2000 of the sweep can be drawn with these colours: {plan.skipped[0][1]}")
        choice = em.ModelChoice(kind, hf_id if kind == "hf" else api_model, base_url)
        backend, close = em.open_backend(choice, key, policy, cache)
        rows: list[dict] = []
        try:  # one batch: an API backend asks every point at once; the page updates every SWEEP_UPDATE_S
            answers = em.ask_many(plan.specs, ask, backend, colour_set=vals[0], run_id=run_id, secrets=(key,),
                                  gpu=cache.ask_on_gpu, renderer=plates_seen)
            for batch in em.in_batches(answers, SWEEP_UPDATE_S):
                rows += batch
                history = [*history, *batch][-em.MAX_HISTORY:]
                # "What the model received" follows the sweep: the latest answered point's image and request
                latest, request_md = em.sent(PlateSpec.from_json(batch[-1]["spec_json"]), ask, plates_seen)
                yield (history, em.history_frame(history), em.sweep_figure(rows), shared.parquet(history),
                       em.sweep_replies(rows), em.sweep_summary(rows, plan.skipped),
                       scratch.write("model-input", "png", ex.png_bytes(latest)), request_md)
        finally:
            if close:
                backend.close()

    w["sweep_btn"].click(shared.guard(run_sweep, _secrets),
                         [key_state, history_state, run_state, w["sweep_lo"], w["sweep_hi"], w["sweep_n"],
                          *model_inputs],
                         [history_state, model["history_table"], w["sweep_plot"], model["history_download"],
                          model["reply"], model["verdict"], model["seen"], model["request_md"]],
                         api_name="sweep", concurrency_limit=shared.slots["model"], concurrency_id="model")


#: Public mode: browser sessions whose Gradio state is kept at once (Gradio's default is 10,000; each holds a
#: copy of the page's configuration, 6-9 MB after a render and a sweep); the least recently used go first.
PUBLIC_SESSION_CAPACITY = 96


def launch_options(port: int | None = None, policy: ex.Policy | None = None,
                   admission: Admission | None = None) -> dict:
    """How the explorer is launched (tests and the bench use the same): host and port from the environment,
    no raw errors on the page, no run history (it would keep inputs, a visitor's key among them, in the
    browser or a bucket), and in public mode uploads capped at 1 MB a file (a spec is a few hundred bytes) and
    per address and in total by an upload gate in front of Gradio's upload route (``admission.uploads``;
    default: `admission_for` the policy), and at most `PUBLIC_SESSION_CAPACITY` sessions' state kept."""
    policy = policy or ex.Policy.from_env()
    if port is None and os.environ.get("GRADIO_SERVER_PORT"):
        port = int(os.environ["GRADIO_SERVER_PORT"])
    options = dict(server_name=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"), server_port=port,
                   show_error=False, run_history=False, footer_links=["api", "settings"])
    if policy.public:
        admission = admission if admission is not None else admission_for(policy)
        options["max_file_size"] = "1mb"
        options["state_session_capacity"] = PUBLIC_SESSION_CAPACITY
        options["app_kwargs"] = {"middleware": [Middleware(UploadGate, rate=admission.uploads,
                                                           behind_proxy=admission.behind_proxy)]}
    return options


def main(argv: list[str] | None = None) -> None:
    """Build and serve the explorer (the Space entry `app.py` and `python -m plates.explorer`): port 7860
    unless ``GRADIO_SERVER_PORT`` says otherwise; public unless ``--private`` (or ``PLATES_PUBLIC=0``) and
    always public on a hosted Space."""
    cli = argparse.ArgumentParser(description="Serve the plate explorer (public mode unless --private).")
    cli.add_argument("--private", action="store_true", help="a private instance: your own endpoints and larger "
                     "caps (ignored on a hosted Space, which is always public)")
    policy = ex.Policy.from_env(private=cli.parse_args(argv).private)
    if not policy.public:
        log.warning("private mode: serve it on a trusted network only")
    admission = admission_for(policy)
    build_app(policy, admission).launch(**launch_options(
        port=None if os.environ.get("GRADIO_SERVER_PORT") else 7860, policy=policy, admission=admission))
