"""The human quiz's library side (issue 15): a person drives the staircase, every answer a `human` row."""

from __future__ import annotations

import io

import pyarrow.parquet as pq
import pytest

from plates.results import load_results
from plates.ui.quiz import HUMAN_RESULTS_ENV, QuizLimits, QuizSession

FAST = QuizLimits(min_seconds_between=0.0)


def answer_like(session: QuizSession, threshold: float) -> None:
    """A scripted person who reads plates above ``threshold`` ΔE2000 and types '?' below."""
    while not session.done:
        trial = session.next_trial()
        session.answer(session._shown[1].target if trial.level > threshold else "?")


def test_a_session_writes_one_human_row_per_answer_as_it_goes(tmp_path, monkeypatch):
    monkeypatch.setenv(HUMAN_RESULTS_ENV, str(tmp_path / "human"))
    s = QuizSession.start(trials=12, size=128, seed=4, limits=FAST)
    trial = s.next_trial()
    assert s.next_trial() is trial  # the same plate until it is answered
    s.answer(s._shown[1].target)
    assert len(load_results(tmp_path / "human").frame) == 1  # on disk at once: a crash loses nothing answered
    answer_like(s, 7.0)
    frame = load_results(tmp_path / "human").frame
    assert len(frame) == 12 and set(frame["backend"]) == {"human"} and frame["row_key"].is_unique
    assert set(frame["model"]) == {f"participant-{s.participant}"} and set(frame["run_id"]) == {s.run_id}
    assert (frame["latency_s"] >= 0).all() and not frame["reply"].str.contains("@").any()
    download = pq.read_table(io.BytesIO(s.parquet())).to_pandas()
    assert list(download["item_id"]) == sorted(frame["item_id"])
    e = s.estimate()
    assert e.ci_low - 2 <= 7.0 <= e.ci_high + 2


def test_limits_hold_for_a_hostile_visitor(tmp_path):
    s = QuizSession.start(trials=30, size=128, seed=1, limits=QuizLimits(max_answers=3, min_seconds_between=0.0,
                                                                            max_text=8), folder=tmp_path / "h")
    s.next_trial()
    with pytest.raises(ValueError, match="at most 8 characters"):
        s.answer("../../etc/passwd")
    for _ in range(3):
        s.next_trial()
        s.answer("12")
    assert s.done  # the session ends at its answer cap
    with pytest.raises(ValueError, match="finished"):
        s.next_trial()
    slow = QuizSession.start(trials=5, size=128, seed=2, limits=QuizLimits(min_seconds_between=60.0))
    slow.next_trial()
    slow.answer("1")
    slow.next_trial()
    with pytest.raises(ValueError, match="too fast"):
        slow.answer("2")
    assert {p.name.startswith(s.run_id) for p in (tmp_path / "h").glob("*.parquet")} == {True}


def test_a_full_store_stops_writing_and_says_so(tmp_path):
    s = QuizSession.start(trials=5, size=128, seed=3, limits=QuizLimits(min_seconds_between=0.0,
                                                                         max_folder_bytes=1), folder=tmp_path)
    s.next_trial()
    s.answer("1")  # the folder is empty before this one
    s.next_trial()
    with pytest.raises(ValueError, match="store is full"):
        s.answer("2")
    assert len(list(tmp_path.glob("*.parquet"))) == 1 and len(s.rows) == 2  # kept for the download
