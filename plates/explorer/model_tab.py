"""The explorer's Model tab: the plate to ask about, the model and prompt, one question, the ΔE2000 sweep and
this session's history (`model_tab`, called by `plates.explorer.app.build_app`). Thin: the decisions live in
`plates.explorer.backends`, `plates.explorer.models`, `plates.explorer.sweep`, `plates.explorer.history` and
`plates.explorer.plate`."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import fields

import gradio as gr

from plates.explorer import compare, reproduce, share
from plates.explorer import models as em
from plates.explorer import plate as ex
from plates.explorer.backends import (
    MODEL_KIND_INFO,
    ModelChoice,
    base_url_choices,
    model_kinds,
    open_backend,
    why_not_ready,
)
from plates.explorer.context import INTERNAL, AppContext, PlateTab
from plates.explorer.history import MAX_HISTORY, history_frame, history_headers
from plates.explorer.policy import Policy
from plates.explorer.share import ModelView
from plates.explorer.sweep import (
    COARSE_POINTS,
    LOG_SPACING_RATIO,
    SWEEP_DEFAULT,
    coarse_pass,
    fine_passes,
    in_batches,
    sweep_plan,
    sweep_replies,
    sweep_summary,
    sweep_values,
)
from plates.secrets import clean_message
from plates.stimuli.ishihara.plate import PlateSpec

__all__ = ["STALE_FAMILY_MARK", "STALE_MARK", "SWEEP_UPDATE_S", "model_tab", "wire_ready", "wire_stale"]

#: Seconds between the sweep's page updates (answers arriving faster are shown together).
SWEEP_UPDATE_S = 0.5


def model_tab(shared: AppContext, plate: PlateTab, demo: gr.Blocks, key_state: gr.State, history_state: gr.State,
              run_state: gr.State) -> tuple:
    """Add the Model tab to the Blocks being built, and wire its events.

    The tab holds the plate to ask about, the model and prompt, one question, the models compared side by
    side,
    the ΔE2000 sweeps (kept and overlaid until cleared), this session's history, the share link and the
    reproduce
    box.

    Parameters
    ----------
    shared : AppContext
        What every tab of the app uses (policy, guard, slots, caches, scratch folder, pool).
    plate : PlateTab
        The Plate tab's controls and inputs the model's events read.
    demo : gradio.Blocks
        The Blocks being built (its ``load`` event restores a shared link).
    key_state : gradio.State
        The session's API key.
    history_state : gradio.State
        The session's results rows.
    run_state : gradio.State
        The session's run id.

    Returns
    -------
    tuple of gradio components
        The model widgets (kind, hf_id, api_model, base_url) the family tabs ask with.
    """
    with gr.Tab("Model") as model_tab:
        w = _model_widgets(shared.policy)
        with gr.Accordion("Compare models side by side: the same request to each", open=True):
            w |= _compare_widgets(shared.policy)
        with gr.Accordion("ΔE2000 sweep: the same text at a range of differences (kept until cleared)", open=True):
            sweep = _sweep_widgets(shared.policy)
        w["history_table"] = gr.Dataframe(headers=history_headers(), label="This session's queries",
                                          interactive=False, elem_id="history")
        w["history_download"] = gr.DownloadButton("Download history (Parquet, results schema)")
        w |= _share_widgets()
    # the Model tab's own controls, in `plates.explorer.share.ModelView.from_widgets` order (the comparison box
    # last); the ask and sweep endpoints take them without the box, then the Plate tab's inputs
    asked = [w["kind"], w["hf_id"], w["api_model"], w["base_url"], w["prompt_name"], w["prompt_text"],
             w["cond_size"], w["grayscale"], w["hue"], w["cvd"], w["severity"], w["variant"]]
    model_inputs = [*asked, *plate.plate_inputs]
    view_inputs = [*asked, w["compare_box"], *plate.plate_inputs]
    sweep_state = gr.State([], time_to_live=shared.ttl)  # every sweep's rows since the last "Clear sweeps"
    _wire_model(shared, plate, model_tab, w, model_inputs, key_state, history_state, run_state)
    _wire_compare(shared, w, view_inputs, key_state, history_state, run_state)
    _wire_sweep(shared, w, sweep, model_inputs, view_inputs, key_state, history_state, run_state, sweep_state)
    _wire_share(shared, demo, model_tab, w, [*asked, w["compare_box"]], view_inputs, key_state)
    wire_stale(w["reply"], w["stale"], [*asked, *plate.controls],
               [w["ask_btn"], sweep["sweep_btn"], sweep["sweep_all_btn"]])
    wire_ready(shared.policy, w["kind"], key_state, [(w["ask_btn"], w["ask_why"]),
                                                     (sweep["sweep_btn"], sweep["sweep_why"])])
    return w["kind"], w["hf_id"], w["api_model"], w["base_url"]


#: The mark over an answer whose plate, model, prompt or condition has changed since it was given (Markdown).
STALE_MARK = ("⚠️ **Stale:** the plate, the model, the prompt or the condition changed since this answer was "
              "given; ask again for an answer to what is shown now.")
#: The same mark on the Illusions and Scenes tabs (their image, question or model changed).
STALE_FAMILY_MARK = ("⚠️ **Stale:** the image, the question or the model changed since this answer was given; "
                     "ask again for an answer to what is shown now.")


def wire_stale(reply: gr.Textbox, stale: gr.Markdown, controls: list, asks: list, mark: str = STALE_MARK) -> None:
    """Mark an answer stale when the visitor changes what it was an answer to.

    Shows ``mark`` in ``stale`` when the visitor changes one of ``controls`` while ``reply`` holds an answer
    (``input`` events: the visitor's own changes, not a render's; text boxes and dropdowns on ``change``, as
    the
    plate redraws on it: their ``input`` misses some edits), and clears it when one of the ``asks`` buttons is
    pressed. The Model, Illusions and Scenes tabs use it.

    Parameters
    ----------
    reply : gradio.Textbox
        The answer box.
    stale : gradio.Markdown
        Where the mark shows.
    controls : list of gradio components
        The inputs the answer depends on.
    asks : list of gradio.Button
        The buttons that ask again.
    mark : str
        The mark (Markdown): :data:`STALE_MARK` or :data:`STALE_FAMILY_MARK`.
    """
    triggers = [c.change if isinstance(c, gr.Textbox | gr.Dropdown) else c.input for c in controls]
    gr.on(triggers, lambda text: mark if text else "", reply, stale, show_progress="hidden", **INTERNAL)
    for button in asks:
        button.click(lambda: "", None, stale, show_progress="hidden", **INTERNAL)


def wire_ready(policy: Policy, kind: gr.Radio, key_state: gr.State, asks: list,
               who: Callable | None = None) -> None:
    """Make each Ask button follow the Model tab's model kind and the session's key.

    Each button is disabled, with the reason beside it, while it cannot answer
    (`plates.explorer.backends.why_not_ready`), else enabled with ``who(kind)`` beside it. No Ask button leads
    to
    an error toast for a missing key.

    Parameters
    ----------
    policy : Policy
        This server's limits.
    kind : gradio.Radio
        The Model tab's model kind.
    key_state : gradio.State
        The session's API key.
    asks : list of (gradio.Button, gradio.Markdown)
        Each button and the Markdown beside it.
    who : callable or None
        Kind -> Markdown shown beside an enabled button; None shows nothing.
    """
    def follow(k, key):
        why = why_not_ready(k, key, policy)
        note = f"⚠️ {why[0].upper()}{why[1:]}." if why else (who(k) if who else "")
        return tuple(x for _ in asks for x in (gr.update(interactive=why is None), note))

    gr.on([kind.change, key_state.change], follow, [kind, key_state], [x for pair in asks for x in pair],
          show_progress="hidden", **INTERNAL)


def _model_widgets(policy: Policy) -> dict:
    """The Model tab's widgets above the sweep, by name."""
    w: dict = {}
    with gr.Row():
        with gr.Column():
            w["asked_plate"] = gr.Image(label="The plate to ask about", type="pil", format="jpeg",
                                        interactive=False, height=160, elem_id="asked-plate-image")
            w["asked_caption"] = gr.Markdown(elem_id="asked-plate")
            w["kind"] = gr.Radio(list(model_kinds(policy)), value="baseline", label="Model",
                                 info=MODEL_KIND_INFO["baseline"], elem_id="model-kind")
            field_cap = policy.max_field_chars
            w["hf_id"] = gr.Textbox(label="Hugging Face model id", visible=False, max_length=field_cap,
                                    info=("allowed: " + ", ".join(policy.allowed_hf_models)) if policy.public else None)
            w["api_model"] = gr.Textbox(label="API model name", placeholder="gpt-4o-mini", visible=False,
                                        max_length=field_cap, elem_id="api-model")
            urls = base_url_choices(policy)
            # public mode: the fixed list (a typed URL is refused by `ModelChoice.validate`, with the list, as
            # through the API); private mode: a provider or any URL typed
            w["base_url"] = gr.Dropdown(urls, value=urls[0][1] if policy.public and urls else None,
                                        label="OpenAI-compatible base URL", allow_custom_value=True,
                                        info=("a provider: your own key goes to it and nowhere else"
                                              if policy.public else "a provider, or type any URL"),
                                        visible=False, elem_id="base-url")
            w["key_box"] = gr.Textbox(label="Your API key (for this browser session only: never logged, stored "
                                            "or put in a link)", type="password", visible=False,
                                      max_length=field_cap, elem_id="api-key")
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
    with gr.Row():
        w["ask_btn"] = gr.Button("Ask the model", variant="primary", elem_id="ask-model", scale=1)
        w["ask_why"] = gr.Markdown("", elem_id="ask-why")  # why it cannot answer yet, beside it (`wire_ready`)
    with gr.Row():
        w["seen"] = gr.Image(label="What the model received", type="pil", format="png", interactive=False,
                             height=220, scale=1, elem_id="seen")
        with gr.Column(scale=3):
            w["stale"] = gr.Markdown("", elem_id="stale-answer")  # set when a control changes after an answer
            w["reply"] = gr.Textbox(label="Raw reply (after a sweep: every point's)", lines=3, elem_id="reply")
            w["verdict"] = gr.Markdown(elem_id="verdict")
            w["request_md"] = gr.Markdown(elem_id="sent-request")
    return w


