"""The scene family's dashboard tables and figures (ColorBench on procedural scenes): pure
DataFrame -> DataFrame / plotly Figure.

Input: results rows of any family (every column); the scene rows (``family`` "scene" or "scene-recolour")
are kept and their facts expanded (`plates.analysis.illusions.family_rows`). Numbers come from
`plates.analysis.colorbench` (Liang et al., ColorBench §2.3, §3.2, App. J); the papers' numbers from the
reference tables: Table 1 (per-task accuracy, "P & R Overall", "Robustness: Color Robustness"), Table 4 (the
change with chain of thought, percentage points stored as fractions) and Table 9 (standard vs grayscale
accuracy per model-size bucket, from which the grayscale effect (std − gray) / std is computed).

* ``colour rows``: scene rows shown in colour (``grayscale`` False), not a recoloured robustness variant
  (``recolour`` null or "seed"): per-task accuracy, the difficulty curves and the overall score read these.
* `task_long`: accuracy per model x task (Wilson 95%), paper rows beside (task names mapped by `PAPER_TASKS`).
* `overall_long`: ColorBench's micro-averaged "P & R Overall" per model, paper rows beside. Our shape-counting
  task (made for robustness) is left out of it, as Table 1 leaves robustness out of P & R.
* `difficulty_params` / `difficulty_long`: accuracy against one ``params`` entry of the question
  (truth_json ``params``; numbers or short labels), per model x task.
* `robustness_long`: ColorBench eq. (1)-(2) per model; the seed id is the row's ``group`` and the variant
  the ``recolour`` fact.
* `scene_effects`: the items asked both ways (colour and grayscale; a "-cot" prompt and its plain twin) paired
  per model x task: pairs and each side's accuracy (DuckDB computes the same table for the dashboard).
* `grayscale_long`, `cot_long`: (Acc_colour − Acc_gray) / Acc_colour and Acc_CoT − Acc_standard per model x
  task from a `scene_effects` table, beside Table 9 / Table 4.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from plates.analysis import colorbench as cb
from plates.analysis.illusions import family_rows
from plates.analysis.metrics import row_weights
from plates.charts.common import model_colours
from plates.charts.illusions import reference_rows
from plates.validation import check_int, is_number

__all__ = [
    "PAPER_TASKS",
    "colour_rows",
    "cot_long",
    "difficulty_figure",
    "difficulty_long",
    "difficulty_params",
    "EFFECT_COLUMNS",
    "grayscale_long",
    "overall_long",
    "robustness_long",
    "scene_effects",
    "scene_rows",
    "task_figure",
    "task_long",
]

#: Our scene task -> ColorBench Table 1's column.
PAPER_TASKS = {
    "colour-extraction": "Perception: Color Extraction",
    "colour-recognition": "Perception: Color Recognition",
    "colour-proportion": "Reasoning: Color Proportion",
    "colour-comparison": "Reasoning: Color Comparison",
    "colour-counting": "Reasoning: Color Counting",
    "object-counting": "Reasoning: Object Counting",
    "shape-counting": "Robustness: Color Robustness",
}
_TO_OURS = {v: k for k, v in PAPER_TASKS.items()}
_OUT = ["source", "model", "task", "value", "low", "high", "n"]
_GREY = "rgba(120,120,120,0.55)"
_DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")


def scene_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """Every scene row (seed scenes and recoloured variants), facts expanded.

    Parameters
    ----------
    frame : pandas.DataFrame
        Result rows of any families (the scene rows are picked).

    Returns
    -------
    pandas.DataFrame
        The rows of families "scene" and "scene-recolour" (`plates.analysis.illusions.family_rows`), with
        ``grayscale`` and ``cot`` (prompt name ends in "-cot") as booleans.
    """
    rows = family_rows(frame, ("scene", "scene-recolour"))
    if rows.empty:
        return rows
    gray = rows["grayscale"].astype(object).eq(True) if "grayscale" in rows.columns else False
    cot = rows["prompt_name"].astype(str).str.endswith("-cot") if "prompt_name" in rows.columns else False
    rows = rows.assign(grayscale=gray, cot=cot)
    if "recolour" not in rows.columns:
        rows["recolour"] = None
    return rows


def colour_rows(rows: pd.DataFrame, cot: bool = False) -> pd.DataFrame:
    """The module docstring's colour rows.

    Parameters
    ----------
    rows : pandas.DataFrame
        `scene_rows`' output.
    cot : bool
        Keep the chain-of-thought prompts' rows instead of the standard prompts'.

    Returns
    -------
    pandas.DataFrame
    """
    if rows.empty:
        return rows
    seed = rows["recolour"].isna() | rows["recolour"].astype(object).eq("seed")
    return rows[~rows["grayscale"] & seed & (rows["cot"] == cot)]


def _paper(reference: pd.DataFrame | None, source: str, metric: str, condition: str = "standard") -> pd.DataFrame:
    ref = reference_rows(reference, source)
    if ref.empty:
        return pd.DataFrame(columns=_OUT)
    ref = ref[(ref["metric"] == metric) & (ref["condition"] == condition)]
    return pd.DataFrame({"source": source, "model": ref["model"].astype(str), "task": ref["task"].astype(str),
                         "value": ref["value"].astype(float), "low": np.nan, "high": np.nan, "n": np.nan})


def _ours(table: pd.DataFrame, value: str = "accuracy") -> pd.DataFrame:
    return pd.DataFrame({"source": "ours", "model": table["model"].astype(str),
                         "task": table["task"].astype(str) if "task" in table.columns else "P & R Overall",
                         "value": table[value].astype(float), "low": table["ci_low"].astype(float),
                         "high": table["ci_high"].astype(float), "n": table.get("n", table.get("seeds"))})


def task_chance(frame: pd.DataFrame) -> dict[str, float]:
    """Guessing's accuracy per task over the colour rows `task_long` counts (`cb.chance_by_task`).

    Parameters
    ----------
    frame : pandas.DataFrame
        Result rows of any families (the scene rows are picked).

    Returns
    -------
    dict of str to float
        Task -> chance accuracy, 0-1.
    """
    rows = colour_rows(scene_rows(frame))
    return cb.chance_by_task(rows) if len(rows) else {}


def task_long(frame: pd.DataFrame, reference: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per-task accuracy, ours beside the paper's (its columns mapped onto our task names by `PAPER_TASKS`).

    Parameters
    ----------
    frame : pandas.DataFrame
        Result rows of any families (the scene rows are picked).
    reference : pandas.DataFrame or None
        The papers' reference tables (`plates.results.reference`); None: ours only.

    Returns
    -------
    pandas.DataFrame
        ``source, model, task, value, low, high, n``: accuracy 0-1 with its Wilson 95% interval (NaN for the
        paper's rows).

    References
    ----------
    ColorBench (Liang et al.) Table 1.
    """
    rows = colour_rows(scene_rows(frame))
    ours = _ours(cb.task_accuracy(rows, by=("model", "task"))) if len(rows) else pd.DataFrame(columns=_OUT)
    paper = _paper(reference, "ColorBench Table 1", "accuracy")
    paper = paper[paper["task"].isin(list(_TO_OURS))].assign(task=lambda p: p["task"].map(_TO_OURS))
    return pd.concat([ours, paper], ignore_index=True)[_OUT]


