"""plates.dashboard.views and plates.dashboard.pages: the dashboard's non-widget logic (opening results, where the path
box may point, filters <-> query string, the views each page draws, drill-down, export)."""

from __future__ import annotations

import io
import shlex

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from plates.analysis import metrics
from plates.charts.ishihara import CONDITION, SERIES
from plates.dashboard import pages, views
from plates.results import load_results
from plates.results.uploads import UploadFolders
from tests.support.dashboard_rows import concat, outcomes, rows, write_part


@pytest.fixture
def two_runs(tmp_path):
    """Model a asked the same 10 items in two runs (the README tour run twice); run-2 also in grayscale and
    at 300 px; model b once, with the yes/no pair; an explorer session that asked one plate twice."""
    items = [f"i{i}" for i in range(10)]
    write_part(tmp_path / "run-1" / "p.parquet", outcomes("a", 6, 10, run_id="run-1", item_id=items))
    write_part(
        tmp_path / "run-2" / "p.parquet",
        concat(
            outcomes("a", 9, 10, run_id="run-2", item_id=items),
            outcomes("a", 2, 10, run_id="run-2", item_id=items, grayscale=True),
            outcomes("a", 5, 10, run_id="run-2", item_id=items, size=300),
        ),
    )
    write_part(
        tmp_path / "run-3" / "p.parquet",
        concat(
            outcomes("b", 8, 10, run_id="run-3", prompt_name="cbe-yn-correct"),
            outcomes("b", 3, 10, run_id="run-3", prompt_name="cbe-yn-incorrect"),
        ),
    )
    write_part(
        tmp_path / "explorer" / "history.parquet",
        outcomes("a", 1, 2, run_id="explorer-1", dataset="explorer", item_id=["x", "x"]),
    )
    return tmp_path


# ------------------------------------------------------------------------------------------------- opening
def test_open_reads_every_part_skips_corrupt_and_foreign_files_and_leaves_out_reference(tmp_path):
    write_part(tmp_path / "run-1" / "part-0.parquet", outcomes("a", 1, 2))
    (tmp_path / "broken.parquet").write_bytes(b"PAR1 this is not a parquet file")
    pq.write_table(pa.table({"colour": ["red"]}), tmp_path / "foreign.parquet")
    from plates.results.reference import REFERENCE_DIR

    (tmp_path / "ref.parquet").write_bytes((REFERENCE_DIR / "huemanity_table5.parquet").read_bytes())
    opened = views.open_results(tmp_path)
    assert opened.options["model"] == ["a"] and opened.options["condition"] == ["original @900px"]
    assert {name.rsplit("/", 1)[-1] for name, _ in opened.skipped} == {"broken.parquet", "foreign.parquet"}
    assert views.View(opened).rows == 2


def test_uploads_are_named_as_the_user_named_them_never_by_a_temporary_path(tmp_path):
    good = io.BytesIO()
    pq.write_table(pa.Table.from_pandas(outcomes("a", 1, 2), preserve_index=False), good)
    store = UploadFolders(tmp_path)
    folder, names = store.write([("mine.parquet", b"PAR1 junk"), ("good.parquet", good.getvalue())])
    opened = views.open_results(folder, names=names, uploaded=True)
    assert [name for name, _ in opened.skipped] == ["mine.parquet"] and str(tmp_path) not in str(
        opened.skipped
    )
    only_bad, names = store.write([("x.parquet", b"nope")])
    opened = views.open_results(only_bad, names=names, uploaded=True)
    assert opened.empty and opened.skipped[0][0] == "x.parquet"
    assert (
        "uploaded" in views.NO_UPLOADED_RESULTS and "No results found under" not in views.NO_UPLOADED_RESULTS
    )


def test_a_missing_path_names_it_and_the_file_system_root_is_refused_with_a_message(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="nowhere"):
        views.open_results(tmp_path / "nowhere")
    import plates.results.query as q

    monkeypatch.setattr(q, "MAX_ENTRIES", 500)  # "/" holds far more than this on any machine
    with pytest.raises(ValueError, match="too much to be a results folder"):
        views.open_results("/")
    assert views.fingerprint("/") == ()  # the cache key of a refused path: no exception either


