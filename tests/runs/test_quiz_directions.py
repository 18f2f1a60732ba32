"""A person's directions quiz: the same trials, rows and fit as ``plates ellipses``, answered by a person; the
optional colour-vision type on every row; people's ellipses fit again from their stored rows alone."""

from __future__ import annotations

import io

import numpy as np
import pyarrow.parquet as pq
import pytest

from plates.results import load_results
from plates.runs.ellipse_plan import EllipseRun, parse_centres
from plates.runs.ellipses import run_ellipses
from plates.runs.experiment import ModelSpec
from plates.runs.quiz import QuizLimits, QuizSession
from plates.runs.quiz_directions import DISPLAY_CAVEAT, DirectionsSession, ellipses_from_rows
from tests.runs.test_ellipses import known

FAST = QuizLimits(min_seconds_between=0.0)
KNOWN = ModelSpec("python", "tests.runs.test_ellipses:known", 512, 0.0, {})
COLUMNS = ["item_id", "level", "level_shown", "correct", "direction", "code_steps"]


def answer_as(session: DirectionsSession, observer) -> None:
    """The person types what ``observer`` (image, question text -> reply) reads on each plate, or '?'."""
    while not session.done:
        trial = session.next_trial()
        reply = observer(trial.image, session._shown[1].question.text)
        target = session._shown[1].question.target
        session.answer(target if target in reply else "?")


def test_a_person_gets_the_trials_and_ellipse_plates_ellipses_gives_the_same_observer(tmp_path):
    session = DirectionsSession.start(centre="macadam-13", trials=10, size=256, seed=5, limits=FAST,
                                      folder=tmp_path / "human", colour_vision="deutan")
    answer_as(session, known)
    assert len(session.rows) == 80 and session.done
    (centre,), _ = parse_centres("macadam-13")
    model = run_ellipses(EllipseRun(centres=(centre,), model=KNOWN, trials=10, size=256, seed=5,
                                    out=str(tmp_path / "model")))
    mine = load_results(tmp_path / "human").frame.sort_values("item_id").reset_index(drop=True)
    theirs = load_results(tmp_path / "model").frame.sort_values("item_id").reset_index(drop=True)
    # the same plates at the same levels, the same verdicts: one procedure, whoever answers
    assert mine[COLUMNS].equals(theirs[COLUMNS])
    assert set(mine["backend"]) == {"human"} and set(mine["dataset"]) == {"quiz"}
    assert set(mine["model"]) == {session.model} and set(mine["colour_vision"]) == {"deutan"}
    assert theirs["colour_vision"].isna().all()  # a model's rows carry no colour-vision type
    _, ellipse = session.summary()
    for key in ("a", "b", "theta_deg", "status"):
        assert ellipse[0][key] == model.ellipses[0][key]
    # fit again from the stored rows alone, as the charts do: the same ellipse, with the person's type
    again = ellipses_from_rows(load_results(tmp_path).frame)
    assert len(again) == 1 and again["model"].iloc[0] == session.model
    assert again["colour_vision"].iloc[0] == "deutan" and again["status"].iloc[0] == "fit"
    assert np.allclose(again[["a", "b", "theta_deg"]].iloc[0], [ellipse[0][k] for k in ("a", "b", "theta_deg")])
    download = pq.read_table(io.BytesIO(session.parquet())).to_pandas()
    assert list(download["colour_vision"]) == ["deutan"] * 80 and "client" not in download.columns


@pytest.mark.parametrize(("kw", "says"), [
    ({"centre": "0.16,0.057"}, "outside the sRGB gamut"),
    ({"centre": "macadam-13;macadam-14"}, "allowed: one centre"),
    ({"directions": 4}, "three distinct axes"),
    ({"trials": 9}, r"allowed: an integer in \[10, 2000\] per direction"),
    ({"trials": 11}, "allowed: at most 80 per session"),
    ({"colour_vision": "my name is Ann"}, "allowed: blank"),
])
def test_bad_settings_fail_before_any_image(tmp_path, kw, says):
    with pytest.raises(ValueError, match=says):
        DirectionsSession.start(size=128, limits=FAST, folder=tmp_path, **kw)
    assert not any(tmp_path.iterdir())


def test_colour_vision_is_optional_and_kept_on_the_plate_quiz_rows_too(tmp_path):
    blank = DirectionsSession.start(size=128, seed=1, limits=FAST, folder=tmp_path / "a", colour_vision="  ")
    assert blank.colour_vision is None
    quiz = QuizSession.start(trials=2, illusion=None, size=128, seed=1, limits=FAST, folder=tmp_path / "b",
                             colour_vision="protan")
    while not quiz.done:
        quiz.next_trial()
        quiz.answer("12")
    assert set(load_results(tmp_path / "b").frame["colour_vision"]) == {"protan"}
    older = pq.read_table(io.BytesIO(quiz.parquet())).drop_columns(["colour_vision"])  # a file from before it
    pq.write_table(older, tmp_path / "older.parquet")
    assert load_results(tmp_path / "older.parquet").frame["colour_vision"].isna().all()
    with pytest.raises(ValueError, match="allowed: blank"):
        QuizSession.start(trials=2, illusion=None, size=128, colour_vision="deuteranomaly, Dr Smith")


def test_limits_hold_in_directions_mode(tmp_path):
    s = DirectionsSession.start(size=128, seed=2, limits=QuizLimits(min_seconds_between=60.0, max_text=4),
                                folder=tmp_path)
    s.next_trial()
    with pytest.raises(ValueError, match="at most 4 characters"):
        s.answer("../../x")
    s.answer("12")
    s.next_trial()
    with pytest.raises(ValueError, match="too fast"):
        s.answer("12")
    assert "not a medical test" in DISPLAY_CAVEAT and "sRGB" in DISPLAY_CAVEAT


def test_rows_that_are_not_a_quiz_are_not_fit_as_one(tmp_path):
    s = DirectionsSession.start(size=128, seed=4, limits=FAST, folder=tmp_path, colour_vision="tritan")
    answer_as(s, lambda image, question: "?")
    frame = load_results(tmp_path).frame
    frame.loc[:, "spec_json"] = frame["spec_json"].str.replace('"density":0.75', '"density":0.5')
    table = ellipses_from_rows(frame)
    assert list(table["status"]) == ["unreadable"] and "allowed: rows" in table["message"].iloc[0]
    blind = ellipses_from_rows(load_results(tmp_path).frame)
    assert list(blind["status"]) != ["fit"] and blind["colour_vision"].iloc[0] == "tritan"


def test_a_session_stopped_early_is_still_read_from_its_rows(tmp_path):
    s = DirectionsSession.start(size=128, seed=6, limits=FAST, folder=tmp_path)
    for _ in range(5):  # 5 of 8 directions answered once, then the person left
        s.next_trial()
        s.answer("?")
    table = ellipses_from_rows(load_results(tmp_path).frame)
    assert len(table) == 1 and table["status"].iloc[0] == "incomplete" and np.isnan(table["a"].iloc[0])
    assert table["colour_vision"].isna().all() and table["model"].iloc[0] == s.model