def overall_long(frame: pd.DataFrame, reference: pd.DataFrame | None = None) -> pd.DataFrame:
    """ColorBench's "P & R Overall" (micro-average over instances) per model, beside Table 1's.

    Parameters
    ----------
    frame : pandas.DataFrame
        Result rows of any families (the scene rows are picked).
    reference : pandas.DataFrame or None
        The papers' reference tables (`plates.results.reference`); None: ours only.

    Returns
    -------
    pandas.DataFrame
        The long columns (``source, model, task, value, low, high, n``) and ``macro`` (the mean of our
        per-task accuracies), shown for contrast.

    References
    ----------
    ColorBench (Liang et al.) Table 1, "P & R Overall".
    """
    rows = colour_rows(scene_rows(frame))
    rows = rows[rows["task"].astype(str) != "shape-counting"] if len(rows) else rows
    if len(rows):
        t = cb.overall_score(rows, by="model")
        ours = _ours(t, "overall").assign(macro=t["macro"].to_numpy(float))
    else:
        ours = pd.DataFrame(columns=[*_OUT, "macro"])
    paper = _paper(reference, "ColorBench Table 1", "accuracy")
    paper = paper[paper["task"] == "P & R Overall"].assign(macro=np.nan)
    return pd.concat([ours, paper], ignore_index=True)


def difficulty_params(frame: pd.DataFrame) -> list[str]:
    """The question parameters a difficulty curve can be drawn against.

    Parameters
    ----------
    frame : pandas.DataFrame
        Result rows of any families (the scene rows are picked).

    Returns
    -------
    list of str
        The truth_json ``params`` keys with a scalar value on some scene row, sorted.
    """
    rows = scene_rows(frame)
    if rows.empty or "params" not in rows.columns:
        return []
    names = {k for p in rows["params"] if isinstance(p, dict) for k, v in p.items()
             if is_number(v) or isinstance(v, str)}
    return sorted(names)


