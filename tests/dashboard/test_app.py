"""The Streamlit dashboard (plates/dashboard/app.py, and the checkout entry dashboard/app.py) driven by streamlit's AppTest: every page renders its chart from
real Parquet parts on disk; two runs of one model over the same items and a run of mixed conditions show as
what they are on every chart; filters (run included) live in the query string; the drill-down pages
count what the row choice keeps; uploads, "/", paths outside the results root and corrupt files are explained,
never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.support.dashboard_app import APP, ENTRY, notes
from tests.support.dashboard_rows import concat, outcomes, rows, write_part
from tests.support.imports import HEAVY, HOW_TO_FIND, heavy_in, loaded_after

CHART_PAGES = [
    "overview",
    "compare",
    "colour_sets",
    "resolution",
    "grayscale",
    "chain_of_thought",
    "yes_no",
    "delta_e",
    "failure_modes",
    "published",
]
#: Pages that draw a second chart under their own: how the replies were read (plates.charts.reading)
CHARTS = {"overview": 2, "failure_modes": 2}


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    """Model a in two runs over the same 10 items (run-2 also in grayscale and at 300 px), model b with the
    yes/no and CoT prompt pairs: 70 rows."""
    folder = tmp_path_factory.mktemp("results")
    items = [f"i{i}" for i in range(10)]
    write_part(
        folder / "run-1" / "part-000.parquet",
        outcomes(
            "a",
            6,
            10,
            run_id="run-1",
            item_id=items,
            colour_set="colorblindnesseval-1",
            delta_e=[5.0 * (i + 1) for i in range(10)],
        ),
    )
    write_part(
        folder / "run-2" / "nested" / "part-000.parquet",
        concat(
            outcomes(
                "a",
                9,
                10,
                run_id="run-2",
                item_id=items,
                colour_set="colorblindnesseval-1",
                delta_e=[5.0 * (i + 1) for i in range(10)],
            ),
            outcomes(
                "a", 2, 10, run_id="run-2", item_id=items, colour_set="colorblindnesseval-1", grayscale=True
            ),
            outcomes("a", 5, 10, run_id="run-2", item_id=items, colour_set="colorblindnesseval-3", size=300),
        ),
    )
    write_part(
        folder / "run-3" / "part-000.parquet",
        concat(
            outcomes("b", 8, 10, run_id="run-3", prompt_name="cbe-yn-correct"),
            outcomes("b", 4, 10, run_id="run-3", prompt_name="cbe-yn-incorrect"),
            outcomes("b", 2, 5, run_id="run-3", item_id=items[:5], prompt_name="colorbench-mc"),
            outcomes("b", 4, 5, run_id="run-3", item_id=items[:5], prompt_name="colorbench-mc-cot"),
        ),
    )
    return folder


def app(monkeypatch, path: Path, **query) -> AppTest:
    monkeypatch.setenv("PLATES_RESULTS", str(path))
    at = AppTest.from_file(str(APP), default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def figure(at: AppTest, index: int = 0) -> dict:
    """The plotly figure the page sent, typed arrays ({"bdata", "dtype"}) decoded to lists."""
    import base64

    import numpy as np

    def plain(value):
        if isinstance(value, dict) and "bdata" in value:
            array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
            shape = value.get("shape")
            shape = [int(v) for v in shape.split(",")] if isinstance(shape, str) else shape
            return array.reshape(shape).tolist() if shape else array.tolist()
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, list):
            return [plain(v) for v in value]
        return value

    return plain(json.loads(at.get("plotly_chart")[index].proto.spec))


def names(fig: dict) -> list[str]:
    return [t.get("name") for t in fig["data"]]


def test_the_checkout_entry_serves_the_packaged_app(monkeypatch, results):
    """`streamlit run dashboard/app.py` (a few lines over `plates.dashboard.app`) draws the same overview and
    offers every page of the packaged app."""
    monkeypatch.setenv("PLATES_RESULTS", str(results))
    at = AppTest.from_file(str(ENTRY), default_timeout=60).run()
    clean(at)
    assert len(at.get("plotly_chart")) == CHARTS["overview"] and at.title[0].value == "Overview"
    at.switch_page(str(APP.parent / "sections" / "drilldown.py")).run()
    clean(at)
    assert at.title[0].value != "Overview"


@pytest.mark.parametrize("page", CHART_PAGES)
def test_every_chart_page_renders_its_chart(monkeypatch, results, page):
    at = app(monkeypatch, results)
    at.switch_page(f"sections/{page}.py").run()
    clean(at)
    assert len(at.get("plotly_chart")) == CHARTS.get(page, 1) and at.title[0].value


def test_the_overview_draws_each_run_of_a_model_as_its_own_row_and_says_the_items_repeat(
    monkeypatch, results
):
    at = app(monkeypatch, results)
    clean(at)
    heat = figure(at)["data"][0]
    # each run by its name: here its folder's (run-2's parts sit in run-2/nested/); never a hash
    assert set(heat["y"]) == {"run-1", "nested", "run-3"}
    assert "cbe-open · original @900px" in heat["x"] and "cbe-open · gray @900px" in heat["x"]
    row, column = heat["y"].index("run-1"), heat["x"].index("cbe-open · original @900px")
    assert "n=10" in heat["text"][row][column]  # not n=20: the same items asked twice are not pooled
    assert any("10 item(s) asked in 2 runs (run-1, run-2)" in n for n in notes(at))
    assert not at.warning  # one collapsed notes expander instead of stacked warnings


def test_a_run_of_mixed_conditions_shows_one_condition_per_chart_and_the_choice_switches_it(
    monkeypatch, results
):
    at = app(monkeypatch, results, run=["run-2"])
    at.switch_page("sections/colour_sets.py").run()
    clean(at)
    box = at.selectbox(key="colour_sets_condition")
    assert set(box.options) == {"original @900px", "gray @900px", "original @300px"}
    fig = figure(at)
    shown = fig["layout"]["meta"]["condition"]
    assert set(fig["layout"]["meta"]["others"]) == set(box.options) - {shown}
    bars = {t["name"]: t for t in fig["data"]}
    values = {"original @900px": 0.9, "gray @900px": 0.2, "original @300px": 0.5}
    assert bars["nested"]["y"] == [pytest.approx(values[shown])]  # run-2, by its parts' folder
    box.set_value("gray @900px").run()
    assert figure(at)["data"][0]["y"] == [pytest.approx(0.2)]  # never the pooled 16/30
    at.switch_page("sections/resolution.py").run()
    clean(at)
    line = figure(at)["data"][0]
    assert dict(zip(line["x"], line["y"])) == {300: 0.5, 900: 0.9}
    at.switch_page("sections/grayscale.py").run()
    assert figure(at)["data"][0]["y"] == [pytest.approx((0.9 - 0.2) / 0.9)]
    at.switch_page("sections/delta_e.py").run()
    clean(at)
    assert figure(at)["layout"]["meta"]["fits"] >= 1


def test_yes_no_and_cot_pages_show_the_models_that_ran_them(monkeypatch, results):
    at = app(monkeypatch, results)
    at.switch_page("sections/yes_no.py").run()
    point = [t for t in figure(at)["data"] if t.get("name") == "run-3"][0]  # model b's run
    assert (point["x"][0], point["y"][0]) == (pytest.approx(0.8), pytest.approx(0.4))
    at.switch_page("sections/chain_of_thought.py").run()
    bar = [t for t in figure(at)["data"] if t.get("name") == "b"][0]  # pairs found across runs: the model
    assert bar["y"] == [pytest.approx(0.4)]
    assert any(n and n.endswith("ColorBench Table 4") for n in names(figure(at)))  # CoT numbers as published


def test_filters_narrow_the_rows_every_page_sees_and_live_in_the_url(monkeypatch, results):
    at = app(monkeypatch, results)
    clean(at)
    assert at.multiselect(key="model").options == ["a", "b"]
    assert at.multiselect(key="run").options == ["run-1", "run-2", "run-3"]
    assert "Export 70 rows" in [h.value for h in at.sidebar.header]
    at.multiselect(key="run").select("run-1").run()
    clean(at)
    assert "Export 10 rows" in [h.value for h in at.sidebar.header]
    assert figure(at)["data"][0]["y"] == ["run-1"]  # the run by its name
    at.multiselect(key="run").unselect("run-1").run()
    at.multiselect(key="model").select("b").run()
    at.multiselect(key="prompt").select("colorbench-mc").run()
    clean(at)
    assert "Export 5 rows" in [h.value for h in at.sidebar.header]
    assert at.query_params == {"model": "b", "prompt": "colorbench-mc"}


def test_query_string_round_trip_restores_the_same_view(monkeypatch, results):
    at = app(monkeypatch, results, model=["a"], condition=["gray @900px"])
    clean(at)
    assert at.multiselect(key="condition").value == ["gray @900px"]
    assert "Export 10 rows" in [h.value for h in at.sidebar.header]
    at.multiselect(key="condition").unselect("gray @900px").select("original @300px").run()
    shared = dict(at.query_params)
    assert shared == {"model": "a", "condition": "original @300px"}
    again = app(monkeypatch, results, **shared)
    assert again.multiselect(key="condition").value == ["original @300px"]


def test_a_shared_link_naming_values_not_in_these_results_is_explained(monkeypatch, results):
    at = app(monkeypatch, results, model=["a", "gpt-9"])
    clean(at)
    assert at.multiselect(key="model").value == ["a"] and any("gpt-9" in w.value for w in at.sidebar.warning)


def test_the_group_filter_is_labelled_and_reads_links_shared_when_it_was_colour_set(monkeypatch, results):
    at = app(monkeypatch, results, colour_set=["colorblindnesseval-3"])
    clean(at)
    box = at.multiselect(key="group")
    assert box.label == "Group (colour set · illusion kind · scene task)"
    assert box.options == ["colorblindnesseval-1", "colorblindnesseval-3"] and box.value == ["colorblindnesseval-3"]
    assert "Export 10 rows" in [h.value for h in at.sidebar.header]
    assert dict(at.query_params) == {"group": "colorblindnesseval-3"}  # the link is rewritten with today's key


def test_the_drilldown_counts_pages_of_the_rows_it_shows_and_regenerates_each_plate(monkeypatch, tmp_path):
    from plates.stimuli.ishihara.plate import PlateSpec

    specs = [PlateSpec(text=t, size=160, seed=i).to_json() for i, t in enumerate(["12", "74"] * 20)]
    write_part(
        tmp_path / "part.parquet",
        rows(
            40,
            spec_json=specs,
            size=96,
            target=["12", "74"] * 20,
            reply=["I see 12", "I see 21"] * 20,
            parsed=["12", "21"] * 20,
            correct=[True, False] * 19 + [True, True],
            item_id=[f"p{i:02d}" for i in range(40)],
        ),
    )
    at = app(monkeypatch, tmp_path)
    at.switch_page("sections/drilldown.py").run()
    clean(at)
    assert at.number_input[0].label == "Page (of 7: 40 rows)"
    assert len(at.image) == 6
    at.selectbox(key="drill_only").set_value("incorrect").run()
    clean(at)
    assert at.number_input[0].label == "Page (of 4: 19 rows)"  # not "of 7": the filter is counted
    assert {t.value for t in at.text} == {"I see 21"}
    markdown = " ".join(m.value for m in at.markdown)
    assert "**wrong**" in markdown and "parsed: `21`" in markdown


def test_empty_folder_shows_how_to_make_results(monkeypatch, tmp_path):
    at = app(monkeypatch, tmp_path)
    clean(at)
    assert "plates run" in at.info[0].value and not at.get("plotly_chart")


def test_corrupt_file_is_skipped_with_a_warning_naming_it(monkeypatch, tmp_path):
    write_part(tmp_path / "good.parquet", outcomes("a", 1, 2))
    (tmp_path / "truncated.parquet").write_bytes(b"PAR1\x00\x01")
    at = app(monkeypatch, tmp_path)
    clean(at)
    assert any("truncated.parquet" in w.value for w in at.warning)
    assert len(at.get("plotly_chart")) == CHARTS["overview"]


def test_a_corrupt_upload_is_named_as_uploaded_and_no_folder_message_follows(monkeypatch, results, tmp_path):
    at = app(monkeypatch, results)
    at.file_uploader(key="uploads").upload("my-results.parquet", b"PAR1 broken").run()
    assert not at.exception
    warnings = [w.value for w in at.warning]
    assert any("my-results.parquet" in w for w in warnings)
    assert not any("plates-upload-" in w or "/tmp" in w for w in warnings)  # no server temp path
    assert "uploaded" in at.info[0].value and "No results found under" not in at.info[0].value


def test_a_remote_visitor_sees_no_absolute_server_path(monkeypatch, tmp_path):
    """Warnings named corrupt parts by their absolute path, and a refused path named the served root."""
    root = tmp_path / "served-root"
    write_part(root / "good.parquet", outcomes("a", 1, 2))
    (root / "deep").mkdir()
    (root / "deep" / "truncated.parquet").write_bytes(b"PAR1\x00\x01")
    at = app(monkeypatch, root)  # AppTest binds no local address: the public case
    warnings = [w.value for w in at.warning]
    assert any("`deep/truncated.parquet`" in w for w in warnings)
    assert not any(str(tmp_path) in w for w in warnings)
    at.text_input(key="path").set_value("/etc").run()
    assert "served to other machines" in at.error[0].value and str(tmp_path) not in at.error[0].value


def test_a_crafted_million_row_upload_is_refused_before_it_loads(monkeypatch, results):
    """A 1 MB file of a million dictionary-encoded rows took the People page from 400 MB to 1.9 GB."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    n, buf = 1_000_000, io.BytesIO()
    pq.write_table(pa.table({"reply": pa.DictionaryArray.from_arrays(pa.array([0] * n, pa.int32()),
                                                                     pa.array(["x" * 1000])),
                             "model": pa.array(["m"] * n)}), buf, compression="zstd")
    at = app(monkeypatch, results)
    at.file_uploader(key="uploads").upload("crafted.parquet", buf.getvalue()).run()
    assert not at.exception and "more than 20,000 rows ('crafted.parquet' brings them to 1,000,000)" in (
        at.error[0].value)
    assert not at.get("plotly_chart")


