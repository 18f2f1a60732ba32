"""The offline baseline reader: a small CNN trained on our own plates, run with onnxruntime.

Modules: :mod:`~plates.reader.coding` (labels <-> per-position classes), :mod:`~plates.reader.preprocess`
(numpy/PIL image normalisation), :mod:`~plates.reader.reader` (onnxruntime inference, no torch),
:mod:`~plates.reader.server` (OpenAI-compatible HTTP server); for training only (``plates[train]``):
:mod:`~plates.reader.data`, :mod:`~plates.reader.model`, :mod:`~plates.reader.train`,
:mod:`~plates.reader.export`. Importing this package imports nothing heavy.
"""

#: The model name of the weights shipped with the package (plates/assets/baseline/baseline.onnx): what the
#: baseline backend, the explorer, the quiz, the served reader and a trained model's metadata call it.
MODEL_NAME = "baseline-cnn"
