"""Which scoring rules judged the rows at hand: rows judged under different rules versions
(`plates.tasks.answers.RULES_VERSION`, the ``rules_version`` column) must never be pooled without saying so.

`rules_versions` counts the rows per version in a pandas frame (`plates.results.load_results`) or in opened
results (`plates.results.query.Results`, DuckDB); `mixed_rules_note` is the sentence both apps show when more
than one version is present (None when one is). Rows written before rows recorded the version read as
``UNVERSIONED`` (0).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from plates.results.schema import UNVERSIONED

__all__ = ["mixed_rules_note", "rules_versions"]


def rules_versions(rows: Any, where: str = "", params: Mapping[str, Any] | None = None) -> dict[int, int]:
    """{rules version: row count}, ascending, of a results frame (a missing column or a null reads as
    ``UNVERSIONED``) or of opened `plates.results.query.Results` (``where``: a DuckDB ``WHERE ...`` clause
    with its named ``params``, e.g. a dashboard view's filters).

    Parameters
    ----------
    rows : pandas.DataFrame or Results
        A results frame, or opened results.
    where : str, optional
        A DuckDB ``WHERE ...`` clause (opened results only).
    params : mapping, optional
        Its named parameters.

    Returns
    -------
    dict of int to int
        Rules version to row count, ascending.

    Examples
    --------
    >>> rules_versions(pd.DataFrame({"rules_version": [1, 1, None]}))
    {0: 1, 1: 2}
    """
    if isinstance(rows, pd.DataFrame):
        if "rules_version" not in rows.columns:
            return {UNVERSIONED: len(rows)} if len(rows) else {}
        counts = rows["rules_version"].fillna(UNVERSIONED).astype(int).value_counts()
    elif hasattr(rows, "query"):
        table = rows.query(f"SELECT coalesce(rules_version, {UNVERSIONED}) AS v, count(*) AS n FROM results "
                           f"{where} GROUP BY v", dict(params) if params else None)
        counts = pd.Series(table["n"].to_numpy(), index=table["v"].astype(int))
    else:
        raise ValueError(f"rules_versions needs a results DataFrame or opened Results, got {type(rows).__name__}")
    return {int(v): int(n) for v, n in sorted(counts.items())}


def mixed_rules_note(versions: Mapping[int, int]) -> str | None:
    """The warning for results judged under several rules versions (None for one or none).

    Parameters
    ----------
    versions : mapping of int to int
        `rules_versions`' answer.

    Returns
    -------
    str or None
        The warning, or None.
    """
    if len(versions) < 2:
        return None
    parts = ", ".join(f"{'unversioned (before versions were recorded)' if v == UNVERSIONED else f'v{v}'}: "
                      f"{n:,} rows" for v, n in sorted(versions.items()))
    return (f"These results were judged under {len(versions)} versions of the scoring rules ({parts}); figures "
            "that pool them mix verdicts. Run `plates rescore RESULTS` to judge the older replies again under "
            "today's rules, then filter to one run.")
