"""Exported reader weights load back into PyTorch for a fine-tune stage: the loaded network computes what the
ONNX file computes (BatchNorm folded into the convolutions by the exporter), and a file of another width is
refused."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None or importlib.util.find_spec("onnx") is None,
    reason="needs plates[train] (torch, onnx)",
)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """A width-8 reader with non-trivial BatchNorm statistics and scales, exported to ONNX."""
    import torch

    from plates.reader.export import export_onnx
    from plates.reader.model import PlateReader

    torch.manual_seed(3)
    model = PlateReader(width=8)
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            n = module.num_features
            module.running_mean.copy_(torch.randn(n))
            module.running_var.copy_(torch.rand(n) + 0.5)
            module.weight.data.copy_(torch.rand(n) + 0.5)
            module.bias.data.copy_(torch.randn(n))
    path = export_onnx(model.eval(), tmp_path_factory.mktemp("w") / "w.onnx", mode="contrast-dots")
    return path


def test_loaded_weights_compute_what_the_onnx_file_computes(exported):
    import torch

    from plates.reader.export import load_onnx_weights, max_abs_difference
    from plates.reader.model import PlateReader

    fresh = PlateReader(width=8)
    before = max_abs_difference(fresh, exported)
    load_onnx_weights(fresh, exported)
    assert before > 1e-2  # a fresh network differs, so the comparison can fail
    assert max_abs_difference(fresh, exported) < 1e-4
    for module in fresh.modules():
        if isinstance(module, torch.nn.BatchNorm2d):  # the statistics are the identity, the shift the folded bias
            assert torch.all(module.running_mean == 0) and torch.all(module.weight == 1)


def test_a_fine_tune_keeps_batch_norm_statistics_frozen(exported):
    import torch

    from plates.reader.export import load_onnx_weights, max_abs_difference
    from plates.reader.model import PlateReader
    from plates.reader.train import TrainConfig, train_mode

    model = load_onnx_weights(PlateReader(width=8), exported)
    train_mode(model, TrainConfig(init=str(exported), width=8))
    assert model.training
    model(torch.randn(4, 3, 96, 96) * 3)  # a training-mode forward pass would move unfrozen running statistics
    assert max_abs_difference(model, exported) < 1e-4
    train_mode(model, TrainConfig(width=8))  # from scratch: BatchNorm trains as usual
    assert all(m.training for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d))


def test_weights_of_another_width_are_refused(exported):
    from plates.reader.export import load_onnx_weights
    from plates.reader.model import PlateReader

    with pytest.raises(ValueError, match="allowed: the same network width"):
        load_onnx_weights(PlateReader(width=16), exported)


def test_the_shipped_weights_load_exactly():
    from plates.reader.export import load_onnx_weights, max_abs_difference
    from plates.reader.model import PlateReader
    from plates.reader.reader import BaselineReader, default_model_path

    model = load_onnx_weights(PlateReader(input_size=BaselineReader().input_size), default_model_path())
    assert max_abs_difference(model, default_model_path()) < 1e-4
    assert np.isfinite(max_abs_difference(model, default_model_path()))
