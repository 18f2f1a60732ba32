"""Unread replies as a figure: per series (model, or model · run) and prompt, the share of its replies that were
read as a correct answer, read as a wrong one, or not read at all: ambiguous, unread (the rules found no
answer) or refused (`plates.tasks.answers.PARSE_STATUSES`), beside accuracy. A model that is not read is not
"wrong": accuracy counts an unread reply as not correct, and this figure shows how much of a low accuracy is
the reading's. The judge model's part (`plates.runs.judge`) is in the table: how many verdicts it decided, and
how often it and the rules read the same answer where both read one.

One condition at a time (the rules every chart keeps: `plates.charts.ishihara`). Counts come from
`plates.dashboard.queries.reading_counts` (DuckDB) or, for result rows in pandas, `reading_counts_from_rows`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from plates.analysis.metrics import wilson_intervals
from plates.charts.common import (
    CONDITION,
    COUNT_KEYS,
    SERIES,
    choose,
    empty_figure,
    labelled_counts,
    series_name,
    titled,
)

__all__ = ["READINGS", "READING_COLOURS", "judge_lines", "reading_counts_from_rows", "reading_figure", "reading_table"]

#: How a reply with text was read, in the order the bars stack: the deciding reading's verdict.
READINGS = ("correct", "wrong", "ambiguous", "unread", "refused")
#: One colour per reading: read answers in green / red, the replies nobody read in greys and ochre.
READING_COLOURS = {"correct": "#2ca02c", "wrong": "#d62728", "ambiguous": "#9467bd", "unread": "#7f7f7f",
                   "refused": "#bcbd22"}
#: The counts a reading table needs (`plates.dashboard.queries.READING_COUNTS`).
COUNTS = ("replies", "correct", "read", "ambiguous", "unread", "refused", "judge_asked", "judge_decided",
          "both_read", "agree")


def reading_counts_from_rows(frame: pd.DataFrame, by: tuple[str, ...] | None = None) -> pd.DataFrame:
    """What `plates.dashboard.queries.reading_counts` counts, from result rows in pandas.

    Parameters
    ----------
    frame : pandas.DataFrame
        Result rows (`plates.results.load_results`).
    by : tuple of str, optional
        The columns to group by (default: the `COUNT_KEYS` present).

    Returns
    -------
    pandas.DataFrame
        ``by`` and the `COUNTS` per group, over the replies with text (failed and declined requests left out).
    """
    keys = [c for c in (by or COUNT_KEYS) if c in frame.columns]
    rows = frame[~frame["parse_status"].astype(object).isin(("error", "unsupported"))]
    status = rows["parse_status"].astype(object)
    rules_ok = rows["rules_parse_status"].astype(object).eq("ok")
    judge_read = rows["judge_status"].astype(object).eq("read")
    both = rules_ok & judge_read
    flags = pd.DataFrame({
        "replies": True, "correct": rows["correct"].fillna(False).astype(bool), "read": status.eq("ok"),
        "ambiguous": status.eq("ambiguous"), "unread": status.eq("unparsed"), "refused": status.eq("refusal"),
        "judge_asked": rows["judge_model"].notna(), "judge_decided": rows["decided_by"].astype(object).eq("judge"),
        "both_read": both,
        "agree": both & rows["rules_parsed"].astype(object).eq(rows["judge_parsed"].astype(object)),
    }, index=rows.index).astype(int)
    plain = {k: rows[k].astype(object) if isinstance(rows[k].dtype, pd.CategoricalDtype) else rows[k] for k in keys}
    return flags.assign(**plain).groupby(keys, dropna=False, sort=True)[list(COUNTS)].sum().reset_index()


def reading_table(frame: pd.DataFrame | None = None, *, counts: pd.DataFrame | None = None) -> pd.DataFrame:
    """How the replies of each series, prompt and condition were read.

    Parameters
    ----------
    frame : pandas.DataFrame, optional
        Result rows; or
    counts : pandas.DataFrame, optional
        Their counts (`plates.dashboard.queries.reading_counts`, or `reading_counts_from_rows`).

    Returns
    -------
    pandas.DataFrame
        Per series, prompt and condition: the `COUNTS`; ``<reading>_share`` for each of `READINGS` (shares of the
        replies with text, summing to 1); ``accuracy`` (correct among replies: an unread reply counts as not
        correct) with its Wilson 95% interval ``ci_low``/``ci_high``; ``read_accuracy`` (correct among the
        replies read); ``agreement`` (the share of ``both_read`` where the rules and the judge read the same
        answer; NaN where none).

    Raises
    ------
    ValueError
        Neither ``frame`` nor ``counts`` given.
    """
    if counts is None:
        if frame is None:
            raise ValueError("give the result rows (frame) or their reading counts (counts=)")
        counts = reading_counts_from_rows(frame)
    if counts.empty:
        return pd.DataFrame(columns=[SERIES, "prompt_name", CONDITION, *COUNTS, *READINGS, "accuracy"])
    table = labelled_counts(counts)
    sums = table.groupby([SERIES, "prompt_name", CONDITION], observed=True, sort=True)[list(COUNTS)].sum()
    out = sums.reset_index()
    n = out["replies"].to_numpy(float)
    wrong = out["read"] - out["correct"]
    for name, k in (("correct", out["correct"]), ("wrong", wrong), ("ambiguous", out["ambiguous"]),
                    ("unread", out["unread"]), ("refused", out["refused"])):
        out[name + "_share"] = np.where(n > 0, k / np.where(n > 0, n, 1), np.nan)
    low, high = wilson_intervals(out["correct"].to_numpy(), out["replies"].to_numpy())
    read = out["read"].to_numpy(float)
    both = out["both_read"].to_numpy(float)
    return out.assign(
        accuracy=out["correct_share"], ci_low=low, ci_high=high,
        read_accuracy=np.where(read > 0, out["correct"] / np.where(read > 0, read, 1), np.nan),
        agreement=np.where(both > 0, out["agree"] / np.where(both > 0, both, 1), np.nan),
    )


def reading_figure(frame: pd.DataFrame | None = None, *, counts: pd.DataFrame | None = None,
                   condition: str | None = None) -> go.Figure:
    """Stacked shares of `READINGS` among the replies of each series and prompt, for one condition.

    Parameters
    ----------
    frame, counts : pandas.DataFrame, optional
        As `reading_table` takes them.
    condition : str, optional
        The condition drawn (default: the one with most replies); the others are named in the title.

    Returns
    -------
    plotly.graph_objects.Figure
        One bar trace per reading (colours `READING_COLOURS`), the accuracy and the accuracy among the replies
        read written above each bar; ``layout.meta`` names the condition shown and the others.

    Raises
    ------
    ValueError
        ``condition`` is not among the conditions present (the message lists them).
    """
    title = "How the replies were read: unread is not wrong"
    table = reading_table(frame, counts=counts)
    if table.empty:
        return empty_figure(title, "no replies with text")
    shown, others, table = choose(table, condition, "replies")
    several = table["prompt_name"].nunique() > 1
    x = [series_name(s, p, several) for s, p in zip(table[SERIES], table["prompt_name"])]
    counts_of = {"correct": table["correct"], "wrong": table["read"] - table["correct"],
                 "ambiguous": table["ambiguous"], "unread": table["unread"], "refused": table["refused"]}
    fig = go.Figure()
    for reading in READINGS:
        shares = table[reading + "_share"]
        fig.add_trace(go.Bar(
            x=x, y=shares, name=reading, marker_color=READING_COLOURS[reading],
            hovertext=[f"{reading}: {s:.1%} ({int(k)} of {int(n)} replies)"
                       for s, k, n in zip(shares, counts_of[reading], table["replies"])],
        ))
    labels = [f"accuracy {a:.0%}" + ("" if np.isnan(r) else f"<br>of read {r:.0%}")
              for a, r in zip(table["accuracy"], table["read_accuracy"])]
    fig.add_trace(go.Scatter(x=x, y=[1.0] * len(x), mode="text", text=labels, textposition="top center",
                             showlegend=False, hoverinfo="skip"))
    fig.update_layout(barmode="stack", yaxis=dict(title="share of replies", tickformat=".0%", range=[0, 1.18]),
                      legend=dict(traceorder="reversed"))  # the legend top-down as the stack
    return titled(fig, title, shown, others)


def judge_lines(table: pd.DataFrame) -> list[str]:
    """One line per series a judge model was asked about (`reading_table`'s rows, any prompts and conditions):
    the verdicts it decided among the replies, and how often it and the rules read the same answer where both
    read one (only ``--judge-all`` gives both readings of a reply). Empty when no judge was asked.

    Parameters
    ----------
    table : pandas.DataFrame
        `reading_table`'s rows.

    Returns
    -------
    list of str
        One line per series.

    Examples
    --------
    >>> judge_lines(pd.DataFrame({"series": ["a", "a"], "replies": [10, 10], "judge_asked": [4, 6],
    ...     "judge_decided": [2, 3], "both_read": [0, 4], "agree": [0, 3]}))
    ['a: the judge decided 5 of 20 verdicts (asked about 10); it read the same answer as the rules on 3 of the 4 replies both read (75%)']
    """
    if table.empty or "judge_asked" not in table.columns:
        return []
    per = table.groupby(SERIES, sort=True)[["replies", "judge_asked", "judge_decided", "both_read", "agree"]].sum()
    lines = []
    for series, row in per[per["judge_asked"] > 0].iterrows():
        line = (f"{series}: the judge decided {int(row['judge_decided'])} of {int(row['replies'])} verdicts "
                f"(asked about {int(row['judge_asked'])})")
        if row["both_read"] > 0:
            line += (f"; it read the same answer as the rules on {int(row['agree'])} of the {int(row['both_read'])} "
                     f"replies both read ({row['agree'] / row['both_read']:.0%})")
        else:
            line += "; no reply was read by both (ask with --judge-all to compare them)"
        lines.append(line)
    return lines
