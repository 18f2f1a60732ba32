"""plates.stimuli.ishihara.labels: the label spaces of ColorBlindnessEval and HueManity App. B.1."""

import numpy as np
import pytest

from plates.stimuli.ishihara.labels import (
    CBE_NUMBERS,
    HUEMANITY_ALNUM,
    HUEMANITY_NUMERIC,
    HUEMANITY_SYMBOLS,
    LABEL_SPACES,
    random_label,
)


def test_sizes():
    assert len(CBE_NUMBERS) == 100 and CBE_NUMBERS[0] == "0" and CBE_NUMBERS[-1] == "99"
    assert len(HUEMANITY_NUMERIC) == 90 and HUEMANITY_NUMERIC[0] == "10"
    assert len(HUEMANITY_SYMBOLS) == 58 and len(set(HUEMANITY_SYMBOLS)) == 58
    assert not set("lIJO") & set(HUEMANITY_SYMBOLS)
    assert "1" in HUEMANITY_SYMBOLS and "L" in HUEMANITY_SYMBOLS and "i" in HUEMANITY_SYMBOLS
    assert len(HUEMANITY_ALNUM) == 3364 == len(set(HUEMANITY_ALNUM))
    assert set(LABEL_SPACES) == {"cbe", "huemanity-numeric", "huemanity-alnum"}


def test_random_label_deterministic():
    a = [random_label("huemanity-alnum", np.random.Generator(np.random.PCG64(7))) for _ in range(3)]
    assert len(set(a)) == 1 and a[0] in HUEMANITY_ALNUM
    with pytest.raises(ValueError, match="allowed: cbe, huemanity-numeric, huemanity-alnum"):
        random_label("emoji", np.random.Generator(np.random.PCG64(0)))