def test_uploaded_parts_replace_the_folder(monkeypatch, tmp_path):
    part = write_part(tmp_path / "upload" / "part.parquet", outcomes("uploaded-model", 1, 3))
    (tmp_path / "empty").mkdir()
    at = app(monkeypatch, tmp_path / "empty")
    assert at.info
    at.file_uploader(key="uploads").upload("upload.parquet", part.read_bytes()).run()
    clean(at)
    assert at.multiselect(key="model").options == ["uploaded-model"]


def test_served_to_other_machines_the_path_box_reads_only_the_results_root(monkeypatch, results):
    at = app(monkeypatch, results)  # AppTest binds no local address: the public case
    at.text_input(key="path").set_value("/etc").run()
    assert not at.exception and "served to other machines" in at.error[0].value
    at.text_input(key="path").set_value("/").run()
    assert not at.exception and at.error and not at.get("plotly_chart")
    at.text_input(key="path").set_value(str(results / "run-1")).run()
    clean(at)
    assert at.multiselect(key="run").options == ["run-1"]


def test_missing_path_is_an_error_not_a_traceback(monkeypatch, tmp_path):
    at = app(monkeypatch, tmp_path / "nowhere")
    assert not at.exception and "nowhere" in at.error[0].value


def test_an_unexpected_error_shows_no_stack_trace_on_the_page(monkeypatch, results):
    """House rule: no stack traces on the page, also under plain `streamlit run` (no CLI flags)."""
    from plates.charts import ishihara as charts

    def broken(*args, **kwargs):
        raise RuntimeError("internal detail /srv/secret/path")

    import streamlit as st

    monkeypatch.setattr(charts, "colour_set_figure", broken)
    st.cache_data.clear()  # pages are cached per results and filters: this one must be drawn again
    at = app(monkeypatch, results)
    at.switch_page("sections/colour_sets.py").run()
    assert at.exception
    shown = at.exception[0]
    assert not shown.stack_trace and "/srv/secret/path" not in shown.message


