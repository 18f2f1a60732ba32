"""Illusion metrics as pure functions over a DataFrame of scored answers (one row per reply).

* `rcid_table`: RCID §4.1 (after GVIL, Zhang et al. 2023): on illusion items the Human-like share (answer =
  the human answer; the "deception rate" under the pixel framing), the No-illusion share (answer = the pixel
  answer) and N/A (neither, unparsed replies included); on controls the accuracy; on traps the accuracy
  against the pixels. Each with a 95% Wilson interval (`plates.analysis.metrics.wilson_intervals`).
* `illusionbench_tf_table` / `illusionbench_mc_table`: IllusionBench+ accuracy, and for true/false the
  yes-bias FP / (FP + FN) (App. A2: 0.5 balanced, near 1 leans "True", near 0 leans "False").
* `majority_over_rounds`: IllusionBench+ App. B1's 5-round vote (a value wins with 3 or more of 5).
* `magnitude_table`: per group and signed physical difference, the shares of "same" / "A darker" /
  "B darker" answers (or, aligned, "induced target lighter/darker"): the data a point-of-subjective-equality
  fit takes (one row per x with counts per response).
* `pse_table`: per model x framing x kind x strength, the PSE in ΔE2000 (CIEDE2000 between the two targets'
  mean colours, CIELAB D65 2°) from a three-alternative fit (`plates.analysis.pse.fit_pse`) over
  `magnitude_table`'s aligned counts; ``magnitude = -pse`` (how far the induced target must be physically
  darker to look equal).
* `family_rows`: results rows (every column) of the given families, their ``truth_json`` facts expanded.

Every table counts a row as many result rows as its ``weight`` column says (`plates.analysis.metrics.WEIGHT`:
the dashboard's collapsed rows); without it, once.

Columns (strings may be categorical): ``answer`` what the reply claims ("A darker", "B darker", "same", a
colour name; null: unparsed or ambiguous), ``pixel_answer`` / ``human_answer`` the keys under the two
framings (`plates.tasks.illusions.questions.answer_keys`; null human answer: undetermined), ``item_class``
("illusion", "control", "trap"), optionally ``failed`` (True: the request failed; left out and counted).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from plates.analysis.metrics import row_weights, wilson_intervals
from plates.analysis.pse import fit_pse_counts
from plates.analysis.truth import with_truth
from plates.validation import check_int

__all__ = [
    "RESPONSES",
    "family_rows",
    "illusionbench_mc_table",
    "illusionbench_tf_table",
    "magnitude_table",
    "majority_over_rounds",
    "pse_table",
    "rcid_table",
]

#: The three comparison answers, as `plates.tasks.illusions.questions.MEANINGS` writes them.
RESPONSES = ("A darker", "B darker", "same")


def _by(by: str | Sequence[str] | None) -> list[str]:
    return [] if by is None else [by] if isinstance(by, str) else list(by)


def _check(df: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    if not isinstance(df, pd.DataFrame):
        raise ValueError(f"{what} needs a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{what}: column(s) {missing} missing; available: {', '.join(map(str, df.columns))}")


def _eq(a: pd.Series, b: pd.Series | str) -> np.ndarray:
    """Element-wise equality as plain booleans; a null on either side is never equal."""
    a = a.astype(object)
    b = b.astype(object) if isinstance(b, pd.Series) else b
    return (a == b).to_numpy(dtype=bool) & a.notna().to_numpy(dtype=bool)


def _failed(df: pd.DataFrame) -> np.ndarray:
    if "failed" not in df.columns:
        return np.zeros(len(df), dtype=bool)
    return df["failed"].astype(object).eq(True).to_numpy(dtype=bool)


def _groups(df: pd.DataFrame, by: list[str]) -> tuple[np.ndarray, pd.DataFrame]:
    """Integer group code per row and the key frame (sorted keys; one all-rows group without ``by``)."""
    if not by:
        return np.zeros(len(df), dtype=np.int64), pd.DataFrame(index=range(1))
    g = df.groupby(by, dropna=False, sort=True, observed=True)
    codes = g.ngroup().to_numpy(dtype=np.int64)
    keys = g.size().reset_index()[by]
    return codes, keys


def _count(codes: np.ndarray, size: int, mask: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Result rows per group among ``mask``: each row counts its weight (`plates.analysis.metrics.row_weights`)."""
    return np.bincount(codes[mask], weights=weights[mask], minlength=size).round().astype(np.int64)


