"""Metrics over a results DataFrame (the schema of ``plates.results.COLUMNS``).

* ``accuracy_table``: accuracy with Wilson intervals (``wilson_intervals``: scipy's closed form, vectorised)
  by any grouping (HueManity Tables 2 and 3 print 95% Wilson half-widths; Table 5's ± fit the Wald formula).
* ``yes_no_balance``: ColorBlindnessEval Table 1 / App. B.1-B.2: accuracy on the yes/no prompt that names the
  correct number (Y*/N, ``cbe-yn-correct``) next to the one that names a wrong number (Y/N*,
  ``cbe-yn-incorrect``), and which way a model leans.
* ``grayscale_delta``: ColorBench §3.2 (Finding 4), App. M.2: (Acc_ori - Acc_gray) / Acc_ori.
* ``cot_delta``: ColorBench Table 4: accuracy with the chain-of-thought prompt minus without.
* ``robustness``: ColorBench §2.3 eq. (1)-(2): the share of seed items whose original and every recoloured
  (hue-shifted) variant are answered correctly.
* ``fit_psychometric`` / ``psychometric_table``: accuracy against CIEDE2000 difference with a logistic curve
  fitted by maximum likelihood; the threshold is the ΔE2000 at 50% correct.

Rows whose request failed have a null ``correct``: every metric leaves them out of its denominators and counts
them in an ``errors`` column (never as wrong answers). Every metric is vectorised (a million rows in well
under a second) and accepts categorical (dictionary-encoded) string columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np
import pandas as pd
from scipy import optimize, special, stats

#: Columns that together identify one question asked of one model (an "item" under one condition).
ITEM_KEYS = (
    "dataset", "item_id", "model", "backend", "prompt_name", "variant", "size", "grayscale", "hue_shift", "cvd",
    "cvd_severity", "shots", "text_only",
)
#: The count columns of a pre-aggregated table (`accuracy_from_counts`, `yes_no_from_counts`): answered rows,
#: correct rows, failed requests.
COUNT_COLUMNS = ("n", "correct", "errors")


def wilson_interval(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for ``k`` successes out of ``n`` (one pair of `wilson_intervals`).

    ``n == 0`` gives ``(nan, nan)``: no data, no interval.
    """
    for name, value in (("k", k), ("n", n)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    low, high = wilson_intervals([k], [n], confidence)
    return (float(low[0]), float(high[0]))


def wilson_intervals(k: Any, n: Any, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score intervals for arrays of ``k`` successes out of ``n`` trials, element by element.

    The closed form of scipy's ``binomtest(k, n).proportion_ci(method="wilson")`` (Newcombe 1998, the same
    operations in the same order; tests/analysis/test_metrics.py compares the two on many pairs), with ``low = 0`` at
    ``k = 0`` and ``high = 1`` at ``k = n`` exactly; ``n == 0`` gives NaN for both. HueManity Tables 2 and 3
    report these 95% intervals.
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
    z = special.ndtri(0.5 + 0.5 * float(confidence))
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
    """Columns ``by..., n, correct, accuracy, ci_low, ci_high, errors``, one row per group (sorted by key).

    ``n`` counts answered rows (``correct`` not null); ``errors`` counts failed requests (``correct`` null).
    Intervals: `wilson_intervals` (as HueManity Tables 2 and 3 print them).
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
    """`accuracy_table` of pre-aggregated counts: ``counts`` holds ``by`` columns and `COUNT_COLUMNS` (answered
    ``n``, ``correct``, failed ``errors``) per finer group (e.g. DuckDB's over millions of rows); they are
    summed per ``by`` group. Same columns and order as `accuracy_table` of the rows the counts stand for."""
    by = _as_list(by)
    _check_columns(counts, [*by, *COUNT_COLUMNS], "accuracy_from_counts")
    codes, table = _grouping(counts, by)
    size = len(table)
    n, k, e = (np.bincount(codes, weights=counts[c].to_numpy(float), minlength=size).astype(np.int64)
               for c in COUNT_COLUMNS)
    low, high = wilson_intervals(k, n, confidence)
    table = table.assign(n=n, correct=k, accuracy=_ratio(k, n), ci_low=low, ci_high=high, errors=e)
    return table[[*by, "n", "correct", "accuracy", "ci_low", "ci_high", "errors"]]


def yes_no_balance(
    df: pd.DataFrame,
    by: str | Sequence[str] | None = "model",
    *,
    yes_prompt: str = "cbe-yn-correct",
    no_prompt: str = "cbe-yn-incorrect",
    alpha: float = 0.05,
) -> pd.DataFrame:
    """ColorBlindnessEval Table 1: accuracy on Y*/N (``yes_prompt``: "yes" expected) and Y/N* (``no_prompt``:
    "no" expected) side by side, per group.

    Columns: ``by..., n_y_star, y_star_n, n_n_star, y_n_star, balanced_accuracy, yes_bias, bias_p, lean,
    errors``. ``yes_bias = y_star_n - y_n_star`` lies in [-1, 1]: +1 answers "yes" to everything, -1 "no" to
    everything (Claude3-Haiku in Table 1: 0.008 vs 0.998). ``bias_p`` is Fisher's exact test of the two
    accuracies; ``lean`` is "yes"/"no" when ``bias_p < alpha``, else "balanced" (CBE §4.1: "balanced
    performance across both Y*/N and Y/N* indicates better overall capability").
    """
    by = _as_list(by)
    _check_columns(df, [*by, "prompt_name", "correct"], "yes_no_balance")
    keep = df["prompt_name"].isin([yes_prompt, no_prompt]).to_numpy(dtype=bool)
    sub = df.loc[keep, list(dict.fromkeys([*by, "prompt_name", "correct"]))]
    codes, table = _grouping(sub, by)
    answered, right = _verdicts(sub["correct"])
    is_yes = _equals(sub["prompt_name"], yes_prompt)
    size = len(table)
    return _yes_no(table, by, _count(codes, size, answered & is_yes), _count(codes, size, right & is_yes),
                   _count(codes, size, answered & ~is_yes), _count(codes, size, right & ~is_yes),
                   _count(codes, size, ~answered), alpha)


def yes_no_from_counts(
    counts: pd.DataFrame,
    by: str | Sequence[str] | None = "model",
    *,
    yes_prompt: str = "cbe-yn-correct",
    no_prompt: str = "cbe-yn-incorrect",
    alpha: float = 0.05,
) -> pd.DataFrame:
    """`yes_no_balance` of pre-aggregated counts (``by`` columns, ``prompt_name`` and `COUNT_COLUMNS`)."""
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
    """The yes/no balance columns from per-group counts (shared by the row and count versions)."""
    size = len(table)
    acc_y, acc_n = _ratio(k_y, n_y), _ratio(k_n, n_n)
    bias_p, lean = np.full(size, np.nan), np.full(size, "unknown", dtype=object)
    tests: dict[tuple[int, int, int, int], float] = {}  # one Fisher test per distinct 2x2 table (per group)
    for i in np.flatnonzero((n_y > 0) & (n_n > 0)):
        counts = (int(k_y[i]), int(n_y[i] - k_y[i]), int(k_n[i]), int(n_n[i] - k_n[i]))
        if counts not in tests:
            tests[counts] = float(stats.fisher_exact([counts[:2], counts[2:]]).pvalue)
        bias_p[i] = tests[counts]
        lean[i] = "balanced" if bias_p[i] >= alpha else ("yes" if acc_y[i] > acc_n[i] else "no")
    table = table.assign(n_y_star=n_y, y_star_n=acc_y, n_n_star=n_n, y_n_star=acc_n,
                         balanced_accuracy=(acc_y + acc_n) / 2, yes_bias=acc_y - acc_n, bias_p=bias_p,
                         lean=lean, errors=errors)
    return table[[*by, "n_y_star", "y_star_n", "n_n_star", "y_n_star", "balanced_accuracy", "yes_bias",
                  "bias_p", "lean", "errors"]]


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
    ``grayscale``) count. Positive: colour helped; negative: colour misled. NaN when ``acc_ori`` is 0.
    Columns: ``by..., pairs, acc_ori, acc_gray, delta, errors``.
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
    """`grayscale_delta` from a paired count table (``by`` columns and `PAIR_COLUMNS`; side A: colour, side
    B: grayscale), e.g. DuckDB's over millions of rows."""
    by = _as_list(by)
    _check_columns(pairs, [*by, *PAIR_COLUMNS], "grayscale_from_pairs")
    acc_o, acc_g = _ratio(pairs["k_a"], pairs["n_a"]), _ratio(pairs["k_b"], pairs["n_b"])
    with np.errstate(invalid="ignore", divide="ignore"):
        delta = np.where(acc_o > 0, (acc_o - acc_g) / acc_o, np.nan)
    table = pairs.assign(acc_ori=acc_o, acc_gray=acc_g, delta=delta)
    return table[[*by, "pairs", "acc_ori", "acc_gray", "delta", "errors"]].reset_index(drop=True)


def cot_from_pairs(pairs: pd.DataFrame, by: str | Sequence[str] | None = "model", *, prompt: str,
                   cot_prompt: str) -> pd.DataFrame:
    """`cot_delta`'s rows for one prompt pair from a paired count table (side A: ``cot_prompt``, side B:
    ``prompt``)."""
    by = _as_list(by)
    _check_columns(pairs, [*by, *PAIR_COLUMNS], "cot_from_pairs")
    acc_c, acc_p = _ratio(pairs["k_a"], pairs["n_a"]), _ratio(pairs["k_b"], pairs["n_b"])
    table = pairs.assign(prompt=prompt, cot_prompt=cot_prompt, acc_plain=acc_p, acc_cot=acc_c, delta=acc_c - acc_p)
    return table[[*by, "prompt", "cot_prompt", "pairs", "acc_plain", "acc_cot", "delta", "errors"]].reset_index(
        drop=True)


def cot_pairs() -> dict[str, str]:
    """Registered chain-of-thought prompts -> their plain counterparts ("colorbench-mc-cot" -> "colorbench-mc")."""
    from plates.tasks.prompts import PROMPTS

    plain = {n: n.removesuffix("-cot") for n, t in PROMPTS.items() if t.cot and n.endswith("-cot")}
    return {cot: base for cot, base in plain.items() if base in PROMPTS}


def cot_delta(
    df: pd.DataFrame, by: str | Sequence[str] | None = "model", *, pairs: dict[str, str] | None = None
) -> pd.DataFrame:
    """ColorBench Table 4: ``delta = acc_cot - acc_plain`` (accuracy units; x100 for percentage points).

    ``pairs`` maps a CoT prompt name to its plain prompt (default ``cot_pairs()``). Rows are paired by item
    and condition: only items answered under both prompts count. One row per group and prompt pair.
    Columns: ``by..., prompt, cot_prompt, pairs, acc_plain, acc_cot, delta, errors``.
    """
    by = _as_list(by)
    if "prompt_name" in by:
        raise ValueError("cot_delta compares prompts: 'prompt_name' cannot be a 'by' column")
    _check_columns(df, [*by, "prompt_name", "correct"], "cot_delta")
    pairs = cot_pairs() if pairs is None else dict(pairs)
    columns = [*by, "prompt", "cot_prompt", "pairs", "acc_plain", "acc_cot", "delta", "errors"]
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


def robustness(
    df: pd.DataFrame,
    by: str | Sequence[str] | None = "model",
    *,
    vary: str = "hue_shift",
    original: Any = 0.0,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """ColorBench §2.3, eq. (1)-(2): ``robustness`` = share of seed items answered correctly on the original
    (``vary == original``; default hue shift 0°) AND on every recoloured variant (any other value).

    A seed item is one ``ITEM_KEYS`` combination but ``vary``. Items without an original or without any
    variant, or with a failed request among them, cannot be judged: they are counted in ``incomplete`` and
    left out. Columns: ``by..., items, robust, robustness, ci_low, ci_high, incomplete`` (Wilson over items).
    """
    by = _as_list(by)
    if vary in by:
        raise ValueError(f"robustness varies {vary!r}: it cannot also be a 'by' column")
    _check_columns(df, [*by, vary, "correct"], "robustness")
    keys = [*by, *_keys(df, [vary], by)]
    codes, table = _grouping(df, by)
    answered, right = _verdicts(df["correct"])
    is_original = _equals(df[vary], original)
    seed = _ids(df, keys, sort=False)
    seeds = int(seed.max()) + 1 if len(seed) else 0
    rows, originals = _count(seed, seeds, np.ones(len(seed), dtype=bool)), _count(seed, seeds, is_original)
    complete = (originals > 0) & (originals < rows) & (_count(seed, seeds, ~answered) == 0)
    robust_seed = complete & (_count(seed, seeds, ~right) == 0)
    first = _first_rows(seed)  # each seed counted once, in its group (seed keys include ``by``)
    size = len(table)
    items = _count(codes, size, first & complete[seed])
    robust = _count(codes, size, first & robust_seed[seed])
    low, high = wilson_intervals(robust, items, confidence)
    table = table.assign(items=items, robust=robust, robustness=_ratio(robust, items), ci_low=low,
                         ci_high=high, incomplete=_count(codes, size, first & ~complete[seed]))
    return table[[*by, "items", "robust", "robustness", "ci_low", "ci_high", "incomplete"]]


# --- psychometric fit -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PsychometricFit:
    """A logistic psychometric function ``p(x) = 1 / (1 + exp(-slope * (x - threshold)))`` over CIEDE2000
    difference ``x``. ``threshold`` is the ΔE2000 at 50% correct; ``slope`` is per ΔE2000 unit.

    ``status``: "fit" (maximum likelihood converged), "all-correct", "all-wrong" (threshold below / above
    every ΔE tested: NaN, ``predict`` returns the constant), "separated" (every wrong answer at a smaller ΔE
    than every correct one: threshold = midway, slope = inf, ``predict`` is a step), "too-few" (fewer than two
    distinct ΔE values or no data). ``converged``: the optimiser reported success (False unless "fit").
    """

    threshold: float
    slope: float
    n: int
    converged: bool
    status: str = "fit"
    log_likelihood: float = float("nan")
    message: str = ""

    def predict(self, x: Any) -> np.ndarray:
        """Predicted share correct at ΔE2000 values ``x`` (array-like)."""
        x = np.asarray(x, dtype=float)
        if self.status == "all-correct":
            return np.ones_like(x)
        if self.status == "all-wrong":
            return np.zeros_like(x)
        if self.status == "separated":
            return np.where(x > self.threshold, 1.0, np.where(x < self.threshold, 0.0, 0.5))
        if self.status != "fit":
            return np.full_like(x, np.nan)
        return special.expit(self.slope * (x - self.threshold))


def fit_psychometric(delta_e: Any, correct: Any) -> PsychometricFit:
    """Fit ``P(correct | ΔE2000)`` with a two-parameter logistic by maximum likelihood (scipy.optimize).

    ``delta_e``: CIEDE2000 differences (finite floats); ``correct``: booleans (or 0/1) of the same length.
    Degenerate data (all correct, all wrong, perfectly separated, < 2 distinct ΔE) gives a clear status
    instead of an error or a meaningless optimum.
    """
    x = np.asarray(delta_e, dtype=float).ravel()
    y_raw = np.asarray(correct).ravel()
    if y_raw.dtype.kind not in "biuf":  # objects (None, strings, pd.NA): checked one by one
        y_raw = np.asarray(correct, dtype=object).ravel()
    if x.shape != y_raw.shape:
        raise ValueError(f"delta_e and correct differ in length: {x.size} vs {y_raw.size}")
    if not np.all(np.isfinite(x)):
        raise ValueError("delta_e must be finite numbers (CIEDE2000); found NaN or inf -- drop those rows first")
    if y_raw.dtype.kind in "iuf":
        bad = y_raw[(y_raw != 0) & (y_raw != 1)].tolist()
    elif y_raw.dtype == object:
        bad = [v for v in y_raw if not (isinstance(v, (bool, np.bool_)) or v in (0, 1))]
    else:
        bad = []
    if bad:
        raise ValueError(f"correct must hold booleans or 0/1; found {bad[0]!r} (drop failed requests first)")
    y = y_raw.astype(float)
    n = int(x.size)
    if n == 0 or np.unique(x).size < 2:
        return PsychometricFit(float("nan"), float("nan"), n, False, "too-few",
                               message=f"need answers at two or more distinct ΔE2000 values; got {np.unique(x).size}")
    if y.all():
        return PsychometricFit(float("nan"), float("nan"), n, False, "all-correct",
                               message=f"all {n} correct: the 50% threshold lies below ΔE2000 {x.min():.3g}")
    if not y.any():
        return PsychometricFit(float("nan"), float("nan"), n, False, "all-wrong",
                               message=f"all {n} wrong: the 50% threshold lies above ΔE2000 {x.max():.3g}")
    if x[y == 0].max() <= x[y == 1].min():  # (quasi-)complete separation: no finite maximum
        mid = (x[y == 0].max() + x[y == 1].min()) / 2
        ties = int(np.sum(x == mid))  # points at the step have p = 0.5; all others are predicted exactly
        return PsychometricFit(float(mid), float("inf"), n, False, "separated", ties * float(np.log(0.5)),
                               message="wrong answers all below correct ones: the maximum-likelihood slope is infinite")
    # Standardise x for a well-conditioned optimisation of p = expit(a + b * z), z = (x - mu) / sd.
    mu, sd = float(x.mean()), float(x.std())
    z = (x - mu) / sd

    def nll(params: np.ndarray) -> float:
        eta = params[0] + params[1] * z
        return -float(np.sum(y * special.log_expit(eta) + (1 - y) * special.log_expit(-eta)))

    def grad(params: np.ndarray) -> np.ndarray:
        r = special.expit(params[0] + params[1] * z) - y
        return np.array([r.sum(), (r * z).sum()])

    res = optimize.minimize(nll, np.zeros(2), jac=grad, method="BFGS")
    a, b = (float(v) for v in res.x)
    if b == 0.0:
        return PsychometricFit(float("nan"), 0.0, n, bool(res.success), "fit", -float(res.fun),
                               "flat fit: accuracy does not change with ΔE2000")
    return PsychometricFit(mu - sd * a / b, b / sd, n, bool(res.success), "fit", -float(res.fun), str(res.message))


def psychometric_table(
    df: pd.DataFrame, by: str | Sequence[str] | None = "model", *, x: str = "delta_e"
) -> pd.DataFrame:
    """One logistic fit per group: columns ``by..., n, errors, threshold, slope, converged, status``.

    Rows with a null ``correct`` (failed requests) or a missing ``x`` are left out (``errors`` counts them).
    """
    by = _as_list(by)
    _check_columns(df, [*by, x, "correct"], "psychometric_table")
    codes, table = _grouping(df, by)
    answered, right = _verdicts(df["correct"])
    values = df[x].to_numpy(dtype=float, na_value=np.nan)
    ok = answered & ~np.isnan(values)
    rows = np.flatnonzero(ok)
    rows = rows[np.argsort(codes[rows], kind="stable")]  # grouped, each group's rows in frame order
    bounds = np.searchsorted(codes[rows], np.arange(len(table) + 1))
    fits = [fit_psychometric(values[rows[lo:hi]], right[rows[lo:hi]]) for lo, hi in pairwise(bounds)]
    table = table.assign(n=[f.n for f in fits], errors=_count(codes, len(table), ~ok),
                         threshold=[f.threshold for f in fits], slope=[f.slope for f in fits],
                         converged=[f.converged for f in fits], status=[f.status for f in fits])
    return table[[*by, "n", "errors", "threshold", "slope", "converged", "status"]]
