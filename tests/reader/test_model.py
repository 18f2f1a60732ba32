"""The reader's network takes each supported input side (plates.reader.preprocess.INPUT_SIZES) and reads the same
(2 x 3) grid of its last feature map, so a 64 px network and a 96 px network have the same weights' shapes; an
exported network states its side and the torch-free reader preprocesses to it."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None or importlib.util.find_spec("onnx") is None,
    reason="needs plates[train] (torch, onnx)",
)


@pytest.mark.parametrize("size", [64, 96])
def test_the_grid_pool_is_adaptive_pooling_to_two_rows_and_three_columns(size):
    import torch

    from plates.reader.coding import N_CLASSES, N_POSITIONS
    from plates.reader.model import PlateReader

    torch.manual_seed(0)
    model = PlateReader(width=4, input_size=size).eval()
    x = torch.randn(3, 3, size, size)
    with torch.no_grad():
        maps = model.features[:-1](x)
        assert maps.shape[-1] == size // 16
        expected = torch.nn.functional.adaptive_avg_pool2d(maps, (2, 3))
        assert torch.allclose(model.features[-1](maps), expected, atol=1e-6)
        assert model(x).shape == (3, N_POSITIONS, N_CLASSES)


def test_networks_of_either_side_have_the_same_weights_shapes():
    from plates.reader.model import PlateReader

    small, large = PlateReader(width=8, input_size=64), PlateReader(width=8, input_size=96)
    assert {k: v.shape for k, v in small.state_dict().items()} == {k: v.shape for k, v in large.state_dict().items()}


def test_an_unsupported_side_is_refused_naming_the_allowed_ones():
    from plates.reader.model import PlateReader
    from plates.reader.train import TrainConfig

    with pytest.raises(ValueError, match=r"input size 80 px is not supported; allowed: 64, 96"):
        PlateReader(input_size=80)
    with pytest.raises(ValueError, match=r"input_size.*80.*allowed.*64.*96"):
        TrainConfig(input_size=80)


def test_a_64_px_export_states_its_side_and_the_reader_preprocesses_to_it(tmp_path):
    import onnxruntime as ort
    import torch

    from plates.reader.export import export_onnx, load_onnx_weights, max_abs_difference
    from plates.reader.model import PlateReader
    from plates.reader.reader import BaselineReader
    from plates.stimuli.ishihara.plate import PlateSpec, render

    torch.manual_seed(1)
    model = PlateReader(width=8, input_size=64)
    for module in model.modules():  # trained-like statistics (a fresh BatchNorm folds to all-zero biases)
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.copy_(torch.randn(module.num_features))
            module.bias.data.copy_(torch.randn(module.num_features))
    model.eval()
    path = export_onnx(model, tmp_path / "r64.onnx", mode="contrast-dots")  # the side comes from the model
    assert ort.InferenceSession(str(path)).get_inputs()[0].shape[1:] == [3, 64, 64]
    reader = BaselineReader(path)
    assert reader.input_size == 64 and reader.metadata["input_size"] == "64"
    image = render(PlateSpec(text="42", seed=3, size=300)).variant("standard")
    x = reader.preprocess(image)
    assert x.shape == (3, 64, 64)
    with torch.no_grad():
        expected = torch.log_softmax(model(torch.from_numpy(x[None])), -1).numpy()
    np.testing.assert_allclose(reader.log_probs(x[None]), expected, atol=1e-4)
    # the file's weights load back into a 64 px network (a fine-tune stage) and compute what the file computes
    again = load_onnx_weights(PlateReader(width=8, input_size=64), path)
    assert max_abs_difference(again, path) < 1e-4
