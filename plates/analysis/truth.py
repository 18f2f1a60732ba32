"""Results rows -> the per-question facts the family metrics read (``truth_json``, `plates.runs.rows`).

`with_truth` expands each row's ``truth_json`` into columns (the illusion metrics' ``pixel_answer``,
``human_answer``, ``item_class``, ``kind``, ``strength``, ``signed_delta_e``, ``induced_lighter``; a scene
row's ``recolour``) and adds ``answer``: what a parsed option claims (its ``meanings`` entry, e.g. "II" ->
"B darker"), else the parsed answer itself (a colour name, "True"/"False"). Rows without facts get nulls.
"""

from __future__ import annotations

import json

import pandas as pd

__all__ = ["with_truth"]


def with_truth(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` with the ``truth_json`` facts as columns and the ``answer`` column (module doc).

    Parameters
    ----------
    frame : pandas.DataFrame
        Results rows (`plates.results.schema`); ``truth_json`` and ``parsed`` are read where present.

    Returns
    -------
    pandas.DataFrame
        A copy; a fact already a column is not overwritten. Without ``truth_json``, ``answer`` is ``parsed``
        (or kept where the frame has it).
    """
    out = frame.copy()
    if "truth_json" not in out.columns:  # facts already columns (the dashboard's DuckDB counts keep ``answer``)
        if "answer" not in out.columns:
            out["answer"] = out.get("parsed")
        return out
    facts = [json.loads(t) if isinstance(t, str) else {} for t in out["truth_json"].astype(object)]
    keys = sorted({k for f in facts for k in f if k not in ("meanings", "wording")})
    for k in keys:
        if k not in out.columns:
            out[k] = [f.get(k) for f in facts]
    parsed = out["parsed"].astype(object).tolist() if "parsed" in out.columns else [None] * len(out)
    out["answer"] = [None if p is None or (isinstance(p, float) and p != p) else f.get("meanings", {}).get(p, p)
                     for p, f in zip(parsed, facts)]
    return out
