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
    input_size: int = INPUT_SIZE,
    mode: str = "contrast",
    extra_metadata: dict[str, str] | None = None,
) -> Path:
    """Write ``model`` to ``path`` as ONNX with a dynamic batch axis; returns the path.

    Input ``plate``: (N, 3, input_size, input_size) float32 preprocessed with ``mode``; output ``logits``:
    (N, 2, 59). Metadata keys: ``classes`` (JSON list), ``input_size``, ``mode``, plus ``extra_metadata``.
    """
    # lazy: onnx, the [train] extra
    import onnx

    check_choice("preprocessing mode", mode, MODES)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    model = model.eval()
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
    diff = max_abs_difference(model, path, input_size)
    if diff > 1e-3:
        raise RuntimeError(f"the exported ONNX model disagrees with PyTorch: max |logit difference| {diff:.2e}")
    entry = proto.metadata_props.add()
    entry.key, entry.value = "onnx_torch_max_abs_diff", f"{diff:.3e}"
    onnx.save(proto, str(path))
    return path


def max_abs_difference(model: torch.nn.Module, path: str | Path, input_size: int = INPUT_SIZE, n: int = 8,
                       seed: int = 0) -> float:
    """Largest |logit| difference between ``model`` (eval mode) and the ONNX file on ``n`` random inputs."""
    # lazy: onnxruntime (~50 MB), only to check an export
    import onnxruntime as ort

    x = torch.randn(n, 3, input_size, input_size, generator=torch.Generator().manual_seed(seed)).clamp(-4, 4)
    with torch.no_grad():
        expected = model.eval()(x).numpy()
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    got = session.run(None, {session.get_inputs()[0].name: x.numpy()})[0]
    return float(np.abs(got - expected).max())
