"""ColorBench's metrics as pure functions over a DataFrame of scored rows (Liang et al., ColorBench).

Columns read (the caller maps its results onto them; only those a function needs must exist):

* ``correct``: bool verdict; null when the request failed. Null rows are left out of every denominator and
  counted in ``errors`` (a failed request is not a wrong answer).
* ``task``: task name (e.g. "colour-counting"); ``model`` (default grouping).
* ``item_id``: one instance (image + question); pairs colour with grayscale and image with text-only rows.
* ``seed_id`` and ``recolour``: robustness rows: "seed" for the seed image, else the variant name
  (`plates.stimuli.scenes.recolour.VARIANTS`, "image-90" ... "largest-270").
* ``grayscale`` (bool), ``text_only`` (bool): the conditions of App. M.2 and App. J.

A ``weight`` column (`plates.analysis.metrics.WEIGHT`: the dashboard's collapsed rows) makes a row count as
that many result rows; without it every row counts once.

Functions:

* `task_accuracy`: accuracy per task with Wilson intervals (scipy's closed form, `plates.analysis.metrics`).
* `overall_score`: ColorBench's "P & R Overall", the **micro-average over instances** (correct answers / answered
  instances, every task pooled), not the mean of task or category means (a third-party port reported that mean,
  59.09, which is not the paper's figure); the macro mean is returned beside it for contrast.
* `robustness`: §2.3 eq. (1)-(2): a seed is robust only if the seed and all nine variants are answered
  correctly; Robustness = robust seeds / judged seeds (Wilson interval over seeds). A seed lacking a row, or
  with a failed request, cannot be judged: counted in ``incomplete``, left out.
* `grayscale_effect`: §3.2 Finding 4 / Fig. 5: (Acc_colour − Acc_gray) / Acc_colour, paired by item.
* `text_only_gap`: App. J / Table 9: Acc_image − Acc_text-only (black image), paired by item.
* `accuracy_by`: accuracy against a difficulty parameter column (exact values, or bins).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import pandas as pd

from plates.analysis.metrics import row_weights, wilson_intervals
from plates.stimuli.scenes.recolour import VARIANTS

__all__ = ["accuracy_by", "grayscale_effect", "overall_score", "paired_accuracy", "robustness", "task_accuracy",
           "text_only_gap", "with_grayscale_effect"]


def _by(by: str | Sequence[str] | None) -> list[str]:
    if by is None:
        return []
    return [by] if isinstance(by, str) else list(by)


def _need(df: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    if not isinstance(df, pd.DataFrame):
        raise ValueError(f"{what} needs a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{what} needs columns {missing}; the frame has: {', '.join(map(str, df.columns))}")


def _verdicts(df: pd.DataFrame) -> pd.DataFrame:
    """``_answered``, ``_right`` and ``_error``: result rows answered, right and failed (0/1 per row, times its
    weight: `plates.analysis.metrics.row_weights`) from the nullable ``correct`` column; ``_w`` the weight."""
    c = df["correct"]
    answered = c.notna().to_numpy()
    right = np.zeros(len(df), dtype=np.int64)
    right[answered] = c[answered].astype(bool).to_numpy()
    w = row_weights(df)
    return df.assign(_answered=answered.astype(np.int64) * w, _right=right * w,
                     _error=(~answered).astype(np.int64) * w, _w=w)


def _table(df: pd.DataFrame, keys: list[str], confidence: float) -> pd.DataFrame:
    """Per group of ``keys``: n (answered), correct, accuracy, Wilson ci_low / ci_high, errors."""
    v = _verdicts(df)
    if keys:
        g = v.groupby(keys, observed=True, dropna=False, sort=True)[["_answered", "_right", "_error"]].sum()
        g = g.reset_index()
    else:
        g = pd.DataFrame({"_answered": [v["_answered"].sum()], "_right": [v["_right"].sum()],
                          "_error": [v["_error"].sum()]})
    n, k = g["_answered"].to_numpy(np.int64), g["_right"].to_numpy(np.int64)
    low, high = wilson_intervals(k, n, confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = np.where(n > 0, k / np.maximum(n, 1), np.nan)
    out = g[keys].copy() if keys else pd.DataFrame(index=range(len(g)))
    return out.assign(n=n, correct=k, accuracy=acc, ci_low=low, ci_high=high, errors=g["_error"].to_numpy(np.int64))


def chance_by_task(df: pd.DataFrame) -> dict[str, float]:
    """Per task, guessing's expected accuracy over its rows.

    ColorBench asks every task as multiple choice (3 options for a comparison, 4 otherwise here).

    Parameters
    ----------
    df : pandas.DataFrame
        Scene rows with ``task`` and ``options_json`` or, in rows DuckDB collapsed, ``n_options``; each row
        counted by its weight (`row_weights`).

    Returns
    -------
    dict of str to float
        Task -> the mean of 1/(options shown), 0-1; tasks without options are left out.

    Raises
    ------
    ValueError
        A needed column (``task`` and ``options_json`` or ``n_options``) is missing; the message lists the frame's columns.
    """
    counts = "n_options" if "n_options" in df.columns else "options_json"
    _need(df, ["task", counts], "chance_by_task")
    if counts == "options_json":
        sizes = [len(json.loads(text) or ()) if isinstance(text, str) else 0 for text in df[counts].astype(object)]
    else:
        sizes = [int(n) if pd.notna(n) else 0 for n in df[counts]]
    shares: dict[str, list[tuple[float, int]]] = {}
    for task, size, weight in zip(df["task"].astype(str), sizes, row_weights(df)):
        if size:
            shares.setdefault(task, []).append((1.0 / size, int(weight)))
    return {task: float(np.average([s for s, _ in v], weights=[w for _, w in v]))
            for task, v in sorted(shares.items())}


def task_accuracy(df: pd.DataFrame, by: str | Sequence[str] | None = ("model", "task"),
                  confidence: float = 0.95) -> pd.DataFrame:
    """Accuracy per group (default model x task).

    Parameters
    ----------
    df : pandas.DataFrame
        Scene rows with ``task`` and ``correct``.
    by : str, sequence of str or None
        Grouping columns (None: one group).
    confidence : float
        Level of the Wilson intervals.

    Returns
    -------
    pandas.DataFrame
        ``by..., n, correct, accuracy, ci_low, ci_high, errors`` (accuracy 0-1).

    Raises
    ------
    ValueError
        A needed column (``task``, ``correct``) is missing; the message lists the frame's columns.

    References
    ----------
    ColorBench (Liang et al.) Table 7 (the tasks).
    """
    keys = _by(by)
    _need(df, [*keys, "correct"], "task_accuracy")
    return _table(df, keys, confidence)


def overall_score(df: pd.DataFrame, by: str | Sequence[str] | None = "model", *,
                  tasks: Sequence[str] | None = None, confidence: float = 0.95) -> pd.DataFrame:
    """ColorBench "P & R Overall": the micro-average over the instances of ``tasks``.

    Parameters
    ----------
    df : pandas.DataFrame
        Scene rows with ``task`` and ``correct``.
    by : str, sequence of str or None
        Grouping columns (None: one group).
    tasks : sequence of str or None
        The tasks averaged (default: every task in the frame).
    confidence : float
        Level of the Wilson intervals.

    Returns
    -------
    pandas.DataFrame
        ``by..., n, correct, overall, ci_low, ci_high, errors, macro`` where ``macro`` is the mean of the
        per-task accuracies (not ColorBench's figure; shown so the difference is visible).

    Raises
    ------
    ValueError
        A needed column (``task``, ``correct``) is missing; the message lists the frame's columns.

    References
    ----------
    ColorBench (Liang et al.): "P & R Overall", a micro-average over instances.
    """
    keys = _by(by)
    if "task" in keys:
        raise ValueError("overall_score pools tasks: 'task' cannot be a 'by' column (use task_accuracy)")
    _need(df, [*keys, "task", "correct"], "overall_score")
    if tasks is not None:
        unknown = sorted(set(tasks) - set(df["task"].astype(str)))
        if unknown:
            raise ValueError(f"tasks {unknown} have no rows; allowed: {', '.join(sorted(set(df['task'].astype(str))))}")
        df = df[df["task"].astype(str).isin(list(tasks))]
    micro = _table(df, keys, confidence).rename(columns={"accuracy": "overall"})
    per_task = _table(df, [*keys, "task"], confidence)
    if keys:
        macro = per_task.groupby(keys, observed=True, dropna=False, sort=True)["accuracy"].mean().reset_index()
        micro = micro.merge(macro.rename(columns={"accuracy": "macro"}), on=keys, how="left")
    else:
        micro = micro.assign(macro=per_task["accuracy"].mean())
    return micro


def robustness(df: pd.DataFrame, by: str | Sequence[str] | None = "model", *,
               variants: Sequence[str] = VARIANTS, seed_col: str = "seed_id", variant_col: str = "recolour",
               original: str = "seed", confidence: float = 0.95) -> pd.DataFrame:
    """ColorBench's colour robustness (§2.3 eq. (1)-(2), module docstring): the share of seeds answered right
    in the original and under every recolouring.

    Parameters
    ----------
    df : pandas.DataFrame
        Recolour rows with ``seed_col``, ``variant_col`` and ``correct``.
    by : str, sequence of str or None
        Grouping columns (None: one group).
    variants : sequence of str
        The recolour variants a judged seed needs (`plates.stimuli.scenes.recolour.VARIANTS`).
    seed_col : str
        The column naming a seed image.
    variant_col : str
        The column naming the variant.
    original : str
        The variant name of the unchanged image.
    confidence : float
        Level of the Wilson intervals.

    Returns
    -------
    pandas.DataFrame
        ``by..., seeds, robust, robustness, ci_low, ci_high, incomplete``. A judged seed has exactly one row
        for ``original`` and for each of ``variants``; the others are counted in ``incomplete``.

    Raises
    ------
    ValueError
        A needed column (``seed_col``, ``variant_col``, ``correct``) is missing; the message lists the frame's columns.

    References
    ----------
    ColorBench (Liang et al.) §2.3, eq. (1)-(2).
    """
    keys = _by(by)
    _need(df, [*keys, seed_col, variant_col, "correct"], "robustness")
    wanted = [original, *variants]
    if len(set(wanted)) != len(wanted):
        raise ValueError(f"variants {list(variants)} repeat a name or include {original!r}; allowed: distinct names")
    v = _verdicts(df)
    v = v.assign(_wanted=v[variant_col].astype(str).isin(wanted).astype(np.int64))
    unknown = sorted(set(v.loc[v["_wanted"] == 0, variant_col].astype(str)))
    if unknown:
        raise ValueError(f"{variant_col} values {unknown} are not known; allowed: {', '.join(wanted)}")
    seed_keys = [*keys, seed_col]
    per_seed = v.groupby(seed_keys, observed=True, dropna=False, sort=True).agg(
        rows=("_w", "sum"), kinds=(variant_col, "nunique"), answered=("_answered", "sum"),
        right=("_right", "sum"),
    ).reset_index()
    complete = (per_seed["rows"] == len(wanted)) & (per_seed["kinds"] == len(wanted)) & (
        per_seed["answered"] == len(wanted))
    per_seed = per_seed.assign(_judged=complete.astype(np.int64),
                               _robust=(complete & (per_seed["right"] == len(wanted))).astype(np.int64),
                               _incomplete=(~complete).astype(np.int64))
    if keys:
        g = per_seed.groupby(keys, observed=True, dropna=False, sort=True)[["_judged", "_robust", "_incomplete"]].sum()
        g = g.reset_index()
    else:
        g = per_seed[["_judged", "_robust", "_incomplete"]].sum().to_frame().T
    n, k = g["_judged"].to_numpy(np.int64), g["_robust"].to_numpy(np.int64)
    low, high = wilson_intervals(k, n, confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(n > 0, k / np.maximum(n, 1), np.nan)
    out = g[keys].copy() if keys else pd.DataFrame(index=range(len(g)))
    return out.assign(seeds=n, robust=k, robustness=rate, ci_low=low, ci_high=high,
                      incomplete=g["_incomplete"].to_numpy(np.int64))


def paired_accuracy(df: pd.DataFrame, keys: list[str], flag: str, what: str) -> pd.DataFrame:
    """Accuracy with a boolean condition off and on, over the items answered under both: the pairing behind
    ColorBench §3.2's grayscale effect and App. J's text-only gap.

    Parameters
    ----------
    df : pandas.DataFrame
        Rows with ``keys``, ``item_id``, ``flag`` and ``correct``.
    keys : list of str
        Grouping columns.
    flag : str
        The boolean condition column (e.g. ``"grayscale"``, ``"text_only"``).
    what : str
        The caller, named in a missing-column error.

    Returns
    -------
    pandas.DataFrame
        ``keys..., pairs, acc_a, acc_b``: accuracy (0-1) with ``flag`` False and True, and the items answered
        under both.

    Raises
    ------
    ValueError
        A needed column (``item_id``, ``flag``, ``correct`` or a key) is missing; the message lists the frame's columns.
    """
    _need(df, [*keys, "item_id", flag, "correct"], what)
    v = _verdicts(df)
    v = v[v["_answered"] > 0].assign(_flag=v[flag].fillna(False).astype(bool))
    item_keys = [*keys, "item_id"]
    both = v.groupby(item_keys, observed=True, dropna=False)["_flag"].agg(["min", "max"]).reset_index()
    both = both[~both["min"].astype(bool) & both["max"].astype(bool)][item_keys]
    v = v.merge(both, on=item_keys, how="inner")
    rows = []
    groups = v.groupby(keys, observed=True, dropna=False, sort=True) if keys else [((), v)]
    for key, part in groups:
        key = key if isinstance(key, tuple) else (key,)
        a, b = part[~part["_flag"]], part[part["_flag"]]
        rows.append({**dict(zip(keys, key)), "pairs": int(part["item_id"].nunique()),
                     "acc_a": a["_right"].sum() / a["_answered"].sum() if len(a) else np.nan,
                     "acc_b": b["_right"].sum() / b["_answered"].sum() if len(b) else np.nan})
    return pd.DataFrame(rows, columns=[*keys, "pairs", "acc_a", "acc_b"])


def grayscale_effect(df: pd.DataFrame, by: str | Sequence[str] | None = ("model", "task")) -> pd.DataFrame:
    """ColorBench §3.2 (Fig. 5): ``effect = (acc_colour - acc_gray) / acc_colour`` per group, over items
    answered both in colour (``grayscale`` False) and in grayscale. Positive: colour helped; negative: colour
    misled; NaN when acc_colour is 0.

    Parameters
    ----------
    df : pandas.DataFrame
        Scene rows with ``task``, ``item_id``, ``grayscale`` and ``correct``.
    by : str, sequence of str or None
        Grouping columns (None: one group).

    Returns
    -------
    pandas.DataFrame
        ``by..., pairs, acc_colour, acc_gray, effect``.

    Raises
    ------
    ValueError
        A needed column (``task``, ``item_id``, ``grayscale``, ``correct``) is missing; the message lists the frame's columns.

    References
    ----------
    ColorBench (Liang et al.) §3.2, Fig. 5.
    """
    keys = _by(by)
    t = paired_accuracy(df, keys, "grayscale", "grayscale_effect").rename(columns={"acc_a": "acc_colour", "acc_b": "acc_gray"})
    return with_grayscale_effect(t)


def with_grayscale_effect(table: pd.DataFrame) -> pd.DataFrame:
    """A table of paired accuracies with ColorBench §3.2's grayscale effect added.

    Parameters
    ----------
    table : pandas.DataFrame
        With ``acc_colour`` and ``acc_gray`` (accuracies 0-1).

    Returns
    -------
    pandas.DataFrame
        ``table`` with ``effect = (acc_colour - acc_gray) / acc_colour``, NaN when acc_colour is 0.

    References
    ----------
    ColorBench (Liang et al.) §3.2.
    """
    colour, gray = table["acc_colour"].astype(float), table["acc_gray"].astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        effect = np.where(colour > 0, (colour - gray) / colour, np.nan)
    return table.assign(effect=effect)


def text_only_gap(df: pd.DataFrame, by: str | Sequence[str] | None = ("model", "task")) -> pd.DataFrame:
    """ColorBench App. J (Table 9): ``gap = acc_image - acc_text`` (accuracy units) per group, over items
    answered both with their image and text-only (``text_only`` True: a black image, sRGB 0-255 (0, 0, 0), of
    the same size).

    Parameters
    ----------
    df : pandas.DataFrame
        Scene rows with ``task``, ``item_id``, ``text_only`` and ``correct``.
    by : str, sequence of str or None
        Grouping columns (None: one group).

    Returns
    -------
    pandas.DataFrame
        ``by..., pairs, acc_image, acc_text, gap``.

    Raises
    ------
    ValueError
        A needed column (``task``, ``item_id``, ``text_only``, ``correct``) is missing; the message lists the frame's columns.

    References
    ----------
    ColorBench (Liang et al.) App. J, Table 9.
    """
    keys = _by(by)
    t = paired_accuracy(df, keys, "text_only", "text_only_gap").rename(columns={"acc_a": "acc_image", "acc_b": "acc_text"})
    return t.assign(gap=t["acc_image"] - t["acc_text"])


def accuracy_by(df: pd.DataFrame, param: str, by: str | Sequence[str] | None = ("model", "task"), *,
                bins: Sequence[float] | None = None, confidence: float = 0.95) -> pd.DataFrame:
    """Accuracy against a difficulty parameter: one row per group and value of ``param``, or per bin.

    Parameters
    ----------
    df : pandas.DataFrame
        Scene rows with ``task``, ``param`` and ``correct``.
    param : str
        The difficulty column (e.g. "min_delta_e" in ΔE2000, "n_colours", "clutter").
    by : str, sequence of str or None
        Grouping columns (None: one group).
    bins : sequence of float or None
        Bin edges (right-closed; each bin a pandas Interval), or None for one row per value.
    confidence : float
        Level of the Wilson intervals.

    Returns
    -------
    pandas.DataFrame
        ``by..., param, n, correct, accuracy, ci_low, ci_high, errors``.

    Raises
    ------
    ValueError
        A needed column (``task``, ``param``, ``correct``) is missing; the message lists the frame's columns.
    """
    keys = _by(by)
    if param in keys:
        raise ValueError(f"accuracy_by varies {param!r}: it cannot also be a 'by' column")
    _need(df, [*keys, param, "correct"], "accuracy_by")
    if bins is not None:
        edges = np.asarray(bins, dtype=float)
        if edges.ndim != 1 or len(edges) < 2 or np.any(np.diff(edges) <= 0):
            raise ValueError(f"bins={list(bins)!r} is not valid; allowed: two or more increasing edges")
        df = df.assign(**{param: pd.cut(df[param], edges)})
    return _table(df, [*keys, param], confidence)