def _view_and_spec(shared: AppContext, vals, compare: bool = False) -> tuple[ModelView, PlateSpec]:
    """The Model tab's values as its view and the plate's spec: ``vals`` are the view's widgets (with the
    comparison box when ``compare``), then the Plate tab's inputs."""
    n = len(fields(ModelView)) + (1 if compare else 0)  # the model is two boxes (HF id, API name)
    return ModelView.from_widgets(*vals[:n]), shared.make_spec(*vals[n:])


def _secrets(args):  # the session's key: the first input of ask and sweep (after Gradio's request)
    return tuple(a for a in args[:2] if isinstance(a, str))


def _wire_model(shared: AppContext, plate: PlateTab, model_tab: gr.Tab, w: dict, model_inputs: list,
                key_state: gr.State, history_state: gr.State, run_state: gr.State) -> None:
    """The Model tab's events: the plate to ask about on opening, the model fields, the key, the prompt's
    defaults, and one question."""
    policy, guard, cache, scratch, plates_seen = (shared.policy, shared.guard, shared.cache, shared.scratch,
                                                  shared.plates_seen)

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

    # named parameters: the `ask` endpoint's API takes them by name
    def ask_model(request: gr.Request, key, history, run_id, kind, hf_id, api_model, base_url, prompt_name,
                  prompt_text, size, grayscale, hue, cvd, severity, variant, base_json, *vals):
        shared.admit_answers(request, 1, "a model call")
        view, spec = _view_and_spec(shared, (kind, hf_id, api_model, base_url, prompt_name, prompt_text, size,
                                             grayscale, hue, cvd, severity, variant, base_json, *vals))
        ask = view.ask(policy)
        run_id = run_id or f"explorer-{uuid.uuid4().hex[:12]}"
        backend, close = open_backend(view.choice(), key, policy, cache)
        try:
            row, seen = em.ask_one(spec, ask, backend, colour_set=spec.palette or ex.CUSTOM, run_id=run_id,
                                   secrets=(key,), renderer=plates_seen)
        finally:
            if close:
                backend.close()
        history = [*history, row][-MAX_HISTORY:]
        seen_png = scratch.write("model-input", "png", ex.png_bytes(seen))  # exact pixels, fast encoder
        return (row["reply"] or "", em.result_markdown(row), history, history_frame(history),
                shared.parquet(history), run_id, seen_png, em.sent(spec, ask, plates_seen)[1])

    kind, hf_id, api_model, base_url, key_box, key_status = (w["kind"], w["hf_id"], w["api_model"], w["base_url"],
                                                             w["key_box"], w["key_status"])
    model_tab.select(guard(show_asked_plate), plate.plate_inputs, [w["asked_plate"], w["asked_caption"]],
                     show_progress="hidden", **INTERNAL)
    kind.change(lambda k: (gr.update(info=MODEL_KIND_INFO.get(k, "")), gr.update(visible=k == "hf"),
                           *[gr.update(visible=k == "openai")] * 4), kind,
                [kind, hf_id, api_model, base_url, key_box, key_status], show_progress="hidden", **INTERNAL)
    key_box.change(store_key, key_box, [key_state, key_status], api_name="set_key", show_progress="hidden")
    w["prompt_name"].input(guard(em.prompt_defaults), w["prompt_name"], [w["prompt_text"], w["variant"]],
                           **INTERNAL)
    w["ask_btn"].click(guard(ask_model, _secrets), [key_state, history_state, run_state, *model_inputs],
                       [w["reply"], w["verdict"], history_state, w["history_table"], w["history_download"],
                        run_state, w["seen"], w["request_md"]],
                       api_name="ask", concurrency_limit=shared.slots["model"], concurrency_id="model")


