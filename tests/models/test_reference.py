"""The pixel-reading reference observer (backend ``reference-pixels``): it answers illusion and scene questions
with what the drawn pixels say, declines plates and any condition that changes the pixels it measured, and its
rows say what it is."""

import json

import pandas as pd

from plates.models import DEFAULT_MODELS, make_backend
from plates.models.reference import MODEL
from plates.results import load_results
from plates.runs.experiment import quick_experiment
from plates.runs.runner import run_experiment


def run(tmp_path, dataset, prompt, limit, **conditions) -> pd.DataFrame:
    exp = quick_experiment(dataset=dataset, prompt=prompt, backend="reference-pixels", model=MODEL,
                           out=str(tmp_path), limit=limit, **conditions)
    run_experiment(exp, progress=False)
    return load_results(tmp_path).frame


def test_on_illusions_it_answers_the_pixels_even_when_asked_as_a_human_sees_it(tmp_path):
    rows = run(tmp_path, "rcid-contrast", "rcid-compare-human", 12)
    assert len(rows) == 12 and rows["model"].eq(MODEL).all() and rows["backend"].eq("reference-pixels").all()
    for row in rows.itertuples():
        truth = json.loads(row.truth_json)
        meaning = truth["meanings"][row.parsed]  # the option it chose, as a claim about the targets
        assert meaning == truth["pixel_answer"]
    assert not rows["correct"].all()  # fooled items: the human key differs from the pixels


def test_on_scenes_it_is_the_ceiling_and_it_declines_plates_and_changed_pixels(tmp_path):
    scenes = run(tmp_path / "s", "colorbench-colour-counting", "colorbench-colour-counting", 4)
    assert scenes["correct"].all()
    gray = run(tmp_path / "g", "rcid-contrast", "rcid-compare-pixel", 2, grayscale=(True,))
    assert gray["parsed"].isna().all() and gray["correct"].isna().all()  # declined: not what it measured
    plates = run(tmp_path / "p", "colorblindnesseval", "cbe-open", 2)
    assert plates["parsed"].isna().all()


def test_it_is_registered_with_its_label_as_model_and_refuses_another_name():
    assert DEFAULT_MODELS["reference-pixels"] == MODEL == "reference observer (reads pixels; a ceiling, not a model)"
    try:
        make_backend("reference-pixels", model="gpt-4o")
    except ValueError as exc:
        assert "allowed" in str(exc)
    else:
        raise AssertionError("a reference observer under a model's name was accepted")
