"""The human quiz's library side: a person drives the staircase, every answer a `human` row."""

from __future__ import annotations

import io

import pyarrow.parquet as pq
import pytest

from plates.admission import RateLimit
from plates.results import load_results
from plates.runs.quiz import HUMAN_RESULTS_ENV, QuizLimits, QuizSession

FAST = QuizLimits(min_seconds_between=0.0)


def answer_like(session: QuizSession, threshold: float, pse: float = -5.0) -> None:
    """A scripted person who reads plates above ``threshold`` ΔE2000 and types '?' below, and on the illusion
    says B looks darker when the signed difference (+ = A lighter) exceeds ``pse`` by 1, A when it is 1 below,
    else the same."""
    while not session.done:
        trial = session.next_trial()
        if trial.block == "plate":
            session.answer(session._shown[1].question.target if trial.level > threshold else "?")
        else:
            session.answer("II" if trial.level > pse + 1 else "I" if trial.level < pse - 1 else "III")


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


def test_the_result_page_sets_the_person_beside_the_reader_and_stored_models(tmp_path):
    from plates.analysis.adaptive import AdaptiveEstimate
    from plates.explorer import quiz as qv
    from plates.runs.staircase import parse_staircase, run_staircase
    from tests.support.pixel_observer import ComparingObserver

    models = tmp_path / "models"
    run_staircase(parse_staircase({"prompt": "rcid-compare-human", "trials": 30, "min_trials": 30, "out": str(models),
                                   "stimulus": {"kind": "simultaneous-contrast", "size": 128},
                                   "models": [{"backend": "openai", "model": "vlm-x", "api_key_env": False}]}),
                  make_backend=lambda *a, **k: ComparingObserver(-4.0))  # the left square looks lighter
    s = QuizSession.start(trials=8, illusion="simultaneous-contrast", illusion_trials=8, size=128, seed=6,
                          limits=FAST)
    answer_like(s, 6.0, pse=-3.0)
    board = qv.ModelBoard(models)
    magnitudes = board.illusion_magnitudes(s.blocks["illusion"].staircase)
    assert [m.model for m in magnitudes] == ["vlm-x (human framing)"]
    assert abs(magnitudes[0].value - 4.0) < 1.0  # simultaneous contrast makes A (left, dark surround) lighter
    assert board.plate_thresholds(s.staircase) == []  # no stored plate rows of this colour set
    reader = AdaptiveEstimate(12.0, 10.0, 14.0, 0.95, 1.0, 0.0, 0.02, 8, True, "max_trials (8) reached")
    page = qv.result_markdown(s, reader, magnitudes)
    mine = qv.illusion_magnitude(s.estimates()["illusion"], s.blocks["illusion"].staircase)
    assert "| **you** | " in page and f"{mine[0]:.1f} ({mine[1]:.1f}-{mine[2]:.1f})" in page
    assert "| bundled reader (baseline-cnn) | 12.0 (10.0-14.0) | declines illusion questions | 8 |" in page
    assert "| vlm-x (human framing) | — | " in page and "| a pixel-exact observer | — | 0.0 | — |" in page
    assert abs(mine[0] - 3.0) < 1.5  # the person's PSE of -3 is a magnitude of +3
    empty = qv.ModelBoard(tmp_path / "nothing-here")
    assert empty.illusion_magnitudes(s.blocks["illusion"].staircase) == [] and empty.plate_thresholds(s.staircase) == []


def test_stored_plate_rows_give_a_models_threshold_beside_the_person(tmp_path):
    import numpy as np
    from scipy.special import expit

    from plates.explorer import quiz as qv
    from plates.models.base import Reply
    from plates.results import ResultsWriter
    from plates.runs.rows import build_row

    s = QuizSession.start(trials=4, illusion=None, size=64, seed=1, limits=FAST)
    stair = s.staircase
    other = stair.__class__(**{**stair.__dict__, "stimulus": stair.stimulus.replace(palette="huemanity-02")})
    bigger = stair.__class__(**{**stair.__dict__, "stimulus": stair.stimulus.replace(size=96)})
    rng = np.random.Generator(np.random.PCG64(7))
    with ResultsWriter(tmp_path, "stored") as writer:
        n = 0
        for level in np.geomspace(1.0, 40.0, 12):
            for _ in range(12):  # a model reading the number with P = 1/90 + (89/90) logistic(x - 10)
                shown = stair.present(n, float(level))
                reads = rng.random() < 1 / 90 + (89 / 90) * expit(float(level) - 10.0)
                writer.add(build_row(stair.asked(shown, run_id="stored", dataset="staircase", model="vlm-y",
                                                 backend="openai"), Reply(shown.question.target if reads else "?")))
                if _ < 3:  # 36 rows each: pooling any of them would make n 180, not 144
                    wrong = other.present(10_000 + n, float(level))  # the same model, another colour set: never reads
                    writer.add(build_row(other.asked(wrong, run_id="stored", dataset="staircase", model="vlm-y",
                                                     backend="openai"), Reply("?")))
                    # the same model and colour set at another size: another condition, never pooled
                    big = bigger.present(20_000 + n, float(level))
                    writer.add(build_row(bigger.asked(big, run_id="stored", dataset="staircase", model="vlm-y",
                                                      backend="openai"), Reply(big.question.target)))
                n += 1
    found = qv.ModelBoard(tmp_path).plate_thresholds(stair)
    # only the quiz's colour set and condition (its size) count
    assert [m.model for m in found] == ["vlm-y"] and found[0].n == 144
    assert abs(found[0].value - 10.0) < 1.5 and found[0].ci_low < 10.0 < found[0].ci_high


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
