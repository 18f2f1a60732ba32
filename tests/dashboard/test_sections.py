"""The family pages of the dashboard (Illusions, Scenes, People) driven by streamlit's AppTest on
real Parquet parts (tests/support/family_rows.py): each page draws its charts and tables from rows of its family,
and says so plainly when the loaded results hold none."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.dashboard_app import notes, open_page
from tests.support.dashboard_rows import outcomes, write_part
from tests.support.family_rows import write_family_results

os.environ.setdefault("STREAMLIT_BROWSER_GATHER_USAGE_STATS", "false")

#: page -> (charts it draws on the family rows, a column one of its tables must have, its empty message)
PAGES = {
    "illusions": (3, "magnitude", "No illusion rows"),
    "scenes": (2, "macro", "No scene rows"),
    "people": (1, "threshold", "No human rows"),  # the models' thresholds (its first section), no person yet
}


@pytest.fixture(scope="module")
def families(tmp_path_factory) -> Path:
    return write_family_results(tmp_path_factory.mktemp("families"))


@pytest.fixture(scope="module")
def plates_only(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("plates-only")
    write_part(folder / "run" / "part-000.parquet", outcomes("a", 7, 10))
    return folder


@pytest.mark.parametrize("page", PAGES)
def test_family_page_draws_its_charts(monkeypatch, families, page):
    charts, table, _ = PAGES[page]
    at = open_page(monkeypatch, families, page)
    assert at.title[0].value
    assert len(at.get("plotly_chart")) == charts
    tables = [d.value for d in at.dataframe if table in d.value.columns]
    assert tables and len(tables[0]) > 0


def test_pages_show_the_papers_numbers_beside_ours(monkeypatch, families):
    at = open_page(monkeypatch, families, "illusions")
    chart = at.get("plotly_chart")[0]
    assert "RCID Table 1" in chart.proto.spec  # the paper's bars in the RCID chart
    assert any("Not in the papers' tables" in n for n in notes(at))
    # the filter kind's human key is a prediction no person has checked: the page says so beside its rows
    assert any("rcid-filter's human answer" in n and "unvalidated" in n for n in notes(at))
    at = open_page(monkeypatch, families, "scenes")
    overall = at.dataframe[0].value
    assert {"ours", "ColorBench Table 1"} <= set(overall["source"])
    at = open_page(monkeypatch, families, "people")
    people = at.dataframe[0].value
    assert set(people["who"]) == {"person", "model"} and people["threshold"].notna().any()


def test_the_people_page_reads_the_section_it_shows(monkeypatch, families):
    """One section at a time, each its own scan: the thresholds first, then the PSEs and the accuracy beside the
    papers' people when chosen."""
    sections = ("Thresholds (ΔE2000)", "Illusions: point of subjective equality (ΔE2000)",
                "Accuracy beside the papers' people")

    def shown(at):
        return [h.value for h in at.header if h.value in sections]

    at = open_page(monkeypatch, families, "people")
    assert shown(at) == [sections[0]] and len(at.get("plotly_chart")) == 1
    at.radio(key="people_section").set_value("Illusions (PSE)").run()
    assert not at.exception and shown(at) == [sections[1]] and len(at.get("plotly_chart")) == 1
    assert "magnitude" in at.dataframe[0].value.columns
    at.radio(key="people_section").set_value("Accuracy beside the papers").run()
    assert not at.exception and shown(at) == [sections[2]] and len(at.get("plotly_chart")) == 0
    accuracy = at.dataframe[0].value
    assert {"accuracy", "paper_human"} <= set(accuracy.columns) and set(accuracy["who"]) >= {"person", "model"}


@pytest.mark.parametrize("page", PAGES)
def test_family_page_without_its_rows_says_so(monkeypatch, plates_only, page):
    at = open_page(monkeypatch, plates_only, page)
    assert len(at.get("plotly_chart")) == 0
    assert any(PAGES[page][2] in i.value for i in at.info), [i.value for i in at.info]
