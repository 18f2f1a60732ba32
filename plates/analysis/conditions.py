"""Viewing-condition labels for results rows: a short, stable name per combination of the condition columns
(prompt variant, grayscale, hue shift, colour-vision-deficiency simulation and severity, image side in px,
text only), so no table or chart pools two conditions. Labels only: no figures."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["CONDITION", "CONDITION_COLUMNS", "SERIES", "condition_label", "with_condition"]

CONDITION = "condition"
SERIES = "series"
#: The results columns that make up a condition, in label order.
CONDITION_COLUMNS = ("variant", "grayscale", "hue_shift", "cvd", "cvd_severity", "size", "text_only")


def _present(value) -> bool:
    return value is not None and value is not pd.NA and not (isinstance(value, float) and np.isnan(value))


def condition_label(
    variant=None, grayscale=None, hue_shift=None, cvd=None, cvd_severity=None, size=None, text_only=None
) -> str:
    """A short, stable label for one viewing condition. Stable across filters: it can live in a shared URL.

    Missing values (None, NaN, ``pd.NA``) count as absent.

    Parameters
    ----------
    variant : str or None
        The prompt/image variant ("standard" and "" are left out).
    grayscale : bool or None
        Grey input.
    hue_shift : float or None
        Degrees (0 left out).
    cvd : str or None
        "protan", "deutan" or "tritan" ("none" and "" left out).
    cvd_severity : float or None
        0-1; shown unless 1 (None reads as 1).
    size : int or None
        Image side in px.
    text_only : bool or None
        Text only: the label is "text-only" whatever else is set.

    Returns
    -------
    str

    Examples
    --------
    >>> condition_label(size=900), condition_label("clear", grayscale=True, size=300)
    ('original @900px', 'clear · gray @300px')
    >>> condition_label(cvd="deutan", cvd_severity=0.6, size=900)
    'deutan 0.6 @900px'
    """
    if _present(text_only) and bool(text_only):
        parts = ["text-only"]
    else:
        parts = []
        if isinstance(variant, str) and variant not in ("", "standard"):
            parts.append(variant)
        if _present(grayscale) and bool(grayscale):
            parts.append("gray")
        if _present(hue_shift) and float(hue_shift) != 0.0:
            parts.append(f"hue {float(hue_shift):+g}°")
        if isinstance(cvd, str) and cvd not in ("", "none"):
            severity = float(cvd_severity) if _present(cvd_severity) else 1.0
            parts.append(cvd if severity == 1.0 else f"{cvd} {severity:g}")
    label = " · ".join(parts) or "original"
    return f"{label} @{int(size)}px" if _present(size) else label


def with_condition(
    frame: pd.DataFrame, *, without: tuple[str, ...] = (), column: str = CONDITION
) -> pd.DataFrame:
    """``frame`` with a condition column: `condition_label` of each row. One label per distinct combination,
    then mapped.

    Parameters
    ----------
    frame : pandas.DataFrame
        Results rows; the columns of `CONDITION_COLUMNS` it has are read (none: every row "original").
    without : tuple of str
        Condition columns to leave out of the label, e.g. ``("size",)`` for the resolution chart's x.
    column : str
        Name of the new column.

    Returns
    -------
    pandas.DataFrame
        A shallow copy of ``frame`` with ``column`` added.
    """
    out = frame.copy(deep=False)
    columns = [c for c in CONDITION_COLUMNS if c in frame.columns and c not in without]
    if frame.empty or not columns:
        out[column] = pd.Series(["original"] * len(frame), index=frame.index, dtype=object)
        return out
    keys = frame[columns]
    per_column = [pd.factorize(keys[c], use_na_sentinel=False) for c in columns]
    combined = np.ravel_multi_index([codes for codes, _ in per_column], [len(u) for _, u in per_column])
    _, first, codes = np.unique(combined, return_index=True, return_inverse=True)
    labels = [condition_label(**row) for row in keys.iloc[first].to_dict("records")]
    out[column] = pd.Series(
        np.asarray(labels, dtype=object)[codes.reshape(-1)], index=frame.index, dtype=object
    )
    return out
