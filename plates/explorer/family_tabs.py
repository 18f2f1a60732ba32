"""The explorer's family tabs: Illusions, Scenes and "Try it yourself".

Thin on purpose, like `app`: every decision lives in plates.explorer.families and plates.explorer.quiz; this file
lays out widgets and wires events, one function per tab. ``add_family_tabs`` is called inside
``app.build_app()``'s Blocks; the Illusion and Scene tabs ask the model chosen in the Model tab (its kind / id /
URL widgets and the session's key state are passed in), through the same backend cache. Their renders, the
stimuli a model is asked about and the quiz's trials are drawn by the app's `plates.explorer.pool.ExplorerPool`
(worker processes in public mode).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence

import gradio as gr

from plates.admission import SESSION_TTL_S, Admission
from plates.explorer import families as fv
from plates.explorer import plate as ex
from plates.explorer import quiz as qv
from plates.explorer.backends import ModelCache, ModelChoice
from plates.explorer.context import Scratch
from plates.explorer.history import MAX_HISTORY, history_parquet
from plates.explorer.model_tab import STALE_FAMILY_MARK, wire_ready, wire_stale
from plates.explorer.policy import Policy
from plates.explorer.pool import ExplorerPool
from plates.runs.quiz_directions import DirectionsSession
from plates.validation import check_choice

__all__ = ["add_family_tabs"]


def add_family_tabs(policy: Policy, *, guard: Callable, cache: ModelCache, scratch: Scratch,
                    model: Sequence[gr.components.Component], key_state: gr.State,
                    slots: Mapping[str, int], quiz: qv.QuizConfig | None = None,
                    reader: qv.ReaderCache | None = None, board: qv.ModelBoard | None = None,
                    admission: Admission | None = None, work: ExplorerPool | None = None) -> None:
    """Add the Illusions, Scenes and "Try it yourself" tabs to the Blocks being built.

    Parameters
    ----------
    policy : Policy
        This server's limits.
    guard : callable
        ``guard(fn, secrets_from)`` turns errors into page messages (`plates.explorer.app.guarded`).
    cache : ModelCache
        The app's loaded models.
    scratch : Scratch
        The folder for the files the tabs write (PNG, Parquet).
    model : sequence of gradio components
        The Model tab's (kind, hf_id, api_model, base_url) widgets.
    key_state : gradio.State
        The session's API key.
    slots : mapping of str to int
        Events at once per concurrency group (`plates.explorer.concurrency.concurrency`, as the app computed
        them
        for its workers).
    quiz : QuizConfig or None
        The quiz's settings; None: the defaults.
    reader : ReaderCache or None
        The bundled reader's thresholds; None: one running where ``work`` runs.
    board : ModelBoard or None
        The stored models' estimates; None: from ``PLATES_QUIZ_MODELS``.
    admission : Admission or None
        Public mode's limits per address and server-wide (`plates.admission.Admission`).
    work : ExplorerPool or None
        Where illusions, scenes and the quiz's images are drawn; None: in this process.
    """
    work = work if work is not None else ExplorerPool(0)
    quiz = quiz or qv.QuizConfig()
    reader = reader or qv.ReaderCache(run=work.run)  # the reader's own staircase runs where its answers do
    board = board or qv.ModelBoard()  # models' stored estimates (PLATES_QUIZ_MODELS), read on first result
    # Warm up before serving (as build_app does): colour-science loads now, not inside a visitor's request,
    # where its stand-in `matplotlib` module would break Gradio's matplotlib backend guard.
    fv.render_illusion_controls(fv.IllusionControls(size=64), policy)
    ttl = SESSION_TTL_S if admission is not None else None  # public mode: no state outlives it unused
    rows_state = gr.State([], time_to_live=ttl)  # rows asked from these tabs (this session), for the download
    run_state = gr.State("")

    def backend_for(key, kind, hf_id, api_model, base_url):
        choice = ModelChoice(kind, hf_id if kind == "hf" else api_model, base_url)
        return fv.family_backend(choice, key, policy, cache)  # the bundled reader: the reference observer

    def ask(controls, prompt_name, key, run_id, rows, kind, hf_id, api_model, base_url):
        """Ask the chosen model ``prompt_name`` about the illusion or scene ``controls`` describe (drawn by
        ``work``: in a worker process in public mode)."""
        stim = work.stimulus(controls, policy)
        question = fv.make_question(stim, prompt_name)
        run_id = run_id or f"explorer-{uuid.uuid4().hex[:12]}"
        backend, close = backend_for(key, kind, hf_id, api_model, base_url)
        try:
            row = fv.ask_stimulus(stim, question, backend, run_id=run_id, secrets=(key,))
        finally:
            if close:
                backend.close()
        rows = [*rows, row][-MAX_HISTORY:]
        parquet = scratch.write("family-history", "parquet", history_parquet(rows))
        return (fv.question_markdown(question), row["reply"] or "", fv.result_markdown(row), rows, parquet,
                run_id)

    def png(stem, image):
        return scratch.write(stem, "png", ex.png_bytes(image))  # the exact pixels, lossless

    _illusions_tab(policy, guard, slots, work, ask, scratch, model, key_state, run_state, rows_state)
    _scenes_tab(policy, guard, slots, work, ask, scratch, model, key_state, run_state, rows_state)
    _quiz_tab(guard, slots, work, png, scratch, admission, quiz, reader, board, ttl)


def _illusions_tab(policy: Policy, guard: Callable, slots: Mapping[str, int], work: ExplorerPool, ask: Callable,
                   scratch: Scratch, model: Sequence[gr.components.Component], key_state: gr.State, run_state: gr.State,
                   rows_state: gr.State) -> None:
    """The Illusions tab: one illusion drawn from its controls (by ``work``), its truth, and a question asked
    of the model chosen in the Model tab (``ask``)."""
    def render_illusion(outline, prompt, *vals):
        """The illusion (its targets outlined when asked), its truth, and the questions this kind can carry
        (the one chosen kept when it still applies)."""
        shown = work.illusion(fv.IllusionControls(*vals), policy, bool(outline))
        allowed = list(shown.question)
        return (scratch.write("illusion", "png", shown.png), shown.truth,
                gr.update(choices=allowed, value=prompt if prompt in allowed else allowed[0]))

    def ask_illusion(key, run_id, rows, kind, hf_id, api_model, base_url, prompt_name, illusion_kind, strength,
                     delta_e, layout, swap, seed, size):
        controls = fv.IllusionControls(illusion_kind, strength, delta_e, layout, swap, seed, size)
        return ask(controls, prompt_name, key, run_id, rows, kind, hf_id, api_model, base_url)

    with gr.Tab("Illusions") as ill_tab:
        with gr.Row():
            with gr.Column(scale=1, min_width=300):
                ill_kind = gr.Dropdown(list(fv.ILLUSION_KINDS), value="rcid-contrast", label="Illusion")
                ill_strength = gr.Slider(0, 1, value=1.0, step=0.05, label="Inducer strength (0 = control)")
                ill_de = gr.Slider(-20, 20, value=0.0, step=0.5, elem_id="illusion-delta-e",
                                   label="Physical difference ΔE2000 (0 = identical targets; + = A lighter)")
                ill_layout = gr.Radio(list(fv.LAYOUT_CHOICES), value="left-right", label="Layout")
                ill_swap = gr.Checkbox(False, label="Swap contexts (A and B trade inducers)")
                with gr.Row():
                    ill_seed = gr.Number(0, precision=0, label="Seed")
                    ill_size = gr.Slider(policy.min_plate_size, min(1024, policy.max_plate_size), value=512,
                                         step=16, label="Size (px)")
            with gr.Column(scale=2):
                ill_image = gr.Image(label="Illusion (targets outlined: A magenta, B cyan)", format="png",
                                     interactive=False, elem_id="illusion-image", height=420)
                ill_outline = gr.Checkbox(True, label="Outline the targets (display only: the model never sees "
                                          "the outlines)", elem_id="illusion-outline")
                ill_truth = gr.Markdown(elem_id="illusion-truth")
        with gr.Row():
            ill_prompt = gr.Dropdown(list(fv.ILLUSION_PROMPTS), value="rcid-compare-human", elem_id="illusion-prompt",
                                     label="Question (RCID pixel / human framing, IllusionBench+ true/false, choice)")
            ill_ask = gr.Button("Ask", variant="primary", elem_id="illusion-ask")
        ill_who = gr.Markdown(fv.who_answers("baseline"), elem_id="illusion-who")  # beside the button
        ill_question = gr.Markdown(elem_id="illusion-question")
        ill_stale = gr.Markdown("", elem_id="illusion-stale")  # set when a control changes after an answer
        ill_reply = gr.Textbox(label="Raw reply", lines=2, elem_id="illusion-reply")
        ill_verdict = gr.Markdown(elem_id="illusion-verdict")
        ill_download = gr.DownloadButton("Download these answers (Parquet, results schema)")

    ill_controls = [ill_kind, ill_strength, ill_de, ill_layout, ill_swap, ill_seed, ill_size]
    ill_render = dict(fn=guard(render_illusion), inputs=[ill_outline, ill_prompt, *ill_controls],
                      outputs=[ill_image, ill_truth, ill_prompt], concurrency_limit=slots["render"],
                      concurrency_id="render")
    gr.on([c.input for c in (ill_outline, *ill_controls)], api_name="illusion_render", trigger_mode="always_last",
          **ill_render)
    ill_tab.select(api_name=False, **ill_render)  # the tab opens on a drawn illusion
    ask_outputs = [rows_state, ill_download, run_state]
    ill_ask.click(guard(ask_illusion, _secrets), [key_state, run_state, rows_state, *model, ill_prompt, *ill_controls],
                  [ill_question, ill_reply, ill_verdict, *ask_outputs], api_name="illusion_ask",
                  concurrency_limit=slots["model"], concurrency_id="model")
    wire_ready(policy, model[0], key_state, [(ill_ask, ill_who)], fv.who_answers)  # who answers, or why none can
    wire_stale(ill_reply, ill_stale, [ill_prompt, *ill_controls, *model], [ill_ask], STALE_FAMILY_MARK)


def _scenes_tab(policy: Policy, guard: Callable, slots: Mapping[str, int], work: ExplorerPool, ask: Callable,
                scratch: Scratch, model: Sequence[gr.components.Component], key_state: gr.State, run_state: gr.State,
                rows_state: gr.State) -> None:
    """The Scenes tab: one ColorBench-style scene drawn from its controls (by ``work``), its facts, and a
    task's question asked of the model chosen in the Model tab (``ask``)."""
    def render_scene(task, *vals):
        shown = work.scene(fv.SceneControls(*vals), policy, task)  # a task it cannot carry: said in words
        return scratch.write("scene", "png", shown.png), shown.truth, shown.question

    def ask_scene(key, run_id, rows, kind, hf_id, api_model, base_url, task, objects, colours, min_delta_e,
                  clutter, area_ratio, shapes, palette, seed, size):
        prompt = fv.SCENE_PROMPTS[check_choice("task", task, fv.SCENE_PROMPTS)]
        controls = fv.SceneControls(objects, colours, min_delta_e, clutter, area_ratio, shapes, palette, seed, size)
        return ask(controls, prompt, key, run_id, rows, kind, hf_id, api_model, base_url)

    defaults = fv.SceneControls()
    with gr.Tab("Scenes") as sc_tab:
        with gr.Row():
            with gr.Column(scale=1, min_width=300):
                sc_task = gr.Dropdown(list(fv.SCENE_PROMPTS), value="colour-counting", label="ColorBench task")
                with gr.Row():
                    sc_regions = gr.Slider(0, 24 if policy.public else 40, value=defaults.n_regions, step=1,
                                           label="Objects")
                    sc_colours = gr.Slider(0, 12, value=defaults.n_colours, step=1, label="Colours")
                sc_min_de = gr.Slider(0.5, 60, value=defaults.min_delta_e, step=0.5,
                                      label="Least ΔE2000 between colours")
                with gr.Row():
                    sc_clutter = gr.Slider(0, 1, value=0.0, step=0.05, label="Clutter (overlap)",
                                           elem_id="scene-clutter")
                    sc_ratio = gr.Slider(1, 20, value=1.0, step=0.5, label="Area ratio (largest / smallest)")
                sc_shapes = gr.CheckboxGroup(list(fv.SHAPE_CHOICES), value=list(defaults.shapes), label="Shapes")
                sc_palette = gr.Dropdown(list(fv.PALETTE_CHOICES), value=fv.NO_PALETTE,
                                         label="Palette (named colours: needed for proportion, object counting, "
                                               "recognition)")
                with gr.Row():
                    sc_seed = gr.Number(0, precision=0, label="Seed")
                    sc_size = gr.Slider(policy.min_plate_size, min(1024, policy.max_plate_size), value=512,
                                        step=16, label="Size (px)")
            with gr.Column(scale=2):
                sc_image = gr.Image(label="Scene", format="png", interactive=False, elem_id="scene-image",
                                    height=420)
                sc_facts = gr.Markdown(elem_id="scene-facts")
                sc_question = gr.Markdown(elem_id="scene-question")
        with gr.Row():
            sc_ask = gr.Button("Ask", variant="primary", elem_id="scene-ask", scale=1)
            sc_who = gr.Markdown(fv.who_answers("baseline"), elem_id="scene-who")  # beside the button
        sc_stale = gr.Markdown("", elem_id="scene-stale")  # set when a control changes after an answer
        sc_reply = gr.Textbox(label="Raw reply", lines=2, elem_id="scene-reply")
        sc_verdict = gr.Markdown(elem_id="scene-verdict")
        sc_download = gr.DownloadButton("Download these answers (Parquet, results schema)")

    sc_controls = [sc_regions, sc_colours, sc_min_de, sc_clutter, sc_ratio, sc_shapes, sc_palette, sc_seed, sc_size]
    sc_render = dict(fn=guard(render_scene), inputs=[sc_task, *sc_controls], outputs=[sc_image, sc_facts, sc_question],
                     concurrency_limit=slots["render"], concurrency_id="render")
    gr.on([c.input for c in (sc_task, *sc_controls)], api_name="scene_render", trigger_mode="always_last",
          **sc_render)
    sc_tab.select(api_name=False, **sc_render)  # the tab opens on a drawn scene
    sc_ask.click(guard(ask_scene, _secrets), [key_state, run_state, rows_state, *model, sc_task, *sc_controls],
                 [sc_question, sc_reply, sc_verdict, rows_state, sc_download, run_state], api_name="scene_ask",
                 concurrency_limit=slots["model"], concurrency_id="model")
    wire_ready(policy, model[0], key_state, [(sc_ask, sc_who)], fv.who_answers)  # who answers, or why none can
    wire_stale(sc_reply, sc_stale, [sc_task, *sc_controls, *model], [sc_ask], STALE_FAMILY_MARK)