# ---------------------------------------------------------------------------------------------- comparison
def _compare_widgets(policy: Policy) -> dict:
    """The comparison box, its buttons, the side-by-side table and the request they all received, by name."""
    w: dict = {}
    # label and info name no model kind: the kind radio's labels ("openai", ...) stay unique on the page; the
    # line forms are the placeholder
    w["compare_box"] = gr.Textbox(
        label=f"Models to compare, one a line (at most {policy.max_compare_models})", lines=3,
        max_length=policy.max_compare_models * (policy.max_field_chars * 2 + 16), elem_id="compare-models",
        placeholder="baseline\nhf ORG/NAME\nopenai MODEL BASE_URL",
        info=("each line: the kind, then its model name and base URL where it has them; the key above goes only "
              "to the base URL it was typed for"
              + ("; allowed base URLs: the providers of the list above" if policy.public else "")))
    with gr.Row():
        w["add_btn"] = gr.Button("Add the model above", size="sm")
        w["compare_btn"] = gr.Button("Ask them all", variant="primary", elem_id="compare-ask")
    w["compare_table"] = gr.Dataframe(headers=compare.COMPARE_HEADERS, label="Side by side: the same plate, "
                                      "prompt and condition", interactive=False, wrap=True, elem_id="compare-table")
    w["compare_request"] = gr.Markdown(elem_id="compare-request")
    return w


