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
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from plates.analysis.metrics import WEIGHT
from plates.analysis.people import pooled_label
from plates.dashboard.queries import CONDITION_KEYS, Where, in_list, quote
from plates.results.query import Results

__all__ = ["ILLUSION_FACTS", "PEOPLE_FAMILIES", "PEOPLE_PARTS", "SCENE_FAMILIES", "collapsed", "has_rows", "illusion_counts",
           "participants", "people_counts", "with_people", "scene_counts", "scene_effects", "scene_param_counts", "scene_params"]

#: The illusion facts of ``truth_json`` the pages read -> their DuckDB type (`plates.tasks.illusion_tasks`).
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


def _facts(names: Sequence[str]) -> list[str]:
    """The `ILLUSION_FACTS` ``names`` out of ``truth_json`` as SQL columns, the document parsed once for all of
    them (DuckDB shares the one list extraction; a json_extract per fact parsed it once each, 3-4x the time)."""
    paths = "[" + ", ".join(f"'$.{name}'" for name in names) + "]"
    columns = []
    for i, name in enumerate(names, start=1):
        value = f"json_extract_string(truth_json, {paths})[{i}]"
        kind = ILLUSION_FACTS[name]
        columns.append(f"{value} AS {quote(name)}" if kind == "VARCHAR" else f"TRY_CAST({value} AS {kind}) AS {quote(name)}")
    return columns


def collapsed(results: Results, where: Where, families: Sequence[str], select: Sequence[str],
              extra: str = "", params: dict[str, Any] | None = None) -> pd.DataFrame:
    """``select`` (column names or SQL expressions ``... AS name``) of the rows of ``families`` passing
    ``where`` (and the SQL ``extra``, with its ``params``), one row per distinct combination with its
    ``weight`` (result rows), sorted."""
    if isinstance(families, str) or not families:
        raise ValueError(f"families={families!r} is not valid; allowed: a non-empty list of family names")
    params = dict(params or {})
    restrict = in_list("family", list(families), "family", params) + (f" AND ({extra})" if extra else "")
    clause, more = where.sql(restrict)
    columns = ", ".join(c if " AS " in c else quote(c) for c in select)
    return results.query(f"SELECT {columns}, count(*) AS {WEIGHT} FROM results {clause} GROUP BY ALL "
                         "ORDER BY ALL", {**params, **more})


def illusion_counts(results: Results, where: Where, shown: Sequence[str] | None = None) -> pd.DataFrame:
    """The Illusions page's collapsed rows: model, backend, family, task, prompt, expected and parsed answers,
    verdict, `ILLUSION_FACTS`, ``answer``, ``failed``, ``weight``. With ``shown`` (the people drawn one by
    one), the other people's rows only in the pool "people (K participants)" (`with_people`, ``pooled``)."""
    facts = _facts(list(ILLUSION_FACTS))
    select = ["backend", "family", "task", "prompt_name", "expected", "parsed", "correct", *facts, ANSWER, FAILED]
    if shown is None:
        return collapsed(results, where, ("illusion",), ["model", *select])
    return with_people(results, where, ("illusion",), select, "true", shown)


_RECOLOUR = "json_extract_string(truth_json, '$.recolour') AS recolour"
#: the options a row's question showed (guessing's accuracy: `plates.analysis.colorbench.chance_by_task`)
_N_OPTIONS = "CAST(json_array_length(options_json) AS INTEGER) AS n_options"
_SCENE = ["model", "backend", "family", "task", "prompt_name", "grayscale", "colour_set", "correct", _RECOLOUR,
          _N_OPTIONS, FAILED]
_SEED = "coalesce(json_extract_string(truth_json, '$.recolour'), 'seed') = 'seed'"


def scene_counts(results: Results, where: Where) -> pd.DataFrame:
    """The Scenes page's collapsed rows for accuracy per task, the overall score and robustness (ColorBench
    §2.3: the seed is the row's ``colour_set``, the variant its ``recolour`` fact)."""
    return collapsed(results, where, SCENE_FAMILIES, _SCENE)


