"""The family pages' DuckDB aggregations (`plates.dashboard.family_queries`): the collapsed rows give the same
tables as every row read by pandas (real runner rows, tests/support/family_rows.py, and synthetic rows of every
family, tests/support/synthetic_results.py), and every page of the dashboard, served by AppTest, reads only
aggregated tables: a spy on the DuckDB layer sees no query hand pandas more than a small table, nor the rows'
free text, but the drill-down's one page."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from plates.analysis import illusions as ia
from plates.analysis import people as pa
from plates.charts import illusions as fc
from plates.charts import scenes as sc
from plates.dashboard import family_queries as fq
from plates.dashboard.app import PAGES
from plates.dashboard.queries import Where
from plates.results import load_results
from plates.results.query import Results, open_results
from tests.support.dashboard_app import open_page
from tests.support.dashboard_rows import rows, write_part
from tests.support.family_rows import write_family_results
from tests.support.synthetic_results import write_synthetic

os.environ.setdefault("STREAMLIT_BROWSER_GATHER_USAGE_STATS", "false")

#: Rows the synthetic results hold (36,000 of them plates), and the most rows any page's query may hand pandas:
#: a page reading the plate rows gets tens of thousands; one reading a family's rows gets their item ids and
#: truth_json, which no query but the drill-down's page of rows returns.
SYNTHETIC_ROWS, MOST_ROWS = 40_000, 5_000
TEXT = {"truth_json", "reply", "spec_json", "prompt_text"}


@pytest.fixture(scope="module")
def families(tmp_path_factory) -> Path:
    return write_family_results(tmp_path_factory.mktemp("families"))


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("synthetic")
    write_synthetic(folder, SYNTHETIC_ROWS, parts=4, models=2)
    return folder


def _plain(table: pd.DataFrame) -> pd.DataFrame:
    table = table.reset_index(drop=True)
    return table.astype({c: object for c in table.columns if table[c].dtype.name == "category"})


def _same(ours: pd.DataFrame, rows: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(_plain(ours), _plain(rows), check_dtype=False)


@pytest.mark.parametrize("which", ["families", "synthetic"])
def test_collapsed_rows_give_the_row_level_tables(request, which):
    folder = request.getfixturevalue(which)
    frame, results, where = load_results(folder).frame, open_results(folder), Where()
    illusions = fq.illusion_counts(results, where)
    assert illusions["weight"].sum() == (frame["family"] == "illusion").sum()
    assert not TEXT & set(illusions.columns) and "item_id" not in illusions.columns
    _same(fc.rcid_long(illusions), fc.rcid_long(frame))
    _same(fc.illusionbench_long(illusions), fc.illusionbench_long(frame))
    _same(ia.pse_table(illusions), ia.pse_table(frame))
    counts, effects = fq.scene_counts(results, where), fq.scene_effects(results, where)
    assert counts["weight"].sum() == frame["family"].isin(fq.SCENE_FAMILIES).sum()
    for table in (sc.task_long, sc.overall_long, sc.robustness_long):
        _same(table(counts), table(frame))
    _same(effects, sc.scene_effects(frame))
    for table in (sc.grayscale_long, sc.cot_long):
        _same(table(effects), table(sc.scene_effects(frame)))
    params = fq.scene_params(results, where)
    assert params == sc.difficulty_params(frame) and params
    for param in params:
        _same(sc.difficulty_long(fq.scene_param_counts(results, where, param), param),
              sc.difficulty_long(frame, param))
    people = fq.people_counts(results, where)

    def beside(families) -> pd.DataFrame:
        """People, and the models on the prompts people answered in ``families``; every model where no person
        answered there (the page draws the models' own fits before people are added)."""
        rows = frame[frame["family"].isin(families)]
        prompts = set(rows.loc[rows["backend"] == "human", "prompt_name"])
        return rows if not prompts else rows[rows["backend"].eq("human") | rows["prompt_name"].isin(prompts)]

    _same(pa.threshold_table(people["plates"], pooled=True),
          pa.threshold_table(beside(("ishihara",)), pooled=True))
    _same(pa.pse_people_table(people["illusions"]), pa.pse_people_table(beside(("illusion",))))
    _same(pa.people_accuracy(people["accuracy"], pooled=True),
          pa.people_accuracy(beside(fq.PEOPLE_FAMILIES), pooled=True))
    assert set(pa.threshold_table(people["plates"])["who"]) == {"person", "model"}


@pytest.mark.parametrize("where", [Where(), Where({"model": ["model-1"]})])
def test_the_scenes_page_one_scan_gives_each_querys_table(synthetic, where):
    """`scene_page` (the scene rows kept once in a DuckDB table) equals the four queries over the results,
    under the filters, and leaves no table behind."""
    results = open_results(synthetic)
    page = fq.scene_page(results, where)
    _same(page.counts, fq.scene_counts(results, where))
    _same(page.effects, fq.scene_effects(results, where))
    assert page.params == fq.scene_params(results, where) and page.params
    _same(page.first, fq.scene_param_counts(results, where, page.params[0]))
    assert set(page.counts["model"]) == ({"model-1"} if where.values else {"model-0", "model-1"})
    left = results.query("SELECT table_name FROM duckdb_tables() WHERE table_name LIKE 'scene_rows_%'")
    assert left.empty


def test_truth_facts_read_once_per_document_equal_the_per_row_query(tmp_path):
    """`collapsed` reads the facts once per distinct truth_json and joins them back: the same table as reading
    every row's, with documents shared by many rows, option meanings mapped per row's parsed answer, rows
    without a document and a fact of another type."""
    meanings = {"I": "A darker", "II": "B darker", "III": "same"}
    docs = [json.dumps({"framing": "pixel", "kind": "sbc", "strength": 0.5, "signed_delta_e": d,
                        "induced_lighter": "A", "meanings": meanings}) for d in (-2.0, 0.0, 2.0)]
    docs += [json.dumps({"framing": "human", "strength": "strong"}), None]
    n = 40
    frame = rows(n, family="illusion", task="rcid-compare", truth_json=[docs[i % len(docs)] for i in range(n)],
                 parsed=[["I", "II", "III", "?"][i % 4] for i in range(n)], correct=[None if i % 7 == 0 else i % 3 == 0
                                                                                for i in range(n)],
                 error=[("timeout" if i % 7 == 0 else None) for i in range(n)], model=[f"m{i % 2}" for i in range(n)])
    write_part(tmp_path / "run" / "part-0.parquet", frame)
    results = open_results(tmp_path)
    select = ["model", "task", "parsed", "correct", *fq.fact_columns(list(fq.ILLUSION_FACTS)), fq.ANSWER, fq.FAILED]
    got = fq.collapsed(results, Where(), ("illusion",), select)
    columns = ", ".join(c if " AS " in c else f'"{c}"' for c in select)
    want = results.query(f"SELECT {columns}, count(*) AS weight FROM results WHERE family = 'illusion' "
                         "GROUP BY ALL ORDER BY ALL")
    _same(got, want)
    assert got["weight"].sum() == n and {"A darker", "B darker", "same", "?", "I"} <= set(got["answer"].dropna())
    assert got["strength"].isna().any() and got["framing"].isna().any()  # "strong" is no number; no document


def test_people_shown_one_by_one_are_chosen_and_the_pool_keeps_every_one(synthetic):
    results = open_results(synthetic)
    people = fq.participants(results, Where())
    assert list(people["model"]) == ["participant-0000", "participant-0001"] and (people["answers"] == 60).all()
    every = pa.threshold_table(fq.people_counts(results, Where())["plates"], pooled=True)
    one = pa.threshold_table(fq.people_counts(results, Where(), ("participant-0001",))["plates"], pooled=True)
    persons = one[(one["who"] == "person") & ~one["pooled"]]
    assert set(persons["model"]) == {"participant-0001"}
    pooled = [t[t["pooled"]].drop(columns="pooled").reset_index(drop=True) for t in (every, one)]
    _same(pooled[0], pooled[1])  # the pool is every participant's, whoever is shown
    assert set(pooled[0]["model"]) == {pa.pooled_label(2)}
    assert set(one.loc[one["who"] == "model", "model"]) == set(every.loc[every["who"] == "model", "model"])


def _pooled_in_pandas(rows: pd.DataFrame, shown) -> pd.DataFrame:
    """What `with_people` returns, from `collapsed`'s rows by pandas (the pool as
    `plates.analysis.people.with_pooled` forms it): the reference its one query is held to."""
    human = rows["backend"].astype(object).eq("human").to_numpy()
    one_by_one = ~human | (rows["model"].isin(list(shown)).to_numpy() if shown is not None else True)
    each = rows[one_by_one].assign(pooled=False).reset_index(drop=True)
    people = rows[human]
    keys = [c for c in rows.columns if c not in ("model", "weight")]
    pool = (people.groupby(keys, dropna=False, sort=True, observed=True)["weight"].sum().reset_index()
            .assign(model=pa.pooled_label(int(people["model"].nunique())), pooled=True))
    return pd.concat([each, pool[each.columns]], ignore_index=True)


@pytest.mark.parametrize("shown", [None, (), ("participant-0001",), ("participant-0000", "nobody")])
def test_the_people_pool_formed_by_duckdb_equals_pandas_pooling_the_collapsed_rows(tmp_path, shown):
    """`with_people` keeps the rows drawn one by one and sums every person's rows into the pool in one DuckDB
    query: the same table, row for row and in the same order, as pandas pooling `collapsed`'s rows, with people
    shown or not, facts missing (NULL keys) and a row without a backend (a model's, never pooled)."""
    docs = [json.dumps({"framing": "pixel", "kind": "sbc", "strength": s, "signed_delta_e": d,
                        "induced_lighter": "A"}) for s in (0.5, None) for d in (-2.0, 2.0)] + [None]
    n = 90
    who = [("human", f"participant-{i % 3:04d}") if i % 3 < 2 else ("api", f"m{i % 2}") for i in range(n)]
    who[4] = ("human", "participant-0002")  # a third person
    frame = rows(n, family="illusion", task="rcid-compare", truth_json=[docs[i % len(docs)] for i in range(n)],
                 parsed=[["A", "B", None][i % 3] for i in range(n)], correct=[[True, False, None][i % 3 if i % 4 else 0]
                                                                        for i in range(n)],
                 backend=[None if i == 5 else w[0] for i, w in enumerate(who)], model=[w[1] for w in who])
    write_part(tmp_path / "run" / "part-0.parquet", frame)
    results = open_results(tmp_path)
    select = ["backend", "task", "parsed", "correct", *fq.fact_columns(["strength", "signed_delta_e"])]
    got = fq.with_people(results, Where(), ("illusion",), select, "true", shown)
    want = _pooled_in_pandas(fq.collapsed(results, Where(), ("illusion",), ["model", *select]), shown)
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert got["pooled"].sum() > 1 and set(got.loc[got["pooled"], "model"]) == {pa.pooled_label(3)}
    assert got.loc[got["pooled"], "weight"].sum() == (frame["backend"] == "human").sum() == 60


def test_the_family_queries_apply_the_filters_and_refuse_bad_input(synthetic):
    results = open_results(synthetic)
    only = Where({"model": ["model-1"]})
    assert set(fq.illusion_counts(results, only)["model"]) == {"model-1"}
    assert set(fq.scene_counts(results, only)["model"]) == {"model-1"}
    assert fq.people_counts(results, Where({"model": ["nobody"]}))["plates"].empty
    assert not fq.has_rows(results, only, "backend", "human")
    assert fq.has_rows(results, Where(), "backend", "human", fq.PEOPLE_FAMILIES)
    assert not fq.has_rows(results, Where(), "backend", "x') OR TRUE --")  # a parameter, not SQL
    with pytest.raises(ValueError, match="allowed: a non-empty list"):
        fq.collapsed(results, Where(), "illusion", ["model"])
    with pytest.raises(ValueError, match="difficulty parameter 'nope' is not in these rows; allowed: criterion"):
        fq.scene_param_counts(results, Where(), "nope")


def test_every_page_reads_aggregated_tables_only(monkeypatch, synthetic):
    """Each page of the navigation renders on rows of every family, and nothing it asks DuckDB hands pandas
    more than `MOST_ROWS` rows or the rows' free text, but the drill-down's page of rows (LIMIT)."""
    seen: list[tuple[str, int, set]] = []
    query, arrow = Results.query, Results.arrow

    def spy_query(self, sql, params=None):
        frame = query(self, sql, params)
        seen.append((sql, len(frame), set(frame.columns)))
        return frame

    def spy_arrow(self, sql, params=None):
        table = arrow(self, sql, params)
        seen.append((sql, table.num_rows, set(table.column_names)))
        return table

    monkeypatch.setattr(Results, "query", spy_query)
    monkeypatch.setattr(Results, "arrow", spy_arrow)
    for path, title, _, _ in PAGES:
        seen.clear()
        at = open_page(monkeypatch, synthetic, Path(path).stem)
        assert at.title[0].value, title
        if path.endswith(("illusions.py", "scenes.py", "people.py")):
            assert seen, title  # the family pages asked DuckDB (the spy is in the path)
        for sql, count, columns in seen:
            paged = "LIMIT" in sql
            assert count <= MOST_ROWS or paged, (title, count, sql[:300])
            assert paged or not TEXT & columns, (title, TEXT & columns, sql[:300])
            assert paged or "item_id" not in columns, (title, sql[:300])  # items are paired in DuckDB


def test_has_rows_asks_duckdb_within_the_filters_and_families(tmp_path):
    write_part(tmp_path / "run" / "part-0.parquet", rows(3, backend="baseline", model="a", run_id="r"))
    where = Where()
    results = open_results(tmp_path)
    assert fq.has_rows(results, where, "backend", "baseline")
    assert not fq.has_rows(results, where, "backend", "human")
    write_part(tmp_path / "quiz" / "part-0.parquet",
               rows(2, backend="human", model="person-1", run_id="quiz", family="scene", item_id=["h0", "h1"]))
    results = open_results(tmp_path)
    assert fq.has_rows(results, where, "backend", "human")
    assert not fq.has_rows(results, where, "backend", "human", ("ishihara", "illusion"))
    assert fq.has_rows(results, where, "backend", "human", ("scene",))
    assert not fq.has_rows(results, Where({"model": ["a"]}), "backend", "human")


def test_a_crowd_of_people_is_pooled_and_the_most_answering_are_shown_one_by_one(monkeypatch, tmp_path):
    """Past `common.PEOPLE_SHOWN` people, the People and Illusions pages draw the first ones one by one (a choice
    above the charts) and pool every one of them."""
    from plates.dashboard.common import PEOPLE_SHOWN

    write_synthetic(tmp_path, 4_000, parts=1, models=1, people=PEOPLE_SHOWN + 2)
    for page, key in (("people", "people_shown"), ("illusions", "illusions_shown")):
        at = open_page(monkeypatch, tmp_path, page)
        chosen = at.multiselect(key)
        assert len(chosen.value) == PEOPLE_SHOWN and len(chosen.options) == PEOPLE_SHOWN + 2
    rcid = next(d.value for d in at.dataframe if {"metric", "model"} <= set(d.value.columns))  # the Illusions page
    models = set(rcid["model"])
    assert {pa.pooled_label(PEOPLE_SHOWN + 2), "person: participant-0000"} <= models
    assert "person: participant-0013" not in models


def test_a_models_runs_of_other_families_are_not_scanned_for_repeated_items(monkeypatch, synthetic):
    """Each model ran plates, illusions and scenes in runs of their own: no cell (dataset, prompt, condition) of
    one model is in two runs, so the overview asks DuckDB for no repeated items (it scanned every row)."""
    from plates.dashboard import pages, views

    asked = []
    monkeypatch.setattr(pages.queries, "repeated_items", lambda *a, **k: asked.append(k) or pd.DataFrame())
    view = views.View(views.open_results(synthetic))
    assert {"model-0", "model-1"} <= view.several_runs  # each model is in several runs ...
    pages.repeated(view)
    assert asked == [{"models": [], "runs": []}]  # ... but no item of one run can be in another