def _wire_compare(shared: AppContext, w: dict, view_inputs: list, key_state: gr.State, history_state: gr.State,
                  run_state: gr.State) -> None:
    """The comparison's events: add the model above to the box; ask every model in it the same request, the
    table growing as each answers (one model call at a time, in the model slot)."""
    policy, cache, scratch, plates_seen = shared.policy, shared.cache, shared.scratch, shared.plates_seen

    def add_model(text, kind, hf_id, api_model, base_url):
        choice = ModelChoice(kind, hf_id if kind == "hf" else api_model, base_url).validate(policy)
        choices = compare.parse_models(text, policy)
        if choice in choices:
            return gr.skip()
        return compare.format_models((*choices, choice))

    def ask_all(request: gr.Request, key, history, run_id, *vals):
        view, spec = _view_and_spec(shared, vals, compare=True)
        ask = view.ask(policy)
        choices = compare.parse_models(view.compare, policy)
        shared.admit_answers(request, max(1, len(choices)), "a comparison")
        run_id = run_id or f"explorer-{uuid.uuid4().hex[:12]}"
        seen, request_md = em.sent(spec, ask, plates_seen)
        seen_png = scratch.write("model-input", "png", ex.png_bytes(seen))
        shared_md = "**Every model received the same request:**\n\n" + request_md
        answers: list[compare.Answered] = []
        for answered in compare.ask_models(spec, ask, choices, key=key, key_url=view.base_url, policy=policy,
                                           cache=cache, colour_set=spec.palette or ex.CUSTOM, run_id=run_id,
                                           renderer=plates_seen):
            answers.append(answered)
            if answered.row is not None:
                history = [*history, answered.row][-MAX_HISTORY:]
            yield (compare.comparison_frame(answers), shared_md, history, history_frame(history),
                   shared.parquet(history), run_id, seen_png)

    w["add_btn"].click(shared.guard(add_model), [w["compare_box"], w["kind"], w["hf_id"], w["api_model"],
                                                 w["base_url"]], w["compare_box"], **INTERNAL)
    w["compare_btn"].click(shared.guard(ask_all, _secrets), [key_state, history_state, run_state, *view_inputs],
                           [w["compare_table"], w["compare_request"], history_state, w["history_table"],
                            w["history_download"], run_state, w["seen"]],
                           api_name="compare", concurrency_limit=shared.slots["model"], concurrency_id="model")