def scene_effects(results: Results, where: Where) -> pd.DataFrame:
    """`plates.charts.scenes.scene_effects` in DuckDB (`EFFECT_COLUMNS`): per model and task, the seed scenes'
    items answered both in colour and in grayscale (same prompt, no chain of thought), and both with a "-cot"
    prompt and its plain twin (in colour), with each side's accuracy over the paired items (ColorBench §3.2,
    Table 4). Only these aggregates reach pandas, never the items (`plates.analysis.colorbench._paired`'s
    rules: a row counts when answered; an item pairs when both sides have an answered row)."""
    params: dict[str, Any] = {}
    clause, more = where.sql(f"{in_list('family', list(SCENE_FAMILIES), 'family', params)} AND {_SEED}")
    answered = "count(*) FILTER (WHERE correct IS NOT NULL)"
    side = ("SELECT model, task, {item} AS _item, {flag} AS _flag, sum(_answered) AS _answered, "
            "sum(_right) AS _right FROM rows WHERE {keep} GROUP BY ALL")
    pair = ("SELECT '{effect}' AS effect, model, task, count(DISTINCT _item) AS pairs, "
            "sum(_right) FILTER (WHERE {a}) / sum(_answered) FILTER (WHERE {a}) AS acc_a, "
            "sum(_right) FILTER (WHERE NOT ({a})) / sum(_answered) FILTER (WHERE NOT ({a})) AS acc_b "
            "FROM (SELECT * FROM {name} WINDOW it AS (PARTITION BY model, task, _item) "
            "QUALIFY min(_flag) OVER it <> max(_flag) OVER it) GROUP BY model, task")
    return results.query(
        f"""WITH rows AS (
                SELECT model, task, item_id, regexp_replace(prompt_name, '-cot$', '') AS _plain,
                       coalesce(grayscale, false) AS _gray, coalesce(ends_with(prompt_name, '-cot'), false) AS _cot,
                       {answered} AS _answered, count(*) FILTER (WHERE correct) AS _right
                FROM results {clause} GROUP BY ALL HAVING {answered} > 0),
            gray AS ({side.format(item="item_id", flag="_gray", keep="NOT _cot")}),
            cot AS ({side.format(item="item_id || '|' || _plain", flag="_cot", keep="NOT _gray")})
            {pair.format(effect="grayscale", a="NOT _flag", name="gray")}
            UNION ALL {pair.format(effect="cot", a="_flag", name="cot")}
            ORDER BY effect DESC, model NULLS LAST, task NULLS LAST""", {**params, **more})


_PARAMS = "json_extract(truth_json, '$.params')"


def scene_params(results: Results, where: Where) -> list[str]:
    """The question parameters (truth ``params`` keys) with a number or a label on some scene row, sorted
    (`plates.charts.scenes.difficulty_params`' answer, from DuckDB)."""
    params: dict[str, Any] = {}
    clause, more = where.sql(in_list("family", list(SCENE_FAMILIES), "family", params)
                             + f" AND json_type({_PARAMS}) = 'OBJECT'")
    keys = results.query(  # streamed: only the distinct keys are kept, never the rows' parameters
        f"""SELECT DISTINCT key FROM (SELECT unnest(json_keys(p)) AS key, p
                                     FROM (SELECT {_PARAMS} AS p FROM results {clause}))
            WHERE json_type(p, '$."' || replace(key, '"', '') || '"') IN ('BIGINT', 'UBIGINT', 'DOUBLE', 'VARCHAR')
            ORDER BY key""", {**params, **more})
    return [str(k) for k in keys["key"]]


