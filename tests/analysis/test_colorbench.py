"""ColorBench metrics: micro-averaged overall score, robustness on a scripted model, grayscale and text-only."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from plates.analysis.colorbench import (
    accuracy_by,
    grayscale_effect,
    overall_score,
    robustness,
    task_accuracy,
    text_only_gap,
)
from plates.analysis.metrics import wilson_interval
from plates.stimuli.scenes import SHAPES, SceneSpec, render
from plates.stimuli.scenes.recolour import VARIANTS
from plates.tasks.answers import read_choice, verdict
from plates.tasks.scenes.colorbench import build_question, robustness_items


def test_overall_is_the_micro_average_not_the_mean_of_task_means():
    # 90 right of 100 on one task, 1 of 10 on another: micro 91/110, macro (0.9 + 0.1) / 2
    df = pd.DataFrame({"model": "m", "task": ["big"] * 100 + ["small"] * 10,
                       "correct": [True] * 90 + [False] * 10 + [True] + [False] * 9})
    row = overall_score(df).iloc[0]
    assert row["n"] == 110 and row["correct"] == 91
    assert row["overall"] == pytest.approx(91 / 110) and row["macro"] == pytest.approx(0.5)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(wilson_interval(91, 110))


def test_overall_restricted_to_named_tasks_and_refuses_unknown_ones():
    df = pd.DataFrame({"model": "m", "task": ["a", "a", "b"], "correct": [True, False, False]})
    assert overall_score(df, tasks=["a"]).iloc[0]["overall"] == 0.5
    with pytest.raises(ValueError, match="have no rows"):
        overall_score(df, tasks=["c"])
    with pytest.raises(ValueError, match="'task' cannot be a 'by' column"):
        overall_score(df, by=["model", "task"])


def test_failed_requests_are_errors_not_wrong_answers():
    df = pd.DataFrame({"model": "m", "task": "a", "correct": pd.array([True, None, False, None], dtype="boolean")})
    row = task_accuracy(df).iloc[0]
    assert (row["n"], row["correct"], row["errors"]) == (2, 1, 2) and row["accuracy"] == 0.5


def _robustness_frame(reply_for) -> pd.DataFrame:
    """Real scenes, real questions, real recoloured variants; replies from ``reply_for(seed, item, question)``
    scored by the multiple-choice reader."""
    rows = []
    for seed in range(4):
        stim = render(SceneSpec(seed=seed, n_regions=6, n_colours=4, shapes=SHAPES[:4], palette="xkcd-basic-11",
                                min_delta_e=15, size=160))
        q = build_question("shape-counting", stim, seed=seed)
        for item in robustness_items(stim, q):
            reply = reply_for(seed, item, q)
            judged = verdict(read_choice(reply, q.options), item.expected or "") if reply is not None else None
            rows.append({"model": "scripted", "task": q.task, "seed_id": f"s{seed}", "recolour": item.variant,
                         "correct": None if judged is None else judged.correct})
    return pd.DataFrame(rows).astype({"correct": "boolean"})


def test_robustness_on_a_scripted_model():
    # the scripted model answers every image right, except the target-180 variant of seed 1 and the
    # seed image of seed 2 (where it answers the option text of the wrong letter)
    def reply(seed, item, q):
        if (seed, item.variant) == (1, "target-180"):
            return "(A)" if item.expected != "A" else "(B)"
        if (seed, item.variant) == (2, "seed"):
            wrong = next(k for k in q.options if k != item.expected)
            return q.options[wrong]
        return f"The answer is ({item.expected})."

    row = robustness(_robustness_frame(reply)).iloc[0]
    assert (row["seeds"], row["robust"], row["incomplete"]) == (4, 2, 0)
    assert row["robustness"] == 0.5


def test_robustness_seed_with_a_failed_request_or_missing_variant_is_incomplete():
    df = _robustness_frame(lambda seed, item, q: None if (seed, item.variant) == (0, "image-90") else item.expected)
    df = df[~((df["seed_id"] == "s3") & (df["recolour"] == "largest-270"))]
    row = robustness(df).iloc[0]
    assert (row["seeds"], row["robust"], row["incomplete"]) == (2, 2, 2)


def test_robustness_refuses_unknown_variant_names():
    df = pd.DataFrame({"model": "m", "seed_id": "s", "recolour": ["seed", "sepia"], "correct": True})
    with pytest.raises(ValueError, match="allowed: seed, image-90"):
        robustness(df)
    assert len(VARIANTS) == 9


def test_grayscale_effect_is_relative_drop_over_paired_items():
    df = pd.DataFrame({
        "model": "m", "task": "t", "item_id": [1, 1, 2, 2, 3, 3, 4],
        "grayscale": [False, True, False, True, False, True, False],
        "correct": [True, False, True, True, True, False, False],  # item 4 has no grayscale row: left out
    })
    row = grayscale_effect(df).iloc[0]
    assert row["pairs"] == 3 and row["acc_colour"] == 1.0 and row["acc_gray"] == pytest.approx(1 / 3)
    assert row["effect"] == pytest.approx((1 - 1 / 3) / 1)


def test_grayscale_effect_negative_when_colour_misleads_and_nan_at_zero():
    df = pd.DataFrame({"model": "m", "task": ["illusion"] * 4 + ["zero"] * 2, "item_id": [1, 1, 2, 2, 3, 3],
                       "grayscale": [False, True] * 3, "correct": [False, True, True, True, False, True]})
    t = grayscale_effect(df).set_index("task")
    assert t.loc["illusion", "effect"] == pytest.approx((0.5 - 1.0) / 0.5)
    assert np.isnan(t.loc["zero", "effect"])


def test_text_only_gap():
    df = pd.DataFrame({"model": "m", "task": "t", "item_id": [1, 1, 2, 2],
                       "text_only": [False, True, False, True], "correct": [True, False, True, True]})
    row = text_only_gap(df).iloc[0]
    assert (row["acc_image"], row["acc_text"], row["gap"]) == (1.0, 0.5, 0.5)


def test_accuracy_against_a_difficulty_parameter_exact_and_binned():
    df = pd.DataFrame({"model": "m", "task": "t", "min_delta_e": [2, 2, 5, 5, 10, 10],
                       "correct": pd.array([False, True, True, True, True, None], dtype="boolean")})
    exact = accuracy_by(df, "min_delta_e")
    assert exact["accuracy"].tolist() == [0.5, 1.0, 1.0] and exact["errors"].tolist() == [0, 0, 1]
    binned = accuracy_by(df, "min_delta_e", bins=[0, 4, 20])
    assert binned["n"].tolist() == [2, 3]
    with pytest.raises(ValueError, match="increasing edges"):
        accuracy_by(df, "min_delta_e", bins=[5, 1])


def test_missing_columns_are_named():
    with pytest.raises(ValueError, match=r"needs columns \['task'\]"):
        task_accuracy(pd.DataFrame({"model": ["m"], "correct": [True]}))


def test_chance_per_task_is_the_mean_of_one_over_the_options_shown():
    import json

    import pandas as pd

    from plates.analysis.colorbench import chance_by_task

    rows = pd.DataFrame({"task": ["a", "a", "b", "c"],
                         "options_json": [json.dumps({"A": "1", "B": "2"}), json.dumps(dict.fromkeys("ABCD", "x")),
                                          json.dumps(dict.fromkeys("ABC", "x")), None]})
    assert chance_by_task(rows) == {"a": (0.5 + 0.25) / 2, "b": 1 / 3}