# ---------------------------------------------------------------------------------------------------- sweep
def _sweep_widgets(policy: Policy) -> dict:
    """The ΔE2000 sweep's range, points, buttons and plot, by name."""
    w: dict = {}
    with gr.Row():
        low, high, points = SWEEP_DEFAULT  # a coarse pass by ratio that brackets the default plate's threshold
        w["sweep_lo"] = gr.Number(low, label="ΔE2000 from", elem_id="sweep-lo",
                                  info=f"a range over {LOG_SPACING_RATIO:g}× is first asked at {COARSE_POINTS} "
                                       "points spaced by ratio, then the rest fill the step where each model's "
                                       "answers turn right, and the range becomes that step (several models: "
                                       "the span of their steps); a narrower one is spaced evenly")
        w["sweep_hi"] = gr.Number(high, label="ΔE2000 to", elem_id="sweep-hi")
        w["sweep_n"] = gr.Slider(2, policy.max_sweep_points, value=min(points, policy.max_sweep_points), step=1,
                                 label="Points")
    with gr.Row():
        w["sweep_btn"] = gr.Button("Run sweep", elem_id="sweep-run")
        w["sweep_why"] = gr.Markdown("", elem_id="sweep-why")  # why it cannot answer yet, beside it
        w["sweep_all_btn"] = gr.Button("Sweep the compared models", elem_id="sweep-compared")
        w["sweep_clear"] = gr.Button("Clear sweeps", size="sm")
    w["sweep_plot"] = gr.Plot(label="Answers and accuracy vs ΔE2000 drawn, one series per model",
                              elem_id="sweep-plot")
    return w


