"""Error consistency between two observers on the same trials (Geirhos, Meding & Wichmann 2020, "Beyond
accuracy: quantifying trial-by-trial behaviour of CNNs and humans by measuring error consistency", NeurIPS,
§2): do they err on the same trials more often than their accuracies alone predict?

For n shared trials with verdicts (right / wrong) from both observers: c_obs = share of trials where both are
right or both wrong; p1, p2 their accuracies on those trials; c_exp = p1 p2 + (1 − p1)(1 − p2) (independent
observers with those accuracies); κ = (c_obs − c_exp) / (1 − c_exp). κ = 0: no more shared errors than
chance; 1: the same errors; < 0: fewer (undefined, NaN, when c_exp = 1: both always right or always wrong).

Intervals (95%). ``kappa_low``/``kappa_high``: the Wilson interval of c_obs (agreements out of n,
`plates.analysis.metrics.wilson_interval`) through the formula with c_exp held at its estimate (the spread
of c_obs only). ``null_low``/``null_high``: the κ range independent observers with these accuracies give in
95% of sets of n trials (c_obs ~ Binomial(n, c_exp) / n, the paper's test of κ against 0, its §2 and Fig. 2).

Shared trials are matched on what decides the stimulus and the question: `TRIAL_KEY` (the spec JSON holds the
seed, so seeded items line up across runs); a trial answered more than once by one observer counts once, as
right only if every answer to it was (the repeats are counted in ``duplicates``). Rows without a verdict
(failed or declined requests) are left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from itertools import combinations

# scipy.stats is imported where used: ~1 s of CPU that the apps' first pages never need
import numpy as np
import pandas as pd

from plates.analysis.metrics import wilson_interval

__all__ = ["TRIAL_KEY", "Consistency", "consistency_matrix", "error_consistency", "from_counts", "matrix_from_counts",
           "observers"]

#: The columns that make two rows the same trial (stimulus, question, viewing condition).
TRIAL_KEY = ("spec_json", "prompt_name", "variant", "grayscale", "hue_shift", "cvd", "cvd_severity", "shots",
             "text_only")


@dataclass(frozen=True)
class Consistency:
    """κ of two observers (module docstring): ``n`` shared trials, ``c_obs``, ``c_exp``, ``accuracy_a``,
    ``accuracy_b``, ``kappa`` with ``kappa_low``/``kappa_high``, ``null_low``/``null_high``, and the trials
    each observer answered more than once (``duplicates_a``, ``duplicates_b``: extra rows, module docstring).

    Parameters
    ----------
    n : int
        Shared trials.
    c_obs : float
        Observed agreement: the share of shared trials both got right or both got wrong, 0-1.
    c_exp : float
        The agreement independent observers with these accuracies expect, p1 p2 + (1 − p1)(1 − p2), 0-1.
    accuracy_a, accuracy_b : float
        Each observer's accuracy on the shared trials, 0-1.
    kappa : float
        κ = (c_obs − c_exp) / (1 − c_exp); NaN when c_exp = 1.
    kappa_low, kappa_high : float
        κ at the ends of c_obs's 95% Wilson interval (c_exp held at its estimate).
    null_low, null_high : float
        The 95% range of κ for independent observers with these accuracies over ``n`` trials.
    duplicates_a, duplicates_b : int, optional
        Extra rows of trials each observer answered more than once (0 from `from_counts`).

    References
    ----------
    Geirhos, Meding & Wichmann (2020), "Beyond accuracy: quantifying trial-by-trial behaviour of CNNs and
    humans by measuring error consistency", NeurIPS, §2.
    """

    n: int
    c_obs: float
    c_exp: float
    accuracy_a: float
    accuracy_b: float
    kappa: float
    kappa_low: float
    kappa_high: float
    null_low: float
    null_high: float
    duplicates_a: int = 0
    duplicates_b: int = 0

    def as_dict(self) -> dict:
        """The fields as a plain dict (`dataclasses.asdict`)."""
        return asdict(self)


def _verdicts(frame: pd.DataFrame, what: str) -> tuple[pd.Series, int]:
    missing = [c for c in (*TRIAL_KEY, "correct") if c not in frame.columns]
    if missing:
        raise ValueError(f"{what} lacks the results columns {missing}; allowed: rows in the results schema")
    rows = frame[frame["correct"].notna()]
    keys = rows[list(TRIAL_KEY)].astype("string").fillna("<null>").agg("\x1f".join, axis=1)
    verdicts = pd.Series(rows["correct"].astype(bool).to_numpy(), index=keys.to_numpy())
    dup = int(verdicts.index.duplicated().sum())
    return verdicts.groupby(level=0).min(), dup


def from_counts(n: int, agree: int, right_a: int, right_b: int) -> Consistency:
    """κ and its intervals from counts over ``n`` shared trials: ``agree`` (both right or both wrong),
    ``right_a``, ``right_b`` (each observer's correct answers). ValueError for impossible counts.

    Parameters
    ----------
    n : int
        Shared trials.
    agree : int
        Trials both got right or both got wrong.
    right_a, right_b : int
        Each observer's correct answers.

    Returns
    -------
    Consistency
        κ and its intervals.

    References
    ----------
    Geirhos, Meding & Wichmann (2020), "Beyond accuracy: quantifying trial-by-trial behaviour of CNNs and
    humans by measuring error consistency", NeurIPS, §2.
    """
    if not (0 < n and 0 <= agree <= n and 0 <= right_a <= n and 0 <= right_b <= n):
        raise ValueError(f"counts n={n}, agree={agree}, right_a={right_a}, right_b={right_b} are not possible; "
                         "allowed: n > 0 and every count within 0..n")
    c_obs = agree / n
    p1, p2 = right_a / n, right_b / n
    c_exp = p1 * p2 + (1 - p1) * (1 - p2)

    def kappa_of(c: float) -> float:
        return float("nan") if c_exp >= 1.0 else (c - c_exp) / (1.0 - c_exp)

    low, high = wilson_interval(int(agree), int(n))
    from scipy import stats  # lazy: see the module imports
    null = stats.binom.ppf([0.025, 0.975], n, c_exp) / n if c_exp < 1.0 else (float("nan"),) * 2
    return Consistency(int(n), c_obs, c_exp, p1, p2, kappa_of(c_obs), kappa_of(low), kappa_of(high),
                       kappa_of(float(null[0])), kappa_of(float(null[1])))


def error_consistency(a: pd.DataFrame, b: pd.DataFrame) -> Consistency:
    """κ between observer ``a``'s and ``b``'s results rows on their shared trials (module docstring).

    Parameters
    ----------
    a, b : pandas.DataFrame
        Each observer's results rows.

    Returns
    -------
    Consistency
        κ on their shared trials.

    Raises
    ------
    ValueError
        No shared trial with a verdict from both (naming the counts), or rows outside the results schema.

    Examples
    --------
    >>> rows = lambda verdicts: pd.DataFrame([{**dict.fromkeys(TRIAL_KEY, "x"), "spec_json": str(i),
    ...     "correct": v} for i, v in enumerate(verdicts)])
    >>> error_consistency(rows([1, 1, 0, 0]), rows([1, 1, 0, 0])).kappa
    1.0
    """
    va, dup_a = _verdicts(a, "observer A")
    vb, dup_b = _verdicts(b, "observer B")
    shared = va.index.intersection(vb.index)
    if len(shared) == 0:
        raise ValueError(f"no shared trials: observer A has {len(va)} answered trials, B {len(vb)}, none the same "
                         f"stimulus and question ({', '.join(TRIAL_KEY)}); allowed: two runs over the same seeded "
                         "items")
    x, y = va.loc[shared].to_numpy(), vb.loc[shared].to_numpy()
    c = from_counts(len(shared), int(np.sum(x == y)), int(x.sum()), int(y.sum()))
    return replace(c, duplicates_a=dup_a, duplicates_b=dup_b)


def matrix_from_counts(counts: pd.DataFrame, group: str = "family") -> pd.DataFrame:
    """`consistency_matrix` from per-pair counts (columns ``group``, ``observer_a``, ``observer_b``, ``n``,
    ``agree``, ``right_a``, ``right_b``), as DuckDB counts them (`plates.dashboard.observer_queries`).

    Parameters
    ----------
    counts : pandas.DataFrame
        Per-pair counts.
    group : str, optional
        The grouping column.

    Returns
    -------
    pandas.DataFrame
        As `consistency_matrix`.
    """
    out = [{group: r[group], "observer_a": r["observer_a"], "observer_b": r["observer_b"],
            **from_counts(int(r["n"]), int(r["agree"]), int(r["right_a"]), int(r["right_b"])).as_dict()}
           for r in counts.to_dict("records") if int(r["n"]) > 0]
    return pd.DataFrame(out)


def observers(frame: pd.DataFrame) -> list[str]:
    """The observers in ``frame``: its distinct ``model`` values (a person's rows are "participant-…").

    Parameters
    ----------
    frame : pandas.DataFrame
        Results rows.

    Returns
    -------
    list of str
        The observers, sorted.
    """
    return sorted(str(m) for m in frame["model"].dropna().unique())


def consistency_matrix(frame: pd.DataFrame, *, group: str = "family",
                       min_shared: int = 1) -> pd.DataFrame:
    """κ between every pair of observers (``model``) that answered the same trials, per ``group`` value: one
    row per (group, observer A, observer B) with the `Consistency` fields; pairs with fewer than
    ``min_shared`` shared trials are left out.

    Parameters
    ----------
    frame : pandas.DataFrame
        Results rows.
    group : str, optional
        The grouping column.
    min_shared : int, optional
        The fewest shared trials a pair needs.

    Returns
    -------
    pandas.DataFrame
        One row per (group, observer A, observer B).
    """
    if group not in frame.columns:
        raise ValueError(f"group {group!r} is not a column; allowed: a results column such as family, dataset")
    out: list[Mapping] = []
    for value, part in frame.groupby(group, dropna=True, observed=True):
        by_model = {m: rows for m, rows in part.groupby("model", observed=True)}
        for m1, m2 in combinations(sorted(by_model), 2):
            try:
                c = error_consistency(by_model[m1], by_model[m2])
            except ValueError:
                continue
            if c.n >= min_shared:
                out.append({group: value, "observer_a": m1, "observer_b": m2, **c.as_dict()})
    return pd.DataFrame(out)
