"""The explorer's Ellipse tab: the Model tab's chosen model measured along a few colour directions around one of
MacAdam's centres, its ellipse drawn beside his (`plates.explorer.ellipse`). Thin: the work lives there."""

from __future__ import annotations

import gradio as gr

from plates.explorer import ellipse as el
from plates.explorer.backends import ModelChoice, open_backend
from plates.explorer.context import AppContext

__all__ = ["ellipse_tab"]


def ellipse_tab(shared: AppContext, model: tuple, key_state: gr.State) -> None:
    """Add the Ellipse tab to the Blocks being built, and wire its "Measure the ellipse" event.

    The event takes the session's key, the model widgets, the centre, directions and trials per direction, and
    returns the status line (Markdown), the ellipse figure (CIE 1931 xy) and the thresholds table (10⁻³ u'v');
    public mode admits its answers first (`AppContext.admit_answers`).

    Parameters
    ----------
    shared : AppContext
        What every tab of the app uses.
    model : tuple of gradio components
        The Model tab's (kind, hf_id, api_model, base_url) widgets.
    key_state : gradio.State
        The session's API key.
    """
    most, size = el.limits(shared.policy)
    with gr.Tab("Ellipse"):
        gr.Markdown(
            "Thresholds of the model chosen on the Model tab along colour directions (CIE 1976 u′v′) around one "
            f"of MacAdam's (1942) centres, on {size} px plates, and the ellipse through them beside MacAdam's "
            "× 3 (drawn 10× size). **Display caveat:** this measures the model on 8-bit PNG pixels; a "
            "threshold within one code step is “quantisation-limited” (the screen's limit, not the model's).")
        with gr.Row():
            centre = gr.Dropdown(list(el.offered_centres()), value="macadam-13", label="Centre (MacAdam 1942)")
            directions = gr.Radio(list(el.DIRECTION_CHOICES), value=5, label="Directions")
            trials = gr.Slider(10, most, value=10, step=1, label="Trials per direction")
        go = gr.Button("Measure the ellipse", variant="primary")
        status = gr.Markdown(elem_id="ellipse-status")
        plot = gr.Plot(label="Ellipse (CIE 1931 xy)")
        table = gr.Dataframe(label="Thresholds per direction (10⁻³ u′v′)", interactive=False)

    def measure(request: gr.Request, key, kind, hf_id, api_model, base_url, centre, directions, trials,
                progress=gr.Progress()):  # noqa: B008 - Gradio's own injection
        n = int(directions) * int(trials)
        shared.admit_answers(request, n, "an ellipse")
        backend, close = open_backend(ModelChoice(kind, hf_id if kind == "hf" else api_model, base_url), key,
                                      shared.policy, shared.cache)
        try:
            fig, thresholds, row = el.live_ellipse(backend, centre, int(directions), int(trials), shared.policy,
                                                   on_trial=lambda i: progress(i / n, desc="trials"))
        finally:
            if close:
                backend.close()
        line = (f"**{row['model']}** at {row['centre']}: status {row['status']}"
                + (f", a {row['a']:.5f}, b {row['b']:.5f} xy, θ {row['theta_deg']:.0f}°, area ratio to "
                   f"MacAdam × 3: {row['area_ratio']:.2f}" if row["a"] == row["a"] else f" ({row['message']})"))
        return line, fig, thresholds

    def secrets(args):  # the session's key: the first input (after Gradio's request)
        return tuple(a for a in args[:2] if isinstance(a, str))

    go.click(shared.guard(measure, secrets),
             [key_state, *model, centre, directions, trials], [status, plot, table],
             concurrency_limit=shared.slots["model"], concurrency_id="model", api_name="ellipse")
