"""plates.datasets.grid: a grid file -> a validated Grid -> its plates, seeds, record and a written set."""

import json

import numpy as np
import pyarrow.parquet as pq
import pytest
from PIL import Image

from plates.datasets.grid import (
    GRID_RECORD,
    ColourSet,
    Grid,
    generate_grid,
    grid_plates,
    grid_record,
    load_grid,
    parse_grid,
    plate_seed,
    write_manifest,
)
from plates.datasets.items import MANIFEST, MANIFEST_COLUMNS
from plates.shards import Shard
from plates.stimuli.ishihara.plate import HUEMANITY_JITTER, render
from tests.support import ROOT
from tests.support.grids import GRID

PALETTE = ColourSet("huemanity-06", palette="huemanity-06")
OWN = ColourSet("brick-on-sage", foreground=((178, 34, 34),), background=((143, 188, 143),))


def _grid(**changes) -> Grid:
    """A small valid grid (64 px plates), with ``changes``."""
    return Grid(**{"name": "g", "labels": ("12", "7"), "colour_sets": (PALETTE, OWN), "sizes": (64,),
                   "delta_e": (0, 4), **changes})


@pytest.mark.parametrize("change, message", [
    (("", ""), None),
    (("[0, 4]", "[0, 4, 150]"),
     "colour set 'colorblindnesseval-1' at delta_e 150.0: delta_e 150.0 is not reachable"),
    (("[0, 4]", "[0, 4, 70]\ndirections = 'palette'"),
     "colour set 'colorblindnesseval-1' at delta_e 70.0: delta_e target 70.0 is not reachable"),
    (("[0, 4]", "[0, 4]\ndirections = 'sideways'"), "directions 'sideways' is not known"),
    (('labels = ["12", "A7"]', 'labels = ["12", "漢"]'), "has no glyph"),
    (('sizes = [96]', 'sizes = [32]'), "size=32 is not valid"),
    (('variants = ["standard", "clear"]', 'variants = ["blurred"]'),
     "variants \\['blurred'\\] are not known"),
    (('colour_sets = ["colorblindnesseval-1"]', 'colour_sets = ["sepia"]'),
     "colour set 'sepia' is not a palette"),
    (('name = "tiny-grid"', 'name = "tiny-grid"\nresolution = 3'),
     "grid: unknown key\\(s\\) resolution; allowed: "),
    (('name = "tiny-grid"', 'name = "tiny grid!"'), "name 'tiny grid!' is not valid"),
    (('labels = ["12", "A7"]', 'labels = {space = "cbe", count = 500}'),
     "labels count \\(space 'cbe'\\)=500 is not valid; allowed: an integer in \\[1, 100\\]"),
    (('background = ["#8fbc8f"]', 'background = ["#8fbc8f"]\n[plate]\ntext = "99"'),
     "\\[plate\\] keys \\['text'\\] are not allowed"),
])
def test_a_bad_grid_names_the_bad_value_and_what_is_allowed(tmp_path, change, message):
    grid = tmp_path / "grid.toml"
    grid.write_text(GRID.replace(*change))
    if message is None:
        assert load_grid(grid).plate_count == 16
        return
    with pytest.raises(ValueError, match=message):
        load_grid(grid)


def test_labels_from_a_space_are_a_seeded_sample_and_the_example_grid_is_valid():
    from plates.stimuli.ishihara.labels import LABEL_SPACES

    data = {"name": "s", "labels": {"space": "cbe", "count": 20}, "colour_sets": ["huemanity-06"],
            "sizes": [96]}
    first, again = parse_grid(data), parse_grid(data)
    assert first.labels == again.labels and len(set(first.labels)) == 20
    assert set(first.labels) <= set(LABEL_SPACES["cbe"])
    assert parse_grid({**data, "seed": 1}).labels != first.labels
    # in the space's order, and without a count: the whole space
    pool = LABEL_SPACES["cbe"]
    assert [pool.index(x) for x in first.labels] == sorted(pool.index(x) for x in first.labels)
    assert parse_grid({**data, "labels": {"space": "cbe"}}).labels == tuple(pool)
    example = load_grid(ROOT / "examples" / "grid.toml")
    assert example.plate_count == 60 and example.variants == ("standard", "clear")


