"""The torch-free baseline reader: onnxruntime inference on numpy/PIL-preprocessed plates.

``BaselineReader().read(image, "cbe")`` returns the text read on a plate (PIL image, sRGB 0-255) with its
probability. The network (see :mod:`plates.reader.model`) has one head per character position, as
HueManity's ResNet-50 baseline (§4); decoding may be constrained to a label space (HueManity App. B.1,
ColorBlindnessEval §2.1) by :func:`plates.reader.coding.best_label`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
from PIL import Image

from plates.install import shadowing
from plates.reader.coding import CLASSES, best_label
from plates.reader.preprocess import preprocess
from plates.validation import check_int


def default_model_path() -> Path:
    """Path of the bundled ONNX weights.

    Returns
    -------
    pathlib.Path
        ``plates/assets/baseline/baseline.onnx`` of the installed package.

    Raises
    ------
    ValueError
        The install lacks them (train them: ``plates train-baseline``).
    """
    path = Path(str(resources.files("plates") / "assets" / "baseline" / "baseline.onnx"))
    if not path.is_file():
        shadowed = shadowing()  # the usual cause: a clone's plates/ imported instead of the installed package
        raise ValueError(f"the bundled baseline weights are missing at {path}; "
                         + (shadowed if shadowed else "train them: plates train-baseline"))
    return path


@dataclass(frozen=True)
class Reading:
    """What the reader read on one plate.

    Parameters
    ----------
    text : str
        One or two symbols.
    confidence : float
        Its probability, 0-1.
    label_space : str
        The answer space it was decoded within.
    """

    text: str
    confidence: float
    label_space: str


class BaselineReader:
    """onnxruntime session over the exported reader; thread-safe (one session, ``run`` is re-entrant).

    Parameters
    ----------
    path : str, pathlib.Path or None
        The ONNX file (`plates.reader.export` writes one); None: the bundled weights (`default_model_path`).
    threads : int
        onnxruntime intra-op threads, >= 1 (1 = one core, as the benchmark measures).

    Raises
    ------
    ValueError
        No file at ``path`` (or no bundled weights), ``threads`` not a positive int, or a file whose class list
        is not `plates.reader.coding.CLASSES`.

    Examples
    --------
    >>> from plates.stimuli import render
    >>> from plates.stimuli.ishihara import PlateSpec
    >>> BaselineReader().read(render(PlateSpec(text="12", size=256)).image, "cbe").text
    '12'
    """

    def __init__(self, path: str | Path | None = None, *, threads: int = 1) -> None:
        # lazy: onnxruntime (~50 MB, ~0.3 s) only when a reader is built
        import onnxruntime as ort

        self.path = Path(path) if path is not None else default_model_path()
        if not self.path.is_file():
            raise ValueError(f"baseline weights {self.path} do not exist")
        check_int("threads", threads, 1)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self._session = ort.InferenceSession(str(self.path), options, providers=["CPUExecutionProvider"])
        meta = self._session.get_modelmeta().custom_metadata_map
        classes = tuple(json.loads(meta.get("classes", "[]")))
        if classes != CLASSES:
            raise ValueError(f"{self.path}: its class list does not match plates.reader.coding.CLASSES")
        self.input_size = int(meta["input_size"])
        self.mode = meta["mode"]
        self.metadata = dict(meta)
        self._input = self._session.get_inputs()[0].name

    def log_probs(self, batch: np.ndarray) -> np.ndarray:
        """Log-probabilities of each symbol at each of the two positions.

        Parameters
        ----------
        batch : numpy.ndarray
            (N, 3, S, S) preprocessed plates (`preprocess`), S the reader's ``input_size``.

        Returns
        -------
        numpy.ndarray
            (N, 2, 59) float64 log-probabilities over `plates.reader.coding.CLASSES`.

        Raises
        ------
        ValueError
            ``batch`` of another shape.
        """
        batch = np.ascontiguousarray(batch, dtype=np.float32)
        expected = (3, self.input_size, self.input_size)
        if batch.ndim != 4 or batch.shape[1:] != expected:
            raise ValueError(f"batch must have shape (N, {expected}), got {batch.shape}")
        logits = self._session.run(None, {self._input: batch})[0].astype(np.float64)
        logits -= logits.max(axis=-1, keepdims=True)
        return logits - np.log(np.exp(logits).sum(axis=-1, keepdims=True))

    def preprocess(self, image: Image.Image) -> np.ndarray:
        """PIL image (sRGB 0-255) -> (3, S, S) float32 network input.

        Parameters
        ----------
        image : PIL.Image.Image
            The plate, sRGB 0-255.

        Returns
        -------
        numpy.ndarray of float32, shape (3, S, S)
            The network's input.

        Raises
        ------
        ValueError
            When ``image`` is not a PIL image.
        """
        return preprocess(image, self.input_size, self.mode)

    def read_many(self, images: Sequence[Image.Image], label_space: str = "any") -> list[Reading]:
        """Read each image.

        Parameters
        ----------
        images : sequence of PIL.Image.Image
            Plates, sRGB 0-255, any size.
        label_space : str
            The answer space decoded within (`plates.reader.coding.LABEL_SPACE_NAMES`: "cbe", "huemanity-numeric",
            "huemanity-alnum", "any").

        Returns
        -------
        list of Reading

        Raises
        ------
        ValueError
            ``label_space`` is not known.
        """
        if not images:
            return []
        batch = np.stack([self.preprocess(image) for image in images])
        readings = []
        for lp in self.log_probs(batch):
            text, p = best_label(lp, label_space)
            readings.append(Reading(text=text, confidence=p, label_space=label_space))
        return readings

    def read(self, image: Image.Image, label_space: str = "any") -> Reading:
        """Read one plate.

        Parameters
        ----------
        image : PIL.Image.Image
            sRGB 0-255, any size.
        label_space : str
            The answer space decoded within (`plates.reader.coding.LABEL_SPACES`).

        Returns
        -------
        Reading

        Raises
        ------
        ValueError
            ``label_space`` is not known.
        """
        return self.read_many([image], label_space)[0]
