"""Each dashboard page's numbers and figure from a `plates.dashboard.views.View`, without widgets: the Streamlit
sections call these (with their controls' values) and cache the result per page; the bench calls them too.

Cube pages (overview, comparison, colour sets, resolution, yes/no) filter the cube in pandas; the others ask
DuckDB for their own counts (`plates.dashboard.queries`): pairs (grayscale, chain of thought), ΔE2000 levels,
failure modes. Every page shows one condition at a time (or one column per condition) and names the others.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd
import plotly.graph_objects as go

from plates.analysis import comparison as matching
from plates.analysis import metrics
from plates.charts import comparison, published
from plates.charts import ishihara as charts
from plates.charts.common import CONDITION, SERIES, titled
from plates.charts.failure_modes import failure_mode_figure, failure_mode_table
from plates.charts.overview import overview_figure, overview_table
from plates.charts.reading import READINGS, reading_figure, reading_table
from plates.charts.views import seen_resolution_figure, seen_resolution_table
from plates.charts.yes_no import yes_no_figure, yes_no_table
from plates.dashboard import queries
from plates.dashboard.views import View
from plates.results.reference import load_reference
from plates.results.schema import PLATE_FAMILIES

_BY = ["run_id", "model", *queries.CONDITION_KEYS]
#: Pairs (colour vs grayscale, plain vs chain of thought) are found across runs of the same model, items and
#: condition: a prompt in one run pairs with its CoT variant in another (`queries.pairs` lists the runs).
_PAIR_BY = ["model", *queries.CONDITION_KEYS]


def paired_runs_notes(pairs: pd.DataFrame, side_a: str, side_b: str) -> tuple[str, ...]:
    """One line per model saying which runs were paired: ``side_a`` rows from these runs with ``side_b`` rows
    from those (``runs_a`` / ``runs_b`` of `queries.pairs`).

    Parameters
    ----------
    pairs : pandas.DataFrame
        `queries.pairs`' answer (``model``, ``pairs``, ``runs_a``, ``runs_b``).
    side_a, side_b : str
        What each side is, in words ("colour", "grayscale", a prompt name).

    Returns
    -------
    tuple of str
        One line per distinct model and run sets with pairs.
    """
    notes = {}
    for row in pairs.to_dict("records"):
        if not row.get("pairs"):
            continue
        a, b = sorted(map(str, row["runs_a"])), sorted(map(str, row["runs_b"]))
        line = f"{row['model']}: {side_a} from run {', '.join(a)} paired with {side_b} from run {', '.join(b)}"
        notes.setdefault(line, None)
    return tuple(notes)


def of_families(frame: pd.DataFrame, families: tuple[str, ...]) -> pd.Series:
    """Which rows of ``frame`` show a stimulus of one of ``families``: a row with no family (written before
    the column, when plates were the only family) is a plate (`plates.results.schema.PLATE_FAMILIES`). The
    rows' own column, so no page needs the task registry.

    Parameters
    ----------
    frame : pandas.DataFrame
        A cube or counts with the rows' ``family`` column (`plates.dashboard.queries.CUBE_COLUMNS`).
    families : tuple of str
        Stimulus family names (`plates.stimuli.STIMULI`: "ishihara", "illusion", "scene", "scene-recolour").

    Returns
    -------
    pandas.Series of bool
        One per row of ``frame``.
    """
    family = frame["family"].astype(object)
    chosen = family.isin(list(families))
    return chosen | family.isna() if set(families) & set(PLATE_FAMILIES) else chosen


def not_plate_tasks(view: View) -> list[str]:
    """The tasks of the opened results' rows about other families than plates: the ΔE2000 and seen-resolution
    queries leave their rows out (an illusion's signed ΔE2000 or a scene's colour difference is not a plate's
    dot contrast).

    Parameters
    ----------
    view : View
        The dashboard's view; its opened cube (every row, before the filters) says each task's family.

    Returns
    -------
    list of str
        Task names, sorted.
    """
    cube = view.opened.cube
    return sorted({str(t) for t in cube.loc[~of_families(cube, PLATE_FAMILIES), "task"].dropna()})


def plate_prompts(view: View, condition: str) -> pd.Series:
    """Answers per prompt on plates (rows of other families' tasks left out) under ``condition``, most first:
    the prompts the ΔE2000 page can show.

    Parameters
    ----------
    view : plates.dashboard.views.View
        The current view.
    condition : str
        A condition label.

    Returns
    -------
    pandas.Series
        Answers (``n``) indexed by prompt name.
    """
    cube = view.cube[(view.cube[CONDITION] == condition) & (view.cube["n"] > 0)]
    cube = cube[of_families(cube, PLATE_FAMILIES)]
    return cube.groupby("prompt_name", observed=True)["n"].sum().sort_values(ascending=False, kind="stable")


@dataclass(frozen=True)
class Page:
    """A page's figure, its numbers (shown under it) and notes (warnings to show above it).

    Parameters
    ----------
    figure : plotly.graph_objects.Figure
        The chart.
    table : pandas.DataFrame
        Its numbers.
    notes : tuple of str, optional
        Markdown notes.
    """

    figure: go.Figure
    table: pd.DataFrame
    notes: tuple[str, ...] = field(default_factory=tuple)


def conditions(view: View, *, without: tuple[str, ...] = (), prompts: tuple[str, ...] | None = None,
               plates: bool = False) -> list[str]:
    """The condition labels present in the view (leaving out ``without`` columns; only rows of ``prompts`` when
    given; ``plates``: of the plates' rows only, `plate_cube`), most rows first.

    Parameters
    ----------
    view : plates.dashboard.views.View
        The current view.
    without : tuple of str, optional
        Condition columns left out of the labels.
    prompts : tuple of str or None, optional
        Only these prompts' rows.
    plates : bool, optional
        Only the plates' rows.

    Returns
    -------
    list of str
    """
    cube = plate_cube(view) if plates else view.cube
    if prompts is not None:
        cube = cube[cube["prompt_name"].astype(str).isin(list(prompts))]
    cube = charts.with_condition(cube, without=without, column="_c")
    sizes = (cube["n"] + cube["errors"]).groupby(cube["_c"]).sum().sort_values(ascending=False, kind="stable")
    return [str(c) for c in sizes.index]


def repeated(view: View) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """Items asked more than once of one model under one prompt and condition (in several runs, or twice in an
    explorer session), and a note for each: such cells are drawn per run, never pooled, and flagged.

    Parameters
    ----------
    view : plates.dashboard.views.View
        The current view.

    Returns
    -------
    tuple of (pandas.DataFrame, tuple of str)
        `queries.repeated_items` with condition labels, and the notes.
    """
    explorer = view.cube.loc[view.cube["dataset"].astype(str) == "explorer", "run_id"].dropna().unique()
    # an item can repeat across runs only where one model has the same dataset, prompt and condition in several
    # runs (the cube says): only those models' rows are scanned (a model's plate, illusion and scene runs are
    # several runs, but no item of one is in another; scanning every row of such models took 11.7 s and
    # 618 MB at 1M rows)
    cells = ["model", "dataset", "prompt_name", *queries.CONDITION_KEYS, "shots"]
    runs = view.cube.groupby(cells, dropna=False, observed=True)["run_id"].nunique()
    models = sorted({str(key[0]) for key in runs[runs > 1].index})
    table = queries.repeated_items(view.opened.results, view.where, models=models, runs=sorted(map(str, explorer)))
    if table.empty:
        return table, ()
    table = charts.with_condition(table)
    notes = []
    for row in table.to_dict("records"):
        runs = [str(r) for r in row["runs"]]
        where = (
            f"in {len(runs)} runs ({', '.join(runs)}): each run is its own row, never pooled"
            if len(runs) > 1
            else f"more than once in run {runs[0]}: every answer counts in that row"
        )
        notes.append(
            f"{row['model']} · {row['prompt_name']} · {row[CONDITION]}: {int(row['items'])} item(s) asked "
            f"{where} ({int(row['asked'])} answers)"
        )
    notes = tuple(notes)
    return table, notes


#: The overview's family choices: label -> the stimulus families (`plates.stimuli.STIMULI` names, the rows'
#: ``family``) whose rows it shows; every family has a label (tests/dashboard/test_pages.py checks).
OVERVIEW_FAMILIES = {"plates": ("ishihara",), "illusions": ("illusion",), "scenes": ("scene", "scene-recolour")}


def overview_families(view: View) -> list[str]:
    """The `OVERVIEW_FAMILIES` the view has answers for, in that order.

    Parameters
    ----------
    view : plates.dashboard.views.View
        The current view.

    Returns
    -------
    list of str
        The family labels.
    """
    answered = view.cube[view.cube["n"] > 0]
    return [label for label, fams in OVERVIEW_FAMILIES.items() if of_families(answered, fams).any()]


def overview(view: View, family: str | None = None) -> Page:
    """Series x prompt · condition heatmap (the papers' values in the cells they match), its numbers, and a
    note per repeated item set. ``family`` (an `OVERVIEW_FAMILIES` label): only that family's tasks, so a
    first start holding plates, illusions and scenes stays readable; None: every row.

    Parameters
    ----------
    view : plates.dashboard.views.View
        The current view.
    family : str or None, optional
        An `OVERVIEW_FAMILIES` label.

    Returns
    -------
    Page

    Raises
    ------
    ValueError
        An unknown ``family``.
    """
    cube = view.cube
    if family is not None:
        if family not in OVERVIEW_FAMILIES:
            raise ValueError(f"family {family!r} is not known; allowed: {', '.join(OVERVIEW_FAMILIES)}")
        cube = cube[of_families(cube, OVERVIEW_FAMILIES[family])]
    table = overview_table(counts=cube)
    matched = matching.compare(table, view.reference)
    _, notes = repeated(view)
    return Page(overview_figure(table=table, comparison=matched), table, notes)


def compare(view: View) -> Page:
    """Our cells beside the papers' cells (same model, prompt, condition): difference and inside-or-not.

    Parameters
    ----------
    view : plates.dashboard.views.View
        The current view.

    Returns
    -------
    Page
        Without a same-model value, the papers' own models on the same questions as context, with a note.
    """
    cells = overview_table(counts=view.cube)
    table = matching.compare(cells, view.reference)
    if table.empty:  # no same-model value: the papers' models on the same questions, labelled as context
        near = matching.context(cells, view.reference)
        if len(near):
            return Page(comparison.context_figure(near), near,
                        ("No published value for these models. The grey points are the papers' OWN models on "
                         "the same prompt and condition: context for our cells, not a replication.",))
    return Page(comparison.comparison_figure(table), table, tuple(table.attrs.get("left_out", ())))


def plate_cube(view: View) -> pd.DataFrame:
    """The view's cube without other families' tasks: colour sets and image sizes are the plates' questions
    (an illusion's kind or a scene's task is their ``group``, not a colour set).

    Parameters
    ----------
    view : plates.dashboard.views.View
        The current view.

    Returns
    -------
    pandas.DataFrame
    """
    return view.cube[of_families(view.cube, PLATE_FAMILIES)]


def colour_sets(view: View, condition: str | None = None) -> Page:
    """Accuracy per colour set of the plates' rows for one condition, the papers' per-colour-set values beside
    (`plates.charts.colour_set_figure`), and its table.

    Parameters
    ----------
    view : plates.dashboard.views.View
        The current view.
    condition : str or None, optional
        The condition label drawn (None: the one with most rows).

    Returns
    -------
    Page
    """
    cube = plate_cube(view)
    return Page(
        charts.colour_set_figure(reference=view.reference, counts=cube, condition=condition),
        charts.colour_set_table(counts=cube),
    )


def resolution(view: View, condition: str | None = None, x: str = "size") -> Page:
    """Accuracy against the size sent (``x="size"``, per condition) or the pixels the model saw (``x="seen"``:
    the rows that record a view, `plates.charts.views`).

    Parameters
    ----------
    view : plates.dashboard.views.View
        The current view.
    condition : str or None, optional
        The condition label drawn (None: the one with most rows).
    x : str, optional
        "size" (px sent) or "seen" (pixels seen).

    Returns
    -------
    Page

    Raises
    ------
    ValueError
        An unknown ``x``.
    """
    if x == "seen":
        counts = view.label(queries.seen_counts(view.opened.results, view.where, not_plate_tasks(view)))
        return Page(seen_resolution_figure(counts), seen_resolution_table(counts))
    if x != "size":
        raise ValueError(f"resolution axis {x!r} is not valid; allowed: size, seen")
    cube = plate_cube(view)
    return Page(
        charts.resolution_figure(reference=view.reference, counts=cube, condition=condition),
        charts.resolution_table(counts=cube),
    )


def yes_no(view: View, condition: str | None = None) -> Page:
    """Y*/N against Y/N* accuracy per series for one condition (ColorBlindnessEval §4.1, Table 1), with a note
    saying what adds ours when only the paper's points are drawn.

    Parameters
    ----------
    view : plates.dashboard.views.View
        The current view.
    condition : str or None, optional
        The condition label drawn (None: the one with most rows).

    Returns
    -------
    Page

    References
    ----------
    ColorBlindnessEval, §4.1 and Table 1.
    """
    figure = yes_no_figure(reference=view.reference, counts=view.cube, condition=condition)
    hint = (figure.layout.meta or {}).get("hint")  # the paper's points only: say what adds ours
    notes = (hint.replace("<br>", " ").replace("<span style='font-family:monospace'>", " `")
             .replace("</span>", "`;").rstrip(";"),) if hint else ()
    return Page(figure, yes_no_table(counts=view.cube), notes)


def grayscale_pairs(view: View) -> pd.DataFrame:
    """Paired colour vs grayscale counts from DuckDB, scanning only the rows that can pair: the prompts and
    conditions (but grayscale) the cube shows both in colour and in grayscale. Kept in the view's memo: the
    page's condition control and its figure ask in one run (the figure per condition, the pairs the same).

    Parameters
    ----------
    view : plates.dashboard.views.View
        The current view.

    Returns
    -------
    pandas.DataFrame
        `queries.pairs` columns (grouped by series columns and task).
    """
    if "grayscale_pairs" in view.memo:
        return view.memo["grayscale_pairs"]
    cube = view.cube[view.cube["n"] > 0]
    others = [c for c in queries.CONDITION_KEYS if c != "grayscale"]
    gray = cube["grayscale"].fillna(False).astype(bool)
    sides = gray.groupby([cube[c] for c in ["prompt_name", *others]], dropna=False).transform("nunique")
    pairable = cube[sides.to_numpy() > 1]
    by = [c for c in _PAIR_BY if c != "grayscale"] + ["task"]  # grayscale is what the pairs compare
    if pairable.empty:
        pairs = pd.DataFrame(columns=[*by, *metrics.PAIR_COLUMNS])
    else:
        where = queries.Where(view.where.values,
                              pairable[list(queries.CONDITION_KEYS)].drop_duplicates().to_dict("records"))
        prompts = sorted({str(p) for p in pairable["prompt_name"]})
        pairs = queries.grayscale_pairs(view.opened.results, where, by, prompts=prompts)
    view.memo["grayscale_pairs"] = pairs
    return pairs


def grayscale(view: View, condition: str | None = None) -> Page:
    """`grayscale_pairs` as the grayscale table, and its figure for one condition.

    Parameters
    ----------
    view : plates.dashboard.views.View
        The current view.
    condition : str or None, optional
        The condition label drawn (None: the one with most rows).

    Returns
    -------
    Page
    """
    pairs = grayscale_pairs(view)
    table = charts.grayscale_table(pairs=view.label(pairs))
    return Page(charts.grayscale_figure(reference=view.reference, table=table, condition=condition), table,
                paired_runs_notes(pairs, "colour", "grayscale") if len(pairs) else ())


def chain_of_thought(view: View, condition: str | None = None) -> Page:
    """Paired plain vs chain-of-thought counts from DuckDB, for each prompt pair the cube holds.

    Parameters
    ----------
    view : plates.dashboard.views.View
        The current view.
    condition : str or None, optional
        The condition label drawn (None: the one with most rows).

    Returns
    -------
    Page
    """
    present = set(view.cube["prompt_name"].astype(str))
    pairs = [
        view.label(queries.cot_pairs(view.opened.results, view.where, _PAIR_BY, plain, cot)).assign(
            prompt=plain, cot_prompt=cot
        )
        for cot, plain in metrics.cot_pairs().items()
        if {cot, plain} <= present
    ]
    table = charts.cot_table(pairs=pairs)
    notes = tuple(n for p in pairs if len(p)
                  for n in paired_runs_notes(p, p["cot_prompt"].iloc[0], p["prompt"].iloc[0]))
    return Page(charts.cot_figure(reference=view.reference, table=table, condition=condition), table, notes)


def plate_levels(view: View, x: str = "delta_e") -> pd.DataFrame:
    """Answered ``n`` and ``correct`` per series, condition, prompt, colour set and ΔE2000 level (``x``) of the
    plates' rows (other families' tasks left out: an illusion's signed ΔE2000 is not a plate's level), with the
    ``condition`` label (`queries.levels`): one scan serves the ΔE2000 page's condition order and its figure,
    kept in the view's memo (its controls and its figure ask in one run).

    Parameters
    ----------
    view : plates.dashboard.views.View
        The current view.
    x : str, optional
        The level column (CIEDE2000).

    Returns
    -------
    pandas.DataFrame
    """
    if ("plate_levels", x) not in view.memo:
        # the view's filters and the plates' tasks: the rows of the plates' conditions (`plate_cube`) without
        # asking DuckDB to match every row against each condition's seven columns
        levels = queries.levels(view.opened.results, view.where, [*_BY, "prompt_name", "colour_set"], x=x,
                                not_tasks=not_plate_tasks(view))
        view.memo["plate_levels", x] = charts.with_condition(levels)
    return view.memo["plate_levels", x]


def delta_e_conditions(view: View) -> list[str]:
    """The plates' conditions for the ΔE2000 page, those with the most distinct ΔE2000 levels first (a sweep or
    a staircase before a preset that has one level per colour set: nothing to fit there), then most rows.

    Parameters
    ----------
    view : plates.dashboard.views.View
        The current view.

    Returns
    -------
    list of str
    """
    present = conditions(view, plates=True)
    if len(present) <= 1:
        return present
    spread = plate_levels(view).groupby(CONDITION)["level"].nunique()
    return sorted(present, key=lambda c: (-int(spread.get(c, 0)), present.index(c)))


def delta_e(
    view: View, condition: str | None = None, prompt: str | None = None, bins: int = 8, x: str = "delta_e"
) -> Page:
    """ΔE2000 levels from DuckDB for one condition (default: the most rows) and one prompt (default: the most
    answers); one fit per series x colour set (`plates.charts.delta_e`), shown under the figure.

    Parameters
    ----------
    view : plates.dashboard.views.View
        The current view.
    condition : str or None, optional
        The condition label drawn (None: the one with most rows).
    prompt : str or None, optional
        The prompt drawn (None: the one with most plate answers under the condition).
    bins : int, optional
        Level bins of the figure's points.
    x : str, optional
        The level column (CIEDE2000).

    Returns
    -------
    Page
        The fits' table under the figure (empty without levels).

    Raises
    ------
    ValueError
        A condition or prompt these results do not hold for plates.
    """
    present = delta_e_conditions(view)
    if not present:
        return Page(
            charts.delta_e_figure(levels=pd.DataFrame(columns=["model", "level", "n", "correct"])),
            pd.DataFrame(),
        )
    chosen = condition or present[0]  # the plates' conditions only: illusion and scene rows have no ΔE2000 level
    if chosen not in present:
        raise ValueError(f"condition {chosen!r} is not in these results; allowed: {', '.join(present)}")
    prompts = plate_prompts(view, chosen)
    if prompt is None and len(prompts):
        prompt = str(prompts.index[0])
    if prompt is not None and prompt not in prompts.index:
        raise ValueError(f"prompt {prompt!r} has no plate answers under {chosen!r}; allowed: "
                         f"{', '.join(map(str, prompts.index)) or 'none'}")
    every = plate_levels(view, x)  # the chosen condition's and prompt's rows of the one scan
    keep = every[CONDITION] == chosen
    if prompt:
        keep &= every["prompt_name"].astype(object) == prompt
    levels = view.label(every[keep].drop(columns=[CONDITION]).reset_index(drop=True))
    fits = charts.psychometric_fits(levels=levels) if len(levels) else None
    fig = charts.delta_e_figure(
        levels=levels, bins=bins, prompt=prompt if len(levels) else None, x=x, fits=fits
    )
    others = [c for c in present if c != chosen]
    meta = fig.layout.meta or {}
    fig.update_layout(
        meta={
            **meta,
            "condition": chosen,
            "others": others,
            "other_prompts": [str(p) for p in prompts.index if p != prompt],
        }
    )
    if others and not meta.get("empty"):
        titled(fig, fig.layout.title.text.split(" — ")[0], chosen, others)
    return Page(fig, fits.drop(columns=["fit"]) if fits is not None else pd.DataFrame())


def failure_modes(view: View, condition: str | None = None) -> Page:
    """Shares of failure modes among each series' wrong answers per prompt, for one condition
    (`plates.charts.failure_mode_figure`).

    Parameters
    ----------
    view : plates.dashboard.views.View
        The current view.
    condition : str or None, optional
        The condition label drawn (None: the one with most rows).

    Returns
    -------
    Page

    References
    ----------
    HueManity, App. E (the modes, described qualitatively).
    """
    counts = view.label(queries.failure_counts(view.opened.results, view.where, [*_BY, "prompt_name"]))
    table = failure_mode_table(counts=counts)
    return Page(failure_mode_figure(counts=counts, condition=condition), table)


def reading(view: View, condition: str | None = None, family: str | None = None) -> Page:
    """How each series' replies were read (correct, wrong, ambiguous, unread, refused) beside accuracy, and the
    judge model's part (`plates.charts.reading`): shown under the Overview and the Failure modes. ``family`` (an
    `OVERVIEW_FAMILIES` label): only that family's tasks, as the Overview shows them.

    Parameters
    ----------
    view : plates.dashboard.views.View
        The current view.
    condition : str or None, optional
        The condition drawn (None, or one holding no reply with text: the one with most replies).
    family : str or None, optional
        An `OVERVIEW_FAMILIES` label.

    Returns
    -------
    Page

    Raises
    ------
    ValueError
        An unknown ``family``.
    """
    counts = view.label(queries.reading_counts(view.opened.results, view.where,
                                               [*_BY, "prompt_name", "task", "family"]))
    if family is not None:
        if family not in OVERVIEW_FAMILIES:
            raise ValueError(f"family {family!r} is not known; allowed: {', '.join(OVERVIEW_FAMILIES)}")
        counts = counts[of_families(counts, OVERVIEW_FAMILIES[family])]
    table = reading_table(counts=counts)
    if condition is not None and condition not in set(table[CONDITION].astype(str)):
        condition = None  # the chosen condition holds no reply with text: show the one with most replies
    return Page(reading_figure(counts=counts, condition=condition), _reading_numbers(table))


def _reading_numbers(table: pd.DataFrame) -> pd.DataFrame:
    """The reading table's columns a reader of the page wants, in that order."""
    shares = [f"{r}_share" for r in READINGS]
    keep = [SERIES, "prompt_name", CONDITION, "replies", "accuracy", "ci_low", "ci_high", "read_accuracy", *shares,
            "judge_asked", "judge_decided", "both_read", "agree", "agreement"]
    return table[[c for c in keep if c in table.columns]]


