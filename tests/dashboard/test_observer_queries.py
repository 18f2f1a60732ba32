"""The Observers page under streamlit's AppTest on real Parquet parts: the ellipse chart from an ellipses.parquet
summary in the folder (which the results readers leave out), and the κ matrix of two observers that answered
the same trials; plain messages when the folder holds neither."""

from __future__ import annotations

import os

import numpy as np
import pytest

from plates.dashboard.observer_queries import ellipse_tables, pair_counts
from plates.runs.ellipse_summary import write_summary
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


def people_results(root):
    """``root`` with a person's directions quiz (a scripted person who reads as the known ellipse observer
    does, colour vision "deutan") and another person's rows on model-a's trials (colour vision "protan")."""
    from plates.runs.quiz import QuizLimits
    from plates.runs.quiz_directions import DirectionsSession
    from tests.runs.test_ellipses import known
    from tests.runs.test_quiz_directions import answer_as

    session = DirectionsSession.start(size=128, seed=3, limits=QuizLimits(min_seconds_between=0.0),
                                      folder=root / "human", colour_vision="deutan")
    answer_as(session, known)
    specs = [f'{{"seed": {i}}}' for i in range(10)]
    write_part(root / "p" / "part-000.parquet", outcomes("participant-p1", 6, 10, spec_json=specs, family="ishihara",
                                                        run_id="human-p1", backend="human", colour_vision="protan"))
    return session


@pytest.fixture(scope="module")
def people_folder(folder, tmp_path_factory):
    import shutil

    root = tmp_path_factory.mktemp("people")
    shutil.copytree(folder, root, dirs_exist_ok=True)
    return root, people_results(root)


def test_people_are_drawn_beside_models_and_in_the_kappa_matrix(monkeypatch, people_folder):
    import json

    from plates.dashboard.observer_queries import kappa_matrix, observer_ellipses
    from plates.dashboard.queries import Where
    from plates.results.query import open_results

    root, session = people_folder
    table = observer_ellipses(open_results(root), Where())
    person = table[table["model"] == session.model]
    _, mine = session.summary()
    assert list(table["model"]) == ["obs", session.model] and person["colour_vision"].iloc[0] == "deutan"
    assert person["a"].iloc[0] == pytest.approx(mine[0]["a"]) and person["status"].iloc[0] == "fit"
    matrix = kappa_matrix(open_results(root), Where())
    protan = "participant-p1 (person; colour vision, self-reported: protan)"
    assert protan in set(matrix["observer_a"]) | set(matrix["observer_b"]) and len(matrix) == 3
    at = open_page(monkeypatch, root, "observers")
    assert not at.exception
    names = {t.get("name") for t in json.loads(at.get("plotly_chart")[0].proto.spec)["data"]}
    assert f"{session.model} (person; colour vision, self-reported: deutan)" in names and "obs" in names
    at.radio(key="observers_section").set_value("Error consistency").run()
    assert protan in set(at.dataframe[0].value["observer_b"]) | set(at.dataframe[0].value["observer_a"])