def _wire_sweep(shared: AppContext, model: dict, w: dict, model_inputs: list, view_inputs: list,
                key_state: gr.State, history_state: gr.State, run_state: gr.State, sweep_state: gr.State) -> None:
    """The sweeps' events: the same question at a range of ΔE2000, of the model above or of every compared
    model, the page updated as answers arrive (every `SWEEP_UPDATE_S`); every sweep since "Clear sweeps" stays
    on the chart, a series per model. Sweeps share the model slot with one question."""
    policy, cache, scratch, plates_seen = shared.policy, shared.cache, shared.scratch, shared.plates_seen

    # named parameters: the `sweep` endpoint's API takes them by name (the comparison box after variant when
    # sweeping the compared models)
    def run_sweep(request: gr.Request, key, history, run_id, kept, low, high, points, kind, hf_id, api_model,
                  base_url, prompt_name, prompt_text, size, grayscale, hue, cvd, severity, variant, *vals,
                  every=False):
        view, spec = _view_and_spec(shared, (kind, hf_id, api_model, base_url, prompt_name, prompt_text, size,
                                             grayscale, hue, cvd, severity, variant, *vals), compare=every)
        points = int(points)
        # a wide range: a coarse pass by ratio first, then the rest of each model's points where its own answers
        # turn right (`fine_passes`: the model above, or each compared model in its own bracket)
        values = sweep_values(float(low), float(high), points, policy)  # (validates the range)
        first = coarse_pass(float(low), float(high), points)
        if first is not None:
            values = sweep_values(float(low), float(high), first, policy)
        ask = view.ask(policy)
        choices = compare.parse_models(view.compare, policy) if every else (view.choice(),)
        if every and not choices:
            raise ValueError(f"no models to compare: add one a line ({compare.LINE_FORMS})")
        shared.admit_answers(request, points * len(choices), "a sweep")
        run_id = run_id or f"explorer-{uuid.uuid4().hex[:12]}"
        rows: list[dict] = []
        rows_of: dict = {choice: [] for choice in choices}
        failed: list[str] = []
        skipped: list = []
        asked_range, brackets, out = (float(low), float(high)), {}, None
        passes = [(tuple(choices), values)]
        while passes:
            asked, values = passes.pop(0)
            plan = sweep_plan(spec, values)  # values these colours cannot reach are named, not fatal
            skipped += plan.skipped
            if out is not None and not plan.specs:  # a fine pass these colours cannot draw: the coarse pass stands
                out = (*out[:6], sweep_summary(rows, skipped), *out[7:])
                continue
            drawn = shared.work.plates_for(plan.specs)  # the sweep's plates, drawn at once in the workers if any
            answers = compare.sweep_models(spec, values, ask, asked, key=key, key_url=view.base_url,
                                           policy=policy, cache=cache, colour_set=spec.palette or ex.CUSTOM,
                                           run_id=run_id, renderer=drawn)
            for batch in in_batches(answers, SWEEP_UPDATE_S):
                failed += [f"⚠️ {compare.model_line(a.choice)}: {a.error}" for a in batch if a.error]
                new = [a.row for a in batch if a.row is not None]
                if not every and failed:  # the model above: its failure is the sweep's
                    raise ValueError(failed[0].split(": ", 1)[1])
                for a in batch:
                    if a.row is not None:
                        rows_of[a.choice].append(a.row)
                rows += new
                history = [*history, *new][-MAX_HISTORY:]
                kept = [*kept, *new][-MAX_HISTORY:]
                if rows:  # "What the model received" follows the sweep: the latest point's image and request
                    latest, request_md = em.sent(PlateSpec.from_json(rows[-1]["spec_json"]), ask, plates_seen)
                    seen = scratch.write("model-input", "png", ex.png_bytes(latest))
                else:
                    seen, request_md = gr.skip(), gr.skip()
                summary = "\n\n".join([sweep_summary(rows, skipped) if rows else "", *failed]).strip()
                out = (history, history_frame(history), kept, compare.sweep_figure(kept) if kept else None,
                       shared.parquet(history), sweep_replies(rows), summary, seen, request_md)
                yield (*out, *asked_range)
            if first is not None:  # the coarse pass is done: each model's fine pass inside its own bracket
                brackets, passes, first = (*fine_passes(rows_of, points), None)
        if brackets and out is not None:  # done: the range boxes show the bracket (several: the span of them all)
            yield (*out, min(lo for lo, _ in brackets.values()), max(hi for _, hi in brackets.values()))

    def run_sweep_all(request: gr.Request, *args):
        yield from run_sweep(request, *args, every=True)

    inputs = [key_state, history_state, run_state, sweep_state, w["sweep_lo"], w["sweep_hi"], w["sweep_n"]]
    outputs = [history_state, model["history_table"], sweep_state, w["sweep_plot"], model["history_download"],
               model["reply"], model["verdict"], model["seen"], model["request_md"], w["sweep_lo"], w["sweep_hi"]]
    slot = dict(concurrency_limit=shared.slots["model"], concurrency_id="model")
    w["sweep_btn"].click(shared.guard(run_sweep, _secrets), [*inputs, *model_inputs], outputs, api_name="sweep",
                         **slot)
    w["sweep_all_btn"].click(shared.guard(run_sweep_all, _secrets), [*inputs, *view_inputs], outputs,
                             api_name="sweep_compared", **slot)
    w["sweep_clear"].click(lambda: ([], None), None, [sweep_state, w["sweep_plot"]], **INTERNAL)


