"""Exact plates as a dataset (plates.datasets.specs, ``plates generate --spec``): each spec drawn as it says,
a manifest `plates run` reads, resumable, and clear errors for a bad --spec."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq
import pytest
from PIL import Image

from plates.cli import main
from plates.datasets import MANIFEST, load_dataset
from plates.datasets.specs import generate_specs, read_spec_argument
from plates.stimuli.ishihara.plate import PlateSpec, render

SPEC = PlateSpec(text="29", size=160, palette=None, foreground=((200, 40, 40),), background=((90, 160, 90),),
                 seed=123456789, delta_e=9.0, jitter_rgb=3.0)


def test_each_spec_is_drawn_exactly_and_run_can_read_it(tmp_path):
    other = SPEC.replace(seed=7, palette="huemanity-02", foreground=None, background=None)
    summary = generate_specs([SPEC, other], tmp_path, variants=("standard", "clear"))
    assert summary["written"] == 4 and summary["rows"] == 4
    rows = pq.read_table(tmp_path / MANIFEST).to_pylist()
    assert {r["colour_set"] for r in rows} == {"custom", "huemanity-02"} and {r["dataset"] for r in rows} == {"specs"}
    assert len({r["item_id"] for r in rows}) == 4
    for r in rows:
        spec = PlateSpec.from_json(r["spec_json"])
        assert spec in (SPEC, other) and r["seed"] == spec.seed  # the spec's own seed, not a derived one
        pixels = np.asarray(Image.open(tmp_path / r["path"]).convert("RGB"))
        assert pixels.tobytes() == np.asarray(render(spec).variant(r["variant"])).tobytes()
    assert len(load_dataset(tmp_path)) == 4
    again = generate_specs([SPEC, other], tmp_path, variants=("standard", "clear"))
    assert (again["written"], again["skipped"]) == (0, 4)  # resumable: nothing drawn twice


def test_a_folder_of_other_plates_and_a_repeated_spec_are_refused(tmp_path):
    generate_specs([SPEC], tmp_path)
    with pytest.raises(ValueError, match="already holds other plates"):
        generate_specs([SPEC.replace(seed=1)], tmp_path)
    with pytest.raises(ValueError, match="a spec is given twice"):
        generate_specs([SPEC, SPEC], tmp_path / "b")
    with pytest.raises(ValueError, match="variants \\['blurry'\\] are not allowed"):
        generate_specs([SPEC], tmp_path / "c", variants=("blurry",))


def test_spec_arguments_are_json_or_a_file(tmp_path):
    path = tmp_path / "plate.json"
    path.write_text(SPEC.to_json())
    assert read_spec_argument(str(path)) == read_spec_argument(SPEC.to_json()) == SPEC
    with pytest.raises(ValueError, match="neither a spec's JSON nor a file"):
        read_spec_argument(str(tmp_path / "missing.json"))
    with pytest.raises(ValueError, match="is not valid JSON"):
        read_spec_argument("{not json")
    with pytest.raises(ValueError, match="is not a JSON object"):
        path.write_text("[1, 2]")
        read_spec_argument(str(path))


def test_the_cli_writes_a_spec_and_refuses_flags_that_would_change_it(tmp_path, capsys):
    assert main(["generate", "--spec", SPEC.to_json(), "--out", str(tmp_path / "d"), "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out)["written"] == 1
    assert main(["generate", "--spec", SPEC.to_json(), "--size", "512", "--out", str(tmp_path / "e")]) == 2
    assert "--size cannot be combined with --spec" in capsys.readouterr().err
