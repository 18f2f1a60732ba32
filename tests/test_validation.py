"""The one registry lookup and the one number validator (plates.validation), and the registries that use them."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from plates.datasets import get_preset
from plates.stimuli import get_family
from plates.stimuli.ishihara.palettes import get_palette
from plates.tasks import get_task
from plates.tasks.prompts import get_prompt
from plates.validation import (
    IMAGE_SIZES,
    check_choice,
    check_int,
    check_keys,
    check_list,
    check_number,
    check_size,
    is_number,
    lookup,
    not_known,
    suggestion,
)


def test_lookup_returns_the_entry_or_names_every_allowed_one():
    registry = {"red": 1, "green": 2, "blue": 3}
    assert lookup(registry, "green", "colour") == 2
    with pytest.raises(ValueError, match=r"^colour 'purple' is not known; allowed: red, green, blue$"):
        lookup(registry, "purple", "colour")  # nothing close: no suggestion


def test_a_near_miss_gets_one_suggestion_case_insensitively():
    with pytest.raises(ValueError, match=r"allowed: red, green, blue; did you mean 'green'\?$"):
        lookup({"red": 1, "green": 2, "blue": 3}, "GREN", "colour")
    assert suggestion("huemanity-1", ["huemanity-01", "colorblindnesseval-1"]) == "huemanity-01"
    assert suggestion("zzz", ["red"]) is None and suggestion(None, ["red"]) is None


@pytest.mark.parametrize("bad", [None, 3, ["red"], {"red": 1}])
def test_lookup_of_a_non_string_is_the_same_error_not_a_type_error(bad):
    with pytest.raises(ValueError, match=r"colour .* is not known; allowed: red"):
        lookup({"red": 1}, bad, "colour")


def test_extra_text_follows_the_allowed_list():
    err = not_known("font", "Comic", ["dejavu-sans"], extra=" or a .ttf path")
    assert str(err) == "font 'Comic' is not known; allowed: dejavu-sans or a .ttf path"


def test_check_choice_takes_any_hashable_or_not():
    assert check_choice("direction", None, (None, "vertical")) is None
    with pytest.raises(ValueError, match=r"direction \['x'\] is not known; allowed: None, vertical"):
        check_choice("direction", ["x"], (None, "vertical"))


@pytest.mark.parametrize(
    ("get", "name", "near"),
    [(get_palette, "huemanty-01", "huemanity-01"), (get_preset, "huemanity-numerc", "huemanity-numeric"),
     (get_family, "ilusion", "illusion"), (get_task, "cbe-opn", None), (get_prompt, "cbe-opne", "cbe-open")],
)
def test_every_registry_getter_speaks_the_same_error(get, name, near):
    with pytest.raises(ValueError, match=rf"^\w[\w ]* '{name}' is not known; allowed: ") as caught:
        get(name)
    if near is not None:
        assert str(caught.value).endswith(f"; did you mean {near!r}?")


def test_check_number_ranges_integers_and_none():
    assert check_number("size", 512, 64, 4096, integer=True) == 512
    assert check_number("strength", 1, 0.0, 1.0) == 1.0 and isinstance(check_number("s", 1, 0, 1), float)
    assert check_number("delta_e", None, 0.0, 200.0, none_ok=True) is None
    with pytest.raises(ValueError, match=r"^size=32 is not valid; allowed: an integer in \[64, 4096\]$"):
        check_number("size", 32, 64, 4096, integer=True)
    with pytest.raises(ValueError, match=r"allowed: a number in \[0, 1\] or None$"):
        check_number("x", 2, 0.0, 1.0, none_ok=True)


@pytest.mark.parametrize("bad", [True, "1", math.nan, math.inf, 1.5, None, [1]])
def test_check_number_refuses_what_is_not_a_finite_integer(bad):
    with pytest.raises(ValueError, match="is not valid; allowed: an integer in"):
        check_number("n", bad, 0, 10, integer=True)


SEED_MAX = 2**63 - 1  # numpy PCG64 seeds of every family's spec


@pytest.mark.parametrize(("text", "read"), [
    ("9007199254740993", 9007199254740993),  # 2**53 + 1: float() would make it ...992
    (str(SEED_MAX), SEED_MAX),  # the largest seed a spec takes
    (" 42 ", 42), ("+7", 7), ("0", 0), (512.0, 512), (SEED_MAX, SEED_MAX),
])
def test_check_int_reads_text_with_int_never_through_float(text, read):
    got = check_int("seed", text, 0, SEED_MAX, text=True)
    assert got == read and type(got) is int


@pytest.mark.parametrize("bad", ["1.7", 1.7, "1e3", "", "  ", "0x10", "١٢", True, False, None, [1], math.nan,
                                 math.inf, "9" * 41, str(SEED_MAX + 1), -1, "-1"])
def test_check_int_refuses_fractions_bools_and_out_of_range_naming_them(bad):
    with pytest.raises(ValueError) as caught:
        check_int("seed", bad, 0, SEED_MAX, text=True)
    assert str(caught.value) == f"seed={bad!r} is not valid; allowed: an integer in [0, {SEED_MAX}]"


def test_check_int_reads_text_only_when_asked_and_takes_open_bounds():
    with pytest.raises(ValueError, match=r"^limit='3' is not valid; allowed: an integer >= 1$"):
        check_int("limit", "3", 1)  # a file's number is a number: no text reading
    with pytest.raises(ValueError, match=r"^n=512\.0 is not valid; allowed: an integer$"):
        check_int("n", 512.0)
    assert check_int("n", -5) == -5 and check_int("n", None, none_ok=True) is None
    with pytest.raises(ValueError, match=r"^n=9 is not valid; allowed: an integer <= 8 or None$"):
        check_int("n", 9, hi=8, none_ok=True)


def test_check_number_reads_visitor_text_when_asked():
    assert check_number("jitter", "0.25", 0.0, 1.0, text=True) == 0.25
    with pytest.raises(ValueError, match=r"^jitter='0\.25' is not valid; allowed: a number in \[0, 1\]$"):
        check_number("jitter", "0.25", 0.0, 1.0)
    with pytest.raises(ValueError, match=r"^jitter='nan' is not valid"):
        check_number("jitter", "nan", 0.0, 1.0, text=True)


def test_one_image_size_rule():
    assert IMAGE_SIZES == (16, 4096)
    assert check_size("size", 16) == 16 and check_size("size", 4096) == 4096
    assert check_size("size", None, none_ok=True) is None
    for bad in (15, 4097, 512.0, True, "512"):
        with pytest.raises(ValueError, match=r"is not valid; allowed: an integer in \[16, 4096\] \(px\)$"):
            check_size("size", bad)


def test_check_list_wraps_or_refuses_and_names_the_example():
    assert check_list("sizes", 512, wrap=True) == [512] and check_list("sizes", [1, 2]) == [1, 2]
    assert check_list("fonts", [], empty_ok=True) == []
    with pytest.raises(ValueError, match=r"^sizes=\[\] is not valid; allowed: a list of at least one value$"):
        check_list("sizes", [], wrap=True)
    with pytest.raises(ValueError, match=r"^sizes=900 is not valid; allowed: a list, e\.g\. sizes = \[900\]$"):
        check_list("sizes", 900, example="sizes = [900]")


def test_check_keys_names_the_unknown_and_the_allowed_keys():
    table = {"view": "protan"}
    assert check_keys("cvd", table, ("view", "severity")) is table
    with pytest.raises(ValueError, match=r"^cvd: unknown key\(s\) a, z; allowed: view, severity$"):
        check_keys("cvd", {"z": 1, "a": 2, "view": "protan"}, ("view", "severity"))
    with pytest.raises(ValueError, match=r"^cvd: expected a table with keys view, severity, got 'protan'$"):
        check_keys("cvd", "protan", ("view", "severity"))
    with pytest.raises(ValueError, match=r"unknown key\(s\) x for backend 'hf'; allowed: model$"):
        check_keys("models[0]", {"x": 1}, ("model",), extra=" for backend 'hf'")


def test_numpy_numbers_open_and_unbounded_intervals_and_a_note():
    assert check_int("n", np.int64(3), 1) == 3 and type(check_int("n", np.int64(3), 1)) is int
    assert check_number("x", np.float32(0.5), 0, 1) == 0.5
    assert check_number("x", -1e300) == -1e300  # no bound either side
    assert check_number("slope", 0.1, 0, open=True) == 0.1
    with pytest.raises(ValueError, match=r"^slope=0 is not valid; allowed: a number > 0$"):
        check_number("slope", 0, 0, open=True)
    with pytest.raises(ValueError, match=r"^hue=360 is not valid; allowed: a number in \(0, 360\)$"):
        check_number("hue", 360, 0, 360, open=True)
    with pytest.raises(ValueError, match=r"^x=nan is not valid; allowed: a number$"):
        check_number("x", float("nan"))
    with pytest.raises(ValueError, match=r"^n=True is not valid; allowed: an integer >= 1 or None \(bytes\)$"):
        check_int("n", True, 1, none_ok=True, note=" (bytes)")
    with pytest.raises(ValueError, match=r"^n=np.True_ is not valid|^n=True is not valid"):
        check_int("n", np.bool_(True), 0)
    assert is_number(np.int8(2), integer=True) and is_number(2.5) and not is_number(2.5, integer=True)
    assert not is_number(True) and not is_number("2") and not is_number(None)


#: A number check written by hand: ``isinstance(x, bool) or not isinstance(x, int)`` and its mirror images, or
#: ``not isinstance(x, int) or x < 1`` (which lets a bool through). `plates.validation` is their one home.
_HAND_WRITTEN = [re.compile(p) for p in (
    r"isinstance\(\s*(?P<v>[\w.\[\]]+)\s*,\s*bool\s*\)\s*or\s+not\s+isinstance\(\s*(?P=v)\s*,",
    r"not\s+isinstance\(\s*(?P<v>[\w.\[\]]+)\s*,[^)]*\b(?:int|float|Real|Integral)\b[^)]*\)\)?\s*or\s+"
    r"isinstance\(\s*(?P=v)\s*,\s*bool\s*\)",
    r"isinstance\(\s*(?P<v>[\w.\[\]]+)\s*,[^)]*\b(?:int|float|Real|Integral)\b[^)]*\)\)?\s*and\s+not\s+"
    r"isinstance\(\s*(?P=v)\s*,\s*bool\s*\)",
    r"not\s+isinstance\(\s*(?P<v>[\w.\[\]]+)\s*,\s*\(?(?:int|float)\b[^)]*\)\)?\s*or\s+(?P=v)\s*[<>]",
    r"not\s+isinstance\(\s*(?P<v>[\w.\[\]]+)\s*,\s*bool\s*\)\s*and\s+isinstance\(\s*(?P=v)\s*,",
    r"isinstance\(\s*(?P<v>[\w.\[\]]+)\s*,\s*\(?int\b[^)]*\bfloat\b[^)]*\)\)?\s*and\s+(?:math|np)\.isfinite\(\s*(?P=v)",
)]


def test_no_number_check_is_written_by_hand_outside_plates_validation():
    root = Path(__file__).resolve().parents[1] / "plates"
    found = [f"{path.relative_to(root.parent)}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
             for path in sorted(root.rglob("*.py")) if path != root / "validation.py"
             for text in [path.read_text(encoding="utf-8")] for pattern in _HAND_WRITTEN
             for m in pattern.finditer(text)]
    assert not found, "use plates.validation (check_number, check_int, is_number):\n" + "\n".join(found)
    assert _HAND_WRITTEN[0].search("if isinstance(n, bool) or not isinstance(n, int):")  # the test can fail
    assert _HAND_WRITTEN[2].search("isinstance(v, (int, float)) and not isinstance(v, bool)")
    assert _HAND_WRITTEN[3].search("if not isinstance(self.max_tokens, int) or self.max_tokens < 1:")
    assert _HAND_WRITTEN[4].search("not isinstance(v, bool)\n and isinstance(v, int | float)")
    assert _HAND_WRITTEN[5].search("isinstance(t, (int, float)) and math.isfinite(t) and t > 0")
