"""Every metric on small frames whose answers are computed by hand in the comments."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from plates.analysis import metrics
from plates.analysis.metrics import (
    accuracy_table,
    cot_delta,
    grayscale_delta,
    wilson_interval,
    wilson_intervals,
    yes_no_from_counts,
)

T, F, NA = True, False, None


def yes_no_balance(df: pd.DataFrame, by) -> pd.DataFrame:
    """The yes/no balance of result rows as the app computes it: per-prompt counts, then `yes_no_from_counts`."""
    by = [by] if isinstance(by, str) else list(by)
    return yes_no_from_counts(accuracy_table(df, [*by, "prompt_name"]), by)


def frame(**columns) -> pd.DataFrame:
    df = pd.DataFrame(columns)
    df["correct"] = pd.array(df["correct"], dtype="boolean")
    return df


# --- Wilson -----------------------------------------------------------------------------------------------

def test_wilson_by_hand():
    # k=8, n=10, z=1.959964: centre (0.8 + z²/20) / (1 + z²/10) = 0.716740,
    # half-width z * sqrt(0.8*0.2/10 + z²/400) / (1 + z²/10) = 0.226578 -> (0.490162, 0.943318).
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(0.490162, abs=1e-6) and high == pytest.approx(0.943318, abs=1e-6)


def test_wilson_matches_huemanity_table_2():
    # HueManity Table 2 (n = 1000): 33.6 ± 2.92 %, 100 ± 0.19 %, 0 ± 0.19 % (half-widths of the interval).
    for k, half in ((336, 0.0292), (1000, 0.0019), (0, 0.0019)):
        low, high = wilson_interval(k, 1000)
        assert (high - low) / 2 == pytest.approx(half, abs=5e-5)


def test_wilson_edge_cases():
    assert all(math.isnan(v) for v in wilson_interval(0, 0))
    assert wilson_interval(5, 5)[1] == 1.0 and wilson_interval(0, 5)[0] == 0.0
    assert wilson_interval(8, 10, 0.99)[0] < wilson_interval(8, 10)[0]
    with pytest.raises(ValueError, match="k=3 successes exceed n=2"):
        wilson_interval(3, 2)
    with pytest.raises(ValueError, match="k=-1 is not valid; allowed: an integer >= 0"):
        wilson_interval(-1, 2)
    with pytest.raises(ValueError, match="confidence"):
        wilson_interval(1, 2, 1.5)


# --- accuracy -----------------------------------------------------------------------------------------------

def test_accuracy_table_by_hand():
    df = frame(model=["a", "a", "a", "a", "b", "b"], correct=[T, T, F, NA, F, NA])
    table = accuracy_table(df, "model")
    assert list(table.columns) == ["model", "n", "correct", "accuracy", "ci_low", "ci_high", "errors"]
    a, b = table.iloc[0], table.iloc[1]
    assert (a["n"], a["correct"], a["accuracy"], a["errors"]) == (3, 2, pytest.approx(2 / 3), 1)
    assert (a["ci_low"], a["ci_high"]) == pytest.approx(wilson_interval(2, 3))
    assert (b["n"], b["correct"], b["accuracy"], b["errors"]) == (1, 0, 0.0, 1)


def test_accuracy_table_overall_and_empty_group():
    df = frame(model=["a", "b"], correct=[T, NA])
    overall = accuracy_table(df)
    assert (overall.loc[0, "n"], overall.loc[0, "errors"]) == (1, 1)
    b = accuracy_table(df, ["model"]).set_index("model").loc["b"]
    assert b["n"] == 0 and math.isnan(b["accuracy"]) and math.isnan(b["ci_low"])


def test_accuracy_table_unknown_column():
    with pytest.raises(ValueError, match="'colour' not in the results; available: model, correct"):
        accuracy_table(frame(model=["a"], correct=[T]), "colour")


# --- yes/no balance ---------------------------------------------------------------------------------------

def test_yes_no_balance_by_hand():
    # Model "no-sayer": Y*/N 1/10 correct, Y/N* 10/10 (CBE Table 1's Claude3-Haiku pattern).
    # Model "fair": 4/5 and 4/5.
    rows = (
        [("no-sayer", "cbe-yn-correct", c) for c in [T] + [F] * 9]
        + [("no-sayer", "cbe-yn-incorrect", T)] * 10
        + [("fair", "cbe-yn-correct", c) for c in [T, T, T, T, F]]
        + [("fair", "cbe-yn-incorrect", c) for c in [T, T, T, F, T, NA]]
        + [("fair", "cbe-open", F)]
    )
    df = frame(model=[r[0] for r in rows], prompt_name=[r[1] for r in rows], correct=[r[2] for r in rows])
    table = yes_no_balance(df, "model").set_index("model")
    ns = table.loc["no-sayer"]
    assert (ns["n_y_star"], ns["y_star_n"], ns["n_n_star"], ns["y_n_star"]) == (10, 0.1, 10, 1.0)
    assert ns["balanced_accuracy"] == pytest.approx(0.55) and ns["yes_bias"] == pytest.approx(-0.9)
    # Fisher exact on [[1, 9], [10, 0]]: only tables at least this extreme count; two-sided p = 1.19e-4 < 0.05.
    assert ns["bias_p"] < 0.001 and ns["lean"] == "no"
    fair = table.loc["fair"]
    assert (fair["y_star_n"], fair["y_n_star"], fair["yes_bias"], fair["errors"]) == (0.8, 0.8, 0.0, 1)
    assert fair["bias_p"] == pytest.approx(1.0) and fair["lean"] == "balanced"


# --- grayscale delta --------------------------------------------------------------------------------------

def test_grayscale_delta_by_hand():
    # Items 1-4 in colour: 4 correct of 4; in grayscale: 1 of 4 -> (1 - 0.25) / 1 = 0.75.
    # Item 5 exists only in colour: unpaired, left out. Item 6 failed in grayscale: left out, 1 error.
    df = frame(
        model=["m"] * 11,
        item_id=["1", "2", "3", "4", "5", "6", "1", "2", "3", "4", "6"],
        grayscale=[F] * 6 + [T] * 5,
        correct=[T, T, T, T, F, T, T, F, F, F, NA],
    )
    row = grayscale_delta(df).iloc[0]
    assert (row["pairs"], row["acc_ori"], row["acc_gray"], row["delta"], row["errors"]) == (4, 1.0, 0.25, 0.75, 1)


def test_grayscale_delta_negative_and_undefined():
    # Colour misleads: ori 1/2, gray 2/2 -> (0.5 - 1) / 0.5 = -1. Original accuracy 0 -> NaN.
    df = frame(model=["x"] * 4 + ["z"] * 2, item_id=["1", "2", "1", "2", "1", "1"],
               grayscale=[F, F, T, T, F, T], correct=[T, F, T, T, F, T])
    table = grayscale_delta(df, "model").set_index("model")
    assert table.loc["x", "delta"] == pytest.approx(-1.0)
    assert math.isnan(table.loc["z", "delta"])
    with pytest.raises(ValueError, match="'grayscale' cannot be a 'by' column"):
        grayscale_delta(df, "grayscale")


# --- CoT delta --------------------------------------------------------------------------------------------

def test_cot_delta_by_hand():
    # Plain: 1 of 4 correct; CoT: 3 of 4 -> +0.5 (ColorBench Table 4 reports this x100 in points).
    df = frame(
        model=["m"] * 8,
        item_id=["1", "2", "3", "4"] * 2,
        prompt_name=["colorbench-mc"] * 4 + ["colorbench-mc-cot"] * 4,
        correct=[T, F, F, F, T, T, T, F],
    )
    row = cot_delta(df).iloc[0]
    assert (row["prompt"], row["cot_prompt"], row["pairs"]) == ("colorbench-mc", "colorbench-mc-cot", 4)
    assert (row["acc_plain"], row["acc_cot"], row["delta"]) == (0.25, 0.75, 0.5)


def test_cot_delta_custom_pairs_and_no_data():
    df = frame(model=["m"] * 2, item_id=["1", "1"], prompt_name=["mine", "mine-think"], correct=[F, T])
    assert cot_delta(df, pairs={"mine-think": "mine"}).iloc[0]["delta"] == 1.0
    assert cot_delta(df).empty  # no colorbench rows at all


def test_pairs_never_cross_groups():
    # Model a saw item 1 only in colour, model b only in grayscale: nothing is paired for either.
    df = frame(model=["a", "b"], item_id=["1", "1"], grayscale=[F, T], correct=[T, F])
    table = grayscale_delta(df, "model")
    assert list(table["pairs"]) == [0, 0] and table["delta"].isna().all()
    df = frame(model=["a", "b"], item_id=["1", "1"], prompt_name=["colorbench-mc", "colorbench-mc-cot"], correct=[T, F])
    assert list(cot_delta(df, "model")["pairs"]) == [0, 0]
    with pytest.raises(ValueError, match="'prompt_name' cannot be a 'by' column"):
        cot_delta(df, "prompt_name")


# --- vectorised paths against scipy and simple references --------------------------------------------------

def test_wilson_intervals_equal_scipy_on_many_pairs():
    from scipy import stats

    pairs = [(k, n) for n in range(41) for k in range(n + 1)]
    pairs += [(k, n) for n in (99, 1000, 12345, 10**6) for k in (0, 1, n // 3, n // 2, n - 1, n)]
    k, n = np.array(pairs).T
    for confidence in (0.5, 0.9, 0.95, 0.99):
        low, high = wilson_intervals(k, n, confidence)
        for i, (ki, ni) in enumerate(pairs):
            if ni == 0:
                assert math.isnan(low[i]) and math.isnan(high[i])
                continue
            ci = stats.binomtest(int(ki), int(ni)).proportion_ci(confidence_level=confidence, method="wilson")
            assert (low[i], high[i]) == pytest.approx((ci.low, ci.high), rel=1e-12, abs=1e-15), (ki, ni)
        assert (low[(k == 0) & (n > 0)] == 0.0).all() and (high[(k == n) & (n > 0)] == 1.0).all()


def test_wilson_intervals_bad_input():
    with pytest.raises(ValueError, match="k=3 successes exceed n=2"):
        wilson_intervals([1, 3], [2, 2])
    with pytest.raises(ValueError, match="k must be a non-negative integer, got -1"):
        wilson_intervals([-1], [2])
    with pytest.raises(ValueError, match="n must be a non-negative integer, got 2.5"):
        wilson_intervals([1], [2.5])
    with pytest.raises(ValueError, match="differ in shape"):
        wilson_intervals([1, 2], [3])
    with pytest.raises(ValueError, match="confidence"):
        wilson_intervals([1], [2], 0.0)


def random_results(seed: int, categorical: bool, rows: int = 600) -> pd.DataFrame:
    """Random rows with every awkward case: null keys, failed requests, repeated and unpaired items."""
    rng = np.random.default_rng(seed)
    pick = lambda values: [values[i] for i in rng.integers(0, len(values), rows)]
    df = pd.DataFrame({
        "model": pick(["a", "b", "c", None]),
        "item_id": pick([f"i{i}" for i in range(4)]),
        "prompt_name": pick(["cbe-yn-correct", "cbe-yn-incorrect", "colorbench-mc", "colorbench-mc-cot", "?"]),
        "task": pick(["t1", "t2"]),
        "grayscale": pick([False, True]),
        "hue_shift": pick([0.0, 0.0, 90.0, 180.0]),
        "cvd": pick(["none", "none", "deutan", None]),
        "size": pick([900, 900, 300]),
        "delta_e": np.where(rng.random(rows) < 0.05, np.nan, rng.uniform(1, 30, rows)),
        "correct": pd.array(pick([True, True, False, None]), dtype="boolean"),
    })
    if categorical:
        df = df.astype({c: "category" for c in ("model", "item_id", "prompt_name", "task", "cvd")})
        df["model"] = df["model"].cat.add_categories(["unseen"])
    return df


def _key(values) -> tuple:
    return tuple("<NA>" if pd.isna(v) else v for v in values)


def reference_groups(df, by):
    """(key, sub-frame) per group, sorted, nulls a group of their own; one group without ``by``."""
    if not by:
        return [((), df)]
    return [((k if isinstance(k, tuple) else (k,)), sub)
            for k, sub in df.groupby(by, dropna=False, sort=True, observed=True)]


def reference_accuracy(df, by):
    rows = []
    for key, sub in reference_groups(df, by):
        answered = sub["correct"].dropna()
        n, k = len(answered), int(answered.sum())
        low, high = wilson_interval(k, n)
        rows.append([*key, n, k, k / n if n else np.nan, low, high, int(sub["correct"].isna().sum())])
    return pd.DataFrame(rows, columns=[*by, "n", "correct", "accuracy", "ci_low", "ci_high", "errors"])


def reference_paired(df, by, is_a, keys):
    """Per group (n_a, k_a, n_b, k_b, pairs, errors): answered rows whose item key has both sides."""
    answered = df[df["correct"].notna()]
    item = [_key(r) for r in answered[[*by, *keys]].itertuples(index=False)]
    side_a = is_a(answered).tolist()
    on_a = {i for i, a in zip(item, side_a) if a}
    on_b = {i for i, a in zip(item, side_a) if not a}
    both = on_a & on_b
    counts = {}
    for i, a, c in zip(item, side_a, answered["correct"]):
        if i in both:
            entry = counts.setdefault(i[: len(by)], [0, 0, 0, 0, set()])
            entry[0 if a else 2] += 1
            entry[1 if a else 3] += int(c)
            entry[4].add(i)
    out = []
    for key, sub in reference_groups(df, by):
        n_a, k_a, n_b, k_b, items = counts.get(_key(key), [0, 0, 0, 0, set()])
        out.append((key, n_a, k_a, n_b, k_b, len(items), int(sub["correct"].isna().sum())))
    return out


def reference_grayscale(df, by):
    keys = [c for c in ("dataset", "item_id", "model", "prompt_name", "size", "hue_shift", "cvd")
            if c in df.columns and c not in by]
    rows = []
    colour = lambda d: d["grayscale"] != True
    for key, n_a, k_a, n_b, k_b, pairs, errors in reference_paired(df, by, colour, keys):
        acc_o, acc_g = (k_a / n_a if n_a else np.nan), (k_b / n_b if n_b else np.nan)
        rows.append([*key, pairs, acc_o, acc_g, (acc_o - acc_g) / acc_o if acc_o > 0 else np.nan, errors])
    return pd.DataFrame(rows, columns=[*by, "pairs", "acc_ori", "acc_gray", "delta", "errors"])


def reference_cot(df, by, cot="colorbench-mc-cot", plain="colorbench-mc"):
    sub = df[df["prompt_name"].isin([cot, plain])]
    keys = [c for c in ("item_id", "model", "grayscale", "size", "hue_shift", "cvd") if c not in by]
    rows = []
    with_cot = lambda d: d["prompt_name"] == cot
    for key, n_a, k_a, n_b, k_b, pairs, errors in reference_paired(sub, by, with_cot, keys):
        acc_c, acc_p = (k_a / n_a if n_a else np.nan), (k_b / n_b if n_b else np.nan)
        rows.append([*key, plain, cot, pairs, acc_p, acc_c, acc_c - acc_p, errors])
    columns = ["prompt", "cot_prompt", "pairs", "acc_plain", "acc_cot", "delta", "errors"]
    return pd.DataFrame(rows, columns=[*by, *columns])


def reference_yes_no(df, by):
    rows = []
    for key, sub in reference_groups(df[df["prompt_name"].isin(["cbe-yn-correct", "cbe-yn-incorrect"])], by):
        yes = sub.loc[sub["prompt_name"] == "cbe-yn-correct", "correct"].dropna()
        no = sub.loc[sub["prompt_name"] == "cbe-yn-incorrect", "correct"].dropna()
        acc_y, acc_n = (yes.mean() if len(yes) else np.nan), (no.mean() if len(no) else np.nan)
        p, lean = np.nan, "unknown"
        if len(yes) and len(no):
            from scipy import stats

            p = stats.fisher_exact([[yes.sum(), len(yes) - yes.sum()], [no.sum(), len(no) - no.sum()]]).pvalue
            lean = "balanced" if p >= 0.05 else ("yes" if acc_y > acc_n else "no")
        rows.append([*key, len(yes), acc_y, len(no), acc_n, (acc_y + acc_n) / 2, acc_y - acc_n, p, lean,
                     int(sub["correct"].isna().sum())])
    columns = ["n_y_star", "y_star_n", "n_n_star", "y_n_star", "balanced_accuracy", "yes_bias", "bias_p",
               "lean", "errors"]
    return pd.DataFrame(rows, columns=[*by, *columns])


def assert_same_table(ours: pd.DataFrame, expected: pd.DataFrame) -> None:
    # the deltas' intervals (``*_low`` / ``*_high``) are checked on their own (coverage, below)
    ours = ours.drop(columns=[c for c in ours.columns if c.endswith(("_low", "_high")) and c not in expected])
    assert list(ours.columns) == list(expected.columns)
    ours, expected = ours.reset_index(drop=True), expected.reset_index(drop=True)
    for c in ours.columns:
        a, b = ours[c].astype(object).tolist(), expected[c].astype(object).tolist()
        a, b = [None if pd.isna(v) else v for v in a], [None if pd.isna(v) else v for v in b]
        # pytest.approx compares numbers only (pytest >= 9.2 refuses strings in it): text columns exactly
        numeric = [isinstance(v, int | float) and not isinstance(v, bool) for v in a]
        assert [v for v, n in zip(a, numeric) if not n] == [v for v, n in zip(b, numeric) if not n], c
        assert [v for v, n in zip(a, numeric) if n] == pytest.approx(
            [v for v, n in zip(b, numeric) if n], rel=1e-12, abs=1e-15, nan_ok=True), c


@pytest.mark.parametrize("categorical", [False, True], ids=["strings", "categoricals"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fast_metrics_equal_simple_references_on_random_frames(seed, categorical):
    df = random_results(seed, categorical)
    for by in ([], ["model"], ["model", "task"], ["cvd", "size"]):
        assert_same_table(accuracy_table(df, by), reference_accuracy(df, by))
        assert_same_table(yes_no_balance(df, by), reference_yes_no(df, by))
        assert_same_table(grayscale_delta(df, by), reference_grayscale(df, by))
        assert_same_table(cot_delta(df, by), reference_cot(df, by))
    assert "unseen" not in set(accuracy_table(df, "model")["model"].dropna())


@pytest.mark.parametrize("p1, p2, n", [(0.9, 0.6, 50), (0.3, 0.8, 100), (0.95, 0.95, 200), (0.5, 0.2, 40)])
def test_delta_intervals_cover_the_truth_about_95_percent_of_the_time(p1, p2, n):
    """Newcombe's difference and MOVER-R's ratio, on 20,000 simulated pairs of independent binomial counts."""
    rng = np.random.default_rng(0)
    k1, k2 = rng.binomial(n, p1, 20_000), rng.binomial(n, p2, 20_000)
    low, high = metrics.newcombe_difference(k1, n, k2, n)
    assert 0.935 <= np.mean((low <= p1 - p2) & (p1 - p2 <= high)) <= 0.97
    low, high = metrics.mover_ratio(k1, n, k2, n)
    assert 0.935 <= np.mean((low <= p1 / p2) & (p1 / p2 <= high)) <= 0.97


def test_every_paired_delta_carries_its_interval():
    pairs = pd.DataFrame({"model": ["m"], "n_a": [100], "k_a": [90], "n_b": [100], "k_b": [45], "pairs": [100],
                          "errors": [0]})
    gray = metrics.grayscale_from_pairs(pairs)
    assert gray["delta"][0] == pytest.approx(0.5) and gray["delta_low"][0] < 0.5 < gray["delta_high"][0]
    cot = metrics.cot_from_pairs(pairs, prompt="p", cot_prompt="p-cot")
    assert cot["delta"][0] == pytest.approx(0.45) and cot["delta_low"][0] < 0.45 < cot["delta_high"][0]
    assert metrics.grayscale_from_pairs(pairs.assign(k_a=0))["delta_low"].isna().all()  # no colour answers right