def test_the_published_numbers_page_draws_the_table_chosen(monkeypatch, results):
    from plates.results.reference import load_reference

    at = app(monkeypatch, results)
    at.switch_page("sections/published.py").run()
    clean(at)
    at.selectbox(key="published_source").set_value("HueManity Table 2").run()
    clean(at)
    fig = figure(at)
    ref = load_reference(table="HueManity Table 2")
    shown = sorted(x for trace in fig["data"] for x in trace["x"] if x is not None and x == x)  # gaps: NaN
    chosen = ref[ref["task"].isin(ref["task"].unique()[:3])]
    assert shown == pytest.approx(sorted(100 * chosen["value"]))
    assert any(trace["error_x"]["visible"] for trace in fig["data"])  # HueManity prints its ±


def test_cot_and_grayscale_pairs_are_found_across_two_runs_and_the_runs_are_named(monkeypatch, tmp_path):
    """Two quick runs (`--prompt colorbench-mc`, then `--prompt colorbench-mc-cot`; one in colour, then one
    with --grayscale) left the Chain-of-thought and Grayscale pages empty: pairs were looked for inside a run."""
    items = [f"i{i}" for i in range(10)]
    write_part(tmp_path / "plain" / "part.parquet",
               outcomes("m", 4, 10, run_id="run-plain", item_id=items, prompt_name="colorbench-mc"))
    write_part(tmp_path / "cot" / "part.parquet",
               outcomes("m", 7, 10, run_id="run-cot", item_id=items, prompt_name="colorbench-mc-cot"))
    write_part(tmp_path / "gray" / "part.parquet",
               outcomes("m", 2, 10, run_id="run-gray", item_id=items, prompt_name="colorbench-mc", grayscale=True))
    at = app(monkeypatch, tmp_path)
    at.switch_page("sections/chain_of_thought.py").run()
    clean(at)
    bar = [t for t in figure(at)["data"] if t.get("name") == "m"][0]
    assert bar["y"] == [pytest.approx(0.3)]  # 7/10 - 4/10 over the same ten items
    assert any("colorbench-mc-cot from run run-cot paired with colorbench-mc from run run-plain" in n
               for n in notes(at))
    at.switch_page("sections/grayscale.py").run()
    clean(at)
    assert any("m: colour from run run-plain paired with grayscale from run run-gray" in n for n in notes(at))
    assert [t for t in figure(at)["data"] if t.get("name") == "m"]