#: Tasks the "Published numbers" page draws when none is chosen: the first few of the table, so a wide table
#: (ColorBench Table 1: 12 tasks x 35 rows) stays readable.
PUBLISHED_DEFAULT_TASKS = 3


def published_numbers(view: View, source: str | None = None, tasks: tuple[str, ...] = ()) -> Page:
    """One of the papers' own tables as a chart (`plates.charts.published`), whatever the results hold: the
    view's reference tables, or the package's when the sidebar hides them from the other pages.

    Parameters
    ----------
    view : plates.dashboard.views.View
        The current view.
    source : str or None, optional
        The paper's table (`plates.charts.published.sources`; None: the first).
    tasks : tuple of str, optional
        Its tasks drawn (empty: the first `PUBLISHED_DEFAULT_TASKS`).

    Returns
    -------
    Page
    """
    reference = view.reference if view.reference is not None else load_reference()
    source = source or published.sources(reference)[0]
    tasks = tasks or tuple(published.tasks(reference, source)[:PUBLISHED_DEFAULT_TASKS])
    table = published.published_table(reference, source, tasks)
    columns = ["row", "task", "condition", "colour_set", "size", "shots", "metric", "printed", "n", "prompt_name",
               "note"]
    return Page(published.published_figure(reference, source, tasks), table[columns].reset_index(drop=True))


#: Page name -> the function computing it from a view (and its own controls as keywords).
PAGES: dict[str, Callable[..., Page]] = {
    "overview": overview,
    "compare": compare,
    "colour_sets": colour_sets,
    "resolution": resolution,
    "grayscale": grayscale,
    "chain_of_thought": chain_of_thought,
    "yes_no": yes_no,
    "delta_e": delta_e,
    "failure_modes": failure_modes,
    "published": published_numbers,
    "reading": reading,
}

__all__ = [
    "PAGES",
    "Page",
    "chain_of_thought",
    "colour_sets",
    "compare",
    "conditions",
    "delta_e",
    "delta_e_conditions",
    "failure_modes",
    "grayscale",
    "grayscale_pairs",
    "overview",
    "overview_families",
    "plate_cube",
    "plate_prompts",
    "published_numbers",
    "reading",
    "repeated",
    "resolution",
    "yes_no",
]
