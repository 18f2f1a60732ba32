"""Loading a set (`plates.datasets.load`): presets rendered on demand, family presets, generated folders and
hand-made manifests of every age (plate, family, old illusion), ``limit``, and broken folders refused naming
the file and what is allowed."""

from __future__ import annotations

import json
import math

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from plates.datasets import generate, load_dataset
from plates.datasets.family_presets import FAMILY_PRESETS
from plates.datasets.items import DRAWN_COLUMNS, MANIFEST, MANIFEST_COLUMNS
from plates.datasets.load import family_preset_items
from plates.stimuli import render
from plates.stimuli.illusions import IllusionSpec
from plates.stimuli.ishihara import PlateSpec


def test_load_preset_renders_on_demand():
    items = load_dataset("huemanity-numeric", limit=2)
    assert len(items) == 2 and items[0].path is None
    im = items[0].image()
    assert im.mode == "RGB" and im.size == (900, 900)
    with pytest.raises(ValueError, match="neither a folder nor a preset"):
        load_dataset("no-such-thing")
    with pytest.raises(ValueError, match="limit"):
        load_dataset("huemanity-numeric", limit=-1)


def test_a_broken_folder_is_a_value_error_naming_the_file(tmp_path):
    """A foreign manifest raised KeyError('item_id') and a missing PNG surfaced mid-run as FileNotFoundError."""
    (tmp_path / "x").mkdir()
    pq.write_table(pa.table({"x": [1]}), tmp_path / "x" / MANIFEST)
    with pytest.raises(ValueError, match=r"lacks column\(s\) item_id, .*allowed: a manifest written by"):
        load_dataset(tmp_path / "x")
    (tmp_path / "y").mkdir()
    (tmp_path / "y" / MANIFEST).write_text("not parquet")
    with pytest.raises(ValueError, match="cannot be read as Parquet"):
        load_dataset(tmp_path / "y")
    generate("colorblindnesseval", tmp_path / "z", limit=1, size=64, workers=1, progress=False)
    victim = sorted((tmp_path / "z").rglob("*.png"))[-1]
    victim.unlink()
    with pytest.raises(ValueError, match=rf"{victim.name}' is listed in .* but missing; allowed: a complete folder"):
        load_dataset(tmp_path / "z")


def test_an_illusion_folder_in_the_old_manifest_format_still_loads(tmp_path):
    """Before families declared columns, an illusion manifest squeezed into the plate columns: the kind in
    colour_set, label empty, delta_e NaN although drawn at ΔE2000 3.0."""
    spec = IllusionSpec(kind="whites", size=128, strength=1.0, delta_e=3.0)
    (tmp_path / "x").mkdir()
    render(spec).image.save(tmp_path / "x" / "0.png")
    old = {c: [None] for c in MANIFEST_COLUMNS}
    old.update(item_id=["old:0"], dataset=["illusions-classic"], label=[""], colour_set=["whites"],
               delta_e=[math.nan], variant=["standard"], size=[128], seed=[0], path=["x/0.png"],
               spec_json=[spec.to_json()])
    pq.write_table(pa.table({**old, "question_json": [None]}), tmp_path / MANIFEST)
    (item,) = load_dataset(tmp_path)
    assert (item.item_id, item.spec, item.label, item.group, item.family) == (
        "old:0", spec, "", "whites", "illusion")
    assert item.drawn is None and item.image().size == (128, 128)


def test_a_manifest_without_a_group_column_is_refused_naming_it(tmp_path):
    pq.write_table(pa.table({"item_id": ["a"], "dataset": ["d"], "spec_json": ["{}"], "variant": ["standard"],
                             "path": ["a.png"]}), tmp_path / MANIFEST)
    with pytest.raises(ValueError, match="lacks column.*group"):
        load_dataset(tmp_path)


def _manifest(folder, **columns) -> None:
    """A one-column-per-keyword manifest in ``folder`` (values: lists of equal length)."""
    pq.write_table(pa.table(columns), folder / MANIFEST)


def test_a_family_manifest_reads_group_question_and_the_answer_text_as_label(tmp_path):
    spec = IllusionSpec(kind="whites", size=64)
    for name in ("a.png", "b.png"):
        render(spec).image.save(tmp_path / name)
    question = {"task": "t", "text": "which?"}
    _manifest(tmp_path, item_id=["a", "b"], dataset=["mine", "mine"], family=["illusion", "illusion"],
              group=["whites", None], variant=["standard", "standard"], path=["a.png", "b.png"],
              spec_json=[spec.to_json()] * 2, question_json=[json.dumps(question), None],
              answer_text=["red", None])
    first, second = load_dataset(tmp_path)
    assert (first.item_id, first.dataset, first.group, first.label) == ("a", "mine", "whites", "red")
    assert json.loads(first.question_json) == question and first.path == tmp_path / "a.png"
    assert (second.group, second.label, second.question_json) == ("", "", None)  # none stored: empty, not None
    assert first.drawn is None and first.delta_e is None  # no measurement columns, no nominal ΔE
    assert [i.item_id for i in load_dataset(tmp_path, limit=1)] == ["a"] and load_dataset(tmp_path, limit=0) == []


def test_a_plate_manifest_carries_its_measurement_where_recorded(tmp_path):
    spec = PlateSpec(text="12", size=64)
    render(spec).image.save(tmp_path / "p.png")
    render(spec).image.save(tmp_path / "q.png")
    columns = {c: [None, None] for c in MANIFEST_COLUMNS}
    columns.update(item_id=["p", "q"], dataset=["d", "d"], label=["12", "12"], colour_set=["cs", "cs"],
                   delta_e=[4.0, math.nan], variant=["standard"] * 2, path=["p.png", "q.png"],
                   spec_json=[spec.to_json()] * 2)
    for c in DRAWN_COLUMNS:
        columns[c] = [1.5, None]
    _manifest(tmp_path, **columns)
    p, q = load_dataset(tmp_path)
    assert p.drawn == {c: 1.5 for c in DRAWN_COLUMNS} and q.drawn is None  # a row without its median: none
    assert (p.label, p.group, p.delta_e, p.spec) == ("12", "cs", 4.0, spec)


def test_a_generated_folder_loads_in_its_order_and_limit_keeps_the_first(tmp_path):
    generate("colorblindnesseval", tmp_path, limit=1, size=64, workers=1, progress=False)
    items = load_dataset(tmp_path)
    assert len(items) > 1 and all(i.path.is_file() and i.spec.size == 64 for i in items)
    assert [i.item_id for i in load_dataset(tmp_path, limit=2)] == [i.item_id for i in items[:2]]
    assert [i.item_id for i in load_dataset(str(tmp_path))] == [i.item_id for i in items]  # a str path too


def test_a_folder_without_a_manifest_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"has no manifest.parquet; allowed: a folder written by `plates generate`"):
        load_dataset(tmp_path)


def test_family_presets_render_in_memory_with_their_size_and_seed():
    name = next(n for n, p in FAMILY_PRESETS.items() if p.family == "illusion")
    items = load_dataset(name, limit=2)
    assert len(items) == 2 and all(i.path is None and i.dataset == name for i in items)
    assert [i.item_id for i in items] == [i.item_id for i in family_preset_items(name, limit=2)]
    small = family_preset_items(name, limit=1, size=96, seed=3)
    assert small[0].spec.size == 96 and small[0].image().size == (96, 96)
    assert small[0].spec != family_preset_items(name, limit=1, size=96, seed=4)[0].spec
