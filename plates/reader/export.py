"""Export the trained :class:`~plates.reader.model.PlateReader` to ONNX (needs torch and onnx: ``plates[train]``).

The ONNX file carries everything the torch-free reader needs in its metadata: the class list, the input size,
the preprocessing mode and a short description. It uses the TorchScript exporter (``dynamo=False``) because
the torch.export-based one needs ``onnxscript``, which is not a dependency; opset 17 runs on onnxruntime >= 1.14.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import torch

from plates.reader.coding import CLASSES
from plates.reader.preprocess import INPUT_SIZE, MODES
from plates.validation import check_choice

OPSET = 17
INPUT_NAME = "plate"
OUTPUT_NAME = "logits"


def export_onnx(
    model: torch.nn.Module,
    path: str | Path,
    *,
    input_size: int | None = None,
    mode: str = "contrast",
    extra_metadata: dict[str, str] | None = None,
) -> Path:
    """Write ``model`` to ``path`` as ONNX with a dynamic batch axis; returns the path.

    Input ``plate``: (N, 3, input_size, input_size) float32 preprocessed with ``mode`` (``input_size`` None: the
    model's own, ``PlateReader.input_size``); output ``logits``: (N, 2, 59). Metadata keys: ``classes`` (JSON
    list), ``input_size``, ``mode``, plus ``extra_metadata``.

    Parameters
    ----------
    model : torch.nn.Module
        A `PlateReader`.
    path : str or pathlib.Path
        The ONNX file.
    input_size : int, optional
        The input side S, px (default: the model's).
    mode : str, optional
        The preprocessing mode recorded.
    extra_metadata : dict of str to str, optional
        More metadata.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    RuntimeError
        When the exported file's logits disagree with PyTorch's (`max_abs_difference`).
    """
    # lazy: onnx, the [train] extra
    import onnx

    check_choice("preprocessing mode", mode, MODES)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    model = model.eval()
    if input_size is None:
        input_size = getattr(model, "input_size", INPUT_SIZE)
    dummy = torch.zeros(1, 3, input_size, input_size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            model,
            (dummy,),
            str(path),
            input_names=[INPUT_NAME],
            output_names=[OUTPUT_NAME],
            dynamic_axes={INPUT_NAME: {0: "batch"}, OUTPUT_NAME: {0: "batch"}},
            opset_version=OPSET,
            dynamo=False,
        )
    proto = onnx.load(str(path))
    metadata = {"classes": json.dumps(list(CLASSES)), "input_size": str(input_size), "mode": mode}
    metadata.update(extra_metadata or {})
    del proto.metadata_props[:]
    for key, value in metadata.items():
        entry = proto.metadata_props.add()
        entry.key, entry.value = key, str(value)
    onnx.checker.check_model(proto)
    onnx.save(proto, str(path))
    diff = max_abs_difference(model, path)
    if diff > 1e-3:
        raise RuntimeError(f"the exported ONNX model disagrees with PyTorch: max |logit difference| {diff:.2e}")
    entry = proto.metadata_props.add()
    entry.key, entry.value = "onnx_torch_max_abs_diff", f"{diff:.3e}"
    onnx.save(proto, str(path))
    return path


def max_abs_difference(model: torch.nn.Module, path: str | Path, n: int = 8, seed: int = 0) -> float:
    """Largest |logit| difference between ``model`` (eval mode) and the ONNX file on ``n`` random inputs of the
    size the file takes.

    Parameters
    ----------
    model : torch.nn.Module
        The PyTorch model.
    path : str or pathlib.Path
        Its ONNX export.
    n : int, optional
        Random inputs.
    seed : int, optional
        Seeds them.

    Returns
    -------
    float
        The largest absolute logit difference.
    """
    # lazy: onnxruntime (~50 MB), only to check an export
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    input_size = int(session.get_inputs()[0].shape[-1])
    x = torch.randn(n, 3, input_size, input_size, generator=torch.Generator().manual_seed(seed)).clamp(-4, 4)
    with torch.no_grad():
        expected = model.eval()(x).numpy()
    got = session.run(None, {session.get_inputs()[0].name: x.numpy()})[0]
    return float(np.abs(got - expected).max())


def load_onnx_weights(model: torch.nn.Module, path: str | Path) -> torch.nn.Module:
    """Load the weights of an exported reader (``path``, ONNX written by :func:`export_onnx`) into ``model``, a
    :class:`~plates.reader.model.PlateReader` of the same width; returns ``model`` (for a fine-tune stage).

    The exporter folds each BatchNorm into the convolution before it (conv weight x gamma / sqrt(var + eps), plus
    a bias). So each convolution takes the folded weight, and its BatchNorm becomes the identity on those
    statistics (running mean 0, running variance 1 - eps, scale 1) with the folded bias as its shift; the model
    then computes what the ONNX file computes as long as its BatchNorms stay in eval mode (a fine-tune keeps
    them there: :func:`freeze_batch_norm`). Raises ValueError when the file's layers do not match the model.

    Parameters
    ----------
    model : torch.nn.Module
        A `PlateReader` of the exported one's width, changed in place.
    path : str or pathlib.Path
        An ONNX file written by `export_onnx`.

    Returns
    -------
    torch.nn.Module
        ``model``.

    Raises
    ------
    ValueError
        When the file's convolutions do not match the model's (count, order or shapes).
    """
    # lazy: onnx, the [train] extra
    import onnx
    from onnx import numpy_helper

    proto = onnx.load(str(path))
    tensors = {t.name: numpy_helper.to_array(t) for t in proto.graph.initializer}
    convs = [n for n in proto.graph.node if n.op_type == "Conv"]
    modules = list(model.modules())
    pairs = [(m, modules[i + 1]) for i, m in enumerate(modules[:-1]) if isinstance(m, torch.nn.Conv2d)]
    if len(convs) != len(pairs) or any(len(n.input) != 3 for n in convs):
        raise ValueError(f"{path}: {len(convs)} folded convolutions, the model has {len(pairs)} conv + BatchNorm "
                         "pairs; allowed: weights exported from a PlateReader of the same width")
    state = {}
    names = {id(m): name for name, m in model.named_modules()}
    for node, (conv, bn) in zip(convs, pairs):
        if not isinstance(bn, torch.nn.BatchNorm2d):
            raise ValueError(f"{path}: a convolution of the model is not followed by a BatchNorm")
        weight, bias = tensors[node.input[1]], tensors[node.input[2]]
        if tuple(weight.shape) != tuple(conv.weight.shape):
            raise ValueError(f"{path}: convolution weight {weight.shape} does not fit the model's "
                             f"{tuple(conv.weight.shape)}; allowed: the same network width")
        c, b = names[id(conv)], names[id(bn)]
        state[f"{c}.weight"] = torch.from_numpy(weight.copy())
        state[f"{b}.weight"] = torch.ones(bias.shape[0])
        state[f"{b}.bias"] = torch.from_numpy(bias.copy())
        state[f"{b}.running_mean"] = torch.zeros(bias.shape[0])
        state[f"{b}.running_var"] = torch.full((bias.shape[0],), 1.0 - bn.eps)
    for name, value in model.state_dict().items():
        if name in state or name.endswith("num_batches_tracked"):
            continue
        if name not in tensors or tuple(tensors[name].shape) != tuple(value.shape):
            raise ValueError(f"{path}: no tensor {name!r} of shape {tuple(value.shape)}; allowed: weights exported "
                             "from a PlateReader of the same width")
        state[name] = torch.from_numpy(tensors[name].copy())
    model.load_state_dict(state, strict=False)
    return model


def freeze_batch_norm(model: torch.nn.Module) -> torch.nn.Module:
    """Put every BatchNorm of ``model`` in eval mode (its statistics fixed, its scale and shift still trained).

    Parameters
    ----------
    model : torch.nn.Module
        The model, changed in place.

    Returns
    -------
    torch.nn.Module
        ``model``.
    """
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.eval()
    return model
