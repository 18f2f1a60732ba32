"""The explorer's questions to a model (plates/explorer/models.py) with a scripted backend."""

from __future__ import annotations

import pytest

from plates.conditions import Condition
from plates.explorer import models as em
from plates.explorer.policy import Policy
from plates.models import Reply
from plates.results import SCHEMA
from tests.support.explorer_asks import KEY, PUBLIC, Scripted, spec


def test_ask_plate_gives_a_scored_row_in_the_results_schema():
    backend = Scripted(lambda q: "12")
    ask = em.Ask("cbe-open", condition=Condition(size=96, grayscale=True), variant="clear")
    row = em.ask_plate(spec(delta_e=9.0), ask, backend, colour_set="colorblindnesseval-1", run_id="r1")
    assert set(row) == set(SCHEMA.names)
    assert (row["parsed"], row["correct"], row["parse_status"], row["failure_mode"]) == ("12", True, "ok", None)
    assert (row["size"], row["grayscale"], row["variant"], row["cvd"]) == (96, True, "clear", "none")
    assert row["delta_e"] == pytest.approx(9.0, abs=0.2) and row["target"] == "12"
    assert backend.seen[0].turns[-1].images[0].size == (96, 96)
    assert "What number do you see" in row["prompt_text"]
    wrong = em.ask_plate(spec(), ask, Scripted(lambda q: "74"), colour_set="x", run_id="r1")
    assert wrong["correct"] is False and wrong["failure_mode"] is None  # a plain misreading (HueManity App. E)
    assert "❌ wrong" in em.result_markdown(wrong) and "`74`" in em.result_markdown(wrong)


def test_an_edited_prompt_is_what_the_model_receives():
    backend = Scripted()
    em.ask_plate(spec(), em.Ask("cbe-open", prompt_text="Which digits? Reply with digits only."), backend,
                 colour_set="x", run_id="r")
    assert backend.seen[0].turns[-1].text == "Which digits? Reply with digits only."
    assert em.prompt_defaults("cbe-open-clear")[1] == "clear"


def test_open_prompts_accept_any_text_and_bad_asks_are_explained():
    row = em.ask_plate(spec(text="A7"), em.Ask("cbe-open"), Scripted(lambda q: "A7"), colour_set="x", run_id="r")
    assert row["correct"] is True
    with pytest.raises(ValueError, match="prompt 'nope' is unknown; allowed: cbe-open"):
        em.Ask("nope").validate(Policy())
    with pytest.raises(ValueError, match=r"image size \(px\)=4000 is not valid; allowed: an integer in \[64, 1024\] or None"):
        em.Ask("cbe-open", condition=Condition(size=4000)).validate(PUBLIC)


def test_yes_no_prompts_and_declining_backends():
    row = em.ask_plate(spec(), em.Ask("cbe-yn-correct"), Scripted(lambda q: "Yes."), colour_set="x", run_id="r")
    assert row["expected"] == "yes" and row["correct"] is True

    class Declines(Scripted):
        def ask(self, queries):
            for i, _ in enumerate(queries):
                yield i, Reply(text=None, unsupported=True)

    row = em.ask_plate(spec(), em.Ask("cbe-yn-correct"), Declines(), colour_set="x", run_id="r")
    assert row["parse_status"] == "unsupported" and row["correct"] is None
    assert "declines" in em.result_markdown(row)


def test_backend_failing_becomes_a_clear_redacted_message():
    with pytest.raises(ValueError, match=r"keeps failing: 401 for key \*\*\*"):
        em.ask_plate(spec(), em.Ask("cbe-open"), Scripted(fail=f"401 for key {KEY}"), colour_set="x", run_id="r",
                     secrets=(KEY,))


def test_the_request_shown_is_the_request_sent():
    """The Model tab showed the template with {options} unfilled and 'expected B' without the options."""
    ask = em.Ask("colorbench-mc", condition=Condition(size=96))
    image, text = em.sent(spec(), ask)
    assert image.size == (96, 96)
    assert "{options}" not in text and "Options: **A**" in text
    question = em.render_prompt(em.get_prompt("colorbench-mc"), spec().text, seed=0)
    assert question.text in text and f"Expected answer: `` {question.expected} `` (`` {spec().text} ``)" in text
    assert "Temperature 0 · max tokens 512 · image 96×96 px as sent" in text
    _, yes_no = em.sent(spec(), em.Ask("cbe-yn-incorrect"))
    assert "{candidate}" not in yes_no and "Expected answer: `` no `` (`` the label asked is not" in yes_no


def test_a_pathological_reply_is_an_unparsed_row_not_an_error_in_the_explorer():
    # The explorer judges through the same row builder and readers as plates run: a 4,400-digit reply (once
    # Python's int-conversion error) and a 1 MB reply are rows, the second read as its head and tail.
    ask = em.Ask("cbe-open", condition=Condition(size=64))
    digits = em.ask_plate(spec(), ask, Scripted(lambda q: "7" * 4400), colour_set="x", run_id="r")
    assert (digits["parse_status"], digits["failure_mode"], digits["correct"]) == ("unparsed", "erratic", False)
    long = em.ask_plate(spec(), ask, Scripted(lambda q: "Answer: 12. " + "dots " * 200_000), colour_set="x",
                        run_id="r")
    assert (long["parsed"], long["reply_truncated"], long["error"]) == ("12", True, None)


def test_prompt_caps():
    with pytest.raises(ValueError, match="prompt text has 1001 characters; allowed: at most 1000"):
        em.Ask("cbe-open", prompt_text="x" * 1001).validate(Policy.from_env({"PLATES_PUBLIC": "1"}))
    em.Ask("cbe-open", prompt_text="x" * 1001).validate(Policy())
