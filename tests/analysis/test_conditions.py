"""`plates.analysis.conditions`: one short, stable label per viewing condition, so no table pools two; missing
values (None, NaN, pd.NA) read as absent."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from plates.analysis.conditions import CONDITION, CONDITION_COLUMNS, condition_label, with_condition


@pytest.mark.parametrize(("kwargs", "label"), [
    ({}, "original"),
    ({"size": 900}, "original @900px"),
    ({"variant": "standard", "cvd": "none", "hue_shift": 0.0, "grayscale": False}, "original"),
    ({"variant": "", "cvd": "", "size": 300}, "original @300px"),
    ({"variant": "clear", "grayscale": True, "size": 300}, "clear · gray @300px"),
    ({"hue_shift": 30}, "hue +30°"),
    ({"hue_shift": -12.5}, "hue -12.5°"),
    ({"cvd": "deutan", "cvd_severity": 0.6, "size": 900}, "deutan 0.6 @900px"),
    ({"cvd": "protan", "cvd_severity": 1.0}, "protan"),
    ({"cvd": "tritan"}, "tritan"),  # no severity reads as full
    ({"variant": "clear", "grayscale": True, "hue_shift": 90, "cvd": "protan", "cvd_severity": 0.5},
     "clear · gray · hue +90° · protan 0.5"),
    ({"text_only": True, "grayscale": True, "cvd": "deutan", "size": 512}, "text-only @512px"),
])
def test_labels(kwargs, label):
    assert condition_label(**kwargs) == label


@pytest.mark.parametrize("missing", [None, np.nan, pd.NA])
def test_missing_values_are_absent(missing):
    assert condition_label(grayscale=missing, hue_shift=missing, cvd_severity=missing, size=missing,
                           text_only=missing) == "original"
    assert condition_label(cvd="deutan", cvd_severity=missing) == "deutan"


def test_the_label_columns_are_the_keyword_names_in_order():
    assert CONDITION_COLUMNS == condition_label.__code__.co_varnames[:len(CONDITION_COLUMNS)]


def test_with_condition_labels_every_row_and_keeps_the_frame():
    frame = pd.DataFrame({
        "model": ["a", "b", "c", "d"],
        "grayscale": [False, True, False, True],
        "size": [300, 300, 900, 300],
        "cvd": ["none", "none", "deutan", "none"],
        "cvd_severity": [np.nan, np.nan, 0.6, np.nan],
    }, index=[10, 11, 12, 13])
    out = with_condition(frame)
    assert list(out[CONDITION]) == ["original @300px", "gray @300px", "deutan 0.6 @900px", "gray @300px"]
    assert list(out.index) == [10, 11, 12, 13] and CONDITION not in frame.columns
    assert list(out["model"]) == ["a", "b", "c", "d"]


def test_with_condition_leaves_out_columns_and_names_its_column():
    frame = pd.DataFrame({"grayscale": [True, False], "size": [300, 900]})
    out = with_condition(frame, without=("size",), column="series")
    assert list(out["series"]) == ["gray", "original"] and CONDITION not in out.columns


def test_with_condition_without_condition_columns_or_rows_is_original():
    assert list(with_condition(pd.DataFrame({"model": ["a", "b"]}))[CONDITION]) == ["original", "original"]
    empty = with_condition(pd.DataFrame({"size": pd.Series([], dtype="int64")}))
    assert len(empty) == 0 and CONDITION in empty.columns


def test_with_condition_matches_the_label_of_each_row_on_random_frames():
    rng = np.random.default_rng(0)
    n = 200
    frame = pd.DataFrame({
        "variant": rng.choice(["standard", "clear", ""], n),
        "grayscale": rng.choice([True, False], n),
        "hue_shift": rng.choice([0.0, 45.0, np.nan], n),
        "cvd": rng.choice(["none", "protan", "deutan"], n),
        "cvd_severity": rng.choice([0.3, 1.0, np.nan], n),
        "size": rng.choice([300, 900], n),
        "text_only": rng.choice([True, False], n, p=[0.1, 0.9]),
    })
    out = with_condition(frame)
    assert list(out[CONDITION]) == [condition_label(**r) for r in frame.to_dict("records")]
