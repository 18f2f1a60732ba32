"""The Streamlit dashboard (dashboard/app.py) driven by streamlit's AppTest: every page renders its chart from
real Parquet parts on disk; filters live in the query string; drill-down regenerates plates; an empty folder
and a corrupt file are explained, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from dashboard_rows import concat, outcomes, rows, write_part
from streamlit.testing.v1 import AppTest

APP = Path(__file__).resolve().parents[1] / "dashboard" / "app.py"
CHART_PAGES = [
    "overview",
    "colour_sets",
    "resolution",
    "grayscale",
    "chain_of_thought",
    "yes_no",
    "delta_e",
    "failure_modes",
]


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    """Two runs' parts: models a and b over two colour sets, grayscale, two sizes, yes/no and CoT prompts."""
    folder = tmp_path_factory.mktemp("results")
    write_part(
        folder / "run-1" / "part-000.parquet",
        concat(
            outcomes(
                "a", 7, 10, colour_set="colorblindnesseval-1", delta_e=[5.0 * (i + 1) for i in range(10)]
            ),
            outcomes("a", 3, 10, colour_set="colorblindnesseval-1", grayscale=True),
            outcomes(
                "a", 2, 10, colour_set="colorblindnesseval-3", size=300, item_id=[f"s{i}" for i in range(10)]
            ),
            outcomes("a", 8, 10, prompt_name="cbe-yn-correct"),
            outcomes("a", 4, 10, prompt_name="cbe-yn-incorrect"),
        ),
    )
    write_part(
        folder / "run-2" / "nested" / "part-000.parquet",
        concat(
            outcomes(
                "b", 5, 10, colour_set="colorblindnesseval-3", delta_e=[5.0 * (i + 1) for i in range(10)]
            ),
            outcomes("b", 2, 10, prompt_name="colorbench-mc"),
            outcomes("b", 6, 10, prompt_name="colorbench-mc-cot"),
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


@pytest.mark.parametrize("page", CHART_PAGES)
def test_every_chart_page_renders_its_chart(monkeypatch, results, page):
    at = app(monkeypatch, results)
    at.switch_page(f"sections/{page}.py").run()
    clean(at)
    assert len(at.get("plotly_chart")) == 1
    assert at.title[0].value  # the page says what it shows


def test_filters_narrow_the_rows_every_page_sees(monkeypatch, results):
    at = app(monkeypatch, results)
    clean(at)
    assert at.multiselect(key="model").options == ["a", "b"]
    assert "Export 80 rows" in [h.value for h in at.sidebar.header]
    at.multiselect(key="model").select("b").run()
    at.multiselect(key="prompt").select("colorbench-mc").run()
    clean(at)
    assert "Export 10 rows" in [h.value for h in at.sidebar.header]
    assert at.query_params == {"model": "b", "prompt": "colorbench-mc"}


def test_query_string_round_trip_restores_the_same_view(monkeypatch, results):
    at = app(monkeypatch, results, model=["a"], condition=["gray @900px"])
    clean(at)
    assert at.multiselect(key="model").value == ["a"]
    assert at.multiselect(key="condition").value == ["gray @900px"]
    assert "Export 10 rows" in [h.value for h in at.sidebar.header]
    at.multiselect(key="condition").unselect("gray @900px").select("original @300px").run()
    shared = dict(at.query_params)
    assert shared == {"model": "a", "condition": "original @300px"}
    again = app(monkeypatch, results, **shared)  # a colleague opens the shared link
    assert again.multiselect(key="condition").value == ["original @300px"]
    assert "Export 10 rows" in [h.value for h in again.sidebar.header]


def test_a_shared_link_naming_values_not_in_these_results_is_explained(monkeypatch, results):
    at = app(monkeypatch, results, model=["a", "gpt-9"])
    clean(at)
    assert at.multiselect(key="model").value == ["a"]
    assert any("gpt-9" in w.value for w in at.sidebar.warning)


def test_drilldown_regenerates_each_plate_with_reply_parsed_answer_and_verdict(monkeypatch, tmp_path):
    from plates.stimuli.ishihara.plate import PlateSpec

    specs = [PlateSpec(text=t, size=160, seed=i).to_json() for i, t in enumerate(("12", "74"))]
    write_part(
        tmp_path / "part.parquet",
        rows(
            2,
            spec_json=specs,
            size=96,
            target=["12", "74"],
            reply=["I see 12", "I see 21"],
            parsed=["12", "21"],
            correct=[True, False],
            item_id=["p0", "p1"],
        ),
    )
    at = app(monkeypatch, tmp_path)
    at.switch_page("sections/drilldown.py").run()
    clean(at)
    assert len(at.image) == 2  # both plates re-rendered
    assert [t.value for t in at.text] == ["I see 12", "I see 21"]
    markdown = " ".join(m.value for m in at.markdown)
    assert "**correct**" in markdown and "**wrong**" in markdown and "parsed: `21`" in markdown
    at.selectbox(key="drill_only").set_value("incorrect").run()
    assert [t.value for t in at.text] == ["I see 21"]


def test_empty_folder_shows_how_to_make_results(monkeypatch, tmp_path):
    at = app(monkeypatch, tmp_path)
    clean(at)
    assert "plates run" in at.info[0].value and not at.get("plotly_chart")


def test_corrupt_file_is_skipped_with_a_warning_naming_it(monkeypatch, results, tmp_path):
    write_part(tmp_path / "good.parquet", outcomes("a", 1, 2))
    (tmp_path / "truncated.parquet").write_bytes(b"PAR1\x00\x01")
    at = app(monkeypatch, tmp_path)
    clean(at)
    assert any("truncated.parquet" in w.value for w in at.warning)
    assert len(at.get("plotly_chart")) == 1  # the good part is still shown


def test_missing_path_is_an_error_not_a_traceback(monkeypatch, tmp_path):
    at = app(monkeypatch, tmp_path / "nowhere")
    assert not at.exception
    assert "nowhere" in at.error[0].value


def test_uploaded_parts_replace_the_folder(monkeypatch, tmp_path):
    part = write_part(tmp_path / "upload" / "part.parquet", outcomes("uploaded-model", 1, 3))
    (tmp_path / "empty").mkdir()
    at = app(monkeypatch, tmp_path / "empty")
    assert at.info  # nothing in the folder yet
    at.file_uploader(key="uploads").upload("upload.parquet", part.read_bytes()).run()
    clean(at)
    assert at.multiselect(key="model").options == ["uploaded-model"]


def test_an_unexpected_error_shows_no_stack_trace_on_the_page(monkeypatch, results):
    """House rule: no stack traces on the page, also under plain `streamlit run` (no CLI flags)."""
    from plates.analysis import charts

    def broken(*args, **kwargs):
        raise RuntimeError("internal detail /srv/secret/path")

    monkeypatch.setattr(charts, "colour_set_figure", broken)
    at = app(monkeypatch, results)
    at.switch_page("sections/colour_sets.py").run()
    assert at.exception  # shown as an error box ...
    shown = at.exception[0]
    assert not shown.stack_trace and "/srv/secret/path" not in shown.message  # ... without trace or detail
