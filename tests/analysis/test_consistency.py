"""Error consistency (Geirhos et al. 2020): κ, its intervals and the matrix, on hand-counted trials."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from plates.analysis.consistency import TRIAL_KEY, consistency_matrix, error_consistency, from_counts


def _rows(verdicts, model="m", family="ishihara", start=0):
    return pd.DataFrame([{**dict.fromkeys(TRIAL_KEY, "x"), "spec_json": f"spec-{start + i}", "correct": v,
                          "model": model, "family": family} for i, v in enumerate(verdicts)])


def test_kappa_by_hand():
    a = _rows([1, 1, 1, 1, 0, 0, 0, 0, 1, 1])
    b = _rows([1, 1, 1, 0, 0, 0, 1, 1, 1, 1])
    c = error_consistency(a, b)
    # both right 5, both wrong 2: c_obs 0.7; p1 0.6, p2 0.7: c_exp 0.42 + 0.12 = 0.54
    assert c.n == 10 and c.c_obs == pytest.approx(0.7) and c.c_exp == pytest.approx(0.54)
    assert (c.accuracy_a, c.accuracy_b) == pytest.approx((0.6, 0.7))
    assert c.kappa == pytest.approx((0.7 - 0.54) / 0.46)
    assert c.kappa_low < c.kappa < c.kappa_high
    assert c.null_low < 0 < c.null_high


def test_only_shared_answered_trials_count_and_duplicates_are_said():
    a = pd.concat([_rows([1, 0, 1]), _rows([0], start=0)])  # trial 0 answered twice, once wrong: wrong
    b = _rows([1, 0, None, 1, 1])
    c = error_consistency(a, b)
    assert c.n == 2 and c.duplicates_a == 1 and c.c_obs == 0.5 and c.accuracy_a == 0.0


def test_no_shared_trials_is_an_error_naming_the_counts():
    with pytest.raises(ValueError, match="A has 3 answered trials, B 2"):
        error_consistency(_rows([1, 0, 1]), _rows([1, 1], start=10))


def test_always_right_observers_have_no_kappa():
    assert np.isnan(error_consistency(_rows([1, 1]), _rows([1, 1])).kappa)


def test_matrix_per_family():
    frame = pd.concat([_rows([1, 0, 1, 0], "m1"), _rows([1, 0, 1, 0], "m2"), _rows([0, 1, 0, 1], "m3"),
                       _rows([1, 1], "m1", "illusion", 50), _rows([0, 1], "m2", "illusion", 50)])
    out = consistency_matrix(frame)
    ishihara = out[out["family"] == "ishihara"].set_index(["observer_a", "observer_b"])["kappa"]
    assert ishihara[("m1", "m2")] == pytest.approx(1.0) and ishihara[("m1", "m3")] == pytest.approx(-1.0)
    assert len(out[out["family"] == "illusion"]) == 1


def test_counts_give_the_same_kappa():
    c = from_counts(10, 7, 6, 7)
    assert c.kappa == pytest.approx((0.7 - 0.54) / 0.46)
    with pytest.raises(ValueError, match="not possible"):
        from_counts(10, 11, 6, 7)
