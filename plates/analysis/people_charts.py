"""People beside models (issue 15): each participant's and each model's ΔE2000 threshold on the plates, and the
papers' human numbers: pure DataFrame -> DataFrame / plotly Figure.

Input: results rows (every column). Human rows have ``backend == "human"`` (written by the quiz,
`plates.ui.quiz`: one ``model`` per anonymous participant, "participant-<id>"). The threshold is the level of
the CIEDE2000 difference between text and background dots (``delta_e``; CIELAB D65 2°) where a chance-aware
psychometric function is halfway between the guess rate and the ceiling (`plates.analysis.psychometric`,
Wichmann & Hill 2001), fitted per participant / model x prompt by maximum likelihood with a profile-likelihood
95% interval. The guess rate comes from the prompt's kind (`guess_rate`): yes/no ½; multiple choice 1 / the
options the row showed (``options_json``; else the template's ``n_options``); open answers 1 / the size of the
prompt's label space (`plates.stimuli.ishihara.labels.LABEL_SPACES`: cbe 100, huemanity-numeric 90,
huemanity-alnum 3,364). A prompt over the open label space "any" has no finite label space: its guess rate is
0, said in the ``guess_from`` column (not silently).

The papers publish human accuracies, never thresholds: `human_reference` lists them (ColorBlindnessEval Table 2,
HueManity Table 2, ColorBench Table 1, IllusionBench+ Tables II / III); `people_accuracy` puts our people's
and models' accuracy per prompt beside the paper's human accuracy for the same prompt (``prompt_name``).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from plates.analysis.metrics import wilson_intervals
from plates.analysis.psychometric import fit_groups, prompt_guess_rate
from plates.stimuli.ishihara.labels import LABEL_SPACES
from plates.tasks.prompts import get_prompt

__all__ = ["guess_of_row", "has_people", "human_reference", "people_accuracy", "threshold_figure",
           "threshold_table"]


def has_people(frame: pd.DataFrame) -> bool:
    """Whether ``frame`` holds any human row (``backend == "human"``)."""
    return "backend" in frame.columns and bool(frame["backend"].astype(object).eq("human").any())


def guess_of_row(prompt_name: str, options_json: object = None) -> tuple[float, str]:
    """(γ, how it was set) for one row of a built-in prompt (module docstring)."""
    template = get_prompt(prompt_name)
    if template.kind == "yesno":
        return prompt_guess_rate(template), "yes/no: 1/2"
    if template.kind == "mc":
        options = json.loads(options_json) if isinstance(options_json, str) and options_json else None
        k = len(options) if options else template.n_options
        return prompt_guess_rate(template, n_options=k), f"multiple choice: 1/{k}"
    space = template.label_space
    if space not in LABEL_SPACES:
        return 0.0, f"open over label space {space!r}: no finite label space, guess 0"
    return prompt_guess_rate(template), f"open over {space}: 1/{len(LABEL_SPACES[space])}"


def _plate_rows(frame: pd.DataFrame) -> pd.DataFrame:
    need = {"family", "delta_e", "correct", "prompt_name", "model", "backend"}
    if not need <= set(frame.columns):
        return frame.iloc[0:0]
    rows = frame[frame["family"].astype(object).eq("ishihara") & frame["delta_e"].notna()]
    who = np.where(rows["backend"].astype(object).eq("human"), "person", "model")
    return rows.assign(who=who)


def threshold_table(frame: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Per participant / model x prompt on the plates (``family == "ishihara"``): ``who`` ("person" or
    "model"), ``model``, ``prompt_name``, ``guess``, ``guess_from``, ``n``, ``errors``, ``status``,
    ``threshold``, ``ci_low``, ``ci_high`` (ΔE2000), ``slope``, ``lapse``, ``extrapolated``, ``message``."""
    rows = _plate_rows(frame)
    columns = ["who", "model", "prompt_name", "guess", "guess_from", "n", "errors", "status", "threshold",
               "ci_low", "ci_high", "slope", "lapse", "extrapolated", "x_min", "x_max", "message"]
    if rows.empty:
        return pd.DataFrame(columns=columns)
    options = rows["options_json"] if "options_json" in rows.columns else pd.Series(None, index=rows.index)
    guesses = [guess_of_row(str(p), o) for p, o in zip(rows["prompt_name"], options.astype(object))]
    rows = rows.assign(guess=[g for g, _ in guesses], guess_from=[w for _, w in guesses])
    # one γ per group: multiple-choice rows of one prompt may show different option counts, so ``guess_from``
    # (which names γ) is a group key too
    table = fit_groups(rows, ["who", "model", "prompt_name", "guess_from"], level="delta_e",
                       guess="guess", confidence=confidence)
    return table[columns].sort_values(["who", "model", "prompt_name"], ascending=[False, True, True],
                                      ignore_index=True)


