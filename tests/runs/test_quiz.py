"""The human quiz's library side: a person drives the staircase, every answer a `human` row."""

from __future__ import annotations

import io

import pyarrow.parquet as pq
import pytest

from plates.admission import RateLimit
from plates.results import load_results
from plates.runs.quiz import HUMAN_RESULTS_ENV, QuizLimits, QuizSession
from tests.support.quiz_person import FAST, answer_like


def test_a_session_writes_one_human_row_per_answer_as_it_goes(tmp_path, monkeypatch):
    monkeypatch.setenv(HUMAN_RESULTS_ENV, str(tmp_path / "human"))
    s = QuizSession.start(trials=12, illusion=None, size=128, seed=4, limits=FAST)
    trial = s.next_trial()
    assert s.next_trial() is trial  # the same plate until it is answered
    s.answer(s._shown[1].question.target)
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
    s = QuizSession.start(trials=30, illusion=None, size=128, seed=1,
                          limits=QuizLimits(max_answers=3, min_seconds_between=0.0, max_text=8), folder=tmp_path / "h")
    s.next_trial()
    with pytest.raises(ValueError, match="at most 8 characters"):
        s.answer("../../etc/passwd")
    for _ in range(3):
        s.next_trial()
        s.answer("12")
    assert s.done  # the session ends at its answer cap
    with pytest.raises(ValueError, match="finished"):
        s.next_trial()
    slow = QuizSession.start(trials=5, illusion=None, size=128, seed=2, limits=QuizLimits(min_seconds_between=60.0))
    slow.next_trial()
    slow.answer("1")
    slow.next_trial()
    with pytest.raises(ValueError, match="too fast"):
        slow.answer("2")
    assert {p.name.startswith(s.run_id) for p in (tmp_path / "h").glob("*.parquet")} == {True}


def test_a_full_store_stops_writing_and_says_so(tmp_path):
    s = QuizSession.start(trials=5, illusion=None, size=128, seed=3,
                          limits=QuizLimits(min_seconds_between=0.0, max_folder_bytes=1), folder=tmp_path)
    s.next_trial()
    s.answer("1")  # the folder is empty before this one
    assert s.store_note == ""
    s.next_trial()
    s.answer("2")  # the quiz goes on: the answer is kept, not stored
    assert s.store_note.startswith("Your answers are no longer stored: the answer store is full.")
    assert "You can still take the quiz" in s.store_note
    assert len(list(tmp_path.glob("*.parquet"))) == 1 and len(s.rows) == 2  # kept for the download
    s.next_trial()
    s.answer("3")
    assert len(list(tmp_path.glob("*.parquet"))) == 1 and len(s.rows) == 3


def test_each_address_stores_at_most_its_share_and_another_address_still_stores(tmp_path):
    """One visitor cannot fill the store for everyone: stored parts count (bytes on disk) against the sender's
    address in `plates.admission`'s per-address accounting; past the share that visitor's quiz goes on
    without storing, and another address's answers are still stored."""
    probe = QuizSession.start(trials=3, illusion=None, size=128, seed=6, limits=FAST, folder=tmp_path / "probe")
    probe.next_trial()
    probe.answer("1")  # learn one part's size on disk
    part = sum(p.stat().st_size for p in (tmp_path / "probe").glob("*.parquet"))
    share = RateLimit("stored quiz answers", int(part * 3.5), 86_400.0, unit="bytes")
    store = tmp_path / "human"
    hog = QuizSession.start(trials=8, illusion=None, size=128, seed=7, limits=FAST, folder=store,
                            client="203.0.113.7", store_share=share)
    for i in range(5):
        hog.next_trial()
        hog.answer(str(i))
    assert len(hog.rows) == 5 and not hog.done  # every answer kept, the quiz goes on
    assert len(load_results(store).frame) == 3  # the fourth part passed the share and was removed again
    assert hog.store_note.startswith("Your answers are no longer stored: too many stored quiz answers from your "
                                     "address: ")
    assert "per 24 h. Please try again in 24 h." in hog.store_note
    assert "You can still take the quiz" in hog.store_note
    again = QuizSession.start(trials=3, illusion=None, size=128, seed=8, limits=FAST, folder=store,
                              client="203.0.113.7", store_share=share)  # a fresh session: the same address
    again.next_trial()
    again.answer("1")
    assert again.store_note.startswith("Your answers are no longer stored: too many stored quiz answers")
    other = QuizSession.start(trials=3, illusion=None, size=128, seed=9, limits=FAST, folder=store,
                              client="198.51.100.2", store_share=share)
    for _ in range(3):
        other.next_trial()
        other.answer("?")
    assert other.store_note == "" and other.done
    frame = load_results(store).frame
    assert len(frame) == 6 and set(frame["model"]) == {f"participant-{hog.participant}",
                                                        f"participant-{other.participant}"}


def test_plates_and_illusion_trials_interleave_and_measure_both(tmp_path):
    s = QuizSession.start(trials=16, illusion="simultaneous-contrast", illusion_trials=16, size=128, seed=5,
                          limits=FAST, folder=tmp_path)
    assert s.trials == 32
    blocks = []
    while len(blocks) < 6:
        trial = s.next_trial()
        blocks.append(trial.block)
        if trial.block == "illusion":
            assert [k for k, _ in trial.options] == ["I", "III", "II"]
            assert trial.options[0][1] == "Left looks darker" and "darker" in trial.prompt
            with pytest.raises(ValueError, match="not one of this image's buttons; allowed: I .*III .*II "):
                s.answer("12")
            s.answer("III")
        else:
            s.answer("?")
    assert blocks == ["plate", "illusion"] * 3  # alternating: neither block can be learnt from the order
    answer_like(s, 9.0, pse=-5.0)
    frame = load_results(tmp_path).frame.sort_values("item_id")
    assert len(frame) == 32 and frame["item_id"].is_unique and set(frame["backend"]) == {"human"}
    assert (frame["family"] == "illusion").sum() == 16 and (frame["family"] == "ishihara").sum() == 16
    ill = frame[frame["family"] == "illusion"]
    assert set(ill["prompt_name"]) == {"rcid-compare-human"} and set(ill["parsed"]) <= {"I", "II", "III"}
    assert ill["delta_e"].between(-15.5, 15.5).all()
    e = s.estimates()
    assert e["plate"].ci_low - 2 <= 9.0 <= e["plate"].ci_high + 2
    assert abs(e["illusion"].threshold - (-5.0)) < 1.5 and e["illusion"].ci_low <= -5.0 <= e["illusion"].ci_high


def test_sessions_share_the_likelihood_tables_and_hold_only_their_own_posteriors():
    """Each quiz start held two QUEST+ likelihood tables of its own (9.8 MB for the plate block, 23 MB for the
    illusion's): 48 fresh sessions took a Space from 1.8 to 3.4 GB. The tables depend only on the model and
    grid, so every session shares them; a session's own state is its log posterior per block."""
    a, b = QuizSession.start(seed=1), QuizSession.start(seed=2)
    for name in ("plate", "illusion"):
        sa, sb = a.blocks[name].state, b.blocks[name].state
        assert sa is not sb and sa._table is sb._table  # one table for both sessions
        assert sa.log_posterior.nbytes < 200_000 < sa._table.nbytes
    a.next_trial()
    row = a.answer("12")
    assert a.blocks["plate"].state._table is b.blocks["plate"].state._table and row["reply"] == "12"
