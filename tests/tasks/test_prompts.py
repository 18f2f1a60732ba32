"""The papers' prompts by name, rendering, user templates and few-shot conversations."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from plates.models.base import Turn
from plates.stimuli.ishihara.labels import CBE_NUMBERS, HUEMANITY_ALNUM, HUEMANITY_NUMERIC
from plates.tasks.ishihara import score
from plates.tasks.prompts import (
    PROMPTS,
    PromptTemplate,
    RenderedPrompt,
    build_turns,
    few_shot_prompts,
    get_prompt,
    list_prompts,
    load_prompt_file,
    render_prompt,
)

# The papers' texts, copied here independently of plates/tasks/prompts.py.
CBE_OPEN = (
    "This is an Ishihara plate designed for color blindness testing. The number is made up of dots of different "
    "colors. What number do you see in the image? Output the number you see only."
)
CBE_YN_42 = (
    "This is an Ishihara plate designed for color blindness testing. Is the number in the image is 42? "
    "Answer 'yes' or 'no'."
)
HM_NUMERIC = "What is the number in this image? Strictly stick to the format: Answer: [number in the image]"
HM_ALNUM = (
    "What is the exact text in this image? It has only alpha-numeric characters excluding small l, capital O, "
    "capital I, and capital J to avoid ambiguity. Strictly stick to the format: Answer: [exact text in the image]"
)
CB_INSTR = (
    "You’ll be given an image, an instruction and some options. You have to select the correct one. Do not explain "
    "your reasoning. Answer with only the letter that corresponds to the correct option. "
    "Do not repeat the entire answer."
)
CB_COT = (
    "You’ll be given an image, an instruction and some options. You have to select the correct one. Think step by "
    "step before answering. Then conclude with the letter that corresponds to the correct option. Make sure the "
    "option letter is in the parentheses like (X). Do not include ( or ) in the response except for the answer."
)


def test_the_builtin_registry_is_read_only():
    with pytest.raises(TypeError):
        PROMPTS["mine"] = get_prompt("cbe-open")  # type: ignore[index]


def test_contract_names_exist_with_their_kinds():
    expected = {
        "cbe-open": ("open", "cbe", "standard", False),
        "cbe-open-clear": ("open", "cbe", "clear", False),
        "cbe-yn-correct": ("yesno", "cbe", "standard", False),
        "cbe-yn-incorrect": ("yesno", "cbe", "standard", False),
        "huemanity-numeric": ("open", "huemanity-numeric", "standard", False),
        "huemanity-alnum": ("open", "huemanity-alnum", "standard", False),
        "colorbench-mc": ("mc", "cbe", "standard", False),
        "colorbench-mc-cot": ("mc", "cbe", "standard", True),
    }
    for name, (kind, space, variant, cot) in expected.items():
        t = get_prompt(name)
        assert (t.kind, t.label_space, t.variant, t.cot) == (kind, space, variant, cot), name
        assert "§" in t.source or "App." in t.source, name


def test_texts_are_the_papers_exactly():
    assert render_prompt("cbe-open", "42", seed=0).text == CBE_OPEN
    assert render_prompt("cbe-open-clear", "42", seed=0).text == CBE_OPEN
    assert render_prompt("cbe-yn-correct", "42", seed=0).text == CBE_YN_42  # App. F's swapped label fixed
    assert render_prompt("huemanity-numeric", "42", seed=0).text == HM_NUMERIC
    assert render_prompt("huemanity-alnum", "Rw", seed=0).text == HM_ALNUM
    mc = render_prompt("colorbench-mc", "42", seed=0)
    question = "What is the number in the center of the image? Select from the following choices. (A) "
    assert mc.text.startswith(CB_INSTR + "\n" + question)
    assert render_prompt("colorbench-mc-cot", "42", seed=0).text.startswith(CB_COT + "\n")


def test_yes_no_correct_asks_about_the_target_and_expects_yes():
    r = render_prompt("cbe-yn-correct", "7", seed=3)
    assert (r.kind, r.expected, r.answer_text) == ("yesno", "yes", "yes")
    assert "Is the number in the image is 7?" in r.text


@settings(max_examples=200, deadline=None)
@given(target=st.sampled_from(CBE_NUMBERS), seed=st.integers(-(2**40), 2**40))
def test_yes_no_incorrect_never_names_the_target(target, seed):
    r = render_prompt("cbe-yn-incorrect", target, seed=seed)
    asked = r.text.split("Is the number in the image is ")[1].split("?")[0]
    assert r.expected == "no"
    assert asked != target and asked in CBE_NUMBERS
    assert render_prompt("cbe-yn-incorrect", target, seed=seed) == r  # deterministic


def test_yes_no_incorrect_number_varies_with_the_seed():
    asked = {render_prompt("cbe-yn-incorrect", "12", seed=s).text for s in range(40)}
    assert len(asked) > 10


@settings(max_examples=100, deadline=None)
@given(target=st.sampled_from(CBE_NUMBERS), seed=st.integers(0, 10**9), cot=st.booleans())
def test_multiple_choice_options(target, seed, cot):
    r = render_prompt("colorbench-mc-cot" if cot else "colorbench-mc", target, seed=seed)
    assert list(r.options) == ["A", "B", "C", "D"]
    assert list(r.options.values()).count(target) == 1
    assert len(set(r.options.values())) == 4 and set(r.options.values()) <= set(CBE_NUMBERS)
    assert r.options[r.expected] == target
    assert r.text.endswith(" ".join(f"({k}) {v}" for k, v in r.options.items()))
    assert r.answer_text == (f"({r.expected})" if cot else r.expected)


def test_multiple_choice_shuffles_the_correct_letter():
    letters = {render_prompt("colorbench-mc", "42", seed=s).expected for s in range(60)}
    assert letters == {"A", "B", "C", "D"}


def test_label_space_override_draws_distractors_from_that_space():
    r = render_prompt("colorbench-mc", "Rw", seed=1, label_space="huemanity-alnum")
    assert set(r.options.values()) <= set(HUEMANITY_ALNUM) and r.label_space == "huemanity-alnum"
    r = render_prompt("cbe-yn-incorrect", "10", seed=1, label_space="huemanity-numeric")
    assert r.text.split(" is ")[-1].split("?")[0] in HUEMANITY_NUMERIC


def test_target_outside_the_label_space_is_refused():
    with pytest.raises(ValueError, match="'123'.*'cbe'"):
        render_prompt("cbe-open", "123", seed=0)
    with pytest.raises(ValueError, match="'7'.*huemanity-numeric"):
        render_prompt("huemanity-numeric", "7", seed=0)


def test_any_space_needs_a_label_space_for_distractors():
    t = PromptTemplate("my-mc", "mine", "mc", "any", "Which? {options}")
    assert t.task == "plate-choice"  # a user's template joins its kind's generic plate task
    with pytest.raises(ValueError, match="needs a label space"):
        render_prompt(t, "42", seed=0)
    assert render_prompt(t, "42", seed=0, label_space="cbe").options


def test_unknown_prompt_lists_the_names():
    with pytest.raises(ValueError, match="prompt 'nope' is not known; allowed: .*cbe-open.*colorbench-mc-cot"):
        get_prompt("nope")


def test_bad_seed_and_target_are_refused():
    with pytest.raises(ValueError, match="seed"):
        render_prompt("cbe-open", "4", seed="1")
    with pytest.raises(ValueError, match="target"):
        render_prompt("cbe-open", " 4", seed=1)


def test_templates_validate_placeholders():
    with pytest.raises(ValueError, match=r"unknown placeholder \{number\}; allowed here: \{candidate\}"):
        PromptTemplate("mine", "me", "yesno", "cbe", "Is it {number}?")
    with pytest.raises(ValueError, match=r"unknown placeholder \{target\}; allowed here: none"):
        PromptTemplate("mine", "me", "open", "cbe", "Is it {target}?")
    with pytest.raises(ValueError, match=r"must contain the placeholder \{options\}"):
        PromptTemplate("mine", "me", "mc", "cbe", "Pick one.")
    with pytest.raises(ValueError, match="malformed"):
        PromptTemplate("mine", "me", "open", "cbe", "A lone { brace")
    with pytest.raises(ValueError, match="kind 'essay' is not allowed; allowed: open, yesno, mc"):
        PromptTemplate("mine", "me", "essay", "cbe", "Hi")


def test_a_user_template_renders_and_is_found_only_where_it_was_given():
    text = "Do you see {candidate}? {{yes}}/{{no}}"
    t = PromptTemplate("my-yn", "me", "yesno", "cbe", text, asks="distractor")
    r = render_prompt(t, "5", seed=2)
    assert r.expected == "no" and r.text.endswith("{yes}/{no}") and "5?" not in r.text
    assert r.task == "plate-yes-no" and r.answer_kind == "yesno"
    assert get_prompt("my-yn", {"my-yn": t}) is t
    with pytest.raises(ValueError, match="prompt 'my-yn' is not known"):
        get_prompt("my-yn")  # nothing leaked into the built-in registry


def test_load_prompt_file(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text(
        '[[prompt]]\nname = "short-open"\nkind = "open"\nlabel_space = "cbe"\ntemplate = "Number?"\n\n'
        '[[prompt]]\nname = "short-mc"\nkind = "mc"\nlabel_space = "cbe"\ntemplate = "Pick: {options}"\nn_options = 3\n'
    )
    loaded = load_prompt_file(path)
    assert [t.name for t in loaded] == ["short-open", "short-mc"]
    assert loaded[0].source == "user prompt file mine.toml"
    assert len(render_prompt(loaded[1], "9", seed=0).options) == 3
    assert "short-mc" not in PROMPTS
    bad = tmp_path / "builtin.toml"
    bad.write_text('[[prompt]]\nname = "cbe-open"\nkind = "open"\nlabel_space = "cbe"\ntemplate = "T"\n')
    with pytest.raises(ValueError, match="built in"):
        load_prompt_file(bad)
    bad.write_text('[[prompt]]\nname = "x"\nkind = "open"\nlabel_space = "cbe"\ntemplate = "T"\n' * 2)
    with pytest.raises(ValueError, match="more than once"):
        load_prompt_file(bad)
    bad = tmp_path / "bad.toml"
    bad.write_text('[[prompt]]\nname = "x"\nkind = "open"\nlabel_space = "cbe"\ntemplate = "T"\ncolour = "red"\n')
    with pytest.raises(ValueError, match="unknown field.*colour"):
        load_prompt_file(bad)
    bad.write_text('[[prompt]]\nname = "x"\nkind = "open"\nlabel_space = "cbe"\n')
    with pytest.raises(ValueError, match="missing field 'template'"):
        load_prompt_file(bad)
    bad.write_text("[[prompt]\n")
    with pytest.raises(ValueError, match="not valid TOML"):
        load_prompt_file(bad)
    with pytest.raises(ValueError, match="does not exist"):
        load_prompt_file(tmp_path / "absent.toml")


def test_build_turns_zero_shot():
    image = Image.new("RGB", (8, 8), (255, 0, 0))
    r = render_prompt("cbe-open", "12", seed=0)
    (turn,) = build_turns(r, image)
    assert turn == Turn("user", r.text, (image,))
    assert build_turns(r, None)[0].images == ()


def test_build_turns_few_shot_yes_no_like_cbe_b2():
    images = [Image.new("RGB", (8, 8), (i, 0, 0)) for i in range(3)]
    examples = few_shot_prompts("cbe-yn-correct", ["3", "8"], seed=5)
    assert [e.expected for e in examples] == ["yes", "no"]  # one "yes" and one "no" example
    question = render_prompt("cbe-yn-correct", "12", seed=5)
    turns = build_turns(question, images[2], list(zip(images[:2], examples)))
    assert [t.role for t in turns] == ["user", "assistant", "user", "assistant", "user"]
    assert [t.text for t in turns[1::2]] == ["yes", "no"]
    assert turns[0].images == (images[0],) and turns[-1].images == (images[2],) and turns[1].images == ()
    assert turns[-1].text == question.text


def test_build_turns_few_shot_huemanity_answers_in_format():
    examples = few_shot_prompts("huemanity-numeric", ["10", "55", "99"], seed=0)
    turns = build_turns(render_prompt("huemanity-numeric", "42", seed=0), None, [(None, e) for e in examples])
    assert [t.text for t in turns if t.role == "assistant"] == ["Answer: 10", "Answer: 55", "Answer: 99"]


def test_build_turns_rejects_bad_examples():
    r = render_prompt("cbe-open", "12", seed=0)
    with pytest.raises(ValueError, match="example #1"):
        build_turns(r, None, [("not a pair",)])
    with pytest.raises(ValueError, match="RenderedPrompt"):
        build_turns("text", None)


def test_list_prompts_rows():
    rows = list_prompts()
    names = [row["name"] for row in rows]
    assert names[:8] == ["cbe-open", "cbe-open-clear", "cbe-yn-correct", "cbe-yn-incorrect", "huemanity-numeric",
                         "huemanity-alnum", "colorbench-mc", "colorbench-mc-cot"]
    assert set(rows[0]) == {"name", "task", "kind", "label_space", "variant", "cot", "source", "first_line"}
    assert rows[0]["first_line"] == CBE_OPEN


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from([n for n, t in PROMPTS.items() if t.text_from == "template"]),
       seed=st.integers(0, 10**6), data=st.data())
def test_the_correct_answer_text_always_scores_correct(name, seed, data):
    t = get_prompt(name)
    space = "cbe" if t.label_space == "any" else t.label_space
    from plates.stimuli.ishihara.labels import LABEL_SPACES

    target = data.draw(st.sampled_from(LABEL_SPACES[space]))
    r: RenderedPrompt = render_prompt(t, target, seed=seed, label_space=space)
    s = score(r.kind, r.answer_text, r.expected, label_space=r.label_space, options=r.options)
    assert s.correct and s.parse_status == "ok", (r.answer_text, s)
