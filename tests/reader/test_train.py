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

    options = dict(seed=0, n_train=64, n_val=16, steps=4, batch_size=16, width=8, render_size=96, workers=1,
                   threads=1)
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
    assert config.steps_per_epoch == 4 and config.total_steps == 12
    assert _tiny(steps=7).total_steps == 7


def test_the_onnx_metadata_leaves_out_what_cannot_change_the_weights():
    from plates.reader.reader import BaselineReader
    from plates.reader.train import NOT_IN_WEIGHTS

    recorded = json.loads(BaselineReader().metadata["train_config"])
    assert "seed" in recorded and "threads" in recorded
    assert set(NOT_IN_WEIGHTS) == {"workers", "time_budget_s"}


@pytest.mark.parametrize("bad", [{"steps": 0}, {"time_budget_s": 0.0}, {"render_size": 32}, {"mode": "hsv"},
                                 {"extra_fonts": 1.5}, {"rim": -0.1}, {"init": "no-such-weights.onnx"}])
def test_bad_configs_are_refused(bad):
    with pytest.raises(ValueError, match="allowed|must be"):
        _tiny(**bad)