@pytest.mark.parametrize("changes, message", [
    ({"labels": 12}, "labels = 12 is not valid; allowed: a list of strings"),
    ({"labels": [12, 74]}, "are not all strings; allowed: quoted labels"),
    ({"labels": {"space": "cbe", "size": 3}}, "allowed: a list of strings or {space = one of"),
    ({"labels": {"space": "klingon"}}, "allowed: a list of strings or {space = one of"),
    ({"colour_sets": []}, "no colour set: give colour_sets"),
    ({"colour_sets": "huemanity-06"}, "colour_sets"),
    ({"colours": [{"name": "x", "foreground": ["#000000"], "background": ["#ffffff"], "ink": 1}]},
     "allowed keys: name, foreground, background"),
    ({"colours": [{"name": "x", "foreground": [], "background": ["#ffffff"]}]},
     "'x': foreground = \\[\\] is not valid; allowed: a list of colours"),
    ({"colours": [{"name": "x", "foreground": ["#000000"]}]}, "background = None is not valid"),
    ({"plate": 3}, "plate = 3 is not a table; allowed: \\[plate\\]"),
])
def test_parse_grid_refuses_bad_values_naming_them(changes, message):
    data = {"name": "s", "labels": ["12"], "colour_sets": ["huemanity-06"], "sizes": [64], **changes}
    with pytest.raises(ValueError, match=message):
        parse_grid(data)


def test_parse_grid_needs_a_name_and_labels():
    for data in ({"name": "s", "colour_sets": ["huemanity-06"]}, {"labels": ["12"], "colour_sets": ["huemanity-06"]}):
        with pytest.raises(ValueError, match='a grid needs name and labels; e.g. name = "my-set"'):
            parse_grid(data)


def test_parse_grid_reads_own_colours_as_srgb_triples_and_defaults():
    grid = parse_grid({"name": "s", "labels": ["12"], "sizes": [64],
                       "colours": [{"name": "mine", "foreground": "#b22222", "background": [[143, 188, 143]]}]})
    (own,) = grid.colour_sets
    assert (own.palette, own.foreground, own.background) == (None, ((178, 34, 34),), ((143, 188, 143),))
    assert own.spec_fields() == {"palette": None, "foreground": ((178, 34, 34),), "background": ((143, 188, 143),)}
    assert (grid.delta_e, grid.variants, grid.seed, grid.directions) == ((None,), ("standard",), 0, "distributed")
    assert PALETTE.spec_fields() == {"palette": "huemanity-06"}