def test_rows_judged_under_several_rules_versions_are_never_pooled_without_a_warning(monkeypatch, tmp_path):
    # run-old: written before rows recorded the rules' version (no value: read as 0); run-new: rules 1
    write_part(tmp_path / "old.parquet", outcomes("a", 3, 6, run_id="run-old", rules_version=None))
    write_part(tmp_path / "new.parquet", outcomes("a", 5, 6, run_id="run-new", rules_version=1))
    for page in ("overview", "delta_e", "failure_modes", "drilldown"):
        at = app(monkeypatch, tmp_path)
        at.switch_page(f"sections/{page}.py").run()
        clean(at)
        warned = [n for n in notes(at) if "versions of the scoring rules" in n]
        assert len(warned) == 1 and "unversioned" in warned[0] and "v1: 6 rows" in warned[0], page
        assert "plates rescore" in warned[0]
    at.multiselect(key="run").select("run-new").run()  # one run, one version: nothing to say
    clean(at)
    assert not [n for n in notes(at) if "versions of the scoring rules" in n]


def test_served_from_object_storage_the_copy_is_refreshed(monkeypatch, tmp_path):
    """`plates dashboard s3://...` serves a local copy (PLATES_RESULTS) of the store named in PLATES_RESULTS_URL:
    parts committed there after it started appear when a page runs."""
    import pyarrow as pa

    from plates.results import SCHEMA
    from plates.results import write_part as commit_part
    from plates.storage import open_store

    pytest.importorskip("moto")
    from tests.support.s3_server import S3Server

    with S3Server() as s3:
        url = s3.url("dash")
        monkeypatch.setenv("PLATES_RESULTS_URL", url)
        (tmp_path / "copy").mkdir()  # empty: `plates dashboard` copied nothing, the part came later
        table = pa.Table.from_pandas(outcomes("a", 3, 4, run_id="run-s3"), schema=SCHEMA, preserve_index=False)
        commit_part(table, "run-s3-part.parquet", open_store(url))
        at = app(monkeypatch, tmp_path / "copy")
        clean(at)
        assert [p.name for p in (tmp_path / "copy").glob("*.parquet")] == ["run-s3-part.parquet"]
        assert not any("No results" in i.value for i in at.info)


