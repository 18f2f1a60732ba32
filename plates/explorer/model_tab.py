"""The explorer's Model tab: the plate to ask about, the model and prompt, one question, the ΔE2000 sweep and
this session's history (`model_tab`, called by `plates.explorer.app.build_app`). Thin: the decisions live in
`plates.explorer.models` and `plates.explorer.plate`."""

from __future__ import annotations

import uuid

import gradio as gr

from plates.conditions import Condition
from plates.explorer import models as em
from plates.explorer import plate as ex
from plates.explorer.context import INTERNAL, AppContext, PlateTab
from plates.secrets import clean_message
from plates.stimuli.ishihara.plate import PlateSpec

__all__ = ["SWEEP_UPDATE_S", "model_tab"]

#: Seconds between the sweep's page updates (answers arriving faster are shown together).
SWEEP_UPDATE_S = 0.5


def model_tab(shared: AppContext, plate: PlateTab, key_state: gr.State, history_state: gr.State,
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


def _wire_model(shared: AppContext, plate: PlateTab, model_tab: gr.Tab, w: dict, model_inputs: list,
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


def _wire_sweep(shared: AppContext, model: dict, w: dict, model_inputs: list, key_state: gr.State,
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
