"""Two or more models on the same plate, side by side, apart from any widget.

The Model tab's comparison: a list of models (one a line of text, :func:`parse_models`), each asked the same
filled prompt about the same plate under the same condition (:func:`ask_models`, :func:`sweep_models`), their
replies, parsed answers and verdicts in one table (:func:`comparison_frame`), and every ΔE2000 sweep of the
session overlaid, one series per model in the model's own colour (:func:`sweep_figure`,
`plates.charts.common.model_colours`).

A failing model never hides the others: its line of the table says why. The visitor's API key goes only to
the base URL it was typed for (:func:`key_for`); a compared model at another address goes without it (in
private mode the server's own key still goes to its own endpoint only: `plates.explorer.backends.open_backend`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go

from plates.analysis.conditions import CONDITION_COLUMNS
from plates.explorer import models as em
from plates.explorer.backends import ModelCache, ModelChoice, check_hf_model, open_backend, redact
from plates.explorer.policy import Policy
from plates.explorer.sweep import requested_delta_e, sweep_plan
from plates.stimuli.ishihara.plate import PlateSpec, render

__all__ = ["COMPARE_HEADERS", "Answered", "ask_models", "comparison_frame", "format_models", "key_for",
           "model_line", "parse_models", "sweep_figure", "sweep_models"]

#: The comparison table's columns on the page.
COMPARE_HEADERS = ["Model", "Backend", "Raw reply", "Answer read", "Expected", "Verdict", "Failure mode",
                   "Latency (ms)"]
#: The sweep chart's two legend entries per model (after the model's name): its binned accuracy with the fit, and
#: its answers one by one.
ACCURACY_ENTRY, ANSWERS_ENTRY = "accuracy and fit", "each answer (● right, ✕ wrong)"
#: How the comparison box's lines read (the error for a bad line quotes it).
LINE_FORMS = "'baseline', 'hf ORG/NAME' or 'openai MODEL BASE_URL'"


def model_line(choice: ModelChoice) -> str:
    """One line of the comparison box for ``choice`` (:func:`parse_models` reads it back).

    Parameters
    ----------
    choice : ModelChoice
        A model.

    Returns
    -------
    str
        ``baseline``, ``hf ORG/NAME`` or ``openai MODEL BASE_URL``.

    Examples
    --------
    >>> model_line(ModelChoice("openai", "gpt-4o-mini", "https://api.openai.com/v1"))
    'openai gpt-4o-mini https://api.openai.com/v1'
    >>> model_line(ModelChoice())
    'baseline'
    """
    if choice.kind == "baseline":
        return "baseline"
    if choice.kind == "hf":
        return f"hf {choice.model}"
    return f"openai {choice.model} {choice.base_url}"


def format_models(choices: Sequence[ModelChoice]) -> str:
    """The comparison box's text for ``choices``: one :func:`model_line` a line.

    Parameters
    ----------
    choices : sequence of ModelChoice
        The models.

    Returns
    -------
    str
        The lines, joined by newlines.
    """
    return "\n".join(model_line(c) for c in choices)


def parse_models(text: str | None, policy: Policy) -> tuple[ModelChoice, ...]:
    r"""The models of the comparison box, each validated under ``policy``.

    Parameters
    ----------
    text : str or None
        One model a line (``baseline``, ``hf ORG/NAME``, ``openai MODEL BASE_URL``); blank lines and ``#``
        comments skipped.
    policy : Policy
        This server's limits (public mode: allowed Hugging Face ids and base URLs only; at most
        ``policy.max_compare_models``).

    Returns
    -------
    tuple of ModelChoice
        The validated models, in order.

    Raises
    ------
    ValueError
        Naming the line: text too long, a line that is not a model, a refused model, a model twice, or too
        many
        models.

    Examples
    --------
    >>> parse_models("baseline\n# a comment\nopenai m http://127.0.0.1:8000/v1/", Policy())[1].base_url
    'http://127.0.0.1:8000/v1'
    """
    text = text or ""
    cap = policy.max_compare_models * (policy.max_field_chars * 2 + 16)
    if len(text) > cap:
        raise ValueError(f"the models to compare take {len(text)} characters; allowed: at most {cap}")
    choices: list[ModelChoice] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        kind, *rest = line.split()
        shape = {"baseline": 0, "hf": 1, "openai": 2}.get(kind)
        if shape is None or len(rest) != shape:
            raise ValueError(f"line {number} of the models to compare ({line[:60]!r}) is not a model; "
                             f"allowed: {LINE_FORMS}")
        model, base_url = (rest + ["", ""])[:2]
        try:
            choice = ModelChoice(kind, model, base_url).validate(policy)
        except ValueError as exc:
            raise ValueError(f"line {number} of the models to compare: {exc}") from None
        if choice in choices:
            raise ValueError(f"line {number} of the models to compare repeats {model_line(choice)!r}; allowed: "
                             "each model once")
        choices.append(choice)
    if len(choices) > policy.max_compare_models:
        raise ValueError(f"{len(choices)} models to compare; allowed: at most {policy.max_compare_models} here")
    return tuple(choices)


def key_for(choice: ModelChoice, key: str | None, key_url: str | None) -> str:
    """The API key ``choice`` is asked with.

    Parameters
    ----------
    choice : ModelChoice
        A validated model.
    key : str or None
        The session's API key.
    key_url : str or None
        The base URL the key was typed beside.

    Returns
    -------
    str
        ``key`` (stripped) for an OpenAI-compatible model at ``key_url`` (trailing ``/`` ignored), else
        ``""``.

    Examples
    --------
    >>> m = ModelChoice("openai", "m", "http://a/v1")
    >>> key_for(m, "sk-1", "http://a/v1/"), key_for(m, "sk-1", "http://b/v1"), key_for(ModelChoice(), "sk-1", "")
    ('sk-1', '', '')
    """
    same = (key_url or "").strip().rstrip("/") == choice.base_url
    return (key or "").strip() if choice.kind == "openai" and same else ""


@dataclass(frozen=True)
class Answered:
    """One compared model's answer.

    Attributes
    ----------
    choice : ModelChoice
        The model.
    row : dict or None
        Its scored row (the results schema, as a single ask stores it), or None.
    error : str or None
        Why this model gave none (a refused choice, a missing key, a backend that kept failing), redacted.
    """

    choice: ModelChoice
    row: dict | None = None
    error: str | None = None


def ask_models(spec: PlateSpec, ask: em.Ask, choices: Sequence[ModelChoice], *, key: str | None,
               key_url: str | None, policy: Policy, cache: ModelCache, colour_set: str, run_id: str,
               renderer: Callable = render, check_hf: Callable[[str], None] = check_hf_model,
               ) -> Iterator[Answered]:
    """Ask every model the same question about the same plate, one after another.

    The image and request are the same for all (`plates.explorer.models.sent`). A model that cannot answer
    yields
    its error, and the others are still asked; messages never carry the key.

    Parameters
    ----------
    spec : PlateSpec
        The plate.
    ask : Ask
        The prompt and the image's condition.
    choices : sequence of ModelChoice
        The models (:func:`parse_models`).
    key : str or None
        The session's API key (:func:`key_for` decides which model gets it).
    key_url : str or None
        The base URL the key was typed beside.
    policy : Policy
        This server's limits.
    cache : ModelCache
        The app's loaded models.
    colour_set : str
        The rows' colour set.
    run_id : str
        The session's run id.
    renderer : callable
        Spec -> Plate (the app's plate cache).
    check_hf : callable
        Model id -> None or ValueError (`plates.explorer.backends.check_hf_model`).

    Yields
    ------
    Answered
        Each model's answer or error, as it comes.

    Raises
    ------
    ValueError
        When ``choices`` is empty.
    """
    if not choices:
        raise ValueError("no models to compare: add one a line (" + LINE_FORMS + "), or press 'Add the model "
                         "above'")
    for choice in choices:
        secret = key_for(choice, key, key_url)
        try:
            backend, close = open_backend(choice, secret, policy, cache, check_hf=check_hf)
            try:
                row, _ = em.ask_one(spec, ask, backend, colour_set=colour_set, run_id=run_id, secrets=(key,),
                                    renderer=renderer)
            finally:
                if close:
                    backend.close()
        except (ValueError, ImportError) as exc:
            yield Answered(choice, error=redact(str(exc), (key,)))
            continue
        yield Answered(choice, row=row)


def sweep_models(spec: PlateSpec, values: Sequence[float], ask: em.Ask, choices: Sequence[ModelChoice], *,
                 key: str | None, key_url: str | None, policy: Policy, cache: ModelCache, colour_set: str,
                 run_id: str, renderer: Callable = render,
                 check_hf: Callable[[str], None] = check_hf_model) -> Iterator[Answered]:
    """The ΔE2000 sweep asked of each model in turn, on the same plates for every model.

    Parameters
    ----------
    spec : PlateSpec
        The plate on screen.
    values : sequence of float
        Requested CIEDE2000 values (`plates.explorer.sweep.sweep_plan`).
    ask : Ask
        The prompt and the image's condition.
    choices : sequence of ModelChoice
        The models.
    key, key_url : str or None
        The session's API key and the base URL it was typed beside (:func:`key_for`).
    policy : Policy
        This server's limits.
    cache : ModelCache
        The app's loaded models.
    colour_set : str
        The rows' colour set.
    run_id : str
        The session's run id.
    renderer : callable
        Spec -> Plate.
    check_hf : callable
        Model id -> None or ValueError.

    Yields
    ------
    Answered
        One per answered point (an API model's points run concurrently), or one with the error for a model
        that
        cannot answer (the next model is still asked).

    Raises
    ------
    ValueError
        When no value of the sweep can be drawn with these colours.
    """
    plan = sweep_plan(spec, values)
    if not plan.specs:
        raise ValueError(f"no ΔE2000 of the sweep can be drawn with these colours: {plan.skipped[0][1]}")
    for choice in choices:
        secret = key_for(choice, key, key_url)
        try:
            backend, close = open_backend(choice, secret, policy, cache, check_hf=check_hf)
            try:
                for row in em.ask_many(plan.specs, ask, backend, colour_set=colour_set, run_id=run_id,
                                       secrets=(key,), renderer=renderer):
                    yield Answered(choice, row=row)
            finally:
                if close:
                    backend.close()
        except (ValueError, ImportError) as exc:
            yield Answered(choice, error=redact(str(exc), (key,)))


def _verdict(row: dict) -> str:
    if row.get("error"):
        return "request failed"
    if row.get("parse_status") == "unsupported":
        return "declines this prompt"
    return "✅ correct" if row.get("correct") else "❌ wrong"


def comparison_frame(answers: Sequence[Answered]) -> pd.DataFrame:
    """The side-by-side table: one line per model.

    Parameters
    ----------
    answers : sequence of Answered
        The models' answers.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COMPARE_HEADERS`: the raw reply, the answer the task's reader took from it, the
        expected
        answer, the verdict, failure mode and latency (ms); a model that gave no answer says why in the reply
        column.
    """
    lines = []
    for a in answers:
        if a.row is None:
            lines.append([model_line(a.choice), a.choice.kind, f"[not asked: {a.error}]", "", "", "error", "", ""])
            continue
        r = a.row
        reply = r.get("reply") if r.get("reply") is not None else f"[{r.get('error') or r.get('parse_status')}]"
        lines.append([r["model"], r["backend"], reply, "" if r.get("parsed") is None else str(r["parsed"]),
                      str(r.get("expected") or ""), _verdict(r), r.get("failure_mode") or "",
                      round(1000 * float(r.get("latency_s") or 0))])
    return pd.DataFrame(lines, columns=COMPARE_HEADERS)


def sweep_figure(rows: Sequence[dict]) -> go.Figure:
    """Every sweep of the session on one chart, one series per model in the model's own colour.

    `plates.charts.ishihara.delta_e_figure`: accuracy against ΔE2000 drawn (CIEDE2000 between foreground and
    background, CIELAB) with the chance-aware psychometric fit of `plates.charts.delta_e.fit_psychometric_counts`,
    one per model, prompt, condition and colour set (`plates.charts.delta_e.FIT_GROUP`, like the dashboard's), in
    `model_colours`'s colours (the same model keeps its colour from sweep to sweep), plus each model's answers as
    points at 1 (correct, ●) or 0 (wrong, ✕) at the ΔE2000 drawn (hover: the one asked). When every ΔE holds one
    answer per model the binned points' Wilson bars (n=1: about 20-100%) are hidden: they would cover the plot and
    say nothing.

    Parameters
    ----------
    rows : sequence of dict
        The session's sweep rows (results schema).

    Returns
    -------
    plotly.graph_objects.Figure
        The chart.
    """
    # lazy: the charts (plotly's subplots, the fits) wait for the first sweep, off the explorer's start
    from plates.charts.common import model_colours
    from plates.charts.ishihara import delta_e_figure

    keep = ["model", "prompt_name", "colour_set", *CONDITION_COLUMNS, "delta_e", "correct", "parsed"]
    frame = pd.DataFrame([{k: r.get(k) for k in keep} for r in rows], columns=keep)
    fig = delta_e_figure(frame, bins=max(1, len(rows)))
    colours = model_colours(str(r["model"]) for r in rows)
    for trace in fig.data:  # the fit's series are the models: their colours by name, whatever their order
        if trace.legendgroup in colours:
            colour = colours[trace.legendgroup]
            trace.update(marker=dict(color=colour), line=dict(color=colour))
            if trace.name == trace.legendgroup:  # the binned accuracy (its fit in its group): distinct from answers
                trace.name = f"{trace.name}: {ACCURACY_ENTRY}"
    one_model = len(colours) == 1
    for model in sorted(colours):
        done = sorted((r for r in rows if str(r["model"]) == model and r.get("correct") is not None),
                      key=lambda r: r["delta_e"])
        if not done:
            continue
        asked = [requested_delta_e(r) for r in done]
        fig.add_trace(go.Scatter(
            x=[r["delta_e"] for r in done], y=[1.0 if r["correct"] else 0.0 for r in done],
            mode="markers+text" if one_model else "markers", name=f"{model}: {ANSWERS_ENTRY}", legendgroup=model,
            text=[str(r.get("parsed")) for r in done], textposition="bottom center",
            hovertext=[f"{model}: asked ΔE2000 {a:.2f}, drawn {r['delta_e']:.2f}: {r.get('parsed')}"
                       if a is not None else f"{model}: drawn ΔE2000 {r['delta_e']:.2f}: {r.get('parsed')}"
                       for a, r in zip(asked, done)], hoverinfo="text",
            marker=dict(size=9, color=colours[model], symbol=["circle" if r["correct"] else "x" for r in done])))
    per_level = pd.Series([(str(r["model"]), r["delta_e"]) for r in rows if r.get("correct") is not None])
    if per_level.is_unique:  # one answer per model and ΔE: a Wilson bar of n=1 spans ~20-100%: clutter
        fig.update_traces(error_y=dict(visible=False), selector=dict(mode="markers"))
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.2, xanchor="left", x=0),
                      height=440, margin=dict(l=50, r=10, t=60, b=100))
    return fig