def _share(table: pd.DataFrame, name: str, k: np.ndarray, n: np.ndarray, confidence: float) -> None:
    with np.errstate(invalid="ignore", divide="ignore"):
        table[name] = np.where(n > 0, k / np.maximum(n, 1), np.nan)
    low, high = wilson_intervals(k, n, confidence)
    table[f"{name}_low"], table[f"{name}_high"] = low, high


def rcid_table(
    df: pd.DataFrame, by: str | Sequence[str] | None = ("model", "kind", "framing"), confidence: float = 0.95
) -> pd.DataFrame:
    """RCID's human-like (HL), no-illusion (NI) and neither (NA) shares per group; HL + NI + NA = 1.

    Parameters
    ----------
    df : pandas.DataFrame
        Illusion rows with their facts as columns (`with_truth`): ``by`` columns, ``answer``,
        ``pixel_answer``, ``human_answer``, ``item_class`` ("illusion", "control", "trap"); a `WEIGHT`
        column counts collapsed rows.
    by : str, sequence of str or None
        Grouping columns (None: one group).
    confidence : float
        Level of the Wilson intervals.

    Returns
    -------
    pandas.DataFrame
        ``by...``, ``illusion_n``, ``human_like``, ``no_illusion``, ``na`` (shares of illusion answers, each
        with ``_low``/``_high``), ``undetermined`` (illusion rows without a human answer, left out),
        ``control_n``, ``control_accuracy`` (+ interval), ``trap_n``, ``trap_accuracy`` (against the pixels,
        + interval), ``failed``.

    Raises
    ------
    ValueError
        An illusion row whose human answer equals its pixel answer (that item is a control, not an illusion),
        or a needed column missing.

    References
    ----------
    RCID (Mao et al. 2025) §4.1, after GVIL (Zhang et al. 2023).
    """
    by = _by(by)
    _check(df, [*by, "answer", "pixel_answer", "human_answer", "item_class"], "rcid_table")
    codes, table = _groups(df, by)
    w = row_weights(df)
    size = len(table)
    failed = _failed(df)
    cls = df["item_class"].astype(object)
    illusion = cls.eq("illusion").to_numpy(dtype=bool) & ~failed
    both = illusion & _eq(df["human_answer"], df["pixel_answer"])
    if both.any():
        raise ValueError(
            f"{int(both.sum())} illusion row(s) have equal human and pixel answers; allowed: "
            "different keys on illusion items (mark such items 'control')"
        )
    known = illusion & df["human_answer"].notna().to_numpy(dtype=bool)
    hl, ni = known & _eq(df["answer"], df["human_answer"]), known & _eq(df["answer"], df["pixel_answer"])
    n_ill = _count(codes, size, known, w)
    table["illusion_n"] = n_ill
    _share(table, "human_like", _count(codes, size, hl, w), n_ill, confidence)
    _share(table, "no_illusion", _count(codes, size, ni, w), n_ill, confidence)
    _share(table, "na", _count(codes, size, known & ~hl & ~ni, w), n_ill, confidence)
    table["undetermined"] = _count(codes, size, illusion & ~known, w)
    for name in ("control", "trap"):
        rows = cls.eq(name).to_numpy(dtype=bool) & ~failed
        right = rows & _eq(df["answer"], df["pixel_answer"])
        n = _count(codes, size, rows, w)
        table[f"{name}_n"] = n
        _share(table, f"{name}_accuracy", _count(codes, size, right, w), n, confidence)
    table["failed"] = _count(codes, size, failed, w)
    return table.reset_index(drop=True)