def scene_param_counts(results: Results, where: Where, param: str) -> pd.DataFrame:
    """`scene_counts`' columns with one question parameter ``param`` (one of `scene_params`) as ``params``, a
    {param: value} dict per row, as `plates.charts.scenes.difficulty_long` reads it (numbers as floats)."""
    params = {"param_path": f'$.params."{param}"'}
    value = "json_extract(truth_json, $param_path)"
    select = [*_SCENE, f"json_type({value}) AS _type", f"CAST({value} AS VARCHAR) AS _value"]
    rows = collapsed(results, where, SCENE_FAMILIES, select,
                     f"json_type({value}) IN ('BIGINT', 'UBIGINT', 'DOUBLE', 'VARCHAR')", params)
    # no row holds it as a number or a label: exactly a parameter `scene_params` does not list (the allowed
    # names are scanned for only then, not on every call)
    if rows.empty or '"' in param:
        allowed = scene_params(results, where)
        if param not in allowed:
            raise ValueError(f"difficulty parameter {param!r} is not in these rows; allowed: "
                             f"{', '.join(allowed) or 'none'}")
    values = [float(v) if t != "VARCHAR" else json.loads(v) for t, v in zip(rows["_type"], rows["_value"])]
    return rows.drop(columns=["_type", "_value"]).assign(params=[{param: v} for v in values])


def has_rows(results: Results, where: Where, column: str, value: str, families: Sequence[str] = ()) -> bool:
    """Whether any row passing the filters (and of ``families``, when given) has ``column`` = ``value``; DuckDB
    stops at the first. The People page asks it first, so results without a human row read nothing more."""
    params: dict = {"has_value": value}
    extra = f"{quote(column)} = $has_value"
    if families:
        extra += " AND " + in_list("family", list(families), "family", params)
    clause, more = where.sql(extra)
    frame = results.query(f"SELECT EXISTS (SELECT 1 FROM results {clause}) AS found", {**params, **more})
    return bool(frame["found"].iloc[0])


def participants(results: Results, where: Where) -> pd.DataFrame:
    """The people (human ``model`` values) whose plate or illusion rows pass the filters, with their
    ``answers``, most answers first (then by name)."""
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
    and a fit or a bar per person costs time and reads as none. One pass over the results (the facts read out
    of ``truth_json`` once): DuckDB collapses every model's and person's rows; the pool adds up the people's
    collapsed rows."""
    rows = collapsed(results, where, families, ["model", *select], extra, params)
    human = rows["backend"].astype(object).eq("human").to_numpy() if len(rows) else np.zeros(0, dtype=bool)
    one_by_one = ~human | (rows["model"].isin(list(shown)).to_numpy() if shown is not None else True)
    each = rows[one_by_one].assign(pooled=False).reset_index(drop=True)
    people = rows[human]
    if people.empty:
        return each
    keys = [c for c in rows.columns if c not in ("model", WEIGHT)]
    pool = (people.groupby(keys, dropna=False, sort=True, observed=True)[WEIGHT].sum().reset_index()
            .assign(model=pooled_label(int(people["model"].nunique())), pooled=True))
    return pd.concat([each, pool[each.columns]], ignore_index=True)


#: The People page's tables, each its own scan (`people_counts`): the page reads the one it shows.
PEOPLE_PARTS = ("plates", "illusions", "accuracy")


def people_counts(results: Results, where: Where, shown: Sequence[str] | None = None, *,
                  everyone: bool = False, parts: Sequence[str] = PEOPLE_PARTS) -> dict[str, pd.DataFrame]:
    """The People page's collapsed rows of the people and of the models on the prompts people answered (module
    docstring; ``everyone``: the models on every prompt, what the page draws before any person has answered),
    by `with_people` (``shown``: the people fitted one by one; None: every one): ``"plates"``
    (ΔE2000 levels per prompt, condition and colour set: the threshold fits), ``"illusions"`` (the comparison
    facts: the PSE fits), ``"accuracy"`` (rows with an answer key: `plates.analysis.people.people_accuracy`);
    only the ``parts`` asked for (of `PEOPLE_PARTS`), one scan each."""
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
    facts = _facts(["framing", "kind", "strength", "signed_delta_e", "induced_lighter"])
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
