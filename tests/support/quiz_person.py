"""A scripted person for quiz sessions (`plates.runs.quiz.QuizSession`): reads plates above a threshold and
answers the illusion around a point of subjective equality; and quiz limits without the pause between answers."""

from __future__ import annotations

from plates.runs.quiz import QuizLimits, QuizSession

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