def difficulty_long(frame: pd.DataFrame, param: str, bins: int = 6) -> pd.DataFrame:
    """Accuracy (Wilson 95%) against the question parameter ``param`` per model x task, over the colour rows
    whose question has it: ``model, task, value, n, correct, accuracy, ci_low, ci_high, bin``. A numeric
    parameter with more than ``bins`` distinct values is cut into ``bins`` quantile bins (right-closed;
    ``value`` = the mean of the bin's rows, ``bin`` its interval); labels are kept as they are.

    Parameters
    ----------
    frame : pandas.DataFrame
        Result rows of any families (the scene rows are picked).
    param : str
        A `difficulty_params` name (e.g. "min_delta_e" in ΔE2000).
    bins : int
        Quantile bins of a numeric parameter.

    Returns
    -------
    pandas.DataFrame
        ``model, task, value, n, correct, accuracy, ci_low, ci_high, bin``.
    """
    check_int("bins", bins, 2)
    allowed = difficulty_params(frame)
    if param not in allowed:
        raise ValueError(f"difficulty parameter {param!r} is not in these rows; allowed: {', '.join(allowed) or 'none'}")
    rows = colour_rows(scene_rows(frame))
    values = [p.get(param) if isinstance(p, dict) else None for p in rows["params"]]
    rows = rows.assign(value=pd.Series(values, index=rows.index, dtype=object))
    rows = rows[rows["value"].notna()]
    numeric = len(rows) and all(isinstance(v, (int, float)) for v in rows["value"])
    if not numeric:
        table = cb.accuracy_by(rows.assign(value=rows["value"].astype(str)), "value", by=("model", "task"))
        return table.drop(columns="errors").assign(bin=lambda t: t["value"])
    values = rows["value"].astype(float)
    rows = rows.assign(value=values)
    if values.nunique() <= bins:
        table = cb.accuracy_by(rows, "value", by=("model", "task"))
        return table.drop(columns="errors").assign(bin=lambda t: t["value"].map("{:g}".format))
    w = row_weights(rows)  # collapsed rows (the dashboard's DuckDB counts): quantiles over the result rows
    edges = np.unique(np.quantile(np.repeat(values.to_numpy(), w), np.linspace(0.0, 1.0, bins + 1)))
    edges[0] -= 1e-9 * max(1.0, abs(edges[0]))  # right-closed bins: keep the smallest value
    table = cb.accuracy_by(rows, "value", by=("model", "task"), bins=edges).drop(columns="errors")
    table = table[table["n"] > 0]
    # x = the mean parameter value of each bin's rows (the bins are quantiles of the rows' values)
    sums = rows.assign(_bin=pd.cut(values, edges), _vw=values * w, _w=w).groupby("_bin", observed=True)
    centre = sums["_vw"].sum() / sums["_w"].sum()
    return table.assign(bin=table["value"].astype(str), value=table["value"].map(centre).astype(float))