def _true_false(column: pd.Series, what: str) -> pd.Series:
    """ "True"/"False" strings or booleans -> object Series of True/False/None."""
    mapping = {True: True, False: False, "True": True, "False": False, "true": True, "false": False}
    values = column.astype(object)
    bad = values.notna() & ~values.isin(list(mapping))
    if bad.any():
        raise ValueError(
            f"{what} holds {values[bad].iloc[0]!r}; allowed: True/False (bool or 'True'/'False') or null"
        )
    mapped = values.map(mapping)  # a hashed lookup (a Python call per row cost 0.1 s over 40,000 rows)
    return mapped.astype(object).where(mapped.notna(), None)


def illusionbench_tf_table(
    df: pd.DataFrame, by: str | Sequence[str] | None = "model", confidence: float = 0.95
) -> pd.DataFrame:
    """IllusionBench+ true/false accuracy and its false-positive bias per group (App. A2).

    Parameters
    ----------
    df : pandas.DataFrame
        ``by`` columns, ``expected`` (True/False, bool or "True"/"False") and ``parsed`` (the same, null when
        the reply said neither).
    by : str, sequence of str or None
        Grouping columns (None: one group).
    confidence : float
        Level of the Wilson intervals.

    Returns
    -------
    pandas.DataFrame
        ``by...``, ``n``, ``accuracy`` (+ interval; an unparsed reply is wrong), ``fp`` (said True, was
        False), ``fn`` (said False, was True), ``unparsed``, ``fp_ratio`` = FP / (FP + FN) (NaN without
        errors: no bias to measure), ``failed``.

    Raises
    ------
    ValueError
        ``expected`` or ``parsed`` holds something other than True/False (or ``expected`` a null), or a needed
        column is missing.

    References
    ----------
    IllusionBench+ (Zhang et al. 2025) App. A2.
    """
    by = _by(by)
    _check(df, [*by, "expected", "parsed"], "illusionbench_tf_table")
    codes, table = _groups(df, by)
    w = row_weights(df)
    size = len(table)
    failed = _failed(df)
    expected = _true_false(df["expected"], "expected")
    if expected.isna().any():
        raise ValueError("expected holds nulls; allowed: True or False on every row")
    parsed = _true_false(df["parsed"], "parsed")
    exp = expected.to_numpy(dtype=bool)
    said_true = parsed.eq(True).to_numpy(dtype=bool) & ~failed
    said_false = parsed.eq(False).to_numpy(dtype=bool) & ~failed
    ok = ~failed
    n = _count(codes, size, ok, w)
    table["n"] = n
    _share(table, "accuracy", _count(codes, size, (said_true & exp) | (said_false & ~exp), w), n, confidence)
    fp, fn = _count(codes, size, said_true & ~exp, w), _count(codes, size, said_false & exp, w)
    table["fp"], table["fn"] = fp, fn
    table["unparsed"] = _count(codes, size, ok & ~said_true & ~said_false, w)
    with np.errstate(invalid="ignore", divide="ignore"):
        table["fp_ratio"] = np.where(fp + fn > 0, fp / np.maximum(fp + fn, 1), np.nan)
    table["failed"] = _count(codes, size, failed, w)
    return table.reset_index(drop=True)