def test_the_failure_modes_page_shows_how_replies_were_read_for_the_condition_it_shows(monkeypatch, results):
    """Under the failure modes: the replies' readings for the same condition, and the judge's part in the numbers
    (no judge asked in these runs: 0)."""
    at = app(monkeypatch, results, run=["run-2"])
    at.switch_page("sections/failure_modes.py").run()
    at.selectbox(key="failure_condition").set_value("gray @900px").run()
    clean(at)
    reading = figure(at, 1)
    assert reading["layout"]["meta"]["condition"] == "gray @900px"
    assert [t["name"] for t in reading["data"] if t["type"] == "bar"] == ["correct", "wrong", "ambiguous", "unread",
                                                                        "refused"]
    numbers = next(d.value for d in at.dataframe if "judge_decided" in d.value.columns)
    assert set(numbers["judge_decided"]) == {0} and numbers["replies"].sum() > 0


def test_the_overview_says_how_many_verdicts_the_judge_decided_and_how_often_it_agreed(monkeypatch, tmp_path):
    judged = rows(4, model="m", judge_model="j", judge_status="read", decided_by="judge",
                  rules_parse_status=["ok", "ok", "ok", "unparsed"], rules_parsed=["12", "12", "9", None],
                  judge_parsed="12")
    write_part(tmp_path / "run" / "part-000.parquet", concat(judged, rows(6, model="m")))
    at = app(monkeypatch, tmp_path)
    clean(at)
    lines = [m.value for m in at.markdown if "the judge decided" in m.value]
    assert lines == ["- run: the judge decided 4 of 10 verdicts (asked about 4); it read the same answer as the rules "
                     "on 2 of the 3 replies both read (67%)"]