def difficulty_figure(table: pd.DataFrame, param: str) -> go.Figure:
    """Accuracy against ``param``: one line per model x task (the model's colour, a dash per task), Wilson 95%
    bars.

    Parameters
    ----------
    table : pandas.DataFrame
        `difficulty_long`'s table.
    param : str
        Its parameter (the x axis).

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fig = go.Figure()
    colours, tasks = model_colours(table["model"]), sorted(table["task"].astype(str).unique())
    for (model, task), g in table.groupby(["model", "task"], sort=True):
        g = g.sort_values("value")
        acc = g["accuracy"].to_numpy(float)
        fig.add_trace(go.Scatter(
            x=g["value"], y=acc, mode="lines+markers", name=f"{model} · {task}", line_color=colours[str(model)],
            line_dash=_DASHES[tasks.index(str(task)) % len(_DASHES)],
            error_y=dict(type="data", symmetric=False, array=g["ci_high"].to_numpy(float) - acc,
                         arrayminus=acc - g["ci_low"].to_numpy(float)),
            customdata=g[["n", "bin"]].to_numpy(), hovertemplate="%{customdata[1]}: %{y:.3f} (n=%{customdata[0]})"))
    fig.update_layout(xaxis_title=param, yaxis_title="accuracy", yaxis_range=[0, 1.05], yaxis_tickformat=".0%",
                      height=420)
    return fig


def task_figure(long: pd.DataFrame, paper_models: Sequence[str] = ("Human", "GPT-4o"),
                chance: dict[str, float] | None = None) -> go.Figure:
    """Bars per task: our models with Wilson 95% bars, each in its model's colour; the paper's ``paper_models``
    hatched grey; chance as a grey dash over each task.

    Parameters
    ----------
    long : pandas.DataFrame
        `task_long`'s table.
    paper_models : sequence of str
        The paper's rows drawn.
    chance : dict of str to float or None
        Task -> guessing's accuracy (`plates.analysis.colorbench.chance_by_task`); None: no dashes.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fig = go.Figure()
    part = long[(long["source"] == "ours") | long["model"].isin(list(paper_models))]
    colours = model_colours(part.loc[part["source"] == "ours", "model"])
    for (source, model), g in part.groupby(["source", "model"], sort=True):
        ours = source == "ours"
        err = dict(type="data", symmetric=False, array=(g["high"] - g["value"]).to_numpy(float),
                   arrayminus=(g["value"] - g["low"]).to_numpy(float)) if ours else None
        fig.add_trace(go.Bar(x=g["task"], y=g["value"], name=str(model) if ours else f"{source}: {model}",
                             error_y=err, marker_color=colours[str(model)] if ours else _GREY,
                             marker_pattern_shape="" if ours else "/"))
    shown = set(part["task"].astype(str))
    chance = {t: v for t, v in (chance or {}).items() if t in shown}
    if chance:
        fig.add_trace(go.Scatter(x=list(chance), y=list(chance.values()), mode="markers", name="chance (1 / options)",
                                 marker=dict(symbol="line-ew-open", size=44, color="#555555", line=dict(width=2)),
                                 hovertemplate="%{x}: chance %{y:.1%}<extra></extra>"))
    fig.update_layout(barmode="group", yaxis_title="accuracy", yaxis_range=[0, 1.05], height=440,
                      legend_title="model", yaxis_tickformat=".0%")
    return fig


def robustness_long(frame: pd.DataFrame, reference: pd.DataFrame | None = None) -> pd.DataFrame:
    """ColorBench robustness per model (seed and all nine variants right), beside Table 1's.

    Parameters
    ----------
    frame : pandas.DataFrame
        Result rows of any families (the scene rows are picked).
    reference : pandas.DataFrame or None
        The papers' reference tables (`plates.results.reference`); None: ours only.

    Returns
    -------
    pandas.DataFrame
        The long columns and ``incomplete``: seeds lacking a variant's row or answer (not judged).

    References
    ----------
    ColorBench (Liang et al.) §2.3, eq. (1)-(2), Table 1.
    """
    rows = scene_rows(frame)
    rows = rows[rows["recolour"].notna() & ~rows["grayscale"] & ~rows["cot"]] if len(rows) else rows
    if len(rows):
        t = cb.robustness(rows.assign(seed_id=rows["group"].astype(str)), by="model")
        ours = _ours(t.assign(task="robustness"), "robustness").assign(incomplete=t["incomplete"].to_numpy())
    else:
        ours = pd.DataFrame(columns=[*_OUT, "incomplete"])
    paper = _paper(reference, "ColorBench Table 1", "robustness")
    paper = paper[paper["task"] == "Robustness: Color Robustness"].assign(task="robustness", incomplete=np.nan)
    return pd.concat([ours, paper], ignore_index=True)


#: `scene_effects`' columns: per effect ("grayscale": side a colour, b grayscale; "cot": side a the "-cot"
#: prompt, b its plain twin), model and task, the items paired and each side's accuracy over them.
EFFECT_COLUMNS = ["effect", "model", "task", "pairs", "acc_a", "acc_b"]


def _effects(rows: pd.DataFrame, flag: str) -> pd.DataFrame:
    """One effect's paired accuracies (`EFFECT_COLUMNS` but ``effect``): the effect itself is computed once, by
    `grayscale_long` / `cot_long`, from this table or DuckDB's."""
    if flag == "cot":  # a "-cot" prompt pairs with its plain twin: the item is the item under the plain prompt
        rows = rows.assign(item_id=rows["item_id"].astype(str) + "|"
                           + rows["prompt_name"].astype(str).str.removesuffix("-cot"), plain=~rows["cot"])
        return cb.paired_accuracy(rows, ["model", "task"], "plain", "scene_effects")
    return cb.paired_accuracy(rows.assign(item_id=rows["item_id"].astype(str)), ["model", "task"], "grayscale",
                              "scene_effects")