def illusionbench_mc_table(
    df: pd.DataFrame, by: str | Sequence[str] | None = "model", confidence: float = 0.95
) -> pd.DataFrame:
    """IllusionBench+ multiple-choice accuracy per group; chance is 0.25 (four options).

    Parameters
    ----------
    df : pandas.DataFrame
        ``by`` columns, ``expected`` and ``parsed`` (numerals; null: unparsed, counted wrong).
    by : str, sequence of str or None
        Grouping columns (None: one group).
    confidence : float
        Level of the Wilson intervals.

    Returns
    -------
    pandas.DataFrame
        ``by...``, ``n``, ``accuracy`` (+ interval), ``unparsed``, ``failed``.

    Raises
    ------
    ValueError
        A needed column is missing; the message lists the frame's columns.

    References
    ----------
    IllusionBench+ (Zhang et al. 2025) App. A.
    """
    by = _by(by)
    _check(df, [*by, "expected", "parsed"], "illusionbench_mc_table")
    codes, table = _groups(df, by)
    w = row_weights(df)
    size = len(table)
    failed = _failed(df)
    ok = ~failed
    n = _count(codes, size, ok, w)
    table["n"] = n
    _share(table, "accuracy", _count(codes, size, ok & _eq(df["parsed"], df["expected"]), w), n, confidence)
    table["unparsed"] = _count(codes, size, ok & df["parsed"].isna().to_numpy(dtype=bool), w)
    table["failed"] = _count(codes, size, failed, w)
    return table.reset_index(drop=True)


