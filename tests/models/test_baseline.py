"""The bundled reader as a backend (`plates.models.baseline`): which prompts it answers and in which format, what
it declines, the label space a foreign prompt asks for, and what each reply records."""

from __future__ import annotations

import pytest

from plates.models.base import Query, Turn
from plates.models.baseline import BaselineBackend, count_tokens, format_answer, label_space_for
from plates.tasks.prompts import PROMPTS, get_prompt

# --- the backend ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def backend():
    with BaselineBackend() as b:
        yield b


def _plate(label="42", palette="huemanity-05"):
    from plates.stimuli.ishihara.plate import HUEMANITY_JITTER, PlateSpec, render

    return render(PlateSpec(text=label, size=450, seed=4_100_000, palette=palette, **HUEMANITY_JITTER)).image


@pytest.mark.parametrize("kind", ["yesno", "mc"])
def test_backend_declines_yes_no_and_multiple_choice(backend, kind):
    query = Query(
        turns=(Turn("user", "Is the number in the image 42? Answer 'yes' or 'no'.", (_plate(),)),), kind=kind
    )
    [(index, reply)] = list(backend.ask([query]))
    assert index == 0 and reply.unsupported and reply.text is None and reply.error is None and not reply.ok


def test_backend_answers_open_prompts_in_the_papers_formats(backend):
    image = _plate("42")
    hm = Query(turns=(Turn("user", get_prompt("huemanity-numeric").template, (image,)),))
    cbe = Query(turns=(Turn("user", get_prompt("cbe-open").template, (image,)),))
    replies = dict(backend.ask([hm, cbe]))
    assert replies[0].text == "Answer: 42"
    assert replies[1].text == "42"
    assert replies[0].completion_tokens == 2 and replies[0].latency_s > 0


def test_backend_reports_a_missing_image(backend):
    [(_, reply)] = list(backend.ask([Query(turns=(Turn("user", "What number do you see?"),))]))
    assert reply.text is None and "image" in reply.error


def test_backend_rejects_unknown_model():
    with pytest.raises(ValueError, match="baseline-cnn"):
        BaselineBackend(model="resnet-50")


def test_make_backend_builds_the_baseline():
    from plates.models import make_backend

    backend = make_backend("baseline")
    assert backend.kind == "baseline" and backend.model == "baseline-cnn"


@pytest.mark.parametrize(
    ("prompt", "space"),
    [
        ("What is the exact text in this image?", "huemanity-alnum"),
        ("Read the alpha-numeric characters.", "huemanity-alnum"),
        ("Which number is hidden here? Answer: XX", "huemanity-numeric"),
        ("What number do you see? Output the number only.", "cbe"),
        ("What do you see?", "any"),
    ],
)
def test_a_foreign_prompt_asks_for_the_label_space_the_rules_say(prompt, space):
    assert label_space_for(prompt) == space


def test_a_built_in_open_prompt_takes_its_templates_space_and_format():
    for template in PROMPTS.values():
        if template.kind != "open":
            continue
        assert label_space_for("  " + template.template + "\n") == template.label_space
        assert format_answer(template.template, "42") == template.answer_format.format(answer="42")
    assert format_answer("Reply as Answer: N", "7") == "Answer: 7"
    assert format_answer("What number?", "7") == "7"


def test_token_counts_are_words_plus_images():
    assert count_tokens("What number is this?", n_images=2) == 6 and count_tokens("") == 0


def test_a_query_stating_another_answer_kind_is_declined(backend):
    query = Query(turns=(Turn("user", "How many red shapes?", (_plate(),)),), answer_kind="count")
    [(_, reply)] = list(backend.ask([query]))
    assert reply.unsupported and reply.text is None


def test_a_reply_records_what_decided_it(backend):
    query = Query(
        turns=(Turn("user", "What number?", (_plate("42"),)),),
        answer_kind="label",
        label_space="cbe",
        answer_format="The number is {answer}.",
    )
    [(_, reply)] = list(backend.ask([query]))
    assert reply.text == "The number is 42."
    assert reply.revision.startswith("sha256:") and len(reply.revision) == len("sha256:") + 16
    settings = reply.settings
    assert settings["decoding"] == "argmax" and settings["label_space"] == "cbe"
