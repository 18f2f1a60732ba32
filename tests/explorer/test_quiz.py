"""The "Try it yourself" tab's logic (`plates.explorer.quiz`): its settings, consent, starting a session and its
refusals, the on-screen keys, progress, the illusion's magnitude, and the result page beside the bundled reader and
stored models."""

from __future__ import annotations

import pytest

from plates.admission import Admission, MemoryBudget, RateLimit, Refused
from plates.explorer import quiz as qv
from plates.runs.quiz import CONSENT, QuizLimits, QuizSession
from plates.runs.quiz_directions import DISPLAY_CAVEAT, DirectionsSession
from tests.support.quiz_person import FAST, answer_like


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"palette": "nope"}, "palette"),
        ({"illusion": "rcid-filter"}, "illusion"),
        ({"trials": 0}, "trials"),
        ({"trials": 10_000}, "trials"),
        ({"size": 2000}, "64-1024"),
        ({"max_sessions": 0}, "max_sessions"),
        ({"directions": 0}, "directions"),
        ({"centre": "0.3,0.3;0.2,0.2"}, "one centre"),
    ],
)
def test_bad_settings_are_refused_with_what_is_allowed(kw, match):
    with pytest.raises(ValueError, match=match):
        qv.QuizConfig(**kw)


def test_images_per_session_are_capped_by_the_answer_limit():
    assert qv.QuizConfig(trials=10, illusion_trials=6).total == 16
    assert qv.QuizConfig(trials=10, illusion=None, illusion_trials=6).total == 10
    capped = qv.QuizConfig(trials=30, illusion_trials=30, direction_trials=5, limits=QuizLimits(max_answers=40))
    assert capped.total == 40


def test_mode_words_and_consent_carry_the_settings():
    config = qv.QuizConfig(directions=6, direction_trials=5)
    assert [v for _, v in qv.mode_choices(config)] == ["plates", "directions"]
    assert "6 directions" in qv.mode_choices(config)[1][0]
    text = qv.consent_text(config)
    assert (
        text.startswith(CONSENT.format(trials=config.total))
        and "30 dot plates" in text
        and DISPLAY_CAVEAT in text
    )


def test_a_session_starts_only_with_consent_and_within_the_pages_allowance():
    config = qv.QuizConfig(trials=4, illusion=None, size=64, limits=FAST, max_sessions=2)
    with pytest.raises(ValueError, match="agree"):
        qv.start_session(config, agreed=False, started=0)
    with pytest.raises(ValueError, match="allowed: 2 per visit"):
        qv.start_session(config, agreed=True, started=2)
    with pytest.raises(ValueError, match="mode"):
        qv.start_session(config, agreed=True, started=0, mode="colours")
    with pytest.raises(ValueError, match="allowed"):
        qv.start_session(config, agreed=True, started=0, colour_vision="superb")
    assert isinstance(qv.start_session(config, agreed=True, started=1), QuizSession)
    directions = qv.start_session(config, agreed=True, started=0, mode="directions", colour_vision="deutan")
    assert isinstance(directions, DirectionsSession)


def test_public_mode_counts_quiz_starts_per_address():
    config = qv.QuizConfig(trials=4, illusion=None, size=64, limits=FAST, max_sessions=10)
    admission = Admission(
        memory=MemoryBudget(10**12, rss=lambda: 1), quiz_starts=RateLimit("quiz starts", 2, 600.0)
    )
    for _ in range(2):
        qv.start_session(config, agreed=True, started=0, client="10.0.0.1", admission=admission)
    with pytest.raises(Refused, match="quiz starts"):
        qv.start_session(config, agreed=True, started=0, client="10.0.0.1", admission=admission)
    qv.start_session(config, agreed=True, started=0, client="10.0.0.2", admission=admission)


def test_on_screen_keys_append_and_delete_within_the_cap():
    assert qv.append_key(None, "4", 3) == "4" and qv.append_key("12", "?", 3) == "12?"
    assert (
        qv.append_key("123", "4", 3) == "123"
        and qv.append_key("12", "⌫", 3) == "1"
        and qv.append_key("", "⌫", 3) == ""
    )
    with pytest.raises(ValueError, match="allowed"):
        qv.append_key("1", "x", 3)


def test_progress_says_which_image_and_what_to_do():
    s = QuizSession.start(trials=3, illusion=None, size=64, seed=2, limits=FAST)
    trial = s.next_trial()
    text = qv.progress_text(s, trial)
    assert "**Image 1 of 3**" in text and "type the number" in text


def test_the_result_page_sets_the_person_beside_the_reader_and_stored_models(tmp_path):
    from plates.analysis.adaptive import AdaptiveEstimate
    from plates.runs.staircase import parse_staircase, run_staircase
    from tests.support.pixel_observer import ComparingObserver

    models = tmp_path / "models"
    run_staircase(
        parse_staircase(
            {
                "prompt": "rcid-compare-human",
                "trials": 30,
                "min_trials": 30,
                "out": str(models),
                "stimulus": {"kind": "simultaneous-contrast", "size": 128},
                "models": [{"backend": "openai", "model": "vlm-x", "api_key_env": False}],
            }
        ),
        make_backend=lambda *a, **k: ComparingObserver(-4.0),
    )  # the left square looks lighter
    s = QuizSession.start(
        trials=8, illusion="simultaneous-contrast", illusion_trials=8, size=128, seed=6, limits=FAST
    )
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
    assert (
        empty.illusion_magnitudes(s.blocks["illusion"].staircase) == []
        and empty.plate_thresholds(s.staircase) == []
    )


def test_stored_plate_rows_give_a_models_threshold_beside_the_person(tmp_path):
    import numpy as np
    from scipy.special import expit

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
                writer.add(
                    build_row(
                        stair.asked(
                            shown, run_id="stored", dataset="staircase", model="vlm-y", backend="openai"
                        ),
                        Reply(shown.question.target if reads else "?"),
                    )
                )
                if _ < 3:  # 36 rows each: pooling any of them would make n 180, not 144
                    wrong = other.present(
                        10_000 + n, float(level)
                    )  # the same model, another colour set: never reads
                    writer.add(
                        build_row(
                            other.asked(
                                wrong, run_id="stored", dataset="staircase", model="vlm-y", backend="openai"
                            ),
                            Reply("?"),
                        )
                    )
                    # the same model and colour set at another size: another condition, never pooled
                    big = bigger.present(20_000 + n, float(level))
                    writer.add(
                        build_row(
                            bigger.asked(
                                big, run_id="stored", dataset="staircase", model="vlm-y", backend="openai"
                            ),
                            Reply(big.question.target),
                        )
                    )
                n += 1
    found = qv.ModelBoard(tmp_path).plate_thresholds(stair)
    # only the quiz's colour set and condition (its size) count
    assert [m.model for m in found] == ["vlm-y"] and found[0].n == 144
    assert abs(found[0].value - 10.0) < 1.5 and found[0].ci_low < 10.0 < found[0].ci_high
