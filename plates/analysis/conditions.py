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
    """A short, stable label for one viewing condition, e.g. ``"original @900px"``, ``"clear · gray @300px"``,
    ``"deutan 0.6 @900px"``, ``"text-only @512px"``. Stable across filters: it can live in a shared URL."""
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
    """``frame`` with a ``condition`` column (`condition_label` of each row, leaving out the ``without``
    condition columns: e.g. ``("size",)`` for the resolution chart's x). One label per distinct combination,
    then mapped: a million rows take a fraction of a second."""
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
