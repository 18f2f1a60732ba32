"""Metrics over a results DataFrame (the schema of ``plates.results.COLUMNS``).

* ``accuracy_table``: accuracy with Wilson intervals (``wilson_intervals``: scipy's closed form, vectorised)
  by any grouping (HueManity Tables 2 and 3 print 95% Wilson half-widths; Table 5's ± fit the Wald formula).
* ``yes_no_from_counts``: ColorBlindnessEval Table 1 / App. B.1-B.2: accuracy on the yes/no prompt that names
  the correct number (Y*/N, ``cbe-yn-correct``) next to the one that names a wrong number (Y/N*,
  ``cbe-yn-incorrect``), and which way a model leans, from per-prompt counts (`accuracy_table` of the rows).
* ``grayscale_delta``: ColorBench §3.2 (Finding 4), App. M.2: (Acc_ori - Acc_gray) / Acc_ori.
* ``cot_delta``: ColorBench Table 4: accuracy with the chain-of-thought prompt minus without.
* Every delta carries a 95% interval (``*_low`` / ``*_high``): differences by Newcombe's hybrid score
  (``newcombe_difference``), the grayscale ratio by MOVER-R (``mover_ratio``); both from Wilson intervals.

Psychometric fits (accuracy against CIEDE2000 with the task's chance rate and a lapse rate) live in
`plates.analysis.psychometric`; ColorBench's robustness (§2.3 eq. (1)-(2)) in `plates.analysis.colorbench`.

Rows whose request failed have a null ``correct``: every metric leaves them out of its denominators and counts
them in an ``errors`` column (never as wrong answers). Every metric is vectorised (a million rows in well
under a second) and accepts categorical (dictionary-encoded) string columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

# scipy.stats is imported where used: ~1 s of CPU that the apps' first pages never need (and scipy.special,
# ~0.2 s, is not needed: the Wilson z is the standard library's normal quantile)
from plates.validation import check_int

#: Columns that together identify one question asked of one model (an "item" under one condition).
ITEM_KEYS = (
    "dataset", "item_id", "model", "backend", "prompt_name", "variant", "size", "grayscale", "hue_shift", "cvd",
    "cvd_severity", "shots", "text_only",
)
#: The count columns of a pre-aggregated table (`accuracy_from_counts`, `yes_no_from_counts`): answered rows,
#: correct rows, failed requests.
COUNT_COLUMNS = ("n", "correct", "errors")
#: A frame of collapsed rows (the dashboard's DuckDB aggregations, `plates.dashboard.family_queries`) carries
#: how many result rows each of its rows stands for in this column; the family metrics (illusions, ColorBench,
#: people, psychometric fits) count each row that many times. Without it every row counts once.
WEIGHT = "weight"


def row_weights(df: pd.DataFrame) -> np.ndarray:
    """How many result rows each row of ``df`` stands for.

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows, or collapsed rows carrying a `WEIGHT` column.

    Returns
    -------
    numpy.ndarray
        int64, one per row: the `WEIGHT` column, else 1.

    Raises
    ------
    ValueError
        A weight below 1 or null: a collapsed row stands for at least one result row.
    """
    if WEIGHT not in df.columns:
        return np.ones(len(df), dtype=np.int64)
    weights = df[WEIGHT]
    if weights.isna().any() or (len(weights) and int(weights.min()) < 1):
        raise ValueError(f"column {WEIGHT!r} holds a null or a value below 1; allowed: whole numbers >= 1 "
                         "(the result rows each row stands for)")
    return weights.to_numpy(dtype=np.int64)


def wilson_interval(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for ``k`` successes out of ``n`` (one pair of `wilson_intervals`).

    Parameters
    ----------
    k, n : int
        Successes and trials, 0 <= k <= n.
    confidence : float, default 0.95
        Strictly between 0 and 1.

    Returns
    -------
    tuple of float
        ``(low, high)``, proportions 0-1; ``(nan, nan)`` for ``n == 0``: no data, no interval.

    Raises
    ------
    ValueError
        ``k`` or ``n`` not a non-negative integer (booleans refused), ``k > n``, or a confidence outside (0, 1).

    References
    ----------
    Wilson (1927), *J. Am. Stat. Assoc.* 22:209-212; Newcombe (1998), *Stat. Med.* 17:857-872 (method 3, and
    its example 81/263).

    Examples
    --------
    >>> [round(v, 4) for v in wilson_interval(81, 263)]
    [0.2553, 0.3662]
    >>> wilson_interval(0, 0)
    (nan, nan)
    """
    for name, value in (("k", k), ("n", n)):
        check_int(name, value, 0)
    low, high = wilson_intervals([k], [n], confidence)
    return (float(low[0]), float(high[0]))


