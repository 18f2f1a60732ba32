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


def test_a_dithered_trials_level_shown_is_what_the_simulated_observer_sees(tmp_path):
    # The stored level (the dots' area-weighted mean in linear light) and the bench's simulated observer (the
    # figure pixels' mean over the glyph area) must mean the same colour: from a third of a code step to a few
    # steps, the observer's d is the stored level's d along the direction (0.994 on average here). Its figure
    # area is about 1% larger than the figure's own pixels (it cannot tell figure dots of the ground's colour
    # from ground dots), hence the tolerance; an observer that saw a sub-step figure as a whole code step (as
    # one did) reads d 1.6-3.2 times the stored level's at 0.3.
    from plates.models.simulated import EllipseObserver, fixed_ellipse, read_plate
    from plates.runs.ellipse_trials import present_direction
    from plates.stimuli.ishihara.labels import LABEL_SPACES

    cs, _ = parse_centres("0.305,0.323")
    run = EllipseRun(centres=tuple(cs), model=IDEAL, out=str(tmp_path), size=192, dither=True)
    c, observer = run.centres[0], EllipseObserver(fixed_ellipse(6e-3, 5e-3, 0.0))
    ratios = []
    for k in (0, 2, 5):
        for level in (0.3, 1.0, 3.0):  # 10⁻³ u'v': 0.3 is under one code step in every one of these directions
            for r in range(2):
                trial = present_direction(run, 0, k, r, 0, level)
                reading = read_plate(trial.image, LABEL_SPACES["huemanity-numeric"])
                assert reading.label == trial.spec.text
                stored = observer.distance(c.rgb, tuple(run.figure(c, k, trial.shown)))
                ratios.append(observer.distance(reading.ground, reading.figure) / stored)
    assert run.code_steps(c, 0, 0.3) < 1 and run.code_steps(c, 2, 0.3) < 1 and run.code_steps(c, 5, 0.3) < 1
    assert min(ratios) > 0.9 and max(ratios) < 1.1, ratios  # one plate: 0.94-1.04 here
    assert sum(ratios) / len(ratios) == pytest.approx(1.0, abs=0.02), ratios
