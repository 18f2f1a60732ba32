"""Label coding of the baseline reader (`plates.reader.coding`): classes, encode/decode, label-space masks and the
joint best label under a label space."""

from __future__ import annotations

import numpy as np
import pytest

from plates.reader.coding import (
    BLANK,
    CLASSES,
    N_CLASSES,
    N_POSITIONS,
    SYMBOLS,
    allowed_mask,
    best_label,
    decode,
    encode,
)


def test_classes_are_blank_plus_the_58_huemanity_symbols():
    from plates.stimuli.ishihara.labels import HUEMANITY_SYMBOLS

    assert CLASSES[0] == BLANK and len(CLASSES) == N_CLASSES == 59
    assert "".join(SYMBOLS) == HUEMANITY_SYMBOLS


@pytest.mark.parametrize("label", ["7", "0", "42", "Ab", "zz", "9q"])
def test_encode_decode_round_trip(label):
    assert decode(encode(label)) == label


@pytest.mark.parametrize("bad", ["", "123", "lI", "O1", " 5", 7])
def test_encode_rejects_labels_outside_the_symbols(bad):
    with pytest.raises(ValueError):
        encode(bad)


def _log_probs(first: dict[str, float], second: dict[str, float]) -> np.ndarray:
    lp = np.full((2, N_CLASSES), -20.0)
    for pos, probs in enumerate((first, second)):
        for c, p in probs.items():
            lp[pos, CLASSES.index(c)] = np.log(p)
    return lp


def test_best_label_respects_the_label_space():
    lp = _log_probs({"A": 0.6, "4": 0.4}, {"": 0.5, "2": 0.3, "b": 0.2})
    assert best_label(lp, "any")[0] == "A"
    assert best_label(lp, "huemanity-alnum")[0] == "A2"
    assert best_label(lp, "huemanity-numeric")[0] == "42"
    assert best_label(lp, "cbe")[0] == "4"  # blank second position allowed for 0-99


def test_best_label_cbe_never_returns_a_leading_zero():
    lp = _log_probs({"0": 0.9, "5": 0.1}, {"7": 0.9, "": 0.1})
    text, p = best_label(lp, "cbe")
    assert text in ("0", "57") and not (len(text) == 2 and text[0] == "0")
    assert 0.0 < p <= 1.0


def test_allowed_mask_rejects_unknown_space():
    with pytest.raises(ValueError, match="allowed"):
        allowed_mask("roman")


@pytest.mark.parametrize(
    ("space", "first_digits_only", "second_blank"),
    [
        ("cbe", True, True),
        ("huemanity-numeric", True, False),
        ("huemanity-alnum", False, False),
        ("any", False, True),
    ],
)
def test_allowed_mask_per_space(space, first_digits_only, second_blank):
    mask = allowed_mask(space)
    assert mask.shape == (N_POSITIONS, N_CLASSES) and mask.dtype == bool
    assert not mask[0, 0], "the first position is never blank"
    assert bool(mask[1, 0]) is second_blank
    letters = [CLASSES.index(c) for c in "AbZ"]
    assert bool(mask[0, letters].any()) is not first_digits_only
    if space == "huemanity-numeric":
        assert not mask[0, CLASSES.index("0")], "HueManity's numbers are 10-99"


def test_best_label_reads_every_cbe_number_and_only_those():
    for number in range(100):
        text = str(number)
        lp = np.full((N_POSITIONS, N_CLASSES), -30.0)
        for pos, c in enumerate(text.ljust(N_POSITIONS, "\0")):
            lp[pos, CLASSES.index(BLANK if c == "\0" else c)] = 0.0
        read, p = best_label(lp, "cbe")
        assert read == text and p == pytest.approx(1.0)


def test_best_label_probability_is_the_product_of_the_positions():
    lp = np.log(np.full((N_POSITIONS, N_CLASSES), 1e-6))
    lp[0, CLASSES.index("3")] = np.log(0.5)
    lp[1, CLASSES.index("8")] = np.log(0.4)
    assert best_label(lp, "huemanity-numeric") == ("38", pytest.approx(0.2))


def test_best_label_rejects_a_wrong_shape():
    with pytest.raises(ValueError, match="shape"):
        best_label(np.zeros((3, N_CLASSES)), "any")


def test_decode_drops_blank_positions():
    assert decode([CLASSES.index("7"), 0]) == "7"
    assert decode([]) == ""
