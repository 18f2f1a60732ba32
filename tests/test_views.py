"""plates.ui.dashboard: the dashboard's non-widget logic (loading, filters <-> query string, drill-down, export)."""

from __future__ import annotations

import io
import shlex

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from dashboard_rows import concat, outcomes, rows, write_part

from plates.ui import dashboard as views
from plates.analysis.charts import CONDITION, with_condition
from plates.results import load_results


@pytest.fixture
def frame() -> pd.DataFrame:
    return with_condition(
        concat(
            outcomes("a", 3, 4, colour_set="colorblindnesseval-1"),
            outcomes("b", 1, 4, colour_set="colorblindnesseval-3", grayscale=True),
            outcomes("a", 2, 2, prompt_name="cbe-yn-correct", colour_set="colorblindnesseval-3"),
        )
    )


# ------------------------------------------------------------------------------------------------- loading
def test_load_reads_every_part_recursively_skips_corrupt_and_foreign_files_and_leaves_out_reference(tmp_path):
    write_part(tmp_path / "run-1" / "part-0.parquet", outcomes("a", 1, 2))
    (tmp_path / "run-2" / "deep").mkdir(parents=True)
    pq.write_table(
        pa.Table.from_pandas(outcomes("b", 2, 3).assign(extra_column=1), preserve_index=False),
        tmp_path / "run-2" / "deep" / "part-0.parquet",
    )  # a newer writer added a column
    (tmp_path / "broken.parquet").write_bytes(b"PAR1 this is not a parquet file")
    pq.write_table(pa.table({"colour": ["red"]}), tmp_path / "foreign.parquet")
    from plates.results.reference import REFERENCE_DIR

    (tmp_path / "reference").mkdir()
    (tmp_path / "reference" / "t.parquet").write_bytes(
        (REFERENCE_DIR / "huemanity_table5.parquet").read_bytes()
    )

    loaded = views.load(tmp_path)
    assert len(loaded.frame) == 5 and set(loaded.frame["model"]) == {"a", "b"}
    assert "extra_column" in loaded.frame.columns  # union of the parts' columns
    assert set(loaded.frame[CONDITION]) == {"original @900px"}
    skipped = {name.rsplit("/", 1)[-1] for name, _ in loaded.skipped}
    assert skipped == {"broken.parquet", "foreign.parquet"}  # named; the reference table is not a skip


def test_load_survives_a_run_compacting_its_parts_while_the_folder_is_read(tmp_path, monkeypatch):
    # `plates run` merges a run's parts when it ends (compact_run): a part listed a moment ago is then gone.
    from plates.results import compact_run
    from plates.results import reader as results

    for i in range(3):
        write_part(tmp_path / f"r-{i}.parquet", outcomes("a", 1, 1, run_id="r", item_id=f"item-{i}"))
    real, compacted = results._read_parts, []

    def compacting_meanwhile(files, *args, **kwargs):
        if not compacted:  # between listing the folder and reading the parts
            compacted.append(True)
            assert compact_run(tmp_path, "r") is not None  # the listed parts are deleted
        return real(files, *args, **kwargs)

    monkeypatch.setattr(results, "_read_parts", compacting_meanwhile)
    loaded = views.load(tmp_path)
    assert compacted and sorted(loaded.frame["item_id"]) == ["item-0", "item-1", "item-2"]
    assert loaded.skipped == [] and len(list(tmp_path.glob("*.parquet"))) == 1


def test_load_of_a_missing_path_names_it(tmp_path):
    with pytest.raises(ValueError, match="nowhere"):
        views.load(tmp_path / "nowhere")


def test_empty_folder_gives_an_empty_frame_and_help_whose_command_the_cli_accepts(tmp_path):
    assert views.load(tmp_path).frame.empty
    help_text = views.empty_help(tmp_path)
    assert "plates run" in help_text and str(tmp_path) in help_text
    from plates.cli import build_parser

    commands = [block.split("```")[0].replace("\\\n", " ") for block in help_text.split("```bash\n")[1:]]
    assert len(commands) == 2
    for command in commands:
        args = build_parser().parse_args(shlex.split(command)[1:])
        assert args.command == "run" and args.out == str(tmp_path) and args.model