def test_the_path_box_reads_any_folder_on_localhost_but_only_the_results_root_when_served_elsewhere(tmp_path):
    root = tmp_path / "results"
    (root / "runs").mkdir(parents=True)
    assert views.is_local("127.0.0.1") and views.is_local("localhost") and views.is_local("[::1]")
    assert not views.is_local("0.0.0.0") and not views.is_local(None) and not views.is_local("")
    assert str(views.results_path("/etc", root, local=True)) == "/etc"
    assert views.results_path("runs", root, local=False) == (root / "runs").resolve()
    assert views.results_path(str(root), root, local=False) == root.resolve()
    for escape in ("/etc", "..", "runs/../../", str(tmp_path)):
        with pytest.raises(ValueError, match="served to other machines"):
            views.results_path(escape, root, local=False)
    (root / "link").symlink_to(tmp_path)
    with pytest.raises(ValueError, match="served to other machines"):
        views.results_path("link", root, local=False)
    with pytest.raises(ValueError, match="empty"):
        views.results_path("  ", root, local=True)


def test_fingerprint_changes_when_a_run_adds_a_part(tmp_path):
    write_part(tmp_path / "a.parquet", rows(1))
    before = views.fingerprint(tmp_path)
    write_part(tmp_path / "sub" / "b.parquet", rows(1))
    assert views.fingerprint(tmp_path) != before and len(views.fingerprint(tmp_path)) == 2
    assert views.fingerprint(tmp_path / "missing") == ()


def test_empty_folder_gives_help_whose_command_the_cli_accepts(tmp_path):
    assert views.open_results(tmp_path).empty
    help_text = views.empty_help(tmp_path)
    from plates.cli import build_parser

    commands = [block.split("```")[0].replace("\\\n", " ") for block in help_text.split("```bash\n")[1:]]
    assert len(commands) == 2
    for command in commands:
        args = build_parser().parse_args(shlex.split(command)[1:])
        assert args.command == "run" and args.out == str(tmp_path) and args.model


# ------------------------------------------------------------------------------------------------- filters
def test_filters_round_trip_through_the_query_string():
    filters = views.Filters(model=("a", "b"), run=("r1",), condition=("gray @900px",), prompt=("cbe-open",))
    query = views.filters_to_query(filters)
    assert query == {"model": ["a", "b"], "run": ["r1"], "condition": ["gray @900px"], "prompt": ["cbe-open"]}
    assert views.filters_from_query(query) == filters
    assert views.filters_from_query({"model": "a", "page": "x", "prompt": ""}) == views.Filters(model=("a",))
    # a link shared when the group filter was called colour_set
    assert views.filters_from_query({"colour_set": ["chevreul", "whites"]}) == views.Filters(group=("chevreul", "whites"))
    assert views.filters_from_query({"colour_set": "x", "group": "y"}) == views.Filters(group=("y",))
    assert views.filters_from_query({"colour_set": ["x"], "group": []}) == views.Filters(group=("x",))
    kept, dropped = views.valid_filters(views.Filters(model=("a", "zzz")), {"model": ["a"]})
    assert kept == views.Filters(model=("a",)) and dropped == ["model='zzz' is not in these results"]


def test_the_run_filter_and_duckdb_where_select_what_the_pandas_filter_selects(two_runs):
    opened = views.open_results(two_runs)
    assert opened.options["run"] == ["explorer-1", "run-1", "run-2", "run-3"]
    frame = load_results(two_runs).frame
    for filters in (
        views.Filters(run=("run-2",)),
        views.Filters(condition=("gray @900px", "original @300px")),
        views.Filters(model=("a",), prompt=("cbe-open",), condition=("original @900px",)),
    ):
        view = views.View(opened, filters)
        from plates.dashboard import queries

        counted = queries.drilldown_count(opened.results, view.where)
        assert counted == view.rows == len(views.apply_filters(pd.concat([frame]).pipe(_labelled), filters))


def _labelled(frame):
    from plates.charts.ishihara import with_condition

    return with_condition(frame)


