"""The series colours: stable from the name, distinct for a figure's series, distinguishable."""

import itertools
import subprocess
import sys

import numpy as np

from plates.charts.common import MODEL_PALETTE, model_colour, model_colours
from plates.colour.spaces import delta_e2000, parse_colour


def test_palette_colours_are_far_apart_in_ciede2000():
    rgb = np.array([parse_colour(c) for c in MODEL_PALETTE], float)
    assert len(set(MODEL_PALETTE)) == len(MODEL_PALETTE) >= 20
    smallest = min(float(delta_e2000(rgb[[a]], rgb[[b]])[0]) for a, b in itertools.combinations(range(len(rgb)), 2))
    assert smallest > 15.0


def test_model_colour_is_the_same_in_another_process():
    code = "from plates.charts.common import model_colour; print(model_colour('Qwen/Qwen2-VL-7B-Instruct'))"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert other == model_colour("Qwen/Qwen2-VL-7B-Instruct")


def test_twenty_four_series_get_twenty_four_colours_and_keep_own_slot_when_free():
    names = [f"model-{i}" for i in range(24)]
    colours = model_colours(names)
    assert len(set(colours.values())) == 24
    first = sorted(names)[0]
    assert colours[first] == model_colour(first)  # the first in order always has its own colour
    assert model_colours(["baseline"]) == {"baseline": model_colour("baseline")}


def test_legends_name_runs_without_their_hash_unless_two_runs_share_a_name():
    import pandas as pd

    from plates.charts.common import series_labels

    model = pd.Series(["a", "a", "a", "b", "b"])
    run = pd.Series(["cbe-71ba3e1d4bc7", "cvd-0351d322b74f", "cbe-71ba3e1d4bc7", "x-111111111111", "x-222222222222"])
    labels = list(series_labels(model, run, {"a", "b"}))
    assert labels[:3] == ["a · cbe", "a · cvd", "a · cbe"]
    assert labels[3:] == ["b · x-111111111111", "b · x-222222222222"]  # same name: the ids keep them apart


def test_legends_name_a_run_by_its_run_name_and_add_the_model_only_where_names_clash():
    import pandas as pd

    from plates.charts.common import series_labels, with_series

    model = pd.Series(["gpt-4o", "qwen", "qwen", "gpt-4o", "participant-0123abcd"])
    run = pd.Series(["cbe-71ba3e1d4bc7", "cbe-0351d322b74f", "cbe-0351d322b74f", "cbe-222222222222", "quiz-1"])
    names = pd.Series(["gpt4o-run", "mine", "mine", "mine", "quiz"])
    labels = list(series_labels(model, run, {"gpt-4o"}, names))
    assert labels[0] == "gpt4o-run"  # one run, one name: the name alone, no hash, no model
    assert labels[1:4] == ["mine · qwen", "mine · qwen", "mine · gpt-4o"]  # two runs named "mine": + model
    assert labels[4] == "person: participant-0123abcd"  # a person is never labelled as a run or a model
    assert not any(h in label for label in labels for h in ("71ba3e1d4bc7", "0351d322b74f", "222222222222"))
    # the same name and model in two runs (one --out folder, two experiments): numbered, never a hash
    twice = list(series_labels(pd.Series(["a", "a"]), pd.Series(["x-111111111111", "x-222222222222"]), {"a"},
                               pd.Series(["quick", "quick"])))
    assert twice == ["quick · a (1)", "quick · a (2)"]
    frame = pd.DataFrame({"model": model, "run_id": run, "run_name": names})
    assert list(with_series(frame)["series"]) == labels
    # rows without a run name (hand-made frames) keep the model-first labels (two gpt-4o runs named "cbe")
    assert list(with_series(frame.drop(columns="run_name"))["series"])[0] == "gpt-4o · cbe-71ba3e1d4bc7"