def wilson_intervals(k: Any, n: Any, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score intervals for arrays of ``k`` successes out of ``n`` trials, element by element.

    The closed form of scipy's ``binomtest(k, n).proportion_ci(method="wilson")`` (the same operations in the
    same order, z the normal quantile of the standard library's ``statistics.NormalDist``, which agrees with
    scipy's ``special.ndtri`` to 2e-15; tests/analysis/test_metrics.py compares the two on many pairs), with
    ``low = 0`` at ``k = 0`` and ``high = 1`` at ``k = n`` exactly. HueManity Tables 2 and 3 report these 95% intervals.

    Parameters
    ----------
    k, n : array_like of int
        Successes and trials, one shape, 0 <= k <= n element by element.
    confidence : float, default 0.95
        Strictly between 0 and 1.

    Returns
    -------
    low, high : numpy.ndarray of float
        Proportions 0-1, NaN where ``n == 0``.

    Raises
    ------
    ValueError
        Shapes that differ, a value that is not a non-negative integer, ``k > n`` (the first such pair named),
        or a confidence outside (0, 1).

    References
    ----------
    Newcombe (1998), *Stat. Med.* 17:857-872, method 3.

    Examples
    --------
    >>> low, high = wilson_intervals([0, 81, 10], [10, 263, 10])
    >>> low.round(4).tolist(), high.round(4).tolist()
    ([0.0, 0.2553, 0.7225], [0.2775, 0.3662, 1.0])
    """
    k_raw, n_raw = np.atleast_1d(np.asarray(k)), np.atleast_1d(np.asarray(n))
    if k_raw.shape != n_raw.shape:
        raise ValueError(f"k and n differ in shape: {k_raw.shape} vs {n_raw.shape}")
    k_arr, n_arr = k_raw.astype(float), n_raw.astype(float)
    for name, raw, values in (("k", k_raw, k_arr), ("n", n_raw, n_arr)):
        bad = (values < 0) | (values != np.floor(values)) | ~np.isfinite(values) | (raw.dtype == bool)
        if bad.any():
            raise ValueError(f"{name} must be a non-negative integer, got {raw[bad][0].item()!r}")
    over = k_arr > n_arr
    if over.any():
        i = int(np.flatnonzero(over)[0])
        raise ValueError(f"k={k_raw[i].item()} successes exceed n={n_raw[i].item()} trials; need 0 <= k <= n")
    if not 0.0 < float(confidence) < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")
    z = NormalDist().inv_cdf(0.5 + 0.5 * float(confidence))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k_arr / n_arr
        denom = 2 * (n_arr + z**2)
        center = (2 * n_arr * p + z**2) / denom
        q = 1 - p
        delta = z / denom * np.sqrt(4 * n_arr * p * q + z**2)
    low = np.where(k_arr == 0, 0.0, center - delta)
    high = np.where(k_arr == n_arr, 1.0, center + delta)
    empty = n_arr == 0
    low[empty], high[empty] = np.nan, np.nan
    return low, high


# --- helpers ----------------------------------------------------------------------------------------------
# Every metric is a handful of whole-column operations: rows get an integer group code (`_grouping`), and
# per-group counts are `np.bincount`s of boolean masks. No Python loop runs over rows or seed items, so a
# million rows take well under a second. String columns may be pandas Categorical (dictionary-encoded, as
# pyarrow reads them): groups are the observed values only, and key columns come back as plain values.

def _as_list(by: str | Sequence[str] | None) -> list[str]:
    if by is None:
        return []
    if isinstance(by, str):
        return [by]
    return list(by)


def _check_columns(df: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    if not isinstance(df, pd.DataFrame):
        raise ValueError(f"{what} needs a pandas DataFrame in the results schema, got {type(df).__name__}")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(
            f"{what}: column(s) {', '.join(map(repr, missing))} not in the results; available: {', '.join(df.columns)}"
        )


def _ids(df: pd.DataFrame, columns: list[str], *, sort: bool = True) -> np.ndarray:
    """One integer code per row for its combination of ``columns`` (nulls are a value of their own;
    categoricals count observed values only). Sorted codes follow the sorted keys, nulls last."""
    if not columns:
        return np.zeros(len(df), dtype=np.int64)
    grouped = df.groupby(columns, dropna=False, sort=sort, observed=True)
    return grouped.ngroup().to_numpy(dtype=np.int64)


def _first_rows(codes: np.ndarray) -> np.ndarray:
    """Boolean mask of the first row of each code (a hash pass, no sort)."""
    return ~pd.Series(codes).duplicated().to_numpy()


def _grouping(df: pd.DataFrame, by: list[str]) -> tuple[np.ndarray, pd.DataFrame]:
    """(code per row, key frame with one row per group in sorted key order). Without ``by``: one group,
    the whole frame, even when it is empty."""
    codes = _ids(df, by)
    if not by:
        return codes, pd.DataFrame(index=range(1))
    first = np.flatnonzero(_first_rows(codes))
    keys = df[by].iloc[first[np.argsort(codes[first])]].reset_index(drop=True)
    for column in by:
        if isinstance(keys[column].dtype, pd.CategoricalDtype):
            values = keys[column].array
            plain = values.categories.dtype
            integers_with_nulls = values.isna().any() and plain.kind in "biu"
            keys[column] = values.to_numpy() if integers_with_nulls else values.astype(plain)
    return codes, keys


def _count(codes: np.ndarray, size: int, mask: np.ndarray) -> np.ndarray:
    """Rows per group (``size`` groups) where ``mask`` holds."""
    return np.bincount(codes[mask], minlength=size).astype(np.int64)


def _verdicts(correct: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(answered, right) boolean arrays of a ``correct`` column; null = failed request (never right)."""
    answered = correct.notna().to_numpy(dtype=bool)
    if correct.dtype == bool:
        return answered, correct.to_numpy()
    right = np.zeros(len(correct), dtype=bool)
    right[answered] = correct[answered].astype(bool).to_numpy(dtype=bool)
    return answered, right


def _equals(column: pd.Series, value: Any) -> np.ndarray:
    """``column == value`` as a plain boolean array (null: False)."""
    return column.eq(value).to_numpy(dtype=bool, na_value=False)


def _ratio(k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """k / n, NaN where n is 0."""
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    return np.divide(k, n, out=np.full(k.shape, np.nan), where=n > 0)


def _keys(df: pd.DataFrame, exclude: Sequence[str], by: Sequence[str]) -> list[str]:
    return [c for c in ITEM_KEYS if c in df.columns and c not in exclude and c not in by]


# --- accuracy ---------------------------------------------------------------------------------------------

def accuracy_table(
    df: pd.DataFrame, by: str | Sequence[str] | None = None, *, confidence: float = 0.95
) -> pd.DataFrame:
    """Accuracy with Wilson intervals per group of results rows.

    ``n`` counts answered rows (``correct`` not null); ``errors`` counts failed requests (``correct`` null).
    Intervals: `wilson_intervals` (as HueManity Tables 2 and 3 print them).

    Parameters
    ----------
    df : pandas.DataFrame
        Results rows (`plates.results.COLUMNS`): at least ``correct`` and the ``by`` columns.
    by : str or sequence of str, optional
        Grouping columns; None: one row for the whole frame.
    confidence : float, default 0.95

    Returns
    -------
    pandas.DataFrame
        Columns ``by..., n, correct, accuracy, ci_low, ci_high, errors``, one row per group, sorted by key.

    Raises
    ------
    ValueError
        A column missing from ``df``, named.

    Examples
    --------
    >>> rows = pd.DataFrame({"model": ["a", "a", "a", "b"], "correct": [True, False, None, True]})
    >>> accuracy_table(rows, "model")[["model", "n", "correct", "accuracy", "errors"]]
      model  n  correct  accuracy  errors
    0     a  2        1       0.5       1
    1     b  1        1       1.0       0
    """
    by = _as_list(by)
    _check_columns(df, [*by, "correct"], "accuracy_table")
    codes, table = _grouping(df, by)
    answered, right = _verdicts(df["correct"])
    n, k = _count(codes, len(table), answered), _count(codes, len(table), right)
    low, high = wilson_intervals(k, n, confidence)
    table = table.assign(n=n, correct=k, accuracy=_ratio(k, n), ci_low=low, ci_high=high,
                         errors=_count(codes, len(table), ~answered))
    return table[[*by, "n", "correct", "accuracy", "ci_low", "ci_high", "errors"]]


def accuracy_from_counts(
    counts: pd.DataFrame, by: str | Sequence[str] | None = None, *, confidence: float = 0.95
) -> pd.DataFrame:
    """`accuracy_table` of pre-aggregated counts, summed per ``by`` group.

    Parameters
    ----------
    counts : pandas.DataFrame
        ``by`` columns and `COUNT_COLUMNS` (answered ``n``, ``correct``, failed ``errors``) per finer group
        (e.g. DuckDB's over millions of rows).
    by : str, sequence of str or None
        Grouping columns (None: one group).
    confidence : float
        Level of the Wilson intervals.

    Returns
    -------
    pandas.DataFrame
        Same columns and order as `accuracy_table` of the rows the counts stand for: ``by..., n, correct,
        accuracy, ci_low, ci_high, errors`` (accuracy a proportion 0-1).

    Raises
    ------
    ValueError
        A needed column is missing; the message lists the frame's columns.

    References
    ----------
    Wilson (1927), *J. Am. Stat. Assoc.* 22(158): 209-212.

    Examples
    --------
    >>> import pandas as pd
    >>> counts = pd.DataFrame({"model": ["m", "m"], "n": [10, 20], "correct": [5, 15], "errors": [0, 1]})
    >>> accuracy_from_counts(counts, "model")[["n", "correct", "errors"]].iloc[0].tolist()
    [30, 20, 1]
    """
    by = _as_list(by)
    _check_columns(counts, [*by, *COUNT_COLUMNS], "accuracy_from_counts")
    codes, table = _grouping(counts, by)
    size = len(table)
    n, k, e = (np.bincount(codes, weights=counts[c].to_numpy(float), minlength=size).astype(np.int64)
               for c in COUNT_COLUMNS)
    low, high = wilson_intervals(k, n, confidence)
    table = table.assign(n=n, correct=k, accuracy=_ratio(k, n), ci_low=low, ci_high=high, errors=e)
    return table[[*by, "n", "correct", "accuracy", "ci_low", "ci_high", "errors"]]


def newcombe_difference(k1: Any, n1: Any, k2: Any, n2: Any, confidence: float = 0.95
                        ) -> tuple[np.ndarray, np.ndarray]:
    """95% interval of ``k1/n1 - k2/n2`` (arrays, element by element): Newcombe's hybrid score interval from
    the two Wilson intervals (Newcombe 1998, Stat. Med. 17:873, method 10). The two proportions are taken as
    independent: for the same items answered twice (paired) it is conservative, never too narrow when the
    answers agree more often than chance. NaN where either side has no answers.

    Parameters
    ----------
    k1, n1, k2, n2 : array_like
        Correct answers and answers of each side.
    confidence : float, optional
        The interval's level.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Lower and upper bounds.

    Examples
    --------
    >>> [round(float(v[0]), 4) for v in newcombe_difference(56, 70, 48, 80)]  # Newcombe 1998 Table II, (a)
    [0.0524, 0.3339]
    """
    k1, n1, k2, n2 = np.broadcast_arrays(*(np.atleast_1d(np.asarray(v, dtype=float)) for v in (k1, n1, k2, n2)))
    l1, u1 = wilson_intervals(k1.astype(np.int64), n1.astype(np.int64), confidence)
    l2, u2 = wilson_intervals(k2.astype(np.int64), n2.astype(np.int64), confidence)
    p1, p2 = _ratio(k1, n1), _ratio(k2, n2)
    d = p1 - p2
    return d - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)


def effect_vs_first(table: pd.DataFrame, by: Sequence[str], along: str) -> pd.DataFrame:
    """Per group, the accuracy at each value of ``along`` minus at its smallest value, with Newcombe's 95%
    interval (HueManity §5.4's resolution effect: each size against the smallest).

    Parameters
    ----------
    table : pandas.DataFrame
        An accuracy table with ``by`` columns, ``along``, ``n`` and ``correct`` (e.g. `accuracy_from_counts`).
    by : sequence of str
        Grouping columns.
    along : str
        The column compared against its smallest value (e.g. ``"size"``, px).

    Returns
    -------
    pandas.DataFrame
        ``table`` sorted by ``[*by, along]`` with ``vs`` (the smallest value), ``delta``, ``delta_low``,
        ``delta_high`` (accuracy units; NaN on the smallest value's own row). The values' answers are counted
        as independent (`newcombe_difference`).

    Raises
    ------
    ValueError
        A needed column is missing; the message lists the frame's columns.

    References
    ----------
    HueManity §5.4; Newcombe (1998), *Stat. Med.* 17: 873-890, method 10.
    """
    _check_columns(table, [*by, along, "n", "correct"], "effect_vs_first")
    out = table.sort_values([*by, along], kind="stable").reset_index(drop=True)
    first = out.groupby(list(by), dropna=False, sort=False)[[along, "n", "correct"]].transform("first")
    low, high = newcombe_difference(out["correct"], out["n"], first["correct"], first["n"])
    delta = _ratio(out["correct"], out["n"]) - _ratio(first["correct"], first["n"])
    itself = (out[along] == first[along]).to_numpy(bool)  # the smallest value against itself: no effect to show
    return out.assign(vs=first[along], delta=np.where(itself, np.nan, delta),
                      delta_low=np.where(itself, np.nan, low), delta_high=np.where(itself, np.nan, high))


def mover_ratio(k1: Any, n1: Any, k2: Any, n2: Any, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """95% interval of ``(k1/n1) / (k2/n2)`` (arrays): MOVER-R from the two Wilson intervals (Donner & Zou
    2012, Stat. Methods Med. Res. 21:347, eq. 6), the two proportions independent (conservative when paired).
    The upper bound is ``inf`` where the denominator's lower Wilson bound is 0; NaN where ``k2`` is 0.

    Parameters
    ----------
    k1, n1, k2, n2 : array_like
        Correct answers and answers of each side.
    confidence : float, optional
        The interval's level.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Lower and upper bounds.

    Examples
    --------
    >>> [round(float(v[0]), 3) for v in mover_ratio(40, 50, 40, 50)]  # equal sides: bounds reciprocal
    [0.814, 1.228]
    """
    k1, n1, k2, n2 = np.broadcast_arrays(*(np.atleast_1d(np.asarray(v, dtype=float)) for v in (k1, n1, k2, n2)))
    l1, u1 = wilson_intervals(k1.astype(np.int64), n1.astype(np.int64), confidence)
    l2, u2 = wilson_intervals(k2.astype(np.int64), n2.astype(np.int64), confidence)
    p1, p2 = _ratio(k1, n1), _ratio(k2, n2)
    with np.errstate(invalid="ignore", divide="ignore"):
        low = (p1 * p2 - np.sqrt(np.maximum((p1 * p2) ** 2 - l1 * u2 * (2 * p1 - l1) * (2 * p2 - u2), 0.0))) / (
            u2 * (2 * p2 - u2))
        high = (p1 * p2 + np.sqrt(np.maximum((p1 * p2) ** 2 - u1 * l2 * (2 * p1 - u1) * (2 * p2 - l2), 0.0))) / (
            l2 * (2 * p2 - l2))
    high = np.where(l2 > 0, high, np.inf)
    bad = ~(p2 > 0)
    return np.where(bad, np.nan, np.maximum(low, 0.0)), np.where(bad, np.nan, high)


def yes_no_from_counts(
    counts: pd.DataFrame,
    by: str | Sequence[str] | None = "model",
    *,
    yes_prompt: str = "cbe-yn-correct",
    no_prompt: str = "cbe-yn-incorrect",
    alpha: float = 0.05,
) -> pd.DataFrame:
    """ColorBlindnessEval Table 1: accuracy on ``Y*/N`` ("yes" expected) and ``Y/N*`` ("no" expected) side by
    side, per group, from pre-aggregated counts.

    Parameters
    ----------
    counts : pandas.DataFrame
        ``by`` columns, ``prompt_name`` and `COUNT_COLUMNS` (e.g. `accuracy_table` of the rows by
        ``[*by, "prompt_name"]``).
    by : str, sequence of str or None
        Grouping columns (None: one group).
    yes_prompt : str
        The prompt whose right answer is "yes".
    no_prompt : str
        The prompt whose right answer is "no".
    alpha : float
        Significance level of ``lean``.

    Returns
    -------
    pandas.DataFrame
        ``by..., n_y_star, y_star_n, n_n_star, y_n_star, balanced_accuracy, yes_bias, yes_bias_low,
        yes_bias_high, bias_p, lean, errors``. ``yes_bias = y_star_n - y_n_star`` lies in [-1, 1]: +1 answers
        "yes" to everything, -1 "no" to everything (Claude3-Haiku in Table 1: 0.008 vs 0.998), with Newcombe's
        interval. ``bias_p`` is Fisher's exact test of the two accuracies; ``lean`` is "yes"/"no" when
        ``bias_p < alpha``, else "balanced" (CBE §4.1: "balanced performance across both ``Y*/N`` and ``Y/N*``
        indicates better overall capability"), "unknown" without answers on both sides.

    Raises
    ------
    ValueError
        A needed column is missing; the message lists the frame's columns.

    References
    ----------
    ColorBlindnessEval §4.1, Table 1.
    """
    by = _as_list(by)
    _check_columns(counts, [*by, "prompt_name", *COUNT_COLUMNS], "yes_no_from_counts")
    sub = counts[counts["prompt_name"].isin([yes_prompt, no_prompt]).to_numpy(dtype=bool)]
    codes, table = _grouping(sub, by)
    is_yes = _equals(sub["prompt_name"], yes_prompt)
    size = len(table)

    def total(column: str, mask: np.ndarray) -> np.ndarray:
        values = np.where(mask, sub[column].to_numpy(float), 0.0)
        return np.bincount(codes, weights=values, minlength=size).astype(np.int64)

    everything = np.ones(len(sub), dtype=bool)
    return _yes_no(table, by, total("n", is_yes), total("correct", is_yes), total("n", ~is_yes),
                   total("correct", ~is_yes), total("errors", everything), alpha)


def _yes_no(table: pd.DataFrame, by: list[str], n_y: np.ndarray, k_y: np.ndarray, n_n: np.ndarray,
            k_n: np.ndarray, errors: np.ndarray, alpha: float) -> pd.DataFrame:
    """The yes/no balance columns from per-group counts."""
    size = len(table)
    acc_y, acc_n = _ratio(k_y, n_y), _ratio(k_n, n_n)
    bias_p, lean = np.full(size, np.nan), np.full(size, "unknown", dtype=object)
    tests: dict[tuple[int, int, int, int], float] = {}  # one Fisher test per distinct 2x2 table (per group)
    for i in np.flatnonzero((n_y > 0) & (n_n > 0)):
        counts = (int(k_y[i]), int(n_y[i] - k_y[i]), int(k_n[i]), int(n_n[i] - k_n[i]))
        if counts not in tests:
            from scipy import stats  # lazy: see the module imports
            tests[counts] = float(stats.fisher_exact([counts[:2], counts[2:]]).pvalue)
        bias_p[i] = tests[counts]
        lean[i] = "balanced" if bias_p[i] >= alpha else ("yes" if acc_y[i] > acc_n[i] else "no")
    bias_low, bias_high = newcombe_difference(k_y, n_y, k_n, n_n)
    table = table.assign(n_y_star=n_y, y_star_n=acc_y, n_n_star=n_n, y_n_star=acc_n,
                         balanced_accuracy=(acc_y + acc_n) / 2, yes_bias=acc_y - acc_n, yes_bias_low=bias_low,
                         yes_bias_high=bias_high, bias_p=bias_p, lean=lean, errors=errors)
    return table[[*by, "n_y_star", "y_star_n", "n_n_star", "y_n_star", "balanced_accuracy", "yes_bias",
                  "yes_bias_low", "yes_bias_high", "bias_p", "lean", "errors"]]


def _paired_delta(df: pd.DataFrame, by: list[str], split: np.ndarray, keys: list[str]) -> pd.DataFrame:
    """Per group: ``by..., n_a, k_a, n_b, k_b, pairs, errors`` where answered rows of side A (``split`` True)
    and side B count only for item keys answered on both sides (a paired comparison); ``pairs`` is the
    number of such item keys (without item keys: the smaller side's count)."""
    keys = list(dict.fromkeys([*by, *keys]))  # a pair never crosses groups (e.g. two models)
    codes, table = _grouping(df, by)
    answered, right = _verdicts(df["correct"])
    size = len(table)
    paired = answered
    if keys:
        item = _ids(df, keys, sort=False)
        items = int(item.max()) + 1 if len(item) else 0
        both = (_count(item, items, answered & split) > 0) & (_count(item, items, answered & ~split) > 0)
        paired = answered & both[item]
    side_a, side_b = paired & split, paired & ~split
    n_a, n_b = _count(codes, size, side_a), _count(codes, size, side_b)
    pairs = _count(codes, size, _first_rows(item) & both[item]) if keys else np.minimum(n_a, n_b)
    return table.assign(n_a=n_a, k_a=_count(codes, size, side_a & right), n_b=n_b,
                        k_b=_count(codes, size, side_b & right), pairs=pairs,
                        errors=_count(codes, size, ~answered))


def grayscale_delta(df: pd.DataFrame, by: str | Sequence[str] | None = "model") -> pd.DataFrame:
    """ColorBench §3.2 Finding 4 (App. M.2): ``delta = (acc_ori - acc_gray) / acc_ori`` per group.

    Original rows have ``grayscale`` False (or null), grayscale rows True. Rows are paired by condition: only
    items answered both in colour and in grayscale under otherwise equal conditions (``ITEM_KEYS`` but
    ``grayscale``) count. Positive: colour helped; negative: colour misled.

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows with ``by`` columns, ``grayscale`` and ``correct``.
    by : str, sequence of str or None
        Grouping columns (None: one group).

    Returns
    -------
    pandas.DataFrame
        ``by..., pairs, acc_ori, acc_gray, delta, delta_low, delta_high, errors`` (`grayscale_from_pairs`);
        ``delta`` NaN when ``acc_ori`` is 0.

    Raises
    ------
    ValueError
        ``"grayscale"`` among ``by``, or a needed column missing.

    References
    ----------
    ColorBench (Liang et al.) §3.2 Finding 4, App. M.2; Donner and Zou (2012), *Stat. Methods Med. Res.*
    21: 347-359 (the interval, MOVER-R).
    """
    by = _as_list(by)
    if "grayscale" in by:
        raise ValueError("grayscale_delta compares grayscale with colour: 'grayscale' cannot be a 'by' column")
    _check_columns(df, [*by, "grayscale", "correct"], "grayscale_delta")
    keys = _keys(df, ["grayscale"], by)
    narrow = df[list(dict.fromkeys([*by, *keys, "grayscale", "correct"]))]
    table = _paired_delta(narrow, by, ~_equals(narrow["grayscale"], True), keys)  # split True: colour image
    return grayscale_from_pairs(table, by)


#: The columns of a paired count table (`_paired_delta`, or DuckDB's): side A answered / correct, side B
#: answered / correct (only items answered on both sides), paired items, failed requests.
PAIR_COLUMNS = ("n_a", "k_a", "n_b", "k_b", "pairs", "errors")


def grayscale_from_pairs(pairs: pd.DataFrame, by: str | Sequence[str] | None = "model") -> pd.DataFrame:
    """`grayscale_delta` from a paired count table, e.g. DuckDB's over millions of rows.

    Parameters
    ----------
    pairs : pandas.DataFrame
        ``by`` columns and `PAIR_COLUMNS`; side A: colour, side B: grayscale.
    by : str, sequence of str or None
        Grouping columns (None: one group).

    Returns
    -------
    pandas.DataFrame
        ``by..., pairs, acc_ori, acc_gray, delta, delta_low, delta_high, errors``; the interval is 1 minus
        MOVER-R's of ``acc_gray / acc_ori``.

    Raises
    ------
    ValueError
        A needed column is missing; the message lists the frame's columns.
    """
    by = _as_list(by)
    _check_columns(pairs, [*by, *PAIR_COLUMNS], "grayscale_from_pairs")
    acc_o, acc_g = _ratio(pairs["k_a"], pairs["n_a"]), _ratio(pairs["k_b"], pairs["n_b"])
    with np.errstate(invalid="ignore", divide="ignore"):
        delta = np.where(acc_o > 0, (acc_o - acc_g) / acc_o, np.nan)
    # delta = 1 - Acc_gray / Acc_ori: its interval is 1 minus the ratio's (MOVER-R), reversed
    r_low, r_high = mover_ratio(pairs["k_b"], pairs["n_b"], pairs["k_a"], pairs["n_a"])
    table = pairs.assign(acc_ori=acc_o, acc_gray=acc_g, delta=delta, delta_low=1.0 - r_high, delta_high=1.0 - r_low)
    return table[[*by, "pairs", "acc_ori", "acc_gray", "delta", "delta_low", "delta_high", "errors"]].reset_index(
        drop=True)


def cot_from_pairs(pairs: pd.DataFrame, by: str | Sequence[str] | None = "model", *, prompt: str,
                   cot_prompt: str) -> pd.DataFrame:
    """`cot_delta`'s rows for one prompt pair from a paired count table.

    Parameters
    ----------
    pairs : pandas.DataFrame
        ``by`` columns and `PAIR_COLUMNS`; side A: ``cot_prompt``, side B: ``prompt``.
    by : str, sequence of str or None
        Grouping columns (None: one group).
    prompt : str
        The plain prompt's name.
    cot_prompt : str
        The chain-of-thought prompt's name.

    Returns
    -------
    pandas.DataFrame
        ``by..., prompt, cot_prompt, pairs, acc_plain, acc_cot, delta, delta_low, delta_high, errors``.

    Raises
    ------
    ValueError
        A needed column is missing; the message lists the frame's columns.
    """
    by = _as_list(by)
    _check_columns(pairs, [*by, *PAIR_COLUMNS], "cot_from_pairs")
    acc_c, acc_p = _ratio(pairs["k_a"], pairs["n_a"]), _ratio(pairs["k_b"], pairs["n_b"])
    low, high = newcombe_difference(pairs["k_a"], pairs["n_a"], pairs["k_b"], pairs["n_b"])
    table = pairs.assign(prompt=prompt, cot_prompt=cot_prompt, acc_plain=acc_p, acc_cot=acc_c, delta=acc_c - acc_p,
                         delta_low=low, delta_high=high)
    return table[[*by, "prompt", "cot_prompt", "pairs", "acc_plain", "acc_cot", "delta", "delta_low", "delta_high",
                  "errors"]].reset_index(drop=True)


def cot_pairs() -> dict[str, str]:
    """Registered chain-of-thought prompts and their plain counterparts.

    Returns
    -------
    dict of str to str
        CoT prompt name -> plain prompt name, for every registered ``*-cot`` prompt whose plain form is
        registered too.

    Examples
    --------
    >>> cot_pairs()["colorbench-mc-cot"]
    'colorbench-mc'
    """
    from plates.tasks.prompts import PROMPTS  # the task registry (renderers, fonts): loaded where used

    plain = {n: n.removesuffix("-cot") for n, t in PROMPTS.items() if t.cot and n.endswith("-cot")}
    return {cot: base for cot, base in plain.items() if base in PROMPTS}


def cot_delta(
    df: pd.DataFrame, by: str | Sequence[str] | None = "model", *, pairs: dict[str, str] | None = None
) -> pd.DataFrame:
    """ColorBench Table 4: ``delta = acc_cot - acc_plain`` (accuracy units; x100 for percentage points).

    Rows are paired by item and condition: only items answered under both prompts count.

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows with ``by`` columns, ``prompt_name`` and ``correct``.
    by : str, sequence of str or None
        Grouping columns (None: one group).
    pairs : dict of str to str or None
        CoT prompt name -> its plain prompt (default `cot_pairs`).

    Returns
    -------
    pandas.DataFrame
        One row per group and prompt pair: ``by..., prompt, cot_prompt, pairs, acc_plain, acc_cot, delta,
        delta_low, delta_high, errors``.

    Raises
    ------
    ValueError
        ``"prompt_name"`` among ``by``, or a needed column missing.

    References
    ----------
    ColorBench (Liang et al.) Table 4; Newcombe (1998), *Stat. Med.* 17: 873-890 (the interval).
    """
    by = _as_list(by)
    if "prompt_name" in by:
        raise ValueError("cot_delta compares prompts: 'prompt_name' cannot be a 'by' column")
    _check_columns(df, [*by, "prompt_name", "correct"], "cot_delta")
    pairs = cot_pairs() if pairs is None else dict(pairs)
    columns = [*by, "prompt", "cot_prompt", "pairs", "acc_plain", "acc_cot", "delta", "delta_low", "delta_high",
               "errors"]
    keys = _keys(df, ["prompt_name"], by)
    narrow = df[list(dict.fromkeys([*by, *keys, "prompt_name", "correct"]))]
    tables = []
    for cot_name, plain_name in pairs.items():  # a few prompt pairs, each one vectorised pass
        keep = narrow["prompt_name"].isin([cot_name, plain_name]).to_numpy(dtype=bool)
        if not keep.any():
            continue
        sub = narrow[keep]
        table = _paired_delta(sub, by, _equals(sub["prompt_name"], cot_name), keys)
        tables.append(cot_from_pairs(table, by, prompt=plain_name, cot_prompt=cot_name))
    if not tables:
        return pd.DataFrame(columns=columns)
    return pd.concat(tables, ignore_index=True)