# ------------------------------------------------------------------------------------ what each page shows
def test_two_runs_of_one_model_over_the_same_items_are_two_rows_and_flagged(two_runs):
    view = views.View(views.open_results(two_runs))
    page = pages.overview(view)
    table = page.table.set_index([SERIES, CONDITION])
    # each run is its own series, named by its run name (here its folder's: the parts record none)
    assert table.loc[("run-1", "original @900px"), "n"] == 10  # not 20: each run its own row
    assert table.loc[("run-2", "original @900px"), "accuracy"] == pytest.approx(0.9)
    assert table.loc[("explorer", "original @900px"), "n"] == 2
    assert ("run-3", "original @900px") in table.index
    notes = " ".join(page.notes)
    assert "10 item(s) asked in 2 runs (run-1, run-2)" in notes
    assert "1 item(s) asked more than once in run explorer-1" in notes  # the same plate asked twice
    heat = page.figure.data[0]
    assert {"run-1", "run-2", "explorer", "run-3"} == set(heat.y)
    only = views.View(views.open_results(two_runs), views.Filters(run=("run-1",)))
    assert set(pages.overview(only).table[SERIES]) == {"run-1"}


def test_every_chart_page_shows_one_condition_of_a_mixed_run_and_names_the_others(two_runs):
    view = views.View(views.open_results(two_runs), views.Filters(model=("a",), run=("run-2",)))
    assert set(pages.conditions(view)) == {"gray @900px", "original @300px", "original @900px"}
    colour = pages.colour_sets(view, condition="original @900px").figure
    assert colour.layout.meta["others"] == ["gray @900px", "original @300px"]
    assert list(colour.data[0].y) == [pytest.approx(0.9)]  # not the pooled 16/30
    gray = pages.colour_sets(view, condition="gray @900px").figure
    assert list(gray.data[0].y) == [pytest.approx(0.2)]
    resolution = pages.resolution(view).figure
    assert resolution.layout.meta["condition"] == "original" and resolution.layout.meta["others"] == ["gray"]
    assert dict(zip(resolution.data[0].x, resolution.data[0].y)) == {300: 0.5, 900: 0.9}
    grayscale = pages.grayscale(view)
    expect = metrics.grayscale_delta(load_results(two_runs / "run-2").frame.query("size == 900"), ["model"])
    assert (
        grayscale.figure.data[0].y[0]
        == pytest.approx(expect["delta"].iloc[0])
        == pytest.approx((0.9 - 0.2) / 0.9)
    )
    failures = pages.failure_modes(view).figure
    assert failures.layout.meta["condition"] and "others" in failures.layout.meta
    fits = pages.delta_e(view, condition="original @900px")
    assert fits.figure.layout.meta["condition"] == "original @900px"
    assert len(fits.table) == 1 and fits.table["n"].iloc[0] == 10
    yes_no = pages.yes_no(views.View(view.opened)).figure
    point = [t for t in yes_no.data if t.name == "run-3"][0]  # model b's one run, by its name
    assert (point.x[0], point.y[0]) == (pytest.approx(0.8), pytest.approx(0.3))


def test_the_comparison_page_pairs_our_cell_with_the_papers(tmp_path):
    from plates.results.reference import load_reference

    write_part(tmp_path / "p.parquet", outcomes("gpt-4o-2024-08-06", 160, 500))
    view = views.View(views.open_results(tmp_path), reference=load_reference())
    page = pages.compare(view)
    row = page.table.iloc[0]
    assert row["source"] == "ColorBlindnessEval Table 1" and row["paper_value"] == pytest.approx(0.308)
    assert row["inside"] and row["difference"] == pytest.approx(0.012)
    assert "paper 31%" in pages.overview(view).figure.data[0].text[0][0]