def majority_over_rounds(df: pd.DataFrame, keys: Sequence[str], column: str, rounds: int = 5) -> pd.DataFrame:
    """The majority answer over repeated rounds: IllusionBench+ App. B1, "the outcome that occurred three times
    or more" of 5. Nulls are a value: 3 unparsed replies of 5 give null.

    Parameters
    ----------
    df : pandas.DataFrame
        The ``keys`` columns and ``column``.
    keys : sequence of str
        What identifies one question (every group must have exactly ``rounds`` rows).
    column : str
        The answer column voted on.
    rounds : int
        Rows per group, >= 1 (IllusionBench+: 5).

    Returns
    -------
    pandas.DataFrame
        One row per group: ``keys...``, ``column`` (the value given in at least ``rounds // 2 + 1`` rows, or
        null when none has a majority), ``votes`` (that value's count, 0 without one).

    Raises
    ------
    ValueError
        ``rounds`` not a positive integer, a group without exactly ``rounds`` rows (the first is named), or a
        needed column missing.

    References
    ----------
    IllusionBench+ (Zhang et al. 2025) App. B1.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"item": [1] * 5, "parsed": ["a", "a", "a", "b", None]})
    >>> majority_over_rounds(df, ["item"], "parsed").to_dict("records")
    [{'item': 1, 'parsed': 'a', 'votes': 3}]
    """
    keys = list(keys)
    _check(df, [*keys, column], "majority_over_rounds")
    check_int("rounds", rounds, 1, note=" (IllusionBench+: 5)")
    sizes = df.groupby(keys, dropna=False, observed=True).size()
    wrong = sizes[sizes != rounds]
    if len(wrong):
        raise ValueError(
            f"group {wrong.index[0]!r} has {int(wrong.iloc[0])} rows; allowed: exactly {rounds} "
            "(one per round)"
        )
    filled = df[[*keys, column]].copy()
    filled["_v"] = filled[column].astype(object).where(filled[column].notna(), "\x00null")
    votes = filled.groupby([*keys, "_v"], dropna=False, observed=True).size().rename("votes").reset_index()
    winners = votes[votes["votes"] >= rounds // 2 + 1]
    out = sizes.reset_index()[keys].merge(winners, on=keys, how="left")
    out[column] = pd.Series(
        [None if pd.isna(v) or v == "\x00null" else v for v in out["_v"]], dtype=object, index=out.index
    )
    out["votes"] = out["votes"].fillna(0).astype(np.int64)
    return out[[*keys, column, "votes"]]


def magnitude_table(
    df: pd.DataFrame, by: str | Sequence[str] | None = ("model", "kind", "strength"), *, align: bool = True
) -> pd.DataFrame:
    """Illusion magnitude data: per ``by`` group and signed physical difference, the counts and shares of
    each comparison answer. Rows with a failed request are left out; unparsed answers are counted.

    Columns in: ``signed_delta_e`` (the render's ``truth["signed_delta_e2000"]``: + when A is physically
    lighter), ``answer``; with ``align`` also ``induced_lighter`` ("A"/"B": the target the illusion makes look
    lighter, `truth["induced_lighter"]`; rows without one are left out).

    ``align=False``: x = ``signed_delta_e``; responses ``a_darker``, ``b_darker``, ``same``.
    ``align=True`` (to pool mirrored and swapped layouts): x = the difference in favour of the induced target
    (+ when it is physically lighter); responses ``induced_lighter`` (the induced target named lighter, i.e.
    the other one darker), ``induced_darker``, ``same``. A psychometric fit of P(induced_lighter) against x
    has its point of subjective equality at x < 0 when the model is fooled; the illusion's magnitude in
    ΔE2000 is -PSE. Out: ``by...``, ``x``, ``n``, one ``n_`` and one ``share_`` column per response, and
    ``n_unanswered``, sorted by group and x.

    Parameters
    ----------
    df : pandas.DataFrame
        Illusion rows with their facts as columns (`with_truth`); a `WEIGHT` column counts collapsed rows.
    by : str, sequence of str or None
        Grouping columns (None: one group).
    align : bool
        Pool mirrored and swapped layouts (above).

    Returns
    -------
    pandas.DataFrame
        The counts and shares described above (x in ΔE2000, rounded to 1e-6).

    Raises
    ------
    ValueError
        A needed column is missing; the message lists the frame's columns.
    """
    by = _by(by)
    need = [*by, "signed_delta_e", "answer"] + (["induced_lighter"] if align else [])
    _check(df, need, "magnitude_table")
    keep = ~_failed(df)
    answer = df["answer"].astype(object)
    x = df["signed_delta_e"].to_numpy(dtype=float)
    if align:
        induced = df["induced_lighter"].astype(object)
        keep &= induced.isin(["A", "B"]).to_numpy(dtype=bool)
        flip = induced.eq("B").to_numpy(dtype=bool)
        x = np.where(flip, -x, x)
        # the induced target named lighter = the other one named darker
        responses = {
            "induced_lighter": np.where(flip, _eq(answer, "A darker"), _eq(answer, "B darker")),
            "induced_darker": np.where(flip, _eq(answer, "B darker"), _eq(answer, "A darker")),
        }
    else:
        responses = {"a_darker": _eq(answer, "A darker"), "b_darker": _eq(answer, "B darker")}
    responses["same"] = _eq(answer, "same")
    frame = df.loc[keep, by].copy() if by else pd.DataFrame(index=df.index[keep])
    frame["x"] = np.round(x[keep], 6)
    w = row_weights(df)[keep]  # collapsed rows count the result rows they stand for
    for name, hit in responses.items():
        frame[f"n_{name}"] = hit[keep].astype(np.int64) * w
    frame["n_unanswered"] = (~np.any(np.stack([h[keep] for h in responses.values()]), axis=0)).astype(
        np.int64
    ) * w
    counts = [c for c in frame.columns if c.startswith("n_")]
    out = frame.groupby([*by, "x"], dropna=False, sort=True, observed=True)[counts].sum().reset_index()
    out.insert(len(by) + 1, "n", out[counts].sum(axis=1).astype(np.int64))
    for name in responses:
        out[f"share_{name}"] = out[f"n_{name}"] / out["n"]
    return out


def family_rows(frame: pd.DataFrame, families: str | Sequence[str]) -> pd.DataFrame:
    """The rows of one or more families, with their facts expanded (`with_truth`).

    Parameters
    ----------
    frame : pandas.DataFrame
        Result rows.
    families : str or sequence of str
        Family names (`plates.stimuli.STIMULI` keys).

    Returns
    -------
    pandas.DataFrame
        The rows whose ``family`` is one of ``families``, with ``failed`` (a failed request) where the frame
        has ``error``; an empty frame (same columns) when there are none or ``frame`` has no ``family``
        column.

    Raises
    ------
    ValueError
        ``frame`` is not a pandas DataFrame.
    """
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"family_rows needs a pandas DataFrame, got {type(frame).__name__}")
    wanted = [families] if isinstance(families, str) else list(families)
    if "family" not in frame.columns:
        return frame.iloc[0:0]
    rows = frame[frame["family"].astype(object).isin(wanted)]
    if rows.empty:
        return rows
    out = with_truth(rows)
    if "error" in out.columns:  # a failed request: left out of every share and counted
        out["failed"] = out["error"].notna() & out["correct"].isna()
    return out


