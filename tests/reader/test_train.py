"""Training the baseline reader is deterministic for a given command ("reproducible from the command in
the model card"): the step count alone decides the schedule, seeds fix data, order and augmentation, and the
rendering worker count does not matter. Tiny runs (64 plates at 96 px, 4 steps, width 8)."""

from __future__ import annotations

import importlib.util
import json

import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None or importlib.util.find_spec("onnx") is None,
    reason="needs plates[train] (torch, onnx)",
)


def _tiny(**changes):
    from plates.reader.train import TrainConfig

    options = dict(seed=0, n_train=64, cards=16, n_val=16, steps=4, batch_size=16, width=8, render_size=96,
                   workers=1, threads=1)
    options.update(changes)
    return TrainConfig(**options)


def _weights(config, out_dir) -> bytes:
    from plates.reader.train import train

    train(config, out_dir, log=lambda message: None)
    return (out_dir / "baseline.onnx").read_bytes()


@pytest.mark.slow
def test_same_command_gives_byte_identical_onnx_and_another_seed_does_not(tmp_path):
    first = _weights(_tiny(), tmp_path / "a")
    again = _weights(_tiny(workers=2), tmp_path / "b")  # the worker count is not part of the recipe
    other = _weights(_tiny(seed=1), tmp_path / "c")
    assert first == again
    assert other != first


@pytest.mark.slow
def test_the_time_budget_aborts_instead_of_bending_the_schedule(tmp_path):
    from plates.reader.train import BudgetExceeded

    with pytest.raises(BudgetExceeded, match=r"exceeded after 0 of 4 steps; use fewer --steps"):
        _weights(_tiny(time_budget_s=1e-6), tmp_path)
    assert not (tmp_path / "baseline.onnx").exists()


def test_steps_alone_decide_the_schedule():
    config = _tiny(steps=None, epochs=3)
    assert config.steps_per_epoch == 5 and config.total_steps == 15  # (64 plates + 16 cards) / 16 a batch
    assert _tiny(steps=7).total_steps == 7


def test_the_onnx_metadata_leaves_out_what_cannot_change_the_weights():
    from plates.reader.reader import BaselineReader
    from plates.reader.train import NOT_IN_WEIGHTS

    recorded = json.loads(BaselineReader().metadata["train_config"])
    assert "seed" in recorded and "threads" in recorded
    assert set(NOT_IN_WEIGHTS) == {"workers", "time_budget_s"}


@pytest.mark.parametrize("bad", [{"steps": 0}, {"time_budget_s": 0.0}, {"render_size": 32}, {"mode": "hsv"},
                                 {"extra_fonts": 1.5}, {"rim": -0.1}, {"init": "no-such-weights.onnx"},
                                 {"render_size": None, "render_sizes": (192, 32)},
                                 {"render_size": None, "render_sizes": ()},
                                 {"render_size": None, "render_sizes": (192.5,)},
                                 {"render_sizes": (192, 256)}])  # with render_size 96: one or the other
def test_bad_configs_are_refused(bad):
    with pytest.raises(ValueError, match="allowed|must be"):
        _tiny(**bad)


def test_render_sizes_take_a_list_and_the_default_has_no_900_px_plates():
    """A list (JSON, the CLI) becomes the tuple the model card and the ONNX metadata record; the shipped recipe
    draws 192-512 px (the reader box-filters every size to 96 px, and 900 px plates cost a third of rendering)."""
    from plates.reader import data

    assert _tiny(render_size=None, render_sizes=[256, 512]).render_sizes == (256, 512)
    assert _tiny(render_size=None).render_sizes == data.RENDER_SIZES == (192, 256, 384, 512)


def test_offering_other_sizes_changes_only_the_size_a_seed_draws():
    """One size draw per seed whatever the sizes offered, so a seed's style, colours, label and font stay."""
    from plates.reader.data import sample_plate

    for seed in range(10_000_000, 10_000_012):
        four, *rest4 = sample_plate(seed, None, 0.8, 0.35)
        five, *rest5 = sample_plate(seed, None, 0.8, 0.35, (192, 256, 384, 512, 900))
        assert (four.style, four.text, four.font, four.palette) == (five.style, five.text, five.font, five.palette)
        assert rest4[:2] == rest5[:2]
