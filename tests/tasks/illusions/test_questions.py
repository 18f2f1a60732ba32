"""Illusion tasks (RCID, IllusionBench+): questions, answer keys under both framings, reply parsing, and a
scripted model end to end (the tables themselves: tests/analysis/test_illusions.py)."""

from __future__ import annotations

import pandas as pd
import pytest

from plates.analysis.illusions import (
    rcid_table,
)
from plates.stimuli.illusions import IllusionSpec, render
from plates.tasks.answers import read_choice, read_colour_name, read_yes_no
from plates.tasks.base import Score
from plates.tasks.illusions.questions import (
    FRAMINGS,
    MC_TEMPLATE,
    TF_TEMPLATE,
    TRANSPORT_NOTE,
    answer_keys,
    described_option,
    mc_question,
    rcid_name_question,
    rcid_question,
    score_choice,
    score_colour_name,
    score_true_false,
    tf_questions,
)

RCID_OPTIONS = (
    "Here are some options you can choose: I. Left is darker II. Right is darker III. They are exactly same"
)


def _truth(kind="whites", **kw):
    kw.setdefault("size", 128)
    return render(IllusionSpec(kind, **kw)).truth


# --- questions and answer keys --------------------------------------------------------------------------


def test_rcid_question_uses_the_papers_wording_in_both_framings():
    truth = _truth()
    pixel, human = (rcid_question(truth, f) for f in FRAMINGS)
    assert pixel.text.startswith(
        "Based on pixel values, how do the colors of the two grey patches on the left"
    )
    assert human.text.startswith("According to human perception, how do the colors of")
    assert pixel.text.endswith(RCID_OPTIONS) and human.text.endswith(RCID_OPTIONS)
    assert (pixel.extra["framing"], human.extra["framing"]) == ("pixel", "human")
    assert (pixel.kind, pixel.task, pixel.answer_kind, pixel.name) == (
        "mc",
        "rcid-compare",
        "choice",
        "rcid-pixel",
    )
    assert dict(FRAMINGS) == {"pixel": "Based on pixel values", "human": "According to human perception"}
    up = rcid_question(_truth(layout="up-down"), "pixel")
    assert up.text.endswith("I. Top is darker II. Bottom is darker III. They are exactly same")
    assert "on the top and bottom" in up.text
    letters = rcid_question(truth, "pixel", words="letters")
    assert "I. A is darker II. B is darker" in letters.text and "call the left one A" in letters.text


@pytest.mark.parametrize(
    ("kw", "pixel", "human"),
    [
        ({}, "III", "II"),  # illusion: identical pixels, A looks lighter
        ({"swap": True}, "III", "I"),  # the inducers traded places: B looks lighter
        ({"strength": 0.0}, "III", "III"),  # control: people answer by the pixels
        ({"delta_e": 4.0}, "II", "II"),  # trap, illusion pushes the same way as the pixels
        ({"delta_e": -4.0}, "I", None),  # trap against the illusion: undetermined
    ],
)
def test_answer_keys_under_both_framings(kw, pixel, human):
    truth = _truth(**kw)
    q = {x.extra["framing"]: x for x in (rcid_question(truth, f) for f in FRAMINGS)}
    assert (q["pixel"].expected, q["human"].expected) == (pixel, human or "")
    meaning = {"I": "A darker", "II": "B darker", "III": "same", None: None}
    assert answer_keys(truth) == {"pixel": meaning[pixel], "human": meaning[human]}


def test_cornsweet_and_checker_predict_the_other_side():
    assert rcid_question(_truth("cornsweet"), "human").expected == "I"  # A looks darker
    assert rcid_question(_truth("checker-shadow", size=256), "human").expected == "I"


def test_filter_asks_for_colour_names_with_pixel_and_human_lists():
    truth = render(IllusionSpec("rcid-filter", size=128)).truth
    qs = [rcid_name_question(truth, f, t) for t in ("A", "B") for f in FRAMINGS]
    assert [(q.extra["target"], q.extra["framing"], q.expected) for q in qs] == [
        ("A", "pixel", "grey"),
        ("A", "human", "red"),
        ("B", "pixel", "grey"),
        ("B", "human", "grey"),
    ]
    assert qs[0].text == "Based on pixel values, what color is the disc on the left?"
    assert "gray" in qs[0].extra["accepted"] and "crimson" in qs[1].extra["accepted"]
    assert qs[1].extra["pixel_answer"] == "grey" and qs[1].extra["human_answer"] == "red"
    with pytest.raises(ValueError, match="rcid_name_question"):
        rcid_question(truth, "pixel")
    with pytest.raises(ValueError, match="allowed: rcid-filter"):
        rcid_name_question(_truth(), "pixel")


def test_bad_framing_and_layout_name_what_is_allowed():
    with pytest.raises(ValueError, match="allowed: pixel, human"):
        rcid_question(_truth(), "eyes")
    with pytest.raises(ValueError, match="allowed layouts: left-right, up-down"):
        rcid_question({**_truth(), "layout": "diagonal"}, "pixel")