@pytest.mark.parametrize("make, message", [
    (lambda: ColourSet("bad name"), "colour set name 'bad name' is not valid; allowed: 1-64 letters"),
    (lambda: ColourSet("x" * 65, palette="huemanity-06"), "is not valid; allowed: 1-64 letters"),
    (lambda: ColourSet("mine", foreground=((0, 0, 0),)), "needs both foreground and background"),
    (lambda: _grid(labels=()), "labels is empty; allowed: a list of one or more values"),
    (lambda: _grid(sizes=(64, 64)), "sizes \\[64, 64\\] lists a value twice; allowed: distinct values"),
    (lambda: _grid(colour_sets=(PALETTE, ColourSet("huemanity-06", foreground=((0, 0, 0),),
                                                   background=((9, 9, 9),)))),
     "colour set names \\['huemanity-06', 'huemanity-06'\\] repeat; allowed: distinct names"),
    (lambda: _grid(delta_e=(201,)), "delta_e=201 is not valid"),
    (lambda: _grid(delta_e=(-1,)), "delta_e=-1 is not valid"),
    (lambda: _grid(seed=-1), "seed=-1 is not valid"),
    (lambda: _grid(seed=2**63), "is not valid"),
    (lambda: _grid(seed=True), "seed=True is not valid"),
    (lambda: _grid(plate={"density": 0.7, "palette": "x"}), "\\[plate\\] keys \\['palette'\\] are not allowed"),
])
def test_grid_and_colour_set_refuse_bad_values_naming_what_is_allowed(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_grid_normalises_delta_e_and_expands_the_huemanity_jitter():
    grid = _grid(delta_e=[0, 2.5], labels=["12"], plate={"jitter": "huemanity", "density": 0.7},
                 seed=2**63 - 1)
    assert grid.delta_e == (None, 2.5) and grid.labels == ("12",)  # lists become tuples; 0 = colours as given
    assert dict(grid.plate) == {"density": 0.7, **HUEMANITY_JITTER}
    with pytest.raises(TypeError):
        grid.plate["density"] = 0.1  # read-only
    spec = grid.spec("12", PALETTE, grid.fonts[0], 2.5, 64)
    assert spec.density == 0.7 and spec.jitter_rgb == HUEMANITY_JITTER["jitter_rgb"]


def test_a_plates_seed_leaves_out_delta_e_so_a_sweep_changes_colour_only():
    grid = _grid()
    font = grid.fonts[0]
    given, at_4 = (grid.spec("12", OWN, font, de, 64) for de in (None, 4.0))
    assert given.seed == at_4.seed == plate_seed(grid, OWN.name, "12", font, 64)
    assert given.delta_e is None and given.delta_e_direction is None
    assert at_4.delta_e == 4.0 and at_4.delta_e_direction is not None  # distributed: a direction per plate
    assert len({plate_seed(grid, *k) for k in [(OWN.name, "12", font, 64), (OWN.name, "7", font, 64),
                                                (PALETTE.name, "12", font, 64), (OWN.name, "12", font, 96),
                                                (OWN.name, "12", "liberation-sans-bold", 64)]}) == 5
    assert 0 <= given.seed < 2**63
    assert plate_seed(_grid(seed=1), OWN.name, "12", font, 64) != given.seed
    assert plate_seed(_grid(name="h"), OWN.name, "12", font, 64) != given.seed
    # on the palette's own lines: the spec asks the target itself, with no direction
    line = _grid(directions="palette").spec("12", OWN, font, 4.0, 64)
    assert (line.delta_e, line.delta_e_direction, line.seed) == (4.0, None, given.seed)
    # the same dots at either ΔE2000 (only colours differ): the figure mask is one
    a, b = render(given), render(at_4)
    assert np.array_equal(np.asarray(a.variant("mask")), np.asarray(b.variant("mask")))


def test_grid_plates_are_label_major_with_one_path_per_variant():
    grid = _grid(variants=("standard", "clear"), labels=("12", "A 7"))
    plates = list(grid_plates(grid))
    assert len(plates) == grid.plate_count == 2 * 2 * 1 * 2 * 1
    assert [p.label_index for p in plates] == [0] * 4 + [1] * 4
    assert [(p.colour_set, p.delta_e_target) for p in plates[:4]] == [
        ("huemanity-06", None), ("huemanity-06", 4.0), ("brick-on-sage", None), ("brick-on-sage", 4.0)]
    font = grid.fonts[0]
    assert plates[7].paths == (
        ("standard", f"g/brick-on-sage/{font}-64px-de4/0001_A-7_standard.png"),
        ("clear", f"g/brick-on-sage/{font}-64px-de4/0001_A-7_clear.png"))
    assert plates[4].paths[0][1] == f"g/huemanity-06/{font}-64px-degiven/0001_A-7_standard.png"
    assert all(p.spec == grid.spec(grid.labels[p.label_index], {c.name: c for c in grid.colour_sets}[p.colour_set],
                                   font, p.delta_e_target, 64) for p in plates)
    assert len({rel for p in plates for _, rel in p.paths}) == 16


def test_grid_record_is_json_and_tells_grids_apart():
    record = grid_record(_grid(plate={"density": 0.7}))
    assert json.loads(json.dumps(record)) == record
    assert record == grid_record(_grid(plate={"density": 0.7}))
    assert record["delta_e"] == [None, 4.0] and record["plate"] == {"density": 0.7}
    assert record["colour_sets"][1] == {"name": "brick-on-sage", "palette": None,
                                        "foreground": [[178, 34, 34]], "background": [[143, 188, 143]]}
    for other in (_grid(), _grid(seed=3), _grid(delta_e=(0, 5)), _grid(directions="palette")):
        assert grid_record(other) != record


def test_write_manifest_has_a_row_per_image_on_disk(tmp_path):
    grid = _grid(variants=("standard", "clear"))
    plates = list(grid_plates(grid))[:2]
    for _, rel in plates[0].paths + plates[1].paths[:1]:  # the second plate's "clear" image is missing
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(b"png")
    measured = {0: (None, "none", 1.0, 1.5, 2.0, 2.5), 1: (4.0, "pair", 3.9, 3.95, 4.0, 4.05)}
    assert write_manifest(tmp_path, "my-set", plates, measured) == 3
    frame = pq.read_table(tmp_path / MANIFEST).to_pandas()
    assert tuple(frame.columns) == (*MANIFEST_COLUMNS, "file_name")
    assert list(frame["variant"]) == ["standard", "clear", "standard"]
    assert frame["item_id"][0] == f"my-set:huemanity-06:{grid.fonts[0]}:64px:degiven:12:standard"
    assert frame["item_id"][2].endswith(":64px:de4:12:standard")
    assert list(frame["delta_e_drawn_median"]) == [2.0, 2.0, 4.0]
    assert frame["delta_e_target"].isna()[0] and frame["delta_e_target"][2] == 4.0
    assert list(frame["delta_e_target_kind"]) == ["none", "none", "pair"]
    assert frame["delta_e"][0] > 0 and list(frame["seed"]) == [plates[0].spec.seed] * 3
    assert list(frame["file_name"]) == list(frame["path"])
    # own ids and numbers: the keys of ``measured``
    assert write_manifest(tmp_path, "my-set", plates[1:], {7: measured[1]}, lambda p, v: f"id-{v}",
                          numbers=[7]) == 1
    assert pq.read_table(tmp_path / MANIFEST).column("item_id").to_pylist() == ["id-standard"]


def test_generate_grid_writes_resumes_and_refuses_another_grid(tmp_path):
    grid = _grid(labels=("12",), colour_sets=(OWN,))
    out = tmp_path / "set"
    (out / "g").mkdir(parents=True)
    leftover = out / "g" / ".x.png.123.tmp"  # a killed run's temporary file
    leftover.write_bytes(b"half")
    summary = generate_grid(grid, out, workers=1, progress=False)
    assert (summary["plates"], summary["written"], summary["skipped"], summary["rows"]) == (2, 2, 0, 2)
    assert summary["bytes"] == sum(p.stat().st_size for p in out.rglob("*.png")) and not leftover.exists()
    assert json.loads((out / "g" / GRID_RECORD).read_text()) == grid_record(grid)
    rows = pq.read_table(out / MANIFEST).to_pylist()
    for row, plate in zip(rows, grid_plates(grid)):
        with Image.open(out / row["path"]) as im:
            assert np.array_equal(np.asarray(im.convert("RGB")), np.asarray(render(plate.spec).image))
    again = generate_grid(grid, out, workers=1, progress=False)
    assert (again["written"], again["skipped"], again["rows"]) == (0, 2, 2)
    with pytest.raises(ValueError, match="made from another grid file"):
        generate_grid(_grid(labels=("12",), colour_sets=(OWN,), seed=1), out, workers=1, progress=False)
    first = generate_grid(grid, tmp_path / "one", limit=1, workers=1, progress=False)
    assert (first["plates"], first["rows"]) == (1, 1)


@pytest.mark.parametrize("kwargs, message", [
    ({"limit": 0}, "limit \\(plates, not images\\)=0 is not valid"),
    ({"compress_level": 10}, "compress_level=10 is not valid"),
    ({"shard": "1/2"}, "shard='1/2' is not valid; allowed: None or a plates.shards.Shard"),
])
def test_generate_grid_refuses_bad_arguments_before_writing(tmp_path, kwargs, message):
    with pytest.raises(ValueError, match=message):
        generate_grid(_grid(), tmp_path / "out", workers=1, progress=False, **kwargs)
    assert not (tmp_path / "out").exists()


def test_a_shard_writes_only_its_plates_and_a_part(tmp_path):
    grid = _grid(labels=("12",))
    first = generate_grid(grid, tmp_path, workers=1, progress=False, shard=Shard(1, 2))
    assert first["plates"] == len(list(tmp_path.rglob("*.png"))) < grid.plate_count
    assert not (tmp_path / MANIFEST).exists()  # the manifest waits for the other shard
    second = generate_grid(grid, tmp_path, workers=1, progress=False, shard=Shard(2, 2))
    assert first["plates"] + second["plates"] == grid.plate_count
    assert pq.read_table(tmp_path / MANIFEST).column("path").to_pylist() == [
        rel for p in grid_plates(grid) for _, rel in p.paths]
