"""What each export path does to an image on its way to the model, and how far that moves its colours.

An exported row carries the PNG a model is sent (`plates.integrations.rows.export_rows`). Each harness then
decodes it its own way before the model's image processor (its view, `plates.models.views`) sees it:

* ``hf-datasets``: ``datasets.Image`` decodes the stored bytes (Pillow) - lossless;
* ``lmms-eval``: the same decode, then ``doc_to_visual`` (`plates.integrations.lmms_eval`) - lossless;
* ``inspect_ai``: a ``data:image/png;base64,`` URI of the bytes (`plates.integrations.inspect_tasks.to_sample`),
  decoded by the provider - lossless;
* ``vlmevalkit``: base64 in the TSV, written to ``{index}.png`` byte for byte by ``PlatesDataset.dump_image``
  (`plates.integrations.vlmevalkit.write_png`) - lossless;
* ``vlmevalkit-default-jpeg``: VLMEvalKit's own ``ImageBaseDataset.dump_image``, which saves every image to
  ``{index}.jpg`` with Pillow's defaults (JPEG quality 75): what a model gets when the TSV is used without our
  dataset class.

`transport_shift` measures, per plate and view, the per-pixel CIEDE2000 between the view of the generated PNG and
the view of what the harness hands the model (sRGB 0-255 -> CIELAB D65 via `plates.colour.delta_e2000`).
"""

from __future__ import annotations

import base64
import io
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image

from plates.colour import delta_e2000
from plates.images import data_url_to_image
from plates.integrations.lmms_eval import doc_to_visual
from plates.integrations.vlmevalkit import write_png
from plates.models.views import see
from plates.validation import lookup

__all__ = ["SAMPLE_PIXELS", "TRANSPORTS", "transport_shift", "transported"]

#: Pixels per view whose CIEDE2000 is computed at most (a seeded uniform sample beyond; identical pixels are 0).
SAMPLE_PIXELS = 65_536


def _pil(data: bytes) -> Image.Image:
    with Image.open(io.BytesIO(data)) as im:
        return im.convert("RGB")


def _hf(data: bytes) -> Image.Image:
    from datasets import Image as ImageFeature  # lazy: the `export` extra

    return ImageFeature().decode_example({"bytes": data, "path": None}).convert("RGB")


def _lmms(data: bytes) -> Image.Image:
    return doc_to_visual({"image": _hf(data)})[0]


def _inspect(data: bytes) -> Image.Image:
    return data_url_to_image("data:image/png;base64," + base64.b64encode(data).decode("ascii")).convert("RGB")


def _vlmevalkit(data: bytes) -> Image.Image:
    with tempfile.TemporaryDirectory() as tmp:
        path = write_png(base64.b64encode(data).decode("ascii"), Path(tmp) / "0.png")
        with Image.open(path) as im:
            return im.convert("RGB")


def _vlmevalkit_jpeg(data: bytes) -> Image.Image:
    buf = io.BytesIO()
    _pil(data).save(buf, format="JPEG")  # Pillow's defaults, as VLMEvalKit's dump_image saves {index}.jpg
    return _pil(buf.getvalue())


#: Export path -> the image a harness hands the model, from the exported PNG bytes.
TRANSPORTS: dict[str, Callable[[bytes], Image.Image]] = {
    "hf-datasets": _hf,
    "lmms-eval": _lmms,
    "inspect_ai": _inspect,
    "vlmevalkit": _vlmevalkit,
    "vlmevalkit-default-jpeg": _vlmevalkit_jpeg,
}


def transported(png: bytes, path: str) -> Image.Image:
    """The image export path ``path`` (a `TRANSPORTS` key) hands the model from the exported ``png`` bytes.

    Parameters
    ----------
    png : bytes
        The exported PNG.
    path : str
        A `TRANSPORTS` key.

    Returns
    -------
    PIL.Image.Image
        What the model receives.

    Raises
    ------
    ValueError
        For an unknown path.
    """
    return lookup(TRANSPORTS, path, "export path")(png)


def transport_shift(png: bytes, path: str, family: str | None, *, seed: int = 0) -> dict[str, float]:
    """CIEDE2000 per pixel between ``family``'s view of the exported PNG and its view of what ``path`` hands the
    model (``family`` None: the images themselves): mean, 95th percentile and max over the view's pixels (all
    tiles; a seeded sample of `SAMPLE_PIXELS` where more differ).

    Parameters
    ----------
    png : bytes
        The exported PNG.
    path : str
        A `TRANSPORTS` key.
    family : str or None
        A view family.
    seed : int, optional
        Seeds the pixel sample.

    Returns
    -------
    dict
        ``mean``, ``p95``, ``max`` (CIEDE2000) and ``changed`` (share 0-1 of the view's pixels that differ).
    """
    sent, got = _pil(png), transported(png, path)
    if sent.size == got.size and sent.tobytes() == got.tobytes():  # the very pixels: every view is the same too
        return {"mean": 0.0, "p95": 0.0, "max": 0.0, "changed": 0.0}
    if family is None:
        a, b = np.asarray(sent).reshape(-1, 3), np.asarray(got).reshape(-1, 3)
    else:
        a = np.concatenate([t.reshape(-1, 3) for t in see(sent, family).images])
        b = np.concatenate([t.reshape(-1, 3) for t in see(got, family).images])
    differ = np.flatnonzero((a != b).any(axis=1))
    total = len(a)
    if differ.size == 0:
        return {"mean": 0.0, "p95": 0.0, "max": 0.0, "changed": 0.0}
    pick = differ
    if differ.size > SAMPLE_PIXELS:
        pick = np.sort(np.random.default_rng(seed).choice(differ, SAMPLE_PIXELS, replace=False))
    de = np.asarray(delta_e2000(a[pick].astype(float), b[pick].astype(float)), dtype=float)
    share = differ.size / total  # the other pixels are identical: CIEDE2000 0
    q = 0.95 - (1.0 - share)  # the 95th percentile over all pixels, as a quantile of the differing ones
    p95 = float(np.quantile(de, q / share)) if q > 0 else 0.0
    return {"mean": float(share * de.mean()), "p95": p95, "max": float(de.max()), "changed": float(share)}