def test_fingerprint_changes_when_a_run_adds_a_part(tmp_path):
    write_part(tmp_path / "a.parquet", rows(1))
    before = views.fingerprint(tmp_path)
    write_part(tmp_path / "sub" / "b.parquet", rows(1))
    assert views.fingerprint(tmp_path) != before and len(views.fingerprint(tmp_path)) == 2
    assert views.fingerprint(tmp_path / "missing") == ()


# ------------------------------------------------------------------------------------------------- filters
def test_filters_round_trip_through_the_query_string():
    filters = views.Filters(model=("a", "b"), condition=("gray @900px",), prompt=("cbe-open",))
    query = views.filters_to_query(filters)
    assert query == {"model": ["a", "b"], "condition": ["gray @900px"], "prompt": ["cbe-open"]}
    assert views.filters_from_query(query) == filters
    # st.query_params.to_dict() gives one string per key; unknown keys and blanks are ignored
    assert views.filters_from_query({"model": "a", "page": "x", "prompt": ""}) == views.Filters(model=("a",))


def test_valid_filters_drops_values_the_results_do_not_have_and_says_so(frame):
    kept, dropped = views.valid_filters(views.Filters(model=("a", "zzz")), views.filter_options(frame))
    assert kept == views.Filters(model=("a",))
    assert dropped == ["model='zzz' is not in these results"]


def test_filter_options_and_apply_filters(frame):
    options = views.filter_options(frame)
    assert options["model"] == ["a", "b"]
    assert options["condition"] == ["gray @900px", "original @900px"]
    assert options["prompt"] == ["cbe-open", "cbe-yn-correct"]
    assert len(views.apply_filters(frame, views.Filters())) == len(frame)
    only = views.apply_filters(frame, views.Filters(model=("a",), colour_set=("colorblindnesseval-3",)))
    assert len(only) == 2 and set(only["prompt_name"]) == {"cbe-yn-correct"}
    assert views.apply_filters(frame, views.Filters(condition=("gray @900px",)))[
        "model"
    ].unique().tolist() == ["b"]


# ---------------------------------------------------------------------------------------------- drill-down
def test_drilldown_rows_choose_by_verdict_and_page_in_a_stable_order(frame):
    failed = rows(1, model="c", correct=None, error="timeout", item_id="zz")
    frame = pd.concat([frame, failed.assign(**{CONDITION: "original @900px"})], ignore_index=True)
    assert len(views.drilldown_rows(frame, only="incorrect", limit=100)) == 4
    assert views.drilldown_rows(frame, only="failed")["model"].tolist() == ["c"]
    first, second = (views.drilldown_rows(frame, limit=3, offset=o) for o in (0, 3))
    assert len(first) == 3 and not set(first.index) & set(second.index)
    with pytest.raises(ValueError, match="allowed"):
        views.drilldown_rows(frame, only="maybe")


def test_drilldown_text_gives_verdict_parsed_answer_and_raw_reply():
    right = dict(model="m", prompt_name="cbe-open", target="12", expected="12", correct=True, parsed="12",
                 parse_status="ok", failure_mode=None, reply="I see 12")
    headline, parsed, reply = views.drilldown_text(right)
    assert headline == "**m** · `cbe-open` · target **12** (expected `12`) — :green[**correct**]"
    assert parsed == "parsed: `12` (ok)" and reply == "I see 12"
    wrong = {**right, "correct": np.bool_(False), "parsed": None, "parse_status": "unparsed",
             "failure_mode": "evasion", "reply": "a circle of dots"}
    assert views.drilldown_text(wrong)[0].endswith(":red[**wrong**]")
    assert views.drilldown_text(wrong)[1] == "parsed: — (unparsed, evasion)"
    failed = {**right, "correct": pd.NA, "error": "timeout after 60 s", "reply": None, "parsed": None,
              "parse_status": None}
    headline, parsed, reply = views.drilldown_text(failed)
    assert headline.endswith(":orange[**failed**: timeout after 60 s]")
    assert parsed == "parsed: —" and reply == "(no reply)"
    assert views.drilldown_text({**failed, "error": None})[0].endswith("**failed**: no reply]")


