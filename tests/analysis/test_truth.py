"""`plates.analysis.truth.with_truth`: each row's ``truth_json`` facts as columns, and ``answer`` (what a parsed
option claims via ``meanings``, else the parsed answer); rows without facts get nulls."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from plates.analysis.truth import with_truth


def test_facts_become_columns_and_options_mean_their_claim():
    facts = {"pixel_answer": "same", "kind": "simultaneous-contrast", "strength": 0.4,
             "meanings": {"I": "A darker", "II": "B darker"}, "wording": "which is darker?"}
    frame = pd.DataFrame({"truth_json": [json.dumps(facts), json.dumps(facts)], "parsed": ["II", "same"]})
    out = with_truth(frame)
    assert list(out["answer"]) == ["B darker", "same"]  # a parsed text not among the meanings is itself
    assert list(out["kind"]) == ["simultaneous-contrast"] * 2 and list(out["strength"]) == [0.4, 0.4]
    assert "meanings" not in out.columns and "wording" not in out.columns
    assert "answer" not in frame.columns and "kind" not in frame.columns  # a copy


def test_rows_without_facts_get_nulls_and_an_unparsed_reply_no_answer():
    frame = pd.DataFrame({"truth_json": [json.dumps({"recolour": True}), None, None],
                          "parsed": ["True", "red", np.nan]})
    out = with_truth(frame)
    assert list(out["recolour"]) == [True, None, None]
    assert list(out["answer"][:2]) == ["True", "red"] and pd.isna(out["answer"][2])


def test_a_fact_already_a_column_is_not_overwritten():
    frame = pd.DataFrame({"truth_json": [json.dumps({"kind": "from-json"})], "kind": ["column"],
                          "parsed": [None]})
    out = with_truth(frame)
    assert list(out["kind"]) == ["column"] and list(out["answer"]) == [None]


def test_without_truth_json_the_answer_is_parsed_or_kept():
    answers = with_truth(pd.DataFrame({"parsed": ["12", None]}))["answer"]
    assert answers[0] == "12" and pd.isna(answers[1])
    kept = pd.DataFrame({"parsed": ["12"], "answer": ["B darker"]})
    assert list(with_truth(kept)["answer"]) == ["B darker"]
    assert list(with_truth(pd.DataFrame({"model": ["a"]}))["answer"]) == [None]


def test_without_a_parsed_column_every_answer_is_null():
    out = with_truth(pd.DataFrame({"truth_json": [json.dumps({"kind": "x"})]}))
    assert list(out["answer"]) == [None] and list(out["kind"]) == ["x"]
