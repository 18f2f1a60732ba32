"""`plates.tasks.scenes.common`: the scene question value (validated options and answer), the correct letter
found by solving the question on the scene, seeded option orders and count windows, and the look-ups on a
rendered scene's truth (`plates.stimuli.scenes.render`)."""

from __future__ import annotations

import numpy as np
import pytest

from plates.stimuli.scenes import SceneSpec, render
from plates.tasks.scenes.common import (
    LETTERS,
    MIN_VISIBLE,
    NotAskable,
    SceneQuestion,
    arrange,
    clear,
    finish,
    flat,
    named_colours,
    region,
    unique_shapes,
    visible,
    window,
)

OPTS = {"A": "red", "B": "green", "C": "blue"}


@pytest.fixture(scope="module")
def scene():
    return render(SceneSpec(seed=3, size=128, n_regions=6, n_colours=4, palette="xkcd-basic-11", min_delta_e=15))


def test_a_question_freezes_its_options_and_names_its_answer_text():
    q = SceneQuestion("colour-recognition", "What colour?", OPTS, "B", ["region-1"], {"k": 1})
    assert q.answer_text == "green" and q.target == ("region-1",)
    assert q.to_dict() == {"task": "colour-recognition", "text": "What colour?", "options": OPTS, "answer": "B",
                           "target": ["region-1"], "params": {"k": 1}, "wording": "colorbench",
                           "answer_kind": "choice"}
    with pytest.raises(TypeError):
        q.options["D"] = "pink"


@pytest.mark.parametrize(("options", "answer", "match"), [
    ({"A": "red", "B": "green"}, "A", "allowed: 3-6 options lettered A.. in order"),
    ({"A": "red", "C": "green", "B": "blue"}, "A", "allowed: 3-6 options lettered A.. in order"),
    ({"A": "red", "B": "red", "C": "blue"}, "A", "allowed: distinct option texts"),
    (OPTS, "D", "answer 'D' is not an option letter; allowed: A, B, C"),
])
def test_bad_questions_are_refused_naming_what_is_allowed(options, answer, match):
    with pytest.raises(ValueError, match=match):
        SceneQuestion("t", "?", options, answer)


def test_finish_letters_the_one_option_the_scene_solves_to(scene):
    q = finish("t", "?", OPTS, ["region-0"], {}, "ours", scene, answer_kind="name", solve=lambda q, s: "blue")
    assert (q.answer, q.wording, q.answer_kind) == ("C", "ours", "name")
    with pytest.raises(RuntimeError, match="hold no single correct answer"):
        finish("t", "?", OPTS, [], {}, "ours", scene, answer_kind="name", solve=lambda q, s: "pink")


def test_arrange_is_seeded_and_keeps_every_text():
    a = arrange("right", ["w1", "w2", "w3"], np.random.default_rng(5))
    assert list(a) == list(LETTERS[:4]) and sorted(a.values()) == ["right", "w1", "w2", "w3"]
    assert arrange("right", ["w1", "w2", "w3"], np.random.default_rng(5)) == a


@pytest.mark.parametrize("count", [0, 1, 4, 9])
def test_window_holds_the_count_among_consecutive_integers_not_below_lo(count):
    for seed in range(20):
        w = window(count, 4, 0, np.random.default_rng(seed))
        values = [int(v) for v in w.values()]
        assert list(w) == list("ABCD") and count in values and min(values) >= 0
        assert values == list(range(values[0], values[0] + 4))


def test_scene_lookups_read_the_truth(scene):
    truth = scene.truth
    vis = visible(truth)
    assert vis and all(r["share"] > 0 for r in vis)
    assert clear([]) and not clear([{"visible_fraction": MIN_VISIBLE - 0.01}])
    shapes = [r["shape"] for r in vis]
    assert all(shapes.count(r["shape"]) == 1 and r["visible_fraction"] >= MIN_VISIBLE for r in unique_shapes(truth))
    assert region(truth, "background") is truth["background"] and region(truth, "region-2") is truth["regions"][2]
    names = named_colours(scene, "colour-recognition")
    assert names and all(c["name"] and c["objects"] > 0 for c in names)
    flat(scene, "colour-extraction")  # flat shading: askable


def test_scenes_that_cannot_carry_the_question_say_what_is_needed():
    unnamed = render(SceneSpec(seed=3, size=96, n_regions=4, n_colours=3, palette=None))
    with pytest.raises(NotAskable, match=r"needs a named palette; allowed: SceneSpec\(palette=...\)"):
        named_colours(unnamed, "colour-recognition")
    shaded = render(SceneSpec(seed=3, size=96, n_regions=4, n_colours=3, shading="soft"))
    with pytest.raises(NotAskable, match="needs flat shading.*allowed: shading='flat'"):
        flat(shaded, "colour-extraction")
    assert issubclass(NotAskable, ValueError)
