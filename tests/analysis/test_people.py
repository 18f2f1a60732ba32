"""People beside models (`plates.analysis.people`) on hand-made result rows: who is a person, the pooled
people, the guess rate of each prompt kind, one threshold fit per participant / model x prompt x condition,
accuracy beside the papers' human numbers, and bad input refused naming what is allowed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from plates.analysis.people import (
    PERSON_PREFIX,
    guess_of_row,
    has_people,
    human_reference,
    label_people,
    people_accuracy,
    pooled_label,
    threshold_table,
    with_pooled,
)
from plates.results.reference import load_reference
from tests.support.dashboard_rows import concat, outcomes, rows

P1, P2 = "participant-00000000000000a1", "participant-00000000000000b2"


def _sweep(model: str, backend: str, threshold: float, **columns) -> pd.DataFrame:
    """Plate rows at ΔE2000 2..24 (three each): right above ``threshold``, wrong below."""
    levels = np.repeat(np.arange(2.0, 26.0, 2.0), 3)
    return rows(levels.size, model=model, backend=backend, family="ishihara", delta_e=list(levels),
                correct=list(levels > threshold), **columns)


def test_people_are_the_human_rows():
    assert has_people(concat(outcomes("m", 1, 2), outcomes(P1, 1, 2, backend="human")))
    assert not has_people(outcomes("m", 1, 2)) and not has_people(pd.DataFrame({"model": ["m"]}))


def test_pooled_label_counts_participants_and_refuses_none():
    assert pooled_label(1) == "people (1 participant)" and pooled_label(12) == "people (12 participants)"
    with pytest.raises(ValueError, match="participants"):
        pooled_label(0)


def test_with_pooled_adds_every_human_row_once_more_as_the_people():
    frame = concat(outcomes(P1, 2, 3, backend="human"), outcomes(P2, 1, 2, backend="human"), outcomes("m", 1, 4))
    out = with_pooled(frame)
    pool = out[out["pooled"]]
    assert len(out) == len(frame) + 5 and set(pool["model"]) == {"people (2 participants)"}
    assert set(pool["who"]) == {"person"} and set(out.loc[out["model"] == "m", "who"]) == {"model"}
    assert len(with_pooled(frame, pooled=False)) == len(frame)
    already = with_pooled(frame)  # the dashboard's rows carry their pool (a pooled column)
    kept = with_pooled(already, pooled=False)
    assert len(kept) == len(frame) and not kept["pooled"].any()
    assert len(with_pooled(already)) == len(already)
    with pytest.raises(ValueError, match="with_pooled needs columns backend and model"):
        with_pooled(frame.drop(columns="backend"))


def test_label_people_names_participants_as_people_and_keeps_models():
    frame = concat(outcomes(P1, 1, 2, backend="human"), outcomes("m", 1, 2))
    labelled = label_people(frame)
    assert set(labelled["model"]) == {PERSON_PREFIX + P1, "people (1 participant)", "m"}
    assert set(label_people(frame, pooled=False)["model"]) == {PERSON_PREFIX + P1, "m"}


def test_guess_rates_follow_the_prompts_kind():
    assert guess_of_row("cbe-yn-correct") == (0.5, "yes/no: 1/2")
    assert guess_of_row("cbe-open") == (0.01, "open over cbe: 1/100")
    assert guess_of_row("huemanity-numeric") == pytest.approx((1 / 90, "open over huemanity-numeric: 1/90"))
    guess, why = guess_of_row("colorbench-mc", '{"A": "x", "B": "y", "C": "z"}')  # the options the row showed
    assert guess == pytest.approx(1 / 3) and why == "multiple choice: 1/3"
    guess, why = guess_of_row("plain-open")
    assert guess == 0.0 and "no finite label space" in why
    with pytest.raises(ValueError, match="allowed"):
        guess_of_row("no-such-prompt")


def test_thresholds_are_fitted_per_participant_model_and_condition():
    frame = concat(_sweep(P1, "human", 9.0), _sweep(P2, "human", 15.0), _sweep("m", "openai", 5.0),
                   _sweep("m", "openai", 17.0, grayscale=True))
    table = threshold_table(frame)
    assert list(table["who"][:2]) == ["person", "person"] and set(table["who"]) == {"person", "model"}
    assert not table["pooled"].any() and len(table) == 4  # no pool unless asked; grayscale a fit of its own
    fits = table.set_index(["model", "condition"])["threshold"]
    people = table[table["who"] == "person"].set_index("model")["threshold"]
    assert people[P1] < people[P2]  # steps between 8/10 and 14/16
    assert 8.0 <= people[P1] <= 10.0 and 14.0 <= people[P2] <= 16.0
    model = table[table["model"] == "m"].sort_values("threshold")
    assert model["threshold"].iloc[0] < model["threshold"].iloc[1] and model["condition"].nunique() == 2
    assert set(table["guess"]) == {0.01} and len(fits) == 4
    pooled = threshold_table(frame, pooled=True)
    assert pooled["model"].tolist().count("people (2 participants)") == 1
    assert threshold_table(outcomes("m", 1, 2)).empty  # no plate rows (no family): an empty table


def test_accuracy_sits_beside_the_papers_human_accuracy():
    frame = concat(outcomes(P1, 3, 4, backend="human", prompt_name="huemanity-numeric"),
                   outcomes("m", 1, 4, prompt_name="huemanity-numeric"),
                   rows(2, model="m", prompt_name="huemanity-numeric", correct=None))
    reference = load_reference()
    table = people_accuracy(frame, reference).set_index("model")
    assert table.loc[P1, "accuracy"] == 0.75 and table.loc["m", "n"] == 4  # unanswered rows have no verdict
    assert table.loc[P1, "ci_low"] < 0.75 < table.loc[P1, "ci_high"]
    humans = human_reference(reference)
    expected = humans[(humans["prompt_name"] == "huemanity-numeric") & (humans["metric"] == "accuracy")]
    assert table.loc[P1, "paper_human"] == pytest.approx(expected["value"].mean())
    assert table.loc[P1, "paper_source"].startswith("HueManity")
    assert people_accuracy(frame)["paper_human"].isna().all()  # no reference: no paper column values


def test_human_reference_keeps_only_the_papers_human_rows():
    reference = load_reference()
    humans = human_reference(reference)
    assert len(humans) == (reference["model"].astype(str) == "Human").sum() > 0
    assert "model" not in humans.columns and {"source", "value", "prompt_name"} <= set(humans.columns)
    assert human_reference(None).empty
