"""`plates.runs.ellipse_trials`: one trial's seeds, names and answer codes, and QUEST+ rebuilt from rows."""

from __future__ import annotations

import math

import pytest

from plates.runs.ellipse_plan import EllipseRun, parse_centres
from plates.runs.ellipse_trials import answer_code, answered, item_id, states_from_rows, trial_seed
from plates.runs.experiment import ModelSpec

IDEAL = ModelSpec("python", "plates.models.simulated:ideal", 512, 0.0, {})


def _run(tmp_path, **kw) -> EllipseRun:
    cs, _ = parse_centres("0.3,0.32")
    return EllipseRun(centres=tuple(cs), model=IDEAL, out=str(tmp_path), size=256, **kw)


def test_trial_seeds_are_fixed_by_the_run_and_differ_by_trial(tmp_path):
    run = _run(tmp_path)
    seeds = {trial_seed(run, 0, k, r, a) for k in range(8) for r in range(5) for a in range(2)}
    assert len(seeds) == 80
    assert trial_seed(run, 0, 3, 2) == trial_seed(_run(tmp_path), 0, 3, 2)
    assert trial_seed(run, 0, 3, 2) != trial_seed(_run(tmp_path, seed=1), 0, 3, 2)
    assert all(0 <= plate < 2**63 for _, plate in seeds)


def test_item_ids_name_centre_direction_round_and_a_retry(tmp_path):
    run = _run(tmp_path)
    c = run.centres[0]
    assert item_id(run, c, 2, 7, 0) == "0.3,0.32|uv-090.0|0007"
    assert item_id(run, c, 2, 7, 1) == "0.3,0.32|uv-090.0|0007|1"


@pytest.mark.parametrize(("row", "code"), [
    ({"correct": True, "parse_status": "ok"}, 1),
    ({"correct": False, "parse_status": "ok"}, 0),
    ({"correct": False, "parse_status": "unparsed"}, 0),  # unread counts as wrong, as the task scores it
    ({"correct": None, "parse_status": "error"}, None),
    ({"correct": math.nan, "parse_status": "ok"}, None),
    ({"correct": True, "parse_status": "unsupported"}, None),
])
def test_answer_codes(row, code):
    assert answer_code(row) == code


def test_states_rebuilt_from_rows_replay_each_directions_answers(tmp_path):
    run = _run(tmp_path)
    spec = run.adaptive_spec()
    rows = [{"run_id": run.run_id, "item_id": item_id(run, run.centres[0], 1, r, 0), "direction": "uv-045.0",
             "level_shown": 3.0 + r, "correct": r % 2 == 0, "parse_status": "ok"} for r in range(3)]
    rows.append({**rows[0], "item_id": rows[0]["item_id"] + "|1", "correct": None, "parse_status": "error"})
    states, counts = states_from_rows(run, spec, rows)
    assert [level for level, _ in states[(0, 1)].history] == [3.0, 4.0, 5.0]  # the failed retry is no answer
    assert counts[(0, 1, 0)] == 2 and counts[(0, 1, 1)] == 1
    assert answered(states, (0, 1), 2) and not answered(states, (0, 1), 3)
    assert not answered(states, (0, 0), 0)
    assert len(states) == 8


def test_a_row_of_another_run_is_refused(tmp_path):
    run = _run(tmp_path)
    with pytest.raises(ValueError, match="not one of this run's trials"):
        states_from_rows(run, run.adaptive_spec(), [{"item_id": "macadam-13|uv-045.0|0000", "level_shown": 1.0,
                                                     "correct": True, "parse_status": "ok"}])
