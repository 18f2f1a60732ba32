"""The Observers page under streamlit's AppTest on real Parquet parts: the ellipse chart from an ellipses.parquet
summary in the folder (which the results readers leave out), and the κ matrix of two observers that answered
the same trials; plain messages when the folder holds neither."""

from __future__ import annotations

import os

import numpy as np
import pytest

from plates.dashboard.observer_queries import ellipse_tables, pair_counts
from plates.runs.ellipses import write_summary
from tests.support.dashboard_app import open_page
from tests.support.dashboard_rows import outcomes, write_part

os.environ.setdefault("STREAMLIT_BROWSER_GATHER_USAGE_STATS", "false")

ELLIPSE = {"run_id": "ellipses-x", "model": "obs", "backend": "python", "centre": "macadam-13",
           "centre_x": 0.305, "centre_y": 0.323, "a": 0.006, "b": 0.002, "theta_deg": 30.0, "a_low": 0.005,
           "a_high": 0.007, "b_low": 0.0015, "b_high": 0.0025, "status": "fit", "area_ratio": 1.2}


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("observers")
    specs = [f'{{"seed": {i}}}' for i in range(10)]
    write_part(root / "a" / "part-000.parquet", outcomes("model-a", 7, 10, spec_json=specs, family="ishihara",
                                                        run_id="run-a"))
    write_part(root / "b" / "part-000.parquet", outcomes("model-b", 5, 10, spec_json=specs, family="ishihara",
                                                        run_id="run-b"))
    (root / "e").mkdir()
    write_summary([ELLIPSE], root / "e" / "ellipses.parquet")
    return root


def test_ellipse_tables_read_only_summaries(folder, tmp_path):
    assert list(ellipse_tables(folder)["centre"]) == ["macadam-13"]
    write_part(tmp_path / "ellipses.parquet", outcomes("x", 1, 1))  # a results part by that name: not a summary
    assert ellipse_tables(tmp_path).empty


def test_duckdb_counts_agree_with_the_pandas_kappa(folder):
    from plates.analysis.consistency import error_consistency, matrix_from_counts
    from plates.dashboard.queries import Where
    from plates.results import load_results
    from plates.results.query import open_results

    matrix = matrix_from_counts(pair_counts(open_results(folder), Where()))
    frame = load_results(folder).frame
    direct = error_consistency(frame[frame["model"] == "model-a"], frame[frame["model"] == "model-b"])
    assert len(matrix) == 1 and matrix["n"].iloc[0] == direct.n == 10
    assert matrix["kappa"].iloc[0] == pytest.approx(direct.kappa) == pytest.approx(0.6)


def test_the_page_draws_ellipses_and_kappa(monkeypatch, folder):
    at = open_page(monkeypatch, folder, "observers")
    assert at.title[0].value == "Observers"
    assert len(at.get("plotly_chart")) == 2 and "macadam-13" in set(at.dataframe[0].value["centre"])
    at.radio(key="observers_section").set_value("Error consistency").run()
    assert not at.exception and len(at.get("plotly_chart")) == 1
    kappa = at.dataframe[0].value
    # a: 7 right then 3 wrong; b: 5 right then 5 wrong: c_obs 0.8, c_exp 0.5, kappa 0.6
    assert list(kappa["observer_a"]) == ["model-a"] and np.isclose(kappa["kappa"].iloc[0], 0.6)


def test_an_empty_folder_says_so(monkeypatch, tmp_path):
    write_part(tmp_path / "a" / "part-000.parquet", outcomes("only", 1, 2, family="ishihara"))
    at = open_page(monkeypatch, tmp_path, "observers")
    assert any("No ellipses.parquet" in i.value for i in at.info)
    at.radio(key="observers_section").set_value("Error consistency").run()
    assert any("No two observers" in i.value for i in at.info)
