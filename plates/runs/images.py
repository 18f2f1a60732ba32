"""The images a run sends (`plates.runs.builder`): each item's variant under each condition, prepared once.

Images are PIL RGB, sRGB 0-255. A stored plate is the file as it is (`plates.images.StoredPng`), its bytes kept;
a condition that changes no pixel (`plates.conditions.changes_pixels`) hands on that very image. For a backend
that sends PNG bytes (`Backend.sends_png`) every other image is encoded once and kept while it may be shown
again (a few-shot example), within `ENCODED_CACHE_BYTES`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from plates.conditions import apply_condition, changes_pixels
from plates.images import StoredPng
from plates.runs.experiment import ConditionSpec
from plates.stimuli import render

__all__ = ["ENCODED_CACHE_BYTES", "RunImages"]


#: Bytes of encoded PNGs (changed or rendered images for a backend that sends PNG) kept across chunks.
ENCODED_CACHE_BYTES = 64_000_000


class RunImages:
    """Prepared images (PIL RGB, sRGB 0-255), cached for the current item and its few-shot examples; images
    encoded for a backend that sends PNG bytes are kept longer (`ENCODED_CACHE_BYTES`), so a plate shown as a
    few-shot example in many chunks is encoded once.

    Parameters
    ----------
    items : sequence
        The dataset's items.
    """

    def __init__(self, items: Sequence[Any]) -> None:
        self.items = items
        self.plates: dict[int, Any] = {}
        self._bases: dict[tuple[int, str], Any] = {}
        self._cache: dict[tuple[int, str, ConditionSpec], Any] = {}
        self._encoded: OrderedDict[tuple[int, str, ConditionSpec], StoredPng] = OrderedDict()  # oldest first
        self._encoded_bytes = 0

    def get(self, index: int, variant: str, cond: ConditionSpec, *, png: bool = False) -> Any:
        """The item's image of ``variant`` under ``cond``: the stored (or rendered) image itself when the
        condition changes no pixel, else a new one. With ``png`` (a backend that sends PNG bytes) as a
        `plates.images.StoredPng`: a stored file's bytes as they are, any other image encoded once and kept
        so that every question and few-shot example sends the same bytes.

        Parameters
        ----------
        index : int
            The item's index.
        variant : str
            The image variant.
        cond : ConditionSpec
            The viewing condition.
        png : bool, optional
            Return a `plates.images.StoredPng`.

        Returns
        -------
        PIL.Image.Image or StoredPng
            sRGB 0-255.
        """
        key = (index, variant, cond)
        if png and key in self._encoded:
            self._encoded.move_to_end(key)
            return self._encoded[key]
        if key not in self._cache:
            base, condition = self._variant(index, variant), cond.to_condition()
            self._cache[key] = apply_condition(base, condition) if changes_pixels(base, condition) else base
        image = self._cache[key]
        if png and not (isinstance(image, StoredPng) and image.stored is not None):
            image = self._cache[key] = self._encoded[key] = StoredPng.of(image)
            self._encoded_bytes += len(image.stored)
            while self._encoded_bytes > ENCODED_CACHE_BYTES and len(self._encoded) > 1:
                self._encoded_bytes -= len(self._encoded.popitem(last=False)[1].stored)
        return image

    def _variant(self, index: int, variant: str) -> Any:
        if (index, variant) in self._bases:
            return self._bases[(index, variant)]
        item = self.items[index]
        if variant == getattr(item, "variant", "standard") and getattr(item, "path", None) is not None:
            image = item.image()  # read from the dataset folder (a StoredPng: its bytes kept)
        else:  # rendered from its spec (exact, seeded), once: the drawn ΔE2000 reads the same rendering
            if index not in self.plates:
                self.plates[index] = render(item.spec)
            image = self.plates[index].variant(variant)
        self._bases[(index, variant)] = image
        return image

    def forget_except(self, keep: set[int]) -> None:
        """Drop every cached plate and image except those of the items in ``keep``.

        Parameters
        ----------
        keep : set of int
            Item indices to keep.
        """
        self.plates = {i: p for i, p in self.plates.items() if i in keep}
        self._bases = {k: v for k, v in self._bases.items() if k[0] in keep}
        self._cache = {k: v for k, v in self._cache.items() if k[0] in keep}
