"""The explorer's ΔE2000 sweep (plates/explorer/sweep.py) with a scripted backend."""

from __future__ import annotations

import pytest

from plates.explorer import compare
from plates.explorer import models as em
from plates.explorer import plate as ex
from plates.explorer.history import history_frame, history_headers
from plates.explorer.policy import Policy
from plates.explorer.sweep import (
    COARSE_POINTS,
    SWEEP_DEFAULT,
    bracket,
    coarse_pass,
    fine_passes,
    fine_values,
    in_batches,
    requested_delta_e,
    sweep,
    sweep_plan,
    sweep_summary,
    sweep_values,
)
from tests.support.explorer_asks import PUBLIC, Scripted, spec


def test_sweep_yields_one_row_per_value_as_they_come():
    values = sweep_values(2.0, 20.0, 4, Policy())
    assert values == [2.0, 8.0, 14.0, 20.0]
    rows = list(sweep(spec(), values, em.Ask("cbe-open"), Scripted(), colour_set="x", run_id="r"))
    assert sorted(round(r["delta_e"]) for r in rows) == [2, 8, 14, 20]
    figure = compare.sweep_figure(rows)
    answers = next(t for t in figure.data if t.name == f"scripted: {compare.ANSWERS_ENTRY}")
    assert sorted(answers.x) == pytest.approx([2, 8, 14, 20], abs=0.5) and set(answers.text) == {"12"}
    assert any(t.name == "scripted fit" for t in figure.data)  # plates.charts.ishihara' psychometric fit
    points = next(t for t in figure.data if t.name == f"scripted: {compare.ACCURACY_ENTRY}")  # no n=1 Wilson bars
    assert len({t.name for t in figure.data if t.showlegend is not False}) == 2  # two distinct legend entries
    assert points.error_y.visible is False
    assert not any(t.name.endswith(compare.ANSWERS_ENTRY) for t in compare.sweep_figure([]).data)
    # the default range: a coarse pass by ratio bracketing thresholds of about 0.2-3 on the default plate
    coarse = sweep_values(*SWEEP_DEFAULT, Policy())
    assert coarse[0] <= 0.25 and coarse[-1] >= 16 and sum(v <= 3 for v in coarse) >= 4
    with pytest.raises(ValueError, match="sweep of 30 points is not allowed; allowed: 2-12"):
        sweep_values(1, 9, 30, PUBLIC)
    with pytest.raises(ValueError, match="range 5.0-5.0 is not allowed"):
        sweep_values(5.0, 5.0, 3, Policy())


def test_in_batches_groups_fast_answers_and_passes_slow_ones_through():
    """The sweep's page updates: answers arriving within `every_s` of the last update are shown together."""
    clock = iter([0.0, 0.1, 0.2, 0.3, 0.9, 1.0, 2.5, 2.6]).__next__  # start, then one reading per item
    assert list(in_batches("abcdefg", 0.5, clock)) == [["a", "b", "c", "d"], ["e", "f"], ["g"]]
    assert list(in_batches([], 0.5)) == []


def test_a_sweep_names_points_the_colours_cannot_reach_and_tells_requested_from_drawn():
    """Regression: the explorer's sweep asked 0.5 -> 6 on CBE set 1 and silently drew 1.39 -> 6.07."""
    base = ex.default_spec().replace(size=128)  # CBE set 1: 2 foreground colours, 1 background
    plan = sweep_plan(base, [0.5, 6.0, 80.0])
    assert [s.delta_e for s in plan.specs] == [0.5, 6.0]
    assert plan.skipped[0][0] == 80.0 and "not reachable" in plan.skipped[0][1]
    rows = list(sweep(base, [0.5, 6.0, 80.0], em.Ask("cbe-open"), Scripted(), colour_set="c", run_id="r"))
    assert sorted(requested_delta_e(r) for r in rows) == [0.5, 6.0]
    import numpy as np

    from plates.colour import delta_e2000

    low = min(rows, key=lambda r: requested_delta_e(r))
    fg, bg = ex.PlateSpec.from_json(low["spec_json"]).colours  # drawn colours, measured independently
    pairs = [float(delta_e2000(np.array(f, float), np.array(b, float))) for f in fg for b in bg]
    assert low["delta_e"] == pytest.approx(np.mean(pairs), abs=1e-6) and low["delta_e"] > 1.0
    summary = sweep_summary(rows, plan.skipped)
    assert f"| 0.50 | {low['delta_e']:.2f} | {min(pairs):.2f} | `12` | ✅ |" in summary
    assert f"⚠️ ΔE2000 0.50 was asked but {low['delta_e']:.2f} is drawn" in summary
    assert "⚠️ ΔE2000 80.00 cannot be reached" in summary and "ΔE2000 6.00 was asked" not in summary
    with pytest.raises(ValueError, match="no ΔE2000 of the sweep can be drawn"):
        list(sweep(base, [90.0, 95.0], em.Ask("cbe-open"), Scripted(), colour_set="c", run_id="r"))
    assert history_headers()[3] == "ΔE2000 drawn"
    assert list(history_frame(rows).columns) == history_headers()


def test_bracket_leaves_out_rows_without_a_verdict_and_refuses_a_sweep_with_none():
    def row(v, ok):
        return {"spec_json": f'{{"delta_e": {v}}}', "correct": ok}

    assert bracket([row(0.25, False), row(1.0, None), row(4.0, True), row(16.0, True)]) == (0.25, 4.0)
    with pytest.raises(ValueError, match="no answer with a verdict.*allowed"):
        bracket([row(1.0, None)])
    assert coarse_pass(0.25, 16.0, 8) == COARSE_POINTS and fine_values(0.25, 4.0, 8 - COARSE_POINTS) == [
        1.0, 1.75, 2.5, 3.25]


def test_fine_passes_give_each_model_its_own_bracket_and_share_a_pass_where_brackets_match():
    def rows(*answers):
        return [{"spec_json": f'{{"delta_e": {v}}}', "correct": ok} for v, ok in answers]

    turns = rows((0.25, False), (1.0, False), (4.0, True), (16.0, True))
    brackets, passes = fine_passes({"a": turns, "b": list(turns), "c": rows((1.0, None), (4.0, None)),
                                    "d": rows((0.25, True), (1.0, True), (4.0, True), (16.0, True))}, 8)
    assert brackets == {"a": (1.0, 4.0), "b": (1.0, 4.0), "d": (0.062, 0.25)}  # "c": no verdict, no bracket
    assert passes == [(("a", "b"), fine_values(1.0, 4.0, 4)), (("d",), fine_values(0.062, 0.25, 4))]
    assert fine_passes({"a": turns}, 4) == ({"a": (1.0, 4.0)}, [])  # every point already asked: no fine pass