def test_illusionbench_true_false_statements_follow_the_pixels():
    for kw, keys in (
        ({}, ("True", "False", "False")),
        ({"delta_e": 3.0}, ("False", "False", "True")),
        ({"delta_e": -3.0}, ("False", "True", "False")),
    ):
        qs = tf_questions(_truth(**kw))
        assert tuple(q.expected for q in qs) == keys
        assert all(q.text.startswith(TF_TEMPLATE.split("{")[0]) for q in qs)
    assert (
        "answer \u2018True\u2019 or \u2018False\u2019. Do not explain the reason. Description: "
        in TF_TEMPLATE
    )


def test_illusionbench_multiple_choice_is_shuffled_by_seed_with_roman_numerals():
    truth = _truth(delta_e=-3.0)
    q = mc_question(truth, seed=1)
    assert q.text.startswith(MC_TEMPLATE.split("{")[0])
    assert "Answer with only the Roma number" in q.text
    assert list(q.options) == ["I", "II", "III", "IV"]
    assert q.extra["meanings"][q.expected] == "A darker" and q.options[q.expected] == "The left one is darker"
    assert mc_question(truth, seed=1) == q
    orders = {tuple(mc_question(truth, seed=s).extra["meanings"].values()) for s in range(12)}
    assert len(orders) > 3
    for line in (f"{k}. {v}" for k, v in q.options.items()):
        assert line in q.text


# --- reply parsing (the shared readers of plates.tasks.answers, with the illusions' claims in words) -------


def parse_option(reply, options, meanings):
    return read_choice(reply, options, described=described_option(meanings))


def parse_true_false(reply):
    return read_yes_no(reply, "true-false").answer


def parse_colour_answer(reply):
    got = read_colour_name(reply)
    return got.answer, got.status == "ambiguous"


RCID_Q = rcid_question(_truth(), "pixel")


@pytest.mark.parametrize(
    ("reply", "option"),
    [
        ("II", "II"),
        ("(II)", "II"),
        ("ii.", "II"),
        ("Option II", "II"),
        ("Answer: III", "III"),
        ("B", "II"),
        ("(b)", "II"),
        ("Right is darker", "II"),
        ("right is darker.", "II"),
        ("the left one is darker", "I"),
        ("The left square appears slightly darker than the right square.", "I"),
        ("a bit darker on the left", "I"),
        ("The darker one is the right", "II"),
        ("the right one looks lighter", "I"),
        ("They are exactly same", "III"),
        ("Both are identical.", "III"),
        ("I think the answer is II", "II"),
        ("I. Left is darker", "I"),
        ("III. They are exactly same", "III"),
        ("(III) They are exactly same", "III"),
        ("A is darker", "I"),
        ("**II**", "II"),
        ("<think>I think I</think>\nIII", "III"),
        ("They are not the same; the right one is darker", "II"),
        ("I think the left square is darker", "I"),
        # A self-correction decides, as for every reader ("12... no, actually 17"); it was ambiguous here.
        ("Left is darker, no wait, right is darker", "II"),
    ],
)
def test_parse_option_reads_what_the_reply_chooses(reply, option):
    got = parse_option(reply, RCID_Q.options, RCID_Q.extra["meanings"])
    assert got.answer == option, got


@pytest.mark.parametrize(
    ("reply", "ambiguous"),
    [
        ("I or II", True),
        ("(I) or (II)", True),
        ("The left is not darker", True),
        ("They look the same but the left is darker", True),
        ("I cannot tell", False),
        ("", False),
        ("It is a picture of stripes", False),
        ("a darker shade overall", False),  # Trap: the article "a" is not target A
    ],
)
def test_parse_option_refuses_ambiguous_or_empty_replies(reply, ambiguous):
    got = parse_option(reply, RCID_Q.options, RCID_Q.extra["meanings"])
    assert got.answer is None and (got.status == "ambiguous") is ambiguous, got


def test_parse_option_on_shuffled_multiple_choice():
    q = mc_question(_truth(), seed=4)
    same = next(k for k, v in q.extra["meanings"].items() if v == "same")
    assert parse_option(same, q.options, q.extra["meanings"]).answer == same
    assert parse_option(q.options[same], q.options, q.extra["meanings"]).answer == same
    assert parse_option("They are exactly the same colour.", q.options, q.extra["meanings"]).answer == same
    letter = "ABCD"[["I", "II", "III", "IV"].index(same)]
    assert parse_option(letter, q.options, q.extra["meanings"]).answer == same  # a letter is a position


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ("True", "True"),
        ("true.", "True"),
        ("False", "False"),
        ("**False**", "False"),
        ("The answer is true", "True"),
        ("It is true, because the squares match", "True"),
        ("Not true.", "False"),
        ("That is incorrect", "False"),
        ("Yes", "True"),
        ("No.", "False"),
        ("True or false?", None),
        ("I don't know", None),
        ("", None),
    ],
)
def test_parse_true_false(reply, value):
    assert parse_true_false(reply) == value


