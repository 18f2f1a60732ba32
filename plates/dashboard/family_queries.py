"""The family pages' numbers as DuckDB aggregations (Illusions, Scenes (ColorBench), People): collapsed rows.

A family metric counts result rows that share what it reads (a model, a prompt, the question's facts, the
verdict), so each page asks DuckDB for exactly those columns, the facts taken out of ``truth_json`` by DuckDB's
JSON functions (`plates.analysis.truth.with_truth`'s columns, and its ``answer``: the option's meaning, else the
parsed answer), grouped, with ``weight`` = the result rows each group stands for (`plates.analysis.metrics.WEIGHT`):
the metrics of `plates.analysis.illusions`, `plates.analysis.colorbench`, `plates.analysis.people` and the
psychometric fits count each collapsed row ``weight`` times, so the tables equal the row-level ones
(tests/dashboard/test_family_queries.py compares them). No page reads ``truth_json``, ``reply`` or an item id
into pandas: the Scenes page's items asked both ways are paired in DuckDB (`scene_effects`; ColorBench §3.2).

* `illusion_counts`: every column the Illusions page reads (RCID §4.1, IllusionBench+ App. A2, the PSE).
* `scene_counts`, `scene_effects`, `scene_params`, `scene_param_counts`: per task, robustness (the seed is the
  row's colour set), the grayscale / chain-of-thought pairs, the difficulty parameters (truth ``params``).
* `has_rows`, `participants`, `people_counts`: the People page asks whether any human row passes the filters
  before anything else; then, for the section it shows, plate levels, illusion comparisons or accuracy rows of
  the people and of the models on the prompts people answered (a model beside people on a prompt no person answered compares with no
  one), the people pooled in DuckDB ("people (K participants)") and fitted one by one only for those shown (a
  public quiz gathers hundreds: each fit costs tens of milliseconds, and a chart of hundreds reads as none).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from plates.analysis.metrics import WEIGHT
from plates.analysis.people import pooled_label
from plates.dashboard.queries import CONDITION_KEYS, Where, in_list, quote
from plates.results.query import Results
from plates.results.schema import COLUMNS

__all__ = ["ILLUSION_FACTS", "PEOPLE_FAMILIES", "PEOPLE_PARTS", "SCENE_FAMILIES", "ScenePage", "collapsed", "has_rows",
           "illusion_counts", "participants", "people_counts", "with_people", "scene_counts", "scene_effects",
           "scene_page", "scene_param_counts", "scene_params"]

#: The illusion facts of ``truth_json`` the pages read -> their DuckDB type (`plates.tasks.illusions`).
ILLUSION_FACTS = {"framing": "VARCHAR", "kind": "VARCHAR", "strength": "DOUBLE", "item_class": "VARCHAR",
                  "pixel_answer": "VARCHAR", "human_answer": "VARCHAR", "signed_delta_e": "DOUBLE",
                  "induced_lighter": "VARCHAR"}
SCENE_FAMILIES = ("scene", "scene-recolour")
PEOPLE_FAMILIES = ("ishihara", "illusion")
#: `with_truth`'s ``answer``: what a parsed option means (``meanings``, e.g. "II" -> "B darker"), else the
#: parsed answer itself.
ANSWER = ("coalesce(TRY_CAST(json_extract(truth_json, '$.meanings') AS MAP(VARCHAR, VARCHAR))[parsed], parsed)"
          " AS answer")
#: `plates.analysis.illusions.family_rows`' ``failed``: the request failed (an error and no verdict).
FAILED = "(error IS NOT NULL AND correct IS NULL) AS failed"
_HUMAN = "backend = 'human'"
#: Every truth_json value the family queries read, in one list extraction: DuckDB parses the document once for
#: all of them (a json_extract per fact parsed it once each, 3-4x the time).
_PATHS = "[" + ", ".join(f"'$.{name}'" for name in ILLUSION_FACTS) + "]"
#: What a `collapsed` expression over it reads once per distinct document, not per row ...
_DOC = "truth_json"
#: ... and the results columns such an expression may read besides it (`ANSWER`: the parsed option)
_WORDS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def fact_columns(names: Sequence[str]) -> list[str]:
    """The `ILLUSION_FACTS` ``names`` out of ``truth_json`` as SQL columns (`_PATHS`: one parse per document).

    Each column reads its fact from the one list extraction of every fact's JSON path, so DuckDB parses a row's
    ``truth_json`` once however many facts are asked for.

    Parameters
    ----------
    names : sequence of str
        Keys of `ILLUSION_FACTS`, in the order the columns should come.

    Returns
    -------
    list of str
        One DuckDB select expression ``... AS "name"`` per name: the fact as text for a VARCHAR fact, else
        ``TRY_CAST`` to its type (DOUBLE), so a value that does not convert reads as NULL.

    Raises
    ------
    ValueError
        A name that is not a key of `ILLUSION_FACTS` (``list.index``'s message, which names it).
    """
    columns = []
    for name in names:
        value = f"json_extract_string(truth_json, {_PATHS})[{list(ILLUSION_FACTS).index(name) + 1}]"
        kind = ILLUSION_FACTS[name]
        columns.append(f"{value} AS {quote(name)}" if kind == "VARCHAR" else f"TRY_CAST({value} AS {kind}) AS {quote(name)}")
    return columns


def collapsed(results: Results, where: Where, families: Sequence[str], select: Sequence[str],
              extra: str = "", params: dict[str, Any] | None = None) -> pd.DataFrame:
    """``select`` (column names or SQL expressions ``... AS name``) of the rows of ``families`` passing
    ``where`` (and the SQL ``extra``, with its ``params``), one row per distinct combination with its
    ``weight`` (result rows), sorted.

    Parameters
    ----------
    results : plates.results.query.Results
        The opened results.
    where : plates.dashboard.queries.Where
        The page's row filters.
    families : sequence of str
        Stimulus families kept.
    select : sequence of str
        Columns or SQL expressions (``... AS name``).
    extra : str, optional
        An SQL condition ANDed in.
    params : dict or None, optional
        Its named parameters.

    Returns
    -------
    pandas.DataFrame
        The selected columns and ``weight``.
    """
    sql, every = _collapsed_sql(where, families, select, extra, params)
    return results.query(f"{sql} ORDER BY ALL", every)


def _name(column: str) -> str:
    """The output name of a ``select`` entry (a column name, or an SQL expression ``... AS name``)."""
    return column.rsplit(" AS ", 1)[1].strip().strip('"') if " AS " in column else column


def _collapsed_sql(where: Where, families: Sequence[str], select: Sequence[str], extra: str = "",
                   params: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
    """`collapsed`'s query (unsorted) and its parameters."""
    if isinstance(families, str) or not families:
        raise ValueError(f"families={families!r} is not valid; allowed: a non-empty list of family names")
    params = dict(params or {})
    restrict = in_list("family", list(families), "family", params) + (f" AND ({extra})" if extra else "")
    clause, more = where.sql(restrict)
    every = {**params, **more}
    docs = [c for c in select if " AS " in c and _DOC in _WORDS.findall(c)]
    if not docs:
        columns = ", ".join(c if " AS " in c else quote(c) for c in select)
        return f"SELECT {columns}, count(*) AS {WEIGHT} FROM results {clause} GROUP BY ALL", every
    # expressions over truth_json read each distinct document once (1,134 documents behind 513,000 illusion
    # rows at 10M rows: parsing every row's was most of the Illusions page's query): the rows are collapsed with
    # their document, the documents' facts read from the collapsed rows' distinct documents and joined back (a
    # row without one too); an expression reading another column too (`ANSWER`: ``parsed``) is evaluated after
    # the join, that column kept in the collapsed rows
    reads = {c: set(_WORDS.findall(c)) & (set(COLUMNS) - {_DOC}) for c in docs}
    kept = [c for c in select if c not in docs]
    names = {c for c in kept if " AS " not in c}
    hidden = sorted({name for used in reads.values() for name in used} - names)
    inner = ", ".join([*(c if " AS " in c else quote(c) for c in kept), *(quote(h) for h in hidden),
                       f"{_DOC} AS _doc"])
    pure = [c for c in docs if not reads[c]]
    outer = ", ".join(f"f.{quote(_name(c))}" if c in pure else c if c in docs else f"r.{quote(_name(c))}"
                      for c in select)
    return (f"""WITH r AS (SELECT {inner}, count(*) AS {WEIGHT} FROM results {clause} GROUP BY ALL),
                 f AS (SELECT {', '.join(['_doc', _DOC, *pure])} FROM (SELECT DISTINCT _doc, _doc AS {_DOC} FROM r))
            SELECT {outer}, CAST(sum(r.{WEIGHT}) AS BIGINT) AS {WEIGHT}
            FROM r JOIN f ON r._doc IS NOT DISTINCT FROM f._doc GROUP BY ALL""", every)


def illusion_counts(results: Results, where: Where, shown: Sequence[str] | None = None) -> pd.DataFrame:
    """The Illusions page's collapsed rows: model, backend, family, task, prompt, expected and parsed answers,
    verdict, `ILLUSION_FACTS`, ``answer``, ``failed``, ``weight``. With ``shown`` (the people drawn one by
    one), the other people's rows only in the pool "people (K participants)" (`with_people`, ``pooled``).

    Parameters
    ----------
    results : plates.results.query.Results
        The opened results.
    where : plates.dashboard.queries.Where
        The page's row filters.
    shown : sequence of str or None, optional
        The people drawn one by one; None: no pooling (`collapsed`).

    Returns
    -------
    pandas.DataFrame
    """
    facts = fact_columns(list(ILLUSION_FACTS))
    select = ["backend", "family", "task", "prompt_name", "expected", "parsed", "correct", *facts, ANSWER, FAILED]
    if shown is None:
        return collapsed(results, where, ("illusion",), ["model", *select])
    return with_people(results, where, ("illusion",), select, "true", shown)


_RECOLOUR = "json_extract_string(truth_json, '$.recolour') AS recolour"
#: the options a row's question showed (guessing's accuracy: `plates.analysis.colorbench.chance_by_task`)
_N_OPTIONS = "CAST(json_array_length(options_json) AS INTEGER) AS n_options"
#: What the Scenes page reads of a scene row, the facts out of truth_json and options_json (``params``: the
#: question's parameters, a JSON object) ...
_SCENE_ROWS = ["model", "backend", "family", "task", "prompt_name", "grayscale", quote("group"), "correct", "item_id",
               _RECOLOUR, _N_OPTIONS, FAILED, "json_extract(truth_json, '$.params') AS params"]
#: ... and what its counts keep of them (one weight per distinct combination)
_SCENE = ["model", "backend", "family", "task", "prompt_name", "grayscale", "group", "correct", "recolour",
          "n_options", "failed"]
#: the parameter values the difficulty curves read: numbers and labels
_SCALARS = "('BIGINT', 'UBIGINT', 'DOUBLE', 'VARCHAR')"


def _scene_source(where: Where) -> tuple[str, dict[str, Any]]:
    """(SQL of the scene rows passing ``where`` as `_SCENE_ROWS`, its parameters): what every Scenes query
    reads, the results' rows (one query) or `scene_page`'s table of them (several)."""
    params: dict[str, Any] = {}
    clause, more = where.sql(in_list("family", list(SCENE_FAMILIES), "family", params))
    return f"(SELECT {', '.join(_SCENE_ROWS)} FROM results {clause})", {**params, **more}


def _counts(results: Results, source: str, params: dict[str, Any]) -> pd.DataFrame:
    columns = ", ".join(quote(c) for c in _SCENE)
    return results.query(f"SELECT {columns}, count(*) AS {WEIGHT} FROM {source} GROUP BY ALL ORDER BY ALL", params)


def scene_counts(results: Results, where: Where) -> pd.DataFrame:
    """The Scenes page's collapsed rows for accuracy per task, the overall score and robustness (ColorBench
    §2.3: the seed is the row's ``group``, the variant its ``recolour`` fact).

    Parameters
    ----------
    results : plates.results.query.Results
        The opened results.
    where : plates.dashboard.queries.Where
        The page's row filters.

    Returns
    -------
    pandas.DataFrame

    References
    ----------
    Liang et al. 2025 (ColorBench), §2.3.
    """
    return _counts(results, *_scene_source(where))


def _effects(results: Results, source: str, params: dict[str, Any]) -> pd.DataFrame:
    """`scene_effects` over ``source``: each side's answered and right rows counted per item in one pass (an
    item pairs when both sides have an answered row), then summed per model and task."""
    sides = ("SELECT model, task, count(*) FILTER (WHERE {a} AND correct IS NOT NULL) AS na, "
             "count(*) FILTER (WHERE {a} AND correct) AS ka, count(*) FILTER (WHERE NOT {a} AND correct IS NOT NULL) "
             "AS nb, count(*) FILTER (WHERE NOT {a} AND correct) AS kb FROM seed WHERE {keep} GROUP BY {item}")
    pair = ("SELECT '{effect}' AS effect, model, task, count(*) AS pairs, sum(ka) / sum(na) AS acc_a, "
            "sum(kb) / sum(nb) AS acc_b FROM {name} WHERE na > 0 AND nb > 0 GROUP BY model, task")
    return results.query(
        f"""WITH seed AS (
                SELECT model, task, item_id, prompt_name, coalesce(grayscale, false) AS _gray,
                       coalesce(ends_with(prompt_name, '-cot'), false) AS _cot, correct
                FROM {source} WHERE coalesce(recolour, 'seed') = 'seed'),
            gray AS ({sides.format(a="NOT _gray", keep="NOT _cot", item="model, task, item_id")}),
            cot AS ({sides.format(a="_cot", keep="NOT _gray",
                                  item="model, task, item_id, regexp_replace(prompt_name, '-cot$', '')")})
            {pair.format(effect="grayscale", name="gray")}
            UNION ALL {pair.format(effect="cot", name="cot")}
            ORDER BY effect DESC, model NULLS LAST, task NULLS LAST""", params)


def scene_effects(results: Results, where: Where) -> pd.DataFrame:
    """`plates.charts.scenes.scene_effects` in DuckDB (`EFFECT_COLUMNS`): per model and task, the seed scenes'
    items answered both in colour and in grayscale (same prompt, no chain of thought), and both with a "-cot"
    prompt and its plain twin (in colour), with each side's accuracy over the paired items (ColorBench §3.2,
    Table 4). Only these aggregates reach pandas, never the items (`plates.analysis.colorbench.paired_accuracy`'s
    rules: a row counts when answered; an item pairs when both sides have an answered row).

    Parameters
    ----------
    results : plates.results.query.Results
        The opened results.
    where : plates.dashboard.queries.Where
        The page's row filters.

    Returns
    -------
    pandas.DataFrame
        `EFFECT_COLUMNS`.

    References
    ----------
    Liang et al. 2025 (ColorBench), §3.2 and Table 4.
    """
    return _effects(results, *_scene_source(where))


def _param_names(results: Results, source: str, params: dict[str, Any]) -> list[str]:
    # the distinct shapes of the rows' parameters (a few: one per kind of question), never the rows' values; a
    # name holding '"' cannot be asked for by its JSON path and is left out
    shapes = results.query(f"SELECT DISTINCT json_structure(params) AS shape FROM {source} "
                           "WHERE json_type(params) = 'OBJECT'", params)
    scalars = {t.strip("'") for t in _SCALARS.strip("()").split(", ")}
    return sorted({key for shape in shapes["shape"] for key, kind in json.loads(shape).items()
                   if isinstance(kind, str) and kind in scalars and '"' not in key})


def scene_params(results: Results, where: Where) -> list[str]:
    """The question parameters (truth ``params`` keys) with a number or a label on some scene row, sorted
    (`plates.charts.scenes.difficulty_params`' answer, from DuckDB).

    Parameters
    ----------
    results : plates.results.query.Results
        The opened results.
    where : plates.dashboard.queries.Where
        The page's row filters.

    Returns
    -------
    list of str
    """
    return _param_names(results, *_scene_source(where))


def _param_counts(results: Results, source: str, params: dict[str, Any], param: str) -> pd.DataFrame:
    columns = ", ".join(quote(c) for c in _SCENE)
    rows = results.query(
        f"""SELECT {columns}, json_type(_v) AS _type, CAST(_v AS VARCHAR) AS _value, count(*) AS {WEIGHT}
            FROM (SELECT *, json_extract(params, $param_path) AS _v FROM {source})
            WHERE json_type(_v) IN {_SCALARS} GROUP BY ALL ORDER BY ALL""",
        {**params, "param_path": f'$."{param}"'})
    values = [float(v) if t != "VARCHAR" else json.loads(v) for t, v in zip(rows["_type"], rows["_value"])]
    return rows.drop(columns=["_type", "_value"]).assign(params=[{param: v} for v in values])


def scene_param_counts(results: Results, where: Where, param: str) -> pd.DataFrame:
    """`scene_counts`' columns with one question parameter ``param`` (one of `scene_params`) as ``params``, a
    {param: value} dict per row, as `plates.charts.scenes.difficulty_long` reads it (numbers as floats).

    Parameters
    ----------
    results : plates.results.query.Results
        The opened results.
    where : plates.dashboard.queries.Where
        The page's row filters.
    param : str
        One of `scene_params`.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    ValueError
        ``param`` is not a parameter of these rows.
    """
    source, params = _scene_source(where)
    rows = _param_counts(results, source, params, param)
    # no row holds it as a number or a label: exactly a parameter `scene_params` does not list (the allowed
    # names are scanned for only then, not on every call)
    if rows.empty or '"' in param:
        allowed = _param_names(results, source, params)
        if param not in allowed:
            raise ValueError(f"difficulty parameter {param!r} is not in these rows; allowed: "
                             f"{', '.join(allowed) or 'none'}")
    return rows


@dataclass(frozen=True)
class ScenePage:
    """What the Scenes page draws on its first view: `scene_counts`, `scene_effects`, `scene_params` and the
    first parameter's `scene_param_counts` (None without parameters).

    Parameters
    ----------
    counts : pandas.DataFrame
        `scene_counts`.
    effects : pandas.DataFrame
        `scene_effects`.
    params : list of str
        `scene_params`.
    first : pandas.DataFrame or None
        The first parameter's `scene_param_counts`.
    """

    counts: pd.DataFrame
    effects: pd.DataFrame
    params: list[str]
    first: pd.DataFrame | None


def scene_page(results: Results, where: Where) -> ScenePage:
    """`ScenePage` from one scan: the scene rows' `_SCENE_ROWS` (truth_json parsed once) are kept in a DuckDB
    table for the four aggregations, then dropped (four scans of the results parsed each row's JSON four
    times; the cost is in docs/benchmarks.md, "Figures moved from docstrings").

    Parameters
    ----------
    results : plates.results.query.Results
        The opened results.
    where : plates.dashboard.queries.Where
        The page's row filters.

    Returns
    -------
    ScenePage
    """
    source, params = _scene_source(where)
    table = f"scene_rows_{uuid.uuid4().hex}"
    # on a cursor of its own (`Results.query`), not the shared connection's lock: other visitors' queries run on
    results.query(f"CREATE TABLE {table} AS SELECT * FROM {source}", params)
    try:
        names = _param_names(results, table, {})
        return ScenePage(_counts(results, table, {}), _effects(results, table, {}), names,
                         _param_counts(results, table, {}, names[0]) if names else None)
    finally:
        results.query(f"DROP TABLE IF EXISTS {table}")


def has_rows(results: Results, where: Where, column: str, value: str, families: Sequence[str] = ()) -> bool:
    """Whether any row passing the filters (and of ``families``, when given) has ``column`` = ``value``; DuckDB
    stops at the first. The People page asks it first, so results without a human row read nothing more.

    Parameters
    ----------
    results : plates.results.query.Results
        The opened results.
    where : plates.dashboard.queries.Where
        The page's row filters.
    column : str
        A results column.
    value : str
        The value looked for.
    families : sequence of str, optional
        Stimulus families looked in (empty: all).

    Returns
    -------
    bool
    """
    params: dict = {"has_value": value}
    extra = f"{quote(column)} = $has_value"
    if families:
        extra += " AND " + in_list("family", list(families), "family", params)
    clause, more = where.sql(extra)
    frame = results.query(f"SELECT EXISTS (SELECT 1 FROM results {clause}) AS found", {**params, **more})
    return bool(frame["found"].iloc[0])


def participants(results: Results, where: Where) -> pd.DataFrame:
    """The people (human ``model`` values) whose plate or illusion rows pass the filters, with their
    ``answers``, most answers first (then by name).

    Parameters
    ----------
    results : plates.results.query.Results
        The opened results.
    where : plates.dashboard.queries.Where
        The page's row filters.

    Returns
    -------
    pandas.DataFrame
        ``model`` and ``answers``.
    """
    params: dict[str, Any] = {}
    clause, more = where.sql(f"{in_list('family', list(PEOPLE_FAMILIES), 'family', params)} AND {_HUMAN}")
    return results.query(f"SELECT model, count(*) AS answers FROM results {clause} GROUP BY model "
                         "ORDER BY answers DESC, model", {**params, **more})


def with_people(results: Results, where: Where, families: Sequence[str], select: Sequence[str], extra: str,
                shown: Sequence[str] | None, params: dict[str, Any] | None = None) -> pd.DataFrame:
    """`collapsed` rows (``select`` after ``model``, under the SQL ``extra``) with ``pooled``: the models' rows
    and those of the people in ``shown`` (None: every person) as they are, then every person's rows once more
    under "people (K participants)" (`plates.analysis.people.pooled_label`, K the people behind them) with
    ``pooled`` True, as `plates.analysis.people.with_pooled` pools them: a public quiz gathers hundreds of people,
    and a fit or a bar per person costs time and reads as none. One query (the facts read out of ``truth_json``
    once): DuckDB collapses every model's and person's rows, keeps those drawn one by one and adds up the
    people's collapsed rows into the pool, so the rows of people not shown never reach pandas.

    Parameters
    ----------
    results : plates.results.query.Results
        The opened results.
    where : plates.dashboard.queries.Where
        The page's row filters.
    families : sequence of str
        Stimulus families kept.
    select : sequence of str
        Columns or SQL expressions after ``model``.
    extra : str
        An SQL condition ANDed in.
    shown : sequence of str or None
        The people drawn one by one (None: every person).
    params : dict or None, optional
        ``extra``'s named parameters.

    Returns
    -------
    pandas.DataFrame
        ``model``, the selected columns, ``weight`` and ``pooled``.
    """
    select = ["model", *select]
    sql, every = _collapsed_sql(where, families, select, extra, params)
    human = "coalesce(backend = 'human', false)"
    if shown is None:
        one_by_one = "TRUE"
    elif len(shown):
        one_by_one = f"NOT {human} OR coalesce({in_list('model', list(shown), 'shown', every)}, false)"
    else:
        one_by_one = f"NOT {human}"
    names = [_name(c) for c in select]
    keys = ", ".join(quote(n) for n in names[1:])
    # the pool's rows sort after every row drawn one by one, each part in `collapsed`'s order (the pool's
    # model is one label: its keys' order)
    rows = results.query(
        f"""WITH c AS ({sql})
            SELECT *, NULL::BIGINT AS _k FROM (SELECT *, false AS pooled FROM c WHERE {one_by_one})
            UNION ALL
            SELECT NULL::VARCHAR AS model, {keys}, CAST(sum({WEIGHT}) AS BIGINT) AS {WEIGHT}, true AS pooled,
                   (SELECT count(DISTINCT model) FROM c WHERE {human}) AS _k
            FROM c WHERE {human} GROUP BY ALL
            ORDER BY pooled, {', '.join(quote(n) for n in [*names, WEIGHT])}""", every)
    pooled = rows["pooled"].to_numpy(bool)
    if pooled.any():
        rows.loc[pooled, "model"] = pooled_label(int(rows.loc[pooled, "_k"].iloc[0]))
    return rows.drop(columns="_k")


#: The People page's tables, each its own scan (`people_counts`): the page reads the one it shows.
PEOPLE_PARTS = ("plates", "illusions", "accuracy")


def people_counts(results: Results, where: Where, shown: Sequence[str] | None = None, *,
                  everyone: bool = False, parts: Sequence[str] = PEOPLE_PARTS) -> dict[str, pd.DataFrame]:
    """The People page's collapsed rows of the people and of the models on the prompts people answered (module
    docstring; ``everyone``: the models on every prompt, what the page draws before any person has answered),
    by `with_people` (``shown``: the people fitted one by one; None: every one): ``"plates"``
    (ΔE2000 levels per prompt, condition and colour set: the threshold fits), ``"illusions"`` (the comparison
    facts: the PSE fits), ``"accuracy"`` (rows with an answer key: `plates.analysis.people.people_accuracy`);
    only the ``parts`` asked for (of `PEOPLE_PARTS`), one scan each.

    Parameters
    ----------
    results : plates.results.query.Results
        The opened results.
    where : plates.dashboard.queries.Where
        The page's row filters.
    shown : sequence of str or None, optional
        The people fitted one by one (None: every one).
    everyone : bool, optional
        The models' rows on every prompt.
    parts : sequence of str, optional
        Of `PEOPLE_PARTS`.

    Returns
    -------
    dict of str to pandas.DataFrame
        One table per part asked for.

    Raises
    ------
    ValueError
        An unknown part.
    """
    unknown = [p for p in parts if p not in PEOPLE_PARTS]
    if unknown:
        raise ValueError(f"people_counts parts {unknown} are not known; allowed: {', '.join(PEOPLE_PARTS)}")
    def beside(families: Sequence[str], params: dict[str, Any]) -> str:
        """Models beside people on the prompts people answered in ``families``; before any person answered
        there (``everyone``, or no human row of those families), every model's rows: the page draws the models'
        own fits for when people are added."""
        if everyone:
            return "TRUE"
        clause, more = where.sql(f"{in_list('family', list(families), 'hf', params)} AND {_HUMAN}")
        params.update(more)
        people_prompts = f"SELECT DISTINCT prompt_name FROM results {clause}"
        return f"({_HUMAN} OR prompt_name IN ({people_prompts}) OR NOT EXISTS ({people_prompts}))"

    who = ["backend", "family", "prompt_name"]
    facts = fact_columns(["framing", "kind", "strength", "signed_delta_e", "induced_lighter"])
    asks = {"plates": (("ishihara",), [*who, "options_json", *CONDITION_KEYS, "colour_set", "delta_e", "correct"],
                       "delta_e IS NOT NULL"),
            "illusions": (("illusion",), [*who, "task", *facts, ANSWER, FAILED], "task = 'rcid-compare'"),
            "accuracy": (PEOPLE_FAMILIES, [*who, "correct"], "correct IS NOT NULL AND coalesce(expected, '') <> ''")}
    counts = {}
    for name in parts:
        fams, select, extra = asks[name]
        params: dict[str, Any] = {}  # each query gets exactly its own parameters (DuckDB refuses extra ones)
        counts[name] = with_people(results, where, fams, select, f"{extra} AND {beside(fams, params)}", shown, params)
    return counts
