"""ColorBench questions over scenes: answers checked from pixels, options well formed, seeded, robustness sets."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import ndimage

from plates.colour import delta_e2000, parse_colour, srgb255_to_lab
from plates.stimuli.base import Stimulus
from plates.stimuli.scenes import SCENE_PALETTES, SHAPES, SceneSpec, render
from plates.stimuli.scenes.recolour import NAME_TOLERANCE, VARIANTS
from plates.tasks.prompts import COLORBENCH_COT_INSTRUCTION, COLORBENCH_INSTRUCTION
from plates.tasks.scenes.colorbench import (
    COUNT_MIN_DELTA_E,
    CRITERIA,
    SCENE_BUILDERS,
    NotAskable,
    SceneQuestion,
    build_question,
    expected_for,
    prompt_text,
    robustness_items,
)
from plates.tasks.scenes.colour_values import format_code

PALETTE = SCENE_PALETTES["xkcd-basic-11"].colours
NAMED = [SceneSpec(seed=s, n_regions=7, n_colours=4, palette="xkcd-basic-11", shapes=SHAPES, min_delta_e=15)
         for s in range(6)]
PLAIN = [SceneSpec(seed=s, n_regions=6, n_colours=4, shapes=SHAPES, min_delta_e=12) for s in range(6)]
PATCHES = [SceneSpec(seed=s, n_regions=0, n_colours=0, background=None) for s in range(6)]


def _scenes(specs):
    return [render(s) for s in specs]


def _colour_pixels(stim: Stimulus, rgb) -> np.ndarray:
    return np.all(stim.pixels == np.asarray(rgb), axis=-1)


def _check_options(q: SceneQuestion) -> None:
    texts = list(q.options.values())
    assert 3 <= len(texts) <= 6 and list(q.options) == list("ABCDEF"[: len(texts)])
    assert len(set(texts)) == len(texts)
    assert texts.count(q.answer_text) == 1


def _build_all(task, stimuli, **params):
    out = []
    for i, stim in enumerate(stimuli):
        try:
            out.append((stim, build_question(task, stim, seed=i, **params)))
        except NotAskable:
            continue
    assert len(out) >= len(stimuli) // 2, f"{task}: too few scenes could carry the question"
    return out


# ---- each task's answer, checked from pixels -------------------------------------------------------------------

@pytest.mark.parametrize("n_options", [3, 4, 6])
def test_colour_counting_answer_is_the_number_of_pixel_colours(n_options):
    for stim, q in _build_all("colour-counting", _scenes(PLAIN + NAMED), n_options=n_options):
        _check_options(q)
        assert int(q.answer_text) == len(np.unique(stim.pixels.reshape(-1, 3), axis=0))
        assert q.text == "How many different colors are in this image?" and q.wording == "colorbench"


def test_colour_counting_without_background_uses_our_wording():
    stim = render(PLAIN[0])
    q = build_question("colour-counting", stim, include_background=False)
    assert int(q.answer_text) == len(np.unique(stim.pixels.reshape(-1, 3), axis=0)) - 1
    assert q.wording == "ours" and "shapes" in q.text


def test_colour_proportion_answer_is_the_share_measured_from_pixels():
    for stim, q in _build_all("colour-proportion", _scenes(NAMED), n_options=5, step=7):
        _check_options(q)
        name = q.params["colour"]
        share = 100 * _colour_pixels(stim, PALETTE[name]).mean()
        values = [int(v.rstrip("%")) for v in q.options.values()]
        assert abs(int(q.answer_text.rstrip("%")) - share) <= 0.5
        assert all(abs(v - share) >= 7 - 0.5 for v in values if f"{v}%" != q.answer_text)
        assert q.text == f"What is the closest to the proportion of the {name} color in the image?"


def test_object_counting_answer_is_the_number_of_blobs_of_that_colour():
    for stim, q in _build_all("object-counting", _scenes(NAMED)):
        _check_options(q)
        name = q.params["colour"]
        blobs = ndimage.label(_colour_pixels(stim, PALETTE[name]), structure=np.ones((3, 3)))[1]
        assert int(q.answer_text) == blobs
        assert q.text == f"How many objects with {name} color are in this image?"


@pytest.mark.parametrize("fmt", ["rgb", "hsv", "hex"])
def test_colour_extraction_answer_is_the_pixel_value_and_distractors_sit_at_delta_e(fmt):
    for stim, q in _build_all("colour-extraction", _scenes(PATCHES), format=fmt, delta_e=8.0):
        _check_options(q)
        pixel = tuple(int(v) for v in stim.pixels[0, 0])
        assert q.answer_text == format_code(pixel, fmt)
        assert q.text == f"What is the {fmt.upper()} value of the given color in the image?"
        if fmt != "hsv":  # rgb and hex print the colour exactly: check each distractor's distance
            for text in q.options.values():
                if text != q.answer_text:
                    rgb = parse_colour(text) if fmt == "hex" else tuple(int(v) for v in text.strip("()").split(","))
                    assert abs(delta_e2000(pixel, rgb) - 8.0) <= 1.0


@pytest.mark.parametrize("fmt", ["rgb", "hsv", "hex"])
def test_colour_extraction_is_scored_by_the_colour_value_in_the_options_format(fmt):
    from plates.tasks.scenes import score_reply, to_question

    stim, q = next(iter(_build_all("colour-extraction", _scenes(PATCHES[:1]), format=fmt, delta_e=8.0)))
    common = to_question(q)
    # The value as a model writes it: HSV without ° and %, HEX lower case without "#", RGB as rgb(r,g,b).
    plain = q.answer_text.replace("°", "").replace("%", "")
    replies = {"rgb": f"rgb{plain.replace(' ', '')}", "hsv": plain, "hex": q.answer_text.lower().lstrip("#")}
    for reply in (replies[fmt], f"The {fmt.upper()} value is {replies[fmt]}."):
        got = score_reply(common, reply)
        assert (got.parsed, got.correct) == (q.answer, True), (reply, got)
    wrong = next(k for k in q.options if k != q.answer)
    assert score_reply(common, q.options[wrong].lower()).parsed == wrong


def test_colour_extraction_of_a_shape_in_a_scene():
    for stim, q in _build_all("colour-extraction", _scenes(PLAIN), format="hex"):
        _check_options(q)
        region = q.params["region"]
        pixel = stim.pixels[stim.masks[region]][0]
        assert q.answer_text == format_code(pixel, "hex") and q.wording == "ours"


@pytest.mark.parametrize("criterion", CRITERIA)
def test_colour_comparison_answer_follows_cielab_definitions(criterion):
    for stim, q in _build_all("colour-comparison", _scenes(NAMED + PLAIN), n_options=3, criterion=criterion):
        _check_options(q)
        scores = {}
        for region in q.params["regions"]:
            L, a, b = srgb255_to_lab(stim.pixels[stim.masks[region]][0])
            shape = stim.truth["regions"][int(region.split("-")[1])]["shape"]
            base = {"darker": -L, "lighter": L, "more saturated": math.hypot(a, b),
                    "warmer": a * math.cos(math.radians(50)) + b * math.sin(math.radians(50))}
            base["less saturated"], base["cooler"] = -base["more saturated"], -base["warmer"]
            scores[shape] = base[criterion]
        ranked = sorted(scores, key=scores.get, reverse=True)
        assert q.answer_text == ranked[0]
        assert scores[ranked[0]] - scores[ranked[1]] >= q.params["margin"]
        assert sorted(q.options.values()) == sorted(scores)


def test_colour_recognition_names_the_pixel_colour():
    for stim, q in _build_all("colour-recognition", _scenes(NAMED)):
        _check_options(q)
        pixel = tuple(int(v) for v in stim.pixels[stim.masks[q.params["region"]]][0])
        assert PALETTE[q.answer_text] == pixel
        assert all(v in PALETTE for v in q.options.values())


def test_colour_recognition_absent_colour_is_absent_from_the_pixels():
    for stim, q in _build_all("colour-recognition", _scenes(NAMED), mode="absent"):
        _check_options(q)
        assert q.text == "What color does not exist in this image?"
        for text in q.options.values():
            assert _colour_pixels(stim, PALETTE[text]).any() == (text != q.answer_text)


def test_single_object_recognition_uses_colorbench_wording():
    stim = render(SceneSpec(seed=2, n_regions=1, n_colours=1, palette="xkcd-basic-11"))
    q = build_question("colour-recognition", stim)
    assert q.text == "What is the color of object in this image?" and q.wording == "colorbench"


def test_shape_counting_counts_the_masks_of_that_shape():
    for stim, q in _build_all("shape-counting", _scenes(PLAIN)):
        _check_options(q)
        shape = q.params["shape"]
        assert int(q.answer_text) == len(q.target)
        for r in stim.truth["regions"]:
            assert (r["region"] in q.target) == (r["shape"] == shape and stim.masks[r["region"]].any())


# ---- options, seeds, errors ------------------------------------------------------------------------------------

@pytest.mark.parametrize("task", list(SCENE_BUILDERS))
def test_same_seed_same_question_and_answers_spread_over_letters(task):
    stims = _scenes(NAMED + PLAIN) if task != "colour-extraction" else _scenes(PATCHES)
    if task == "colour-mimicry":  # camouflaged shapes need a mottled scene
        stims = _scenes([s.replace(shading="mottled", n_colours=1, background=None, min_delta_e=8, spacing="tight",
                                   palette=None) for s in PLAIN])
    params = {"n_options": 3} if task == "colour-comparison" else {}
    letters = []
    for stim in stims:
        for seed in range(4):
            try:
                q = build_question(task, stim, seed=seed, **params)
            except NotAskable:
                continue
            assert q == build_question(task, stim, seed=seed, **params)
            _check_options(q)
            letters.append(q.answer)
    assert len(set(letters)) >= 2, f"{task}: the answer always sits at one letter"


@pytest.mark.parametrize(
    ("task", "kwargs", "needle"),
    [
        ("colour-counting", {"n_options": 2}, "allowed: an integer in [3, 6]"),
        ("colour-counting", {"n_options": 7}, "allowed: an integer in [3, 6]"),
        ("colour-counting", {"colour": "red"}, "allowed: include_background"),
        ("colour-teleport", {}, "allowed: colour-extraction"),
        ("colour-extraction", {"format": "cmyk"}, "allowed: rgb, hsv, hex"),
        ("colour-extraction", {"delta_e": 0}, "delta_e=0"),
        ("colour-comparison", {"criterion": "brighter"}, "allowed: darker"),
        ("colour-proportion", {"step": 50}, "step=50"),
        ("colour-recognition", {"mode": "maybe"}, "allowed: name, present, absent"),
    ],
)
def test_bad_parameters_raise_value_error(task, kwargs, needle):
    with pytest.raises(ValueError) as err:
        build_question(task, render(NAMED[0]), **kwargs)
    assert needle in str(err.value)


@pytest.mark.parametrize("task", ["colour-recognition", "object-counting", "colour-proportion"])
def test_tasks_naming_colours_need_a_palette(task):
    with pytest.raises(NotAskable, match="palette"):
        build_question(task, render(PLAIN[0]))


def test_counting_needs_flat_shading():
    with pytest.raises(NotAskable, match="flat"):
        build_question("colour-counting", render(PLAIN[0].replace(shading="soft")))


def test_question_refuses_repeated_options_and_foreign_answers():
    with pytest.raises(ValueError, match="distinct option texts"):
        SceneQuestion("colour-counting", "?", {"A": "1", "B": "1", "C": "2"}, "A")
    with pytest.raises(ValueError, match="not an option letter"):
        SceneQuestion("colour-counting", "?", {"A": "1", "B": "2", "C": "3"}, "D")
    with pytest.raises(ValueError, match="3-6 options"):
        SceneQuestion("colour-counting", "?", {"A": "1", "B": "2"}, "A")


def test_prompt_text_is_colorbench_instruction_question_and_options():
    q = build_question("colour-counting", render(PLAIN[0]))
    text = prompt_text(q)
    assert text.startswith(COLORBENCH_INSTRUCTION + "\n" + q.text + " Select from the following choices. (A) ")
    assert prompt_text(q, cot=True).startswith(COLORBENCH_COT_INSTRUCTION)
    for letter, option in q.options.items():
        assert f"({letter}) {option}" in text


# ---- robustness ------------------------------------------------------------------------------------------------

def test_shape_counting_is_invariant_over_all_nine_variants():
    stim = render(NAMED[1])
    q = build_question("shape-counting", stim, seed=3)
    items = robustness_items(stim, q)
    assert [i.variant for i in items] == ["seed", *VARIANTS]
    assert all(i.expected == q.answer and not i.changed for i in items)
    assert all(i.stimulus.image.size == stim.image.size for i in items)


def _named_pixels(stim: Stimulus, name: str) -> np.ndarray:
    """Pixels whose nearest palette colour within CIEDE2000 NAME_TOLERANCE is ``name`` (from pixels alone)."""
    colours, inverse = np.unique(stim.pixels.reshape(-1, 3), axis=0, return_inverse=True)
    names = list(PALETTE)
    d = delta_e2000(colours[:, None, :], np.array([PALETTE[k] for k in names])[None])
    nearest = np.array([names[i] if d[j, i] <= NAME_TOLERANCE else "" for j, i in enumerate(d.argmin(axis=1))])
    return (nearest[inverse.ravel()] == name).reshape(stim.pixels.shape[:2])


@pytest.mark.parametrize("seed", [1, 3, 5])
def test_object_counting_truth_is_recomputed_from_the_variant_pixels(seed):
    stim = render(NAMED[seed])
    chromatic = [c["name"] for c in stim.truth["colours"] if c["name"] not in ("black", "grey", "white")]
    q = build_question("object-counting", stim, seed=0, colour=chromatic[0])
    items = robustness_items(stim, q)
    changed = 0
    for item in items:
        blobs = ndimage.label(_named_pixels(item.stimulus, chromatic[0]), structure=np.ones((3, 3)))[1]
        want = [k for k, v in q.options.items() if v == str(blobs)]
        assert item.expected == (want[0] if want else None), item.variant
        changed += item.changed
    assert changed >= 6  # rotating the target's hue (and the whole image's) removes the colour asked about


def test_grey_keeps_its_name_after_hsv_rotation():
    stim = render(NAMED[3])
    q = build_question("object-counting", stim, seed=0, colour="grey")
    assert all(i.expected == q.answer for i in robustness_items(stim, q))


def test_expected_for_the_seed_is_the_answer():
    for stim in _scenes(NAMED[:3]):
        for task in SCENE_BUILDERS:
            try:
                q = build_question(task, stim, n_options=3)
            except NotAskable:
                continue
            assert expected_for(q, stim) == q.answer


# ---- the common Question / Score form (plates.tasks.base) -----------------------------------------------------

def test_to_question_and_score_reply_round_trip():
    from plates.tasks.scenes import score_reply, to_question

    stim = render(NAMED[0])
    q = build_question("object-counting", stim, seed=1)
    common = to_question(q)
    assert common.kind == "mc" and common.expected == q.answer and common.options == dict(q.options)
    assert common.text == prompt_text(q) and common.answer_kind == "count" and common.task == "object-counting"
    assert score_reply(common, q.answer_text).correct  # the option's text is an answer (ColorBench bug 2)
    assert score_reply(common, f"({q.answer}) {q.answer_text}").correct  # not read as a trailing letter (bug 1)
    ambiguous = score_reply(common, "A or B")
    assert not ambiguous.correct and ambiguous.parse_status == "ambiguous" and ambiguous.failure_mode == "erratic"
    cot = to_question(q, cot=True)
    assert cot.text.startswith(COLORBENCH_COT_INSTRUCTION) and cot.name.endswith("-cot") and cot.cot


def test_scene_families_regenerate_from_their_specs():
    from plates.stimuli.scenes import RECOLOURED_SCENES, SCENES, RecolourSpec

    stim = SCENES.render(NAMED[0])
    assert SCENES.spec_type.from_json(NAMED[0].to_json()) == NAMED[0] and SCENES.name == "scene"
    spec = RecolourSpec(NAMED[0], "image", 180)
    var = RECOLOURED_SCENES.render(RECOLOURED_SCENES.spec_type.from_json(spec.to_json()))
    assert var.image.size == stim.image.size and var.spec == spec


# ---- forms added for every ColorBench form (recognition "present", the counting floor) -----------------------

def test_recognition_present_colour_is_the_only_option_in_the_pixels():
    for stim, q in _build_all("colour-recognition", _scenes(NAMED), mode="present"):
        assert q.text == "What color exists in this image?" and q.wording == "ours"
        for text in q.options.values():
            assert _colour_pixels(stim, PALETTE[text]).any() == (text == q.answer_text), text


def test_counting_refuses_colours_closer_than_the_floor_and_states_it():
    close = render(SceneSpec(seed=1, size=128, n_regions=6, n_colours=4, min_delta_e=5, spacing="tight"))
    assert close.truth["min_delta_e"] < COUNT_MIN_DELTA_E
    with pytest.raises(NotAskable, match="CIEDE2000"):
        build_question("colour-counting", close)
    q = build_question("colour-counting", render(SceneSpec(seed=1, size=128, n_regions=6, n_colours=4,
                                                           min_delta_e=12, spacing="tight")))
    assert q.params["min_delta_e_floor"] == COUNT_MIN_DELTA_E >= 5 and q.params["min_delta_e"] >= 10


