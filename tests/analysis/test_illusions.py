"""The illusion family's tables (`plates.analysis.illusions`) on scripted answer sets whose every number is
known: RCID's shares, IllusionBench+'s accuracy and yes bias, majority over rounds, answers per signed
difference, the family's rows with their facts, and the PSE of a scripted observer."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from plates.analysis.illusions import (
    family_rows,
    illusionbench_mc_table,
    illusionbench_tf_table,
    magnitude_table,
    majority_over_rounds,
    pse_table,
    rcid_table,
)
from tests.support.dashboard_rows import concat, rows


def _wilson(k, n):
    ci = stats.binomtest(k, n).proportion_ci(method="wilson")
    return ci.low, ci.high


def test_rcid_table_on_a_scripted_answer_set():
    rows = []
    # model m, illusion items: human "A darker"? no -- human "B darker", pixel "same": 4 HL, 3 NI, 3 N/A
    for answer in ["B darker"] * 4 + ["same"] * 3 + ["A darker", None, None]:
        rows.append(("m", "illusion", answer, "same", "B darker"))
    rows.append(("m", "illusion", "A darker", "same", None))  # undetermined human answer: left out
    for answer in ["same"] * 4 + ["A darker"]:  # controls: 4 of 5 right
        rows.append(("m", "control", answer, "same", "same"))
    for answer in ["A darker", "A darker", "B darker"]:  # traps: 2 of 3 right
        rows.append(("m", "trap", answer, "A darker", None))
    df = pd.DataFrame(rows, columns=["model", "item_class", "answer", "pixel_answer", "human_answer"])
    df["failed"] = False
    df.loc[len(df)] = ("m", "control", None, "same", "same", True)  # a failed request: not counted
    t = rcid_table(df, by="model").iloc[0]
    assert (t.illusion_n, t.undetermined, t.control_n, t.trap_n, t.failed) == (10, 1, 5, 3, 1)
    assert (t.human_like, t.no_illusion, t.na) == pytest.approx((0.4, 0.3, 0.3))
    assert (t.control_accuracy, t.trap_accuracy) == pytest.approx((0.8, 2 / 3))
    assert (t.human_like_low, t.human_like_high) == pytest.approx(_wilson(4, 10))
    assert (t.control_accuracy_low, t.control_accuracy_high) == pytest.approx(_wilson(4, 5))


def test_rcid_table_groups_and_refuses_equal_keys_on_illusions():
    df = pd.DataFrame(
        {
            "model": ["a", "b"],
            "framing": ["pixel", "human"],
            "item_class": ["illusion"] * 2,
            "answer": ["same", "B darker"],
            "pixel_answer": ["same"] * 2,
            "human_answer": ["B darker"] * 2,
        }
    )
    t = rcid_table(df, by=["model", "framing"])
    assert t[["model", "framing", "no_illusion", "human_like"]].values.tolist() == [
        ["a", "pixel", 1.0, 0.0],
        ["b", "human", 0.0, 1.0],
    ]
    with pytest.raises(ValueError, match="equal human and pixel answers"):
        rcid_table(df.assign(human_answer="same"), by="model")
    with pytest.raises(ValueError, match="missing"):
        rcid_table(df.drop(columns="answer"), by="model")


def test_illusionbench_true_false_accuracy_and_yes_bias():
    expected = [True] * 5 + [False] * 5
    parsed = ["True"] * 5 + ["True", "True", "True", "False", None]  # 3 FP, 0 FN, 1 unparsed
    t = illusionbench_tf_table(pd.DataFrame({"model": "m", "expected": expected, "parsed": parsed})).iloc[0]
    assert (t.n, t.fp, t.fn, t.unparsed) == (10, 3, 0, 1)
    assert t.accuracy == pytest.approx(0.6) and t.fp_ratio == pytest.approx(1.0)
    balanced = pd.DataFrame({"model": "m", "expected": [True, False], "parsed": ["False", "True"]})
    assert illusionbench_tf_table(balanced).iloc[0].fp_ratio == pytest.approx(0.5)
    perfect = pd.DataFrame({"model": "m", "expected": [True, False], "parsed": [True, False]})
    assert np.isnan(illusionbench_tf_table(perfect).iloc[0].fp_ratio)
    with pytest.raises(ValueError, match="allowed: True/False"):
        illusionbench_tf_table(pd.DataFrame({"model": "m", "expected": [True], "parsed": ["maybe"]}))


def test_illusionbench_multiple_choice_accuracy():
    df = pd.DataFrame(
        {"model": ["m"] * 4, "expected": ["I", "II", "III", "IV"], "parsed": ["I", "II", None, "I"]}
    )
    t = illusionbench_mc_table(df).iloc[0]
    assert (t.n, t.unparsed, t.accuracy) == (4, 1, 0.5)


def test_majority_over_five_rounds():
    df = pd.DataFrame(
        {
            "model": ["m"] * 10,
            "item": [1] * 5 + [2] * 5,
            "answer": ["II", "II", "I", "II", None, "I", "II", None, None, None],
        }
    )
    out = majority_over_rounds(df, ["model", "item"], "answer")
    assert out["answer"].tolist() == ["II", None] and out["votes"].tolist() == [3, 3]
    with pytest.raises(ValueError, match="exactly 5"):
        majority_over_rounds(df.iloc[:9], ["model", "item"], "answer")


def test_magnitude_table_counts_answers_per_signed_difference():
    df = pd.DataFrame(
        {
            "model": "m",
            "kind": "whites",
            "strength": 1.0,
            "signed_delta_e": [0.0, 0.0, 0.0, 0.0, 2.0, 2.0, -2.0, -2.0],
            "induced_lighter": ["A", "A", "B", "B", "A", "B", "A", "B"],
            "answer": ["B darker", "same", "A darker", None, "B darker", "B darker", "A darker", "same"],
        }
    )
    raw = magnitude_table(df, align=False)
    at0 = raw[raw.x == 0].iloc[0]
    assert (at0.n, at0.n_a_darker, at0.n_b_darker, at0.n_same, at0.n_unanswered) == (4, 1, 1, 1, 1)
    aligned = magnitude_table(df)
    rows = {r.x: r for r in aligned.itertuples()}
    # x = 0: the induced target called lighter twice (A: "B darker"; B: "A darker"), once "same", once
    # unparsed
    assert (rows[0.0].n_induced_lighter, rows[0.0].n_same, rows[0.0].n_unanswered) == (2, 1, 1)
    # x = +2: induced A physically lighter and called lighter; x = -2 holds the B row of +2 (flipped): darker
    assert (rows[2.0].n, rows[2.0].n_induced_lighter, rows[2.0].n_induced_darker) == (2, 1, 0)
    assert rows[2.0].share_induced_lighter == pytest.approx(0.5)
    assert (rows[-2.0].n, rows[-2.0].n_induced_darker) == (2, 2)


def test_family_rows_expand_the_facts_and_mark_failed_requests():
    truth = json.dumps({"kind": "whites", "strength": 1.0, "meanings": {"I": "A darker"}})
    frame = concat(rows(2, family="illusion", truth_json=truth, parsed=["I", "II"]),
                   rows(1, family="ishihara"),
                   rows(1, family="illusion", truth_json=truth, correct=None, error="timeout"))
    got = family_rows(frame, "illusion")
    assert len(got) == 3 and set(got["kind"]) == {"whites"} and set(got["strength"]) == {1.0}
    assert got["answer"].tolist()[:2] == ["A darker", "II"]  # a meaning where the question gave one
    assert got["failed"].tolist() == [False, False, True]
    assert len(family_rows(frame, ["illusion", "ishihara"])) == 4
    assert family_rows(frame, "scene").empty and family_rows(frame.drop(columns="family"), "illusion").empty
    with pytest.raises(ValueError, match="family_rows needs a pandas DataFrame, got list"):
        family_rows([], "illusion")


def _compare_rows(pse: float, model: str = "m") -> pd.DataFrame:
    """Scripted rcid-compare rows: the induced target (alternately A and B) is named lighter whenever it is
    physically lighter by more than ``pse`` (aligned ΔE2000), darker otherwise; three rows per level."""
    out = []
    for i, x in enumerate(np.repeat(np.linspace(-8.0, 8.0, 9), 6)):
        induced = "A" if i % 2 else "B"
        signed = x if induced == "A" else -x  # + = A lighter
        lighter_said = x > pse
        darker = ("B" if induced == "A" else "A") if lighter_said else induced
        truth = {"kind": "whites", "strength": 1.0, "framing": "pixel", "signed_delta_e": signed,
                 "induced_lighter": induced, "meanings": {"I": "A darker", "II": "B darker", "III": "same"}}
        out.append(rows(1, model=model, family="illusion", task="rcid-compare", truth_json=json.dumps(truth),
                        parsed={"A": "I", "B": "II"}[darker]))
    return concat(*out)


def test_the_pse_of_a_scripted_observer_is_where_its_answers_turn():
    table = pse_table(concat(_compare_rows(-3.0, "fooled"), _compare_rows(0.0, "fair")))
    fits = table.set_index("model")
    assert list(table.columns[:4]) == ["model", "framing", "kind", "strength"] and len(table) == 2
    assert fits.loc["fooled", "status"] == "fit" and fits.loc["fooled", "n"] == 54
    assert -5.0 < fits.loc["fooled", "pse"] < -1.0 < fits.loc["fair", "pse"] < 2.0  # steps at -3 and 0 (±1 level)
    assert fits.loc["fooled", "magnitude"] == pytest.approx(-fits.loc["fooled", "pse"])
    assert pse_table(rows(2, family="ishihara")).empty  # no illusion rows: the columns, no rows
    assert list(pse_table(rows(2, family="ishihara")).columns) == list(table.columns)