def test_regenerate_plate_re_renders_the_spec_and_re_applies_the_condition():
    from plates.stimuli.ishihara.plate import PlateSpec

    spec = PlateSpec(text="7", size=200, seed=3)
    row = rows(1, spec_json=spec.to_json(), size=128, grayscale=True, variant="standard").iloc[0].to_dict()
    image = views.regenerate_plate(row)
    assert image.size == (128, 128) and image.mode == "RGB"
    r, g, b = (band.tobytes() for band in image.split())
    assert r == g == b  # grayscale re-applied
    with pytest.raises(ValueError, match="spec_json"):
        views.regenerate_plate({**row, "spec_json": None})


# -------------------------------------------------------------------------------------------------- export
def test_export_csv_and_parquet_hold_the_filtered_rows_and_parquet_reads_back_as_results(frame, tmp_path):
    subset = views.apply_filters(frame, views.Filters(model=("b",)))
    csv = pd.read_csv(io.BytesIO(views.export_bytes(subset, "csv")))
    assert len(csv) == 4 and set(csv["model"]) == {"b"} and CONDITION not in csv.columns
    (tmp_path / "export.parquet").write_bytes(views.export_bytes(subset, "parquet"))
    back = load_results(tmp_path)
    assert (
        back.skipped == []
        and len(back.frame) == 4
        and back.frame["correct"].tolist() == subset["correct"].tolist()
    )
    with pytest.raises(ValueError, match="allowed"):
        views.export_bytes(subset, "xlsx")
    assert views.export_name("csv", views.Filters(model=("b",))) == "plates-results-model=b.csv"


def test_loaded_results_carry_their_filter_options_and_no_filter_means_no_copy(tmp_path):
    write_part(
        tmp_path / "p.parquet", concat(outcomes("a", 1, 2), outcomes("b", 1, 2, prompt_name="cbe-yn-correct"))
    )
    loaded = views.load(tmp_path)
    assert loaded.options == views.filter_options(loaded.frame)
    assert loaded.options["model"] == ["a", "b"]
    assert views.apply_filters(loaded.frame, views.Filters()) is loaded.frame


def test_pages_filter_the_narrow_chart_columns_and_fetch_full_rows_back_by_index(frame):
    narrow = views.narrow(frame)
    assert "spec_json" not in narrow.columns and "reply" not in narrow.columns
    assert {"model", "correct", CONDITION, "item_id", "grayscale"} <= set(narrow.columns)
    chosen = views.drilldown_rows(views.apply_filters(narrow, views.Filters(model=("b",))), limit=2)
    full = views.full_rows(frame, chosen)
    assert list(full.columns) == list(frame.columns) and full["model"].tolist() == ["b", "b"]
    assert full["reply"].tolist() == frame.loc[chosen.index, "reply"].tolist()


def test_load_gives_categorical_strings_and_every_view_matches_the_plain_frame(tmp_path, frame):
    # The dashboard loads string columns as pandas Categorical (speed, memory): filters, drill-down order and
    # exports must be those of the plain strings.
    write_part(tmp_path / "p.parquet", frame.drop(columns=[CONDITION]))
    write_part(tmp_path / "q.parquet", outcomes("c", 0, 2, colour_set=None))  # other dictionaries, a null
    loaded = views.load(tmp_path)
    plain = with_condition(load_results(tmp_path).frame)
    assert loaded.frame["model"].dtype == "category" and loaded.frame["reply"].dtype == "category"
    assert loaded.options == views.filter_options(plain)
    for filters in (views.Filters(model=("a", "c")), views.Filters(colour_set=("colorblindnesseval-3",)),
                    views.Filters(condition=("gray @900px",), prompt=("cbe-open", "nope"))):
        got, want = views.apply_filters(loaded.frame, filters), views.apply_filters(plain, filters)
        assert got.index.tolist() == want.index.tolist() and len(got) > 0, filters
    for only in ("all", "incorrect"):
        got, want = (views.drilldown_rows(f, only=only, limit=100) for f in (loaded.frame, plain))
        assert got.index.tolist() == want.index.tolist()
    (tmp_path / "export").mkdir()
    (tmp_path / "export" / "e.parquet").write_bytes(views.export_bytes(loaded.frame, "parquet"))
    again = load_results(tmp_path / "export").frame
    assert again["model"].tolist() == plain["model"].tolist() and again["model"].dtype != "category"
    assert views.export_bytes(loaded.frame, "csv") == views.export_bytes(plain, "csv")
