"""Seeded random subsets (HueManity §4's random 1,000-image subsets): seeded, balanced across colour
sets, resumable, recorded in the manifest and the run id."""

from __future__ import annotations

from collections import Counter

import pyarrow.parquet as pq
import pytest

from plates.datasets import MANIFEST, PRESETS, generate, load_dataset, preset_items
from plates.datasets.sample import Sample, load_sample, sample_items, sample_plates
from plates.runs.experiment import parse_experiment


def test_sample_is_seeded_and_balanced():
    a = sample_plates("huemanity-numeric", Sample(1000, seed=3))
    assert a == sample_plates("huemanity-numeric", Sample(1000, seed=3))
    assert a != sample_plates("huemanity-numeric", Sample(1000, seed=4))
    per_set = Counter(pal for _, _, pal in a)
    assert len(per_set) == 25 and set(per_set.values()) == {40}
    assert len(set(a)) == 1000  # no plate twice
    labels = sorted(int(label) for _, label, _ in a)
    assert labels[0] < 15 and labels[-1] > 95  # drawn over all labels, not the first ones (--limit: 10-49)
    for k in (7, 26, 333):  # every prefix is balanced to within one plate per set
        counts = Counter(pal for _, _, pal in a[:k])
        assert max(counts.values()) - min(counts.get(p, 0) for p in PRESETS["huemanity-numeric"].palettes) <= 1


def test_uneven_sizes_and_limits():
    s = sample_plates("colorblindnesseval", Sample(13, seed=1))
    counts = sorted(Counter(pal for _, _, pal in s).values())
    assert counts == [2, 2, 3, 3, 3]
    assert sample_plates("colorblindnesseval", Sample(500))  # the whole preset
    with pytest.raises(ValueError, match="allowed: 1-500"):
        sample_plates("colorblindnesseval", Sample(501))
    for bad in (dict(n=0), dict(n=5, seed=-1), dict(n=True)):
        with pytest.raises(ValueError, match="allowed: an integer"):
            Sample(**bad)


def test_a_preset_sample_holds_every_variant_of_each_plate():
    items = load_sample("colorblindnesseval", Sample(10, seed=2), size=96)
    assert len(items) == 20 and [i.variant for i in items[:2]] == ["standard", "clear"]
    assert items[0].spec == items[1].spec and items[0].spec.style == "cbe"
    assert len(load_sample("colorblindnesseval", Sample(10, seed=2), size=96, limit=5)) == 5


def test_sampling_a_loaded_set_matches_sampling_the_preset():
    """A folder holding a whole preset gives the same sample as the preset itself (same draw, same plates)."""
    full = list(preset_items("colorblindnesseval", size=96))
    drawn = sample_items(full, Sample(12, seed=5), "colorblindnesseval")
    assert [i.item_id for i in drawn] == [i.item_id for i in load_sample("colorblindnesseval", Sample(12, seed=5),
                                                                           size=96)]


def test_generate_a_sample_resume_and_manifest(tmp_path):
    sample = Sample(6, seed=9)
    s = generate("huemanity-numeric", tmp_path, size=96, workers=1, progress=False, sample=sample)
    assert (s["plates"], s["written"], s["sample"]) == (6, 6, "sample-6-seed-9")
    items = load_dataset(tmp_path)
    want = sample_plates("huemanity-numeric", sample)
    assert sorted((i.group, i.label) for i in items) == sorted((pal, label) for _, label, pal in want)
    meta = pq.read_schema(tmp_path / MANIFEST).metadata
    assert meta[b"plates.sample"] == b"sample-6-seed-9" and meta[b"plates.style"] == b"huemanity"
    assert meta[b"plates.colour_roles"] == b"released-code"
    items[2].path.unlink()  # resume: only the lost image is drawn again
    s2 = generate("huemanity-numeric", tmp_path, size=96, workers=1, progress=False, sample=sample)
    assert (s2["written"], s2["skipped"]) == (1, 5)
    with pytest.raises(ValueError, match="--sample"):
        generate("huemanity-numeric", tmp_path, size=96, workers=1, progress=False, sample=Sample(6, seed=10))


def _exp(**dataset):
    return parse_experiment({"dataset": {"source": "huemanity-numeric", **dataset}, "prompts": ["huemanity-numeric"],
                             "models": [{"backend": "baseline", "model": "baseline-cnn"}]})


def test_the_sample_and_its_seed_enter_the_run_identity():
    plain, a, b, c = _exp(), _exp(sample=1000), _exp(sample=1000, sample_seed=1), _exp(sample=500)
    assert "sample" not in plain.identity()
    assert a.identity()["sample"] == {"n": 1000, "seed": 0}
    assert len({plain.run_id, a.run_id, b.run_id, c.run_id}) == 4
    assert _exp(sample=1000, limit=10).run_id == a.run_id  # limit stays a budget
    with pytest.raises(ValueError, match="dataset.sample_seed"):
        _exp(sample_seed=3)
    with pytest.raises(ValueError, match="dataset.sample"):
        _exp(sample=0)


def test_plates_run_sample_flag(tmp_path):
    from plates.cli import build_parser
    from plates.cli.run import build_experiment

    quick = ["run", "--dataset", "huemanity-numeric", "--prompt", "huemanity-numeric", "--backend", "baseline",
             "--model", "baseline-cnn", "--out", str(tmp_path)]
    exp = build_experiment(build_parser().parse_args([*quick, "--sample", "200", "--sample-seed", "4"]))
    assert (exp.sample, exp.sample_seed) == (200, 4) and exp.identity()["sample"] == {"n": 200, "seed": 4}
    assert "sample" not in build_experiment(build_parser().parse_args(quick)).identity()
    toml = tmp_path / "e.toml"
    toml.write_text('prompts = ["huemanity-numeric"]\n[dataset]\nsource = "huemanity-numeric"\nsample = 50\n'
                    '[[models]]\nbackend = "baseline"\nmodel = "baseline-cnn"\n')
    assert build_experiment(build_parser().parse_args(["run", str(toml)])).sample == 50
    with pytest.raises(ValueError, match="--sample"):
        build_experiment(build_parser().parse_args(["run", str(toml), "--sample", "5"]))