@pytest.mark.parametrize(
    ("reply", "name", "ambiguous"),
    [
        ("Red", "red", False),
        ("It is gray.", "grey", False),
        ("crimson", "red", False),
        ("Sky blue", "blue", False),
        ("reddish grey", None, True),
        ("red or grey", None, True),
        ("no idea", None, False),
        ("redundant answer", None, False),  # Trap: "red" inside a word
    ],
)
def test_parse_colour_answer(reply, name, ambiguous):
    assert parse_colour_answer(reply) == (name, ambiguous)


def test_parsers_reject_non_strings():
    with pytest.raises(ValueError, match="must be a str"):
        parse_option(None, RCID_Q.options, RCID_Q.extra["meanings"])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="must be a str"):
        parse_true_false(3)  # type: ignore[arg-type]


def test_scorers_return_the_task_contracts_score_with_failure_modes():
    human = rcid_question(_truth(), "human")  # key: II (B darker)
    assert score_choice(human, "Right is darker") == Score("II", "ok", True, None, "option text")
    assert score_choice(human, "III").correct is False
    assert score_choice(human, "I or II").failure_mode == "erratic"
    refusal = score_choice(human, "I cannot tell from this image")
    assert (refusal.parse_status, refusal.failure_mode) == ("refusal", "evasion")
    assert score_choice(human, "").failure_mode == "evasion"
    assert score_choice(human, "It shows some stripes").failure_mode == "hallucination"
    undetermined = rcid_question(_truth(delta_e=-4.0), "human")
    assert undetermined.expected == "" and score_choice(undetermined, "I").correct is False
    tf = tf_questions(_truth())[0]  # "exactly the same": True
    assert score_true_false(tf, "True.") == Score("True", "ok", True, None, "leading true-false")
    assert score_true_false(tf, "true or false").failure_mode == "erratic"
    name = rcid_name_question(render(IllusionSpec("rcid-filter", size=96)).truth, "human")
    assert score_colour_name(name, "It looks crimson").correct
    assert score_colour_name(name, "Gray.").parsed == "grey" and not score_colour_name(name, "Gray.").correct
    assert score_colour_name(name, "red or grey").failure_mode == "erratic"


def test_transport_note_says_png_not_jpeg():
    assert "PNG" in TRANSPORT_NOTE and "never JPEG" in TRANSPORT_NOTE


def test_end_to_end_scripted_model_gets_known_metrics():
    """Render, ask both framings, answer with a scripted 'pixel-reader' model, parse, tabulate."""
    rows = []
    for i, kw in enumerate([{}, {"swap": True}, {"strength": 0.0}, {"kind": "koffka-ring"}]):
        kind = kw.pop("kind", "simultaneous-contrast")
        truth = render(IllusionSpec(kind, size=96, seed=i, **kw)).truth
        for q in (rcid_question(truth, f) for f in FRAMINGS):
            reply = "They are exactly same"  # reads the pixels every time
            verdict = score_choice(q, reply)
            keys = answer_keys(truth)
            rows.append(
                {
                    "model": "pixel-reader",
                    "framing": q.extra["framing"],
                    "item_class": truth["item_class"],
                    "answer": q.extra["meanings"].get(verdict.parsed),
                    "pixel_answer": keys["pixel"],
                    "human_answer": keys["human"],
                }
            )
    t = rcid_table(pd.DataFrame(rows), by=["model", "framing"])
    assert t["no_illusion"].tolist() == [1.0, 1.0] and t["human_like"].tolist() == [0.0, 0.0]
    assert t["illusion_n"].tolist() == [3, 3] and t["control_accuracy"].tolist() == [1.0, 1.0]


def test_the_filter_kinds_human_key_is_marked_unvalidated_in_truth_questions_rows_and_manifest(tmp_path):
    import pyarrow.parquet as pq

    from plates.datasets.write import Entry, write_items
    from plates.stimuli.illusions.kinds import HUMAN_KEYS, UNVALIDATED_KINDS
    from plates.tasks.illusions.questions import rcid_name_question

    assert UNVALIDATED_KINDS == ("rcid-filter",) and set(HUMAN_KEYS) == {"literature", "unvalidated"}
    cast = render(IllusionSpec("rcid-filter", size=96))
    plain = render(IllusionSpec("simultaneous-contrast", size=96))
    assert cast.truth["human_key"] == "unvalidated" and plain.truth["human_key"] == "literature"
    for framing in ("pixel", "human"):  # the question's extra is what results rows store as truth_json
        assert rcid_name_question(cast.truth, framing).extra["human_key"] == "unvalidated"
        assert rcid_question(plain.truth, framing).extra["human_key"] == "literature"
    write_items("mixed", [Entry("f", cast.spec, stimulus=cast), Entry("s", plain.spec, stimulus=plain)], tmp_path)
    manifest = pq.read_table(tmp_path / "manifest.parquet").to_pydict()
    assert dict(zip(manifest["item_id"], manifest["human_key"], strict=True)) == {
        "f": "unvalidated", "s": "literature"}