def scene_effects(frame: pd.DataFrame) -> pd.DataFrame:
    """`EFFECT_COLUMNS` from scene rows (`cb.grayscale_effect`, `cb.text_only_gap` over the seed scenes: items
    answered in colour and in grayscale with the same prompt; items asked with a "-cot" prompt and its plain
    twin, in colour). `plates.dashboard.family_queries.scene_effects` computes the same table in DuckDB.

    Parameters
    ----------
    frame : pandas.DataFrame
        Result rows of any families (the scene rows are picked).

    Returns
    -------
    pandas.DataFrame
        `EFFECT_COLUMNS`.

    References
    ----------
    ColorBench (Liang et al.) §3.2, Table 4, App. J.
    """
    rows = scene_rows(frame)
    parts = []
    if len(rows):
        seed = rows["recolour"].isna() | rows["recolour"].astype(object).eq("seed")
        if rows["grayscale"].any():
            parts.append(_effects(rows[seed & ~rows["cot"]], "grayscale").assign(effect="grayscale"))
        if rows["cot"].any() and (~rows["cot"]).any():
            parts.append(_effects(rows[seed & ~rows["grayscale"]], "cot").assign(effect="cot"))
    parts = [p[EFFECT_COLUMNS] for p in parts if len(p)]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=EFFECT_COLUMNS)


def _effect_rows(effects: pd.DataFrame, effect: str) -> pd.DataFrame:
    """One effect's rows of a `scene_effects` table (either home), task names as text."""
    t = effects[effects["effect"] == effect].drop(columns="effect")
    return t.assign(model=t["model"].astype(str), task=t["task"].astype(str)).reset_index(drop=True)


def grayscale_long(effects: pd.DataFrame, reference: pd.DataFrame | None = None) -> pd.DataFrame:
    """(Acc_colour − Acc_gray) / Acc_colour per model x task (paired items: a `scene_effects` table, from rows
    or from DuckDB), and the same computed from ColorBench Table 9's standard and grayscale accuracy per size
    bucket (mapped task names).

    Parameters
    ----------
    effects : pandas.DataFrame
        A `scene_effects` table.
    reference : pandas.DataFrame or None
        The papers' reference tables (`plates.results.reference`); None: ours only.

    Returns
    -------
    pandas.DataFrame
        ``source, model, task, pairs, acc_colour, acc_gray, effect``.

    References
    ----------
    ColorBench (Liang et al.) §3.2, Fig. 5, Table 9.
    """
    columns = ["source", "model", "task", "pairs", "acc_colour", "acc_gray", "effect"]
    parts = []
    ours = _effect_rows(effects, "grayscale").rename(columns={"acc_a": "acc_colour", "acc_b": "acc_gray"})
    if len(ours):
        parts.append(cb.with_grayscale_effect(ours).assign(source="ours"))
    ref = reference_rows(reference, "ColorBench Table 9")
    if len(ref):
        wide = ref[ref["metric"] == "accuracy"].pivot_table(index=["model", "task"], columns="condition",
                                                           values="value").reset_index()
        if {"standard", "grayscale"} <= set(wide.columns):
            wide = wide.assign(source="ColorBench Table 9", pairs=np.nan, acc_colour=wide["standard"],
                               acc_gray=wide["grayscale"], task=wide["task"].map(lambda t: _TO_OURS.get(t, t)))
            parts.append(cb.with_grayscale_effect(wide))
    return pd.concat([p[columns] for p in parts], ignore_index=True) if parts else pd.DataFrame(columns=columns)


def cot_long(effects: pd.DataFrame, reference: pd.DataFrame | None = None) -> pd.DataFrame:
    """Acc_CoT − Acc_standard per model x task over items asked both ways (a "-cot" prompt and its plain
    twin: a `scene_effects` table, from rows or from DuckDB), beside ColorBench Table 4's deltas.

    Parameters
    ----------
    effects : pandas.DataFrame
        A `scene_effects` table.
    reference : pandas.DataFrame or None
        The papers' reference tables (`plates.results.reference`); None: ours only.

    Returns
    -------
    pandas.DataFrame
        ``source, model, task, pairs, delta`` (accuracy units).

    References
    ----------
    ColorBench (Liang et al.) Table 4.
    """
    columns = ["source", "model", "task", "pairs", "delta"]
    parts = []
    ours = _effect_rows(effects, "cot")
    if len(ours):
        parts.append(ours.assign(source="ours", delta=ours["acc_a"] - ours["acc_b"]))
    ref = reference_rows(reference, "ColorBench Table 4")
    if len(ref):
        ref = ref[ref["metric"] == "delta"]
        parts.append(pd.DataFrame({"source": "ColorBench Table 4", "model": ref["model"].astype(str),
                                   "task": ref["task"].map(lambda t: _TO_OURS.get(t, t)), "pairs": np.nan,
                                   "delta": ref["value"].astype(float)}))
    return pd.concat([p[columns] for p in parts], ignore_index=True) if parts else pd.DataFrame(columns=columns)
