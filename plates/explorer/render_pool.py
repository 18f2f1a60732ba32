"""The Plate tab's renders as the bytes the page shows, in this process or in warm worker processes.

A render is the plate and its views (`plates.explorer.plate.render_views`) encoded as the page serves them: the
plate as exact PNG (`plates.explorer.plate.png_bytes`), the other views as JPEG written as Gradio's own image
encoder writes them (display only). All of it is CPU work under Python's GIL, so a public server renders in a
`plates.workers.WorkerPool` of one spawned process per core (`plates.explorer.plate.render_workers`) and only writes the bytes it gets
back; the plate comes back too, for the plates-on-screen cache the model tabs read.
"""

from __future__ import annotations

import io
import threading
from dataclasses import dataclass

from PIL import Image

from plates.explorer import plate as ex
from plates.workers import WorkerPool

__all__ = ["EncodedViews", "PlateRenderer", "encode_controls", "encode_views", "jpeg_bytes"]


def jpeg_bytes(image: Image.Image) -> bytes:
    """``image`` as JPEG, byte for byte as Gradio encodes a PIL image for ``gr.Image(format="jpeg")``
    (Pillow's defaults, quality 75; no EXIF: our images have none)."""
    with io.BytesIO() as out:
        image.save(out, "jpeg")
        return out.getvalue()


@dataclass(frozen=True)
class EncodedViews:
    """A render as the page shows it: the plate, its exact PNG, each other view's JPEG (keyed as
    `plates.explorer.plate.VIEWS` after the plate) and the stats line."""

    plate: ex.Plate
    png: bytes
    jpeg: dict[str, bytes]
    stats: str


def encode_views(spec: ex.PlateSpec, renderer=ex.render) -> EncodedViews:
    """Render ``spec`` and encode its views (module docstring); a worker process's task."""
    views = ex.render_views(spec, renderer=renderer)
    return EncodedViews(plate=views.plate, png=ex.png_bytes(views.images["plate"]),
                        jpeg={v: jpeg_bytes(views.images[v]) for v in ex.VIEWS[1:]}, stats=views.stats)


def encode_controls(policy: ex.Policy, base_json: str | None, vals: tuple) -> EncodedViews:
    """The Plate tab's controls as a spec (`plates.explorer.plate.spec_from_controls`: a ValueError names a bad
    value), rendered and encoded; a worker process's task, so the spec's colour search (the background at the
    asked ΔE2000, ~35 ms when the slider moves) runs there too."""
    return encode_views(ex.spec_from_controls(policy, base_json, *vals))


def warm() -> None:
    """A worker's first work: one small plate, so fonts, colour-science and the painter are loaded before a
    visitor waits on them."""
    encode_views(ex.default_spec().replace(size=128))


class PlateRenderer:
    """One app's renders: `encode_views` in ``workers`` worker processes (started all together by `start`, or
    the first render; at most ``max_pending`` renders waiting or running), or in this process when ``workers`` is 0; every
    plate rendered is put in ``cache`` (the plates on screen)."""

    def __init__(self, cache: ex.PlateCache, workers: int, max_pending: int | None = None) -> None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
            raise ValueError(f"workers={workers!r} is not allowed; allowed: an integer >= 0")
        self.cache, self.workers, self.max_pending = cache, workers, max_pending
        self._pool: WorkerPool | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start the workers now (they warm while the app is built), not at the first render."""
        with self._lock:
            if self.workers and self._pool is None:
                self._pool = WorkerPool(self.workers, warm=warm, max_pending=self.max_pending, what="renders")

    @property
    def pool(self) -> WorkerPool | None:
        """The worker pool, once the first render has started it (None in-process)."""
        return self._pool

    def from_controls(self, policy: ex.Policy, base_json: str | None, *vals) -> EncodedViews:
        """`encode_controls` here or in a worker (a ValueError names a bad control); the plate goes in the cache.
        The rendered spec is ``.plate.spec``."""
        if self.workers == 0:
            return encode_views(ex.spec_from_controls(policy, base_json, *vals), renderer=self.cache)
        self.start()
        encoded = self._pool.call(encode_controls, policy, base_json, tuple(vals))
        self.cache.put(encoded.plate)
        return encoded

    def close(self) -> None:
        """Stop the worker processes (a later render starts fresh ones)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()