def test_the_shipped_runs_hide_behind_a_toggle_once_the_user_has_runs(monkeypatch, tmp_path):
    """The checkout's first-start runs (results/runs/shipped-runs.json) beside a run of the user's: the
    sidebar's toggle starts off, the pages and the run filter see the user's run only; on, every run."""
    from plates.results.shipped import write_manifest

    runs = tmp_path / "runs"
    write_part(runs / "baseline-cbe" / "p.parquet", outcomes("baseline-cnn", 6, 10, run_id="baseline-cbe-1"))
    write_manifest(runs)
    at = app(monkeypatch, tmp_path)
    clean(at)
    toggle = at.toggle(key="shipped")
    assert toggle.value is True and toggle.disabled  # only shipped runs: shown, nothing to hide them for
    write_part(runs / "mine" / "p.parquet", outcomes("gpt-4o", 8, 10, run_id="cbe-abc"))
    at = app(monkeypatch, tmp_path)
    clean(at)
    assert at.toggle(key="shipped").value is False
    assert at.multiselect(key="run").options == ["cbe-abc"]
    assert "Export 10 rows" in [h.value for h in at.sidebar.header]
    assert figure(at)["data"][0]["y"] == ["mine"]  # the user's run, by its folder's name
    at.toggle(key="shipped").set_value(True).run()
    clean(at)
    assert "Export 20 rows" in [h.value for h in at.sidebar.header]
    assert set(figure(at)["data"][0]["y"]) == {"mine", "baseline-cbe"}


def test_the_first_page_loads_no_heavy_library():
    """The dashboard's first page (the entry script and the Overview, drawn by Streamlit's AppTest on the
    shipped runs) imports neither local models (torch, transformers, onnxruntime), nor scipy at all (fits and
    statistics load where used; the Wilson intervals' z is the standard library's), nor plotting libraries
    beside plotly (matplotlib, colour-science), nor the figure export's kaleido, nor the dataset registry and
    its writers (plates.datasets: the papers' comparison reads it for a paper with no own set only), nor the
    run's row builder and judge (plates.runs), nor the images module, nor the task and prompt registry
    (plates.tasks: the pages tell families apart by the rows' own ``family`` column), nor the stimuli and
    their renderers, the viewing conditions and the colour maths (plates.stimuli, plates.conditions,
    plates.colour: the drill-down redraws a plate): each loads where it is used."""
    code = ("import os\nos.environ['PLATES_RESULTS'] = 'results/runs'\n"
            "from streamlit.testing.v1 import AppTest\n"
            f"at = AppTest.from_file({str(APP)!r}, default_timeout=300).run()\n"
            "assert not at.exception, [e.value for e in at.exception]\n"
            "assert at.get('plotly_chart'), 'the Overview drew no chart'")
    modules = loaded_after(code)
    assert "plates.dashboard.pages" in modules
    kept_off = (*HEAVY, "scipy", "colour", "kaleido", "plates.datasets", "plates.runs", "plates.images",
                "plates.tasks", "plates.stimuli", "plates.conditions", "plates.colour")
    assert heavy_in(modules, kept_off) == [], HOW_TO_FIND.replace("CODE", "...")