def threshold_figure(table: pd.DataFrame) -> go.Figure:
    """Each participant's and model's threshold (ΔE2000) with its interval, one row per fit, people in
    orange, models in blue; fits without a located threshold ("below-range", "above-range", "too-few") are
    drawn as an open marker at the edge of the tested range with their status in the hover."""
    fig = go.Figure()
    for who, colour in (("person", "#e67e22"), ("model", "#1f77b4")):
        part = table[table["who"] == who]
        if part.empty:
            continue
        y = [f"{m} · {p}" for m, p in zip(part["model"], part["prompt_name"])]
        thr = part["threshold"].to_numpy(float)
        located = part["status"].eq("fit").to_numpy()
        edge = np.where(part["status"].eq("below-range"), part["x_min"], part["x_max"]).astype(float)
        x = np.where(located, thr, edge)
        hi = np.where(np.isfinite(part["ci_high"].to_numpy(float)), part["ci_high"].to_numpy(float), x)
        lo = np.where(np.isfinite(part["ci_low"].to_numpy(float)), part["ci_low"].to_numpy(float), x)
        hi, lo = np.where(located, hi, x), np.where(located, lo, x)
        fig.add_trace(go.Scatter(
            x=x, y=y, mode="markers+text", name="people" if who == "person" else "models", marker_color=colour,
            text=np.where(located, "", np.where(part["status"].eq("below-range"), "below tested range",
                                                np.where(part["status"].eq("too-few"), "too few levels",
                                                         "above tested range"))),
            textposition="middle left",
            marker_size=11, marker_symbol=np.where(located, "circle", "circle-open"),
            error_x=dict(type="data", symmetric=False, array=np.nan_to_num(hi - x), arrayminus=np.nan_to_num(x - lo)),
            customdata=part[["status", "n", "guess_from"]].to_numpy(),
            hovertemplate="%{y}: %{x:.2f} ΔE2000 (%{customdata[0]}, n=%{customdata[1]}, guess %{customdata[2]})"))
    fig.update_layout(xaxis_title="threshold (ΔE2000, halfway between guess rate and ceiling)",
                      height=max(320, 36 * len(table) + 160), legend_title="who")
    return fig


def people_accuracy(frame: pd.DataFrame, reference: pd.DataFrame | None = None) -> pd.DataFrame:
    """Accuracy (Wilson 95%) per who x model x prompt over every family, beside the paper's human accuracy for
    the same ``prompt_name`` where a reference table has one (``paper_human``, ``paper_source``)."""
    need = {"backend", "model", "prompt_name", "correct"}
    columns = ["who", "model", "prompt_name", "n", "accuracy", "ci_low", "ci_high", "paper_human",
               "paper_source"]
    if not need <= set(frame.columns) or frame.empty:
        return pd.DataFrame(columns=columns)
    rows = frame[frame["correct"].notna()].assign(
        who=np.where(frame["backend"].astype(object).eq("human"), "person", "model")[frame["correct"].notna()],
        right=lambda r: r["correct"].astype(bool).astype(np.int64))
    g = rows.groupby(["who", "model", "prompt_name"], sort=True, observed=True)["right"].agg(["size", "sum"])
    g = g.reset_index().rename(columns={"size": "n", "sum": "k"})
    low, high = wilson_intervals(g["k"].to_numpy(np.int64), g["n"].to_numpy(np.int64), 0.95)
    g = g.assign(accuracy=g["k"] / g["n"], ci_low=low, ci_high=high)
    ref = human_reference(reference)
    ref = ref[ref["prompt_name"].notna() & (ref["metric"] == "accuracy")]
    ref = ref.groupby("prompt_name", sort=True).agg(paper_human=("value", "mean"),
                                                     paper_source=("source", "first")).reset_index()
    return g.merge(ref, on="prompt_name", how="left")[columns].sort_values(
        ["who", "model", "prompt_name"], ascending=[False, True, True], ignore_index=True)


def human_reference(reference: pd.DataFrame | None) -> pd.DataFrame:
    """The papers' human rows (``model == "Human"``): ``source, task, condition, prompt_name, metric, value,
    printed, n, note`` (empty when the reference tables are hidden or lack them)."""
    columns = ["source", "task", "condition", "prompt_name", "metric", "value", "printed", "n", "note"]
    if reference is None or "model" not in reference.columns:
        return pd.DataFrame(columns=columns)
    rows = reference[reference["model"].astype(str).str.fullmatch("Human")]
    return rows[[c for c in columns if c in rows.columns]].reset_index(drop=True)