# ---------------------------------------------------------------------------------------------- drill-down
def test_the_drilldown_page_count_follows_the_row_choice(tmp_path):
    write_part(
        tmp_path / "p.parquet", concat(outcomes("a", 60, 66), rows(4, model="a", correct=None, error="boom"))
    )
    view = views.View(views.open_results(tmp_path))
    page, total, count = views.drilldown(view, only="incorrect", limit=6)
    assert (total, count, len(page)) == (6, 1, 6)  # not "of 12": the 70 rows are not all incorrect
    assert views.drilldown(view, only="all", limit=6)[1:] == (70, 12)
    failed, total, _ = views.drilldown(view, only="failed", limit=24)
    assert total == 4 and failed["correct"].isna().all() and set(failed[CONDITION]) == {"original @900px"}
    with pytest.raises(ValueError, match=r"page=2 is not valid; allowed: an integer in \[1, 1\]"):
        views.drilldown(view, only="incorrect", limit=6, page=2)


def test_drilldown_text_gives_verdict_parsed_answer_and_raw_reply():
    right = dict(
        model="m",
        prompt_name="cbe-open",
        target="12",
        expected="12",
        correct=True,
        parsed="12",
        parse_status="ok",
        failure_mode=None,
        reply="I see 12",
    )
    headline, parsed, reply = views.drilldown_text(right)
    assert headline == "**m** · `cbe-open` · target **12** (expected `12`) — :green[**correct**]"
    assert parsed == "parsed: `12` (ok)" and reply == "I see 12"
    wrong = {
        **right,
        "correct": np.bool_(False),
        "parsed": None,
        "parse_status": "unparsed",
        "failure_mode": "evasion",
    }
    assert views.drilldown_text(wrong)[0].endswith(":red[**wrong**]")
    assert views.drilldown_text(wrong)[1] == "parsed: — (unparsed, evasion)"
    failed = {
        **right,
        "correct": pd.NA,
        "error": "timeout after 60 s",
        "reply": None,
        "parsed": None,
        "parse_status": None,
    }
    assert views.drilldown_text(failed)[0].endswith(":orange[**failed**: timeout after 60 s]")


def test_regenerate_plate_re_renders_the_spec_and_re_applies_the_condition():
    from plates.stimuli.ishihara.plate import PlateSpec

    spec = PlateSpec(text="7", size=200, seed=3)
    row = rows(1, spec_json=spec.to_json(), size=128, grayscale=True, variant="standard").iloc[0].to_dict()
    image = views.regenerate_plate(row)
    assert image.size == (128, 128) and image.mode == "RGB"
    r, g, b = (band.tobytes() for band in image.split())
    assert r == g == b  # grayscale re-applied
    black = views.regenerate_plate({**row, "text_only": True, "grayscale": False})
    assert black.size == (128, 128) and not np.asarray(black).any()  # ColorBench App. J: what the model saw
    with pytest.raises(ValueError, match="spec_json"):
        views.regenerate_plate({**row, "spec_json": None})


# -------------------------------------------------------------------------------------------------- export
def test_export_holds_the_filtered_rows_and_parquet_reads_back_as_results(two_runs, tmp_path):
    from plates.dashboard import queries

    view = views.View(views.open_results(two_runs), views.Filters(model=("b",)))
    table = queries.export(view.opened.results, view.where)
    csv = pd.read_csv(io.BytesIO(views.export_bytes(table, "csv")))
    assert len(csv) == 20 and set(csv["model"]) == {"b"}
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "e.parquet").write_bytes(views.export_bytes(table, "parquet"))
    back = load_results(tmp_path / "out")
    assert back.skipped == [] and len(back.frame) == 20
    with pytest.raises(ValueError, match="allowed"):
        views.export_bytes(table, "xlsx")
    assert views.export_name("csv", views.Filters(model=("b",))) == "plates-results-model=b.csv"


def test_drilldown_flags_a_plate_cut_by_the_crop():
    from plates.dashboard.views import drilldown_text

    row = dict(model="m", prompt_name="p", target="12", expected="12", correct=True, view_family="llava-1.5",
               view_figure_cut=True, view_cropped_fraction=0.42)
    assert "figure cut by the crop**: llava-1.5 cut away 42% of the image" in drilldown_text(row)[0]
    assert "cut" not in drilldown_text({**row, "view_figure_cut": False})[0]
    assert "cut" not in drilldown_text({**row, "view_figure_cut": None})[0]