_CODES = {"n_induced_lighter": 1, "n_induced_darker": -1, "n_same": 0}


def pse_table(frame: pd.DataFrame, by: Sequence[str] = ("model", "framing", "kind", "strength"),
              confidence: float = 0.95) -> pd.DataFrame:
    """The point of subjective equality per group of the illusion family's ``rcid-compare`` rows.

    Aligned x: + when the target the illusion makes look lighter is physically lighter (ΔE2000); responses +1
    induced target named lighter, -1 darker, 0 same (`plates.analysis.pse`); unparsed answers are left out
    (counted in ``unanswered``). Fits need two or more distinct differences.

    Parameters
    ----------
    frame : pandas.DataFrame
        Result rows of any families (`family_rows` picks the illusion rows).
    by : sequence of str
        Grouping columns.
    confidence : float
        Level of the PSE's profile-likelihood interval.

    Returns
    -------
    pandas.DataFrame
        ``by..., n, unanswered, status, pse, ci_low, ci_high, magnitude, band, extrapolated, message``
        (``magnitude`` = -PSE, ΔE2000); empty with these columns when no row qualifies.

    References
    ----------
    García-Pérez and Alcalá-Quintana (2013), *Front. Psychol.* 4:253; RCID (Mao et al. 2025) §3.3.
    """
    by = list(by)
    rows = family_rows(frame, "illusion")
    columns = [*by, "n", "unanswered", "status", "pse", "ci_low", "ci_high", "magnitude", "band",
               "extrapolated", "message"]
    need = {"signed_delta_e", "induced_lighter", *by}
    if rows.empty or not need <= set(rows.columns):
        return pd.DataFrame(columns=columns)
    rows = rows[(rows["task"].astype(object) == "rcid-compare") & rows["signed_delta_e"].notna()]
    if rows.empty:
        return pd.DataFrame(columns=columns)
    counts = magnitude_table(rows, by=by, align=True)
    order = [name for name, _ in sorted(_CODES.items(), key=lambda item: item[1])]  # codes -1, 0, +1
    codes, key_frame = _groups(counts, by)
    keys = list(key_frame.itertuples(index=False, name=None))
    # each group's slice of the (group, x)-sorted counts, by numpy (a pandas group apiece costs milliseconds)
    rank = np.argsort(codes, kind="stable")
    edges = np.searchsorted(codes[rank], np.arange(len(keys) + 1))
    x, answers = counts["x"].to_numpy(float)[rank], counts[order].to_numpy(float)[rank]
    lost = counts["n_unanswered"].to_numpy(np.int64)[rank]
    groups, unanswered = [], []
    for start, stop in zip(edges[:-1], edges[1:]):
        held = answers[start:stop].sum(axis=1) > 0  # a level with only unanswered rows holds no answer
        groups.append((x[start:stop][held], answers[start:stop][held].T))
        unanswered.append(int(lost[start:stop].sum()))
    fits = fit_pse_counts(groups, alternatives=3, confidence=confidence)  # every group at once
    out = [{**dict(zip(by, key)), "n": fit.n, "unanswered": lost, "status": fit.status, "pse": fit.pse,
            "ci_low": fit.ci_low, "ci_high": fit.ci_high, "magnitude": -fit.pse, "band": fit.band,
            "extrapolated": fit.extrapolated, "message": fit.message}
           for key, fit, lost in zip(keys, fits, unanswered)]
    return pd.DataFrame(out, columns=columns)