# ------------------------------------------------------------------------------------ share link, reproduce
def _share_widgets() -> dict:
    """The Model tab's share link and its reproduce box (Python and CLI), by name."""
    w: dict = {"share": gr.Textbox(label="Share link: this plate, model, compared models, prompt and condition "
                                         "(never your key)", elem_id="model-share", interactive=False,
                                   buttons=["copy"])}
    with gr.Accordion("Reproduce: the Python and CLI lines that give what is on screen", open=True):
        w["repro_python"] = gr.Code(language="python", label="Python (the library)", interactive=False,
                                    wrap_lines=True, elem_id="repro-python", buttons=["copy"])
        w["repro_cli"] = gr.Code(language="shell", label="CLI (plates generate, then plates run)",
                                 interactive=False, wrap_lines=True, elem_id="repro-cli", buttons=["copy"])
    return w


def _wire_share(shared: AppContext, demo: gr.Blocks, model_tab: gr.Tab, w: dict, view_widgets: list,
                view_inputs: list, key_state: gr.State) -> None:
    """The share link and reproduce box follow every control of the tab (and the plate, when the tab opens);
    a link's ``ask`` code sets the tab's controls on load (validated as typed input)."""
    policy = shared.policy

    def describe(request: gr.Request, key, *vals):
        try:
            view, spec = _view_and_spec(shared, vals, compare=True)
            others = compare.parse_models(view.compare, policy)
        except ValueError as exc:
            why = clean_message(str(exc), (key,), hide_paths=policy.public)
            return f"(no link while this cannot be asked: {why})", gr.skip(), gr.skip()
        page = request.headers.get("referer") if request is not None else None
        python, cli = reproduce.reproduce_box(spec, view, others)
        return share.share_link(spec, view, page, secrets=(key,)), python, cli

    def restore(request: gr.Request):
        code = dict(request.query_params).get(share.VIEW_PARAM) if request is not None else None
        if not code:
            return (gr.skip(),) * len(view_widgets)
        try:
            return share.decode_view(code, policy).widgets()
        except ValueError as exc:
            gr.Warning("The link's model and prompt could not be opened: "
                       + clean_message(str(exc), (), hide_paths=policy.public))
            return (gr.skip(),) * len(view_widgets)

    triggers = [c.change for c in view_widgets] + [model_tab.select, key_state.change]
    gr.on(triggers, describe, [key_state, *view_inputs], [w["share"], w["repro_python"], w["repro_cli"]],
          trigger_mode="always_last", show_progress="hidden", **INTERNAL)
    demo.load(restore, None, view_widgets, **INTERNAL)