# ------------------------------------------------------------------------------------------- shipped runs
def test_the_shipped_runs_are_told_apart_and_hidden_when_the_user_has_runs(tmp_path):
    """The runs the checkout ships (listed in results/runs/shipped-runs.json) are told apart from the user's:
    hidden by default once the user has a run of their own, and the run filter offers only the user's."""
    from plates.results.shipped import MANIFEST, shipped_run_ids, write_manifest

    runs = tmp_path / "runs"
    write_part(runs / "baseline-cbe" / "p.parquet", outcomes("baseline-cnn", 6, 10, run_id="baseline-cbe-1"))
    write_part(runs / "reader-cvd" / "p.parquet", outcomes("baseline-cnn", 3, 10, run_id="reader-cvd-2"))
    assert write_manifest(runs) == runs / MANIFEST
    assert shipped_run_ids(tmp_path) == shipped_run_ids(runs) == {"baseline-cbe-1", "reader-cvd-2"}
    only_shipped = views.open_results(tmp_path)
    assert only_shipped.shipped == {"baseline-cbe-1", "reader-cvd-2"} and only_shipped.own_runs == []
    # nothing of the user's yet: the shipped runs stay shown whatever is asked
    assert only_shipped.filters_for(views.Filters(), False) == views.Filters()
    write_part(runs / "mine" / "p.parquet", outcomes("gpt-4o", 8, 10, run_id="cbe-abc"))
    opened = views.open_results(tmp_path)
    assert opened.own_runs == ["cbe-abc"]
    assert opened.options_for(False)["run"] == ["cbe-abc"] and opened.options_for(False)["model"] == ["gpt-4o"]
    assert opened.options_for(True) == opened.options
    hidden = views.View(opened, opened.filters_for(views.Filters(), False))
    assert set(hidden.cube["run_id"]) == {"cbe-abc"} and set(hidden.cube[SERIES]) == {"mine"}
    assert hidden.rows == 10
    shown = views.View(opened, opened.filters_for(views.Filters(), True))
    assert set(shown.cube["run_id"]) == {"baseline-cbe-1", "reader-cvd-2", "cbe-abc"}
    # a shipped run chosen in the filter while they are hidden: the user's runs instead
    assert opened.filters_for(views.Filters(run=("reader-cvd-2",)), False).run == ("cbe-abc",)
    (runs / MANIFEST).write_text('{"runs": "baseline-cbe-1"}')
    with pytest.raises(ValueError, match="shipped-runs.json: 'runs' must be a list of run ids"):
        views.open_results(tmp_path)
    (runs / MANIFEST).write_text("not json")
    with pytest.raises(ValueError, match="not a shipped-runs manifest.*make_shipped_results"):
        shipped_run_ids(runs)
    assert views.open_results(runs / "mine").shipped == frozenset()  # a folder without a manifest


def test_the_group_filter_selects_each_familys_grouping_of_the_shipped_runs():
    """The shipped runs (stored before rows recorded ``group``): the sidebar's group filter offers the plates'
    colour sets, the illusions' kinds and the scenes' tasks, and selects in DuckDB what it selects in pandas;
    the cube keeps ``colour_set`` for plate cells only."""
    from pathlib import Path

    from plates.dashboard import queries

    folder = Path(__file__).resolve().parents[2] / "results" / "runs"
    opened = views.open_results(folder)
    assert {"colorblindnesseval-1", "chevreul", "colour-counting"} <= set(opened.options["group"])
    cube = opened.cube
    plate = cube["task"].astype(str).str.startswith(("cbe-", "huemanity-"))  # the plates' tasks
    assert cube.loc[~plate, "colour_set"].isna().all() and cube.loc[~plate, "group"].notna().all()
    assert cube.loc[plate, "colour_set"].equals(cube.loc[plate, "group"]) and plate.any() and not plate.all()
    frame = load_results(folder, columns=["family", "group", "model", "run_id", "prompt_name"]).frame
    for chosen in (("chevreul",), ("colorblindnesseval-1", "colour-counting")):
        view = views.View(opened, views.Filters(group=chosen))
        want = frame[frame["group"].isin(chosen)]
        assert queries.drilldown_count(opened.results, view.where) == view.rows == len(want) > 0