def _quiz_tab(guard: Callable, slots: Mapping[str, int], work: ExplorerPool, png: Callable, scratch: Scratch,
              admission: Admission | None, quiz: qv.QuizConfig, reader: qv.ReaderCache, board: qv.ModelBoard,
              ttl: float | None) -> None:
    """The "Try it yourself" tab: consent, the quiz's trials (typed numbers or option buttons; each image
    drawn and encoded by ``work``: in a worker process in public mode), and the person's result beside the
    models' (`plates.explorer.quiz`)."""
    def next_trial(session):  # drawn by `work` (a worker process in public mode), whichever mode
        present = work.direction_trial if isinstance(session, DirectionsSession) else work.quiz_trial
        return session.next_trial(present)

    def show(session):
        """The widgets' updates for the image now on screen: plate (typed answer) or illusion (buttons)."""
        trial = next_trial(session)
        labels = [label for _, label in trial.options] or [gr.update()] * 3
        return (qv.progress_text(session, trial), png("quiz-image", trial.image), trial.prompt,
                gr.update(visible=trial.block != "illusion"), gr.update(visible=trial.block == "illusion"), *labels)

    def start(request: gr.Request, agreed, started, mode, colour_vision):  # Gradio fills `request` (the address)
        client = admission.client(request) if admission is not None else ""
        session = qv.start_session(quiz, agreed=bool(agreed), started=int(started or 0), client=client,
                                   admission=admission, mode=mode, colour_vision=colour_vision or None)
        return (session, int(started or 0) + 1, *show(session), "", gr.update(visible=True), "",
                gr.update(visible=False), gr.update(value=None, visible=False), gr.update(open=False))

    def answer(session, text):
        if session is None:
            raise ValueError("no quiz is running: tick the box and press Start")
        if admission is not None:
            admission.quizzes.touch(session.participant)
        session.answer(text if isinstance(text, str) else "")
        if not session.done:
            return (session, *show(session), "", gr.update(), gr.update(), gr.update(), gr.update())
        download = scratch.write("quiz-answers", "parquet", session.parquet())
        done = (session, "**Done.**", None, "", gr.update(visible=False), gr.update(visible=False),
                gr.update(), gr.update(), gr.update(), "", gr.update(visible=False))
        if isinstance(session, DirectionsSession):
            result, figure = qv.directions_result(session)
            return (*done, result, gr.update(value=download, visible=True), gr.update(value=figure, visible=True))
        result = qv.result_markdown(session, reader.estimate(session.staircase),
                                    [*board.plate_thresholds(session.staircase),
                                     *(board.illusion_magnitudes(session.blocks["illusion"].staircase)
                                       if "illusion" in session.blocks else [])])
        return (*done, result, gr.update(value=download, visible=True), gr.update(visible=False))

    def option_answer(index):
        def press(session):
            if session is None:
                raise ValueError("no quiz is running: tick the box and press Start")
            trial = next_trial(session)
            if not trial.options:
                raise ValueError("this image asks for a typed number, not a button")
            return answer(session, trial.options[index][0])
        return press

    with gr.Tab("Try it yourself"):
        # public mode: a quiz left idle is deleted after the session TTL, and its slot freed with it
        quiz_state = gr.State(None, time_to_live=ttl,
                              delete_callback=lambda session: _release(admission, session))
        started_state = gr.State(0)
        # folded once a quiz starts (the setup with it), so the image and the answer box fit one 1400x900 screen
        with gr.Accordion("About this quiz: what is kept, your consent, and what to measure",
                          open=True) as consent_box:
            gr.Markdown(qv.consent_text(quiz), elem_id="quiz-consent")
            with gr.Row():
                mode = gr.Radio(qv.mode_choices(quiz), value=qv.MODES[0][0],
                                label="What to measure", elem_id="quiz-mode", scale=2)
                colour_vision = gr.Dropdown(list(qv.COLOUR_VISION_CHOICES), value="", elem_id="quiz-colour-vision",
                                            label="Your colour vision, if you want to say (optional, self-reported)",
                                            scale=2)
        with gr.Row():
            agree = gr.Checkbox(False, label="I have read the note and agree", elem_id="quiz-agree")
            start_btn = gr.Button("Start", variant="primary", elem_id="quiz-start")
        with gr.Column(visible=False) as trial_box:
            progress = gr.Markdown(elem_id="quiz-progress")
            plate = gr.Image(label="Image", format="png", interactive=False, elem_id="quiz-plate", height=360,
                             buttons=[])
            instruction = gr.Markdown(elem_id="quiz-instruction")
            with gr.Column(visible=True) as typed_box:
                with gr.Row():
                    typed = gr.Textbox(label="The number you see (or ?)", max_length=quiz.limits.max_text,
                                       elem_id="quiz-answer", scale=3)
                    submit = gr.Button("Submit", variant="primary", elem_id="quiz-submit", scale=1)
                with gr.Row():
                    keys = {k: gr.Button(k, size="sm", min_width=40) for k in qv.ANSWER_KEYS}
            with gr.Row(visible=False) as option_box:
                options = [gr.Button(f"option {i + 1}", elem_id=f"quiz-option-{i}") for i in range(3)]
        result_md = gr.Markdown(elem_id="quiz-result")
        result_plot = gr.Plot(label="Your ellipse (CIE 1931 xy)", visible=False, elem_id="quiz-ellipse")
        quiz_download = gr.DownloadButton("Download your answers (Parquet)", visible=False,
                                          elem_id="quiz-download")

    shown = [progress, plate, instruction, typed_box, option_box, *options]
    start_btn.click(guard(start), [agree, started_state, mode, colour_vision],
                    [quiz_state, started_state, *shown, typed, trial_box, result_md, quiz_download, result_plot,
                     consent_box],
                    api_name="quiz_start", concurrency_limit=slots["quiz"], concurrency_id="quiz")
    answer_out = [quiz_state, *shown, typed, trial_box, result_md, quiz_download, result_plot]
    answer_kw = dict(fn=guard(answer), inputs=[quiz_state, typed], outputs=answer_out,
                     concurrency_limit=slots["quiz"], concurrency_id="quiz")
    submit.click(api_name="quiz_answer", **answer_kw)
    typed.submit(api_name=False, **answer_kw)
    for i, button in enumerate(options):
        button.click(guard(option_answer(i)), [quiz_state], answer_out, api_name=f"quiz_option_{i}",
                     concurrency_limit=slots["quiz"], concurrency_id="quiz")
    for key, button in keys.items():
        button.click(_key_press(key, quiz.limits.max_text), typed, typed, api_name=False, show_progress="hidden")


def _secrets(args):  # the session's key: every ask handler's first input
    return (args[0],)


def _release(admission: Admission | None, session: object) -> None:
    """Free a deleted quiz's slot (Gradio calls this when the state expires or its tab closed long ago)."""
    if admission is not None and session is not None:
        admission.quizzes.release(session.participant)


def _key_press(key: str, max_text: int) -> Callable[[str], str]:
    def press(text):
        return qv.append_key(text, key, max_text)
    return press
