"""API providers: the resizing each publishes for images sent to its models.

Providers publish geometry, not code: the resampling filter is not stated, so these views resize with
Pillow's bicubic (``exact=False``) and say so. Sources, read 2026-12-06:

* OpenAI, "Images and vision" guide, section "Calculating costs" (platform.openai.com/docs/guides/images-vision):
  ``detail: "high"``: the image is scaled to fit within a 2048 x 2048 square keeping its aspect ratio, then
  scaled so that its shortest side is 768 px, and counted in 512 px tiles; ``detail: "low"``: the model receives
  a 512 x 512 px low-resolution version. The guide's examples only scale down; we never scale up.
  How the 512 px tiles are cut is not published: the view is the one resized image, and ``tiles`` counts them.
  The low-detail "512 x 512 version" is read as fitting inside 512 x 512 with the aspect ratio kept.
* Anthropic, "Vision" guide, section "Evaluate image size" (docs.anthropic.com/en/docs/build-with-claude/vision):
  an image whose long edge exceeds 1568 px, or that exceeds about 1,600 tokens (tokens = width x height / 750),
  is scaled down, aspect ratio kept, until it is within both; images over 8000 x 8000 px are rejected.
* Google, Gemini API "Image understanding" guide, section "Technical details"/token counting
  (ai.google.dev/gemini-api/docs/image-understanding): an image with both sides <= 384 px is one 258-token
  image; a larger one is "cropped and scaled as needed into tiles of 768 x 768 pixels". The crop and scale are
  not published: the view is the image unchanged, ``tiles`` counts the 768 px tiles (ceil per side).
"""

from __future__ import annotations

import math

from plates.models.views.core import Tile, ViewPlan

__all__ = ["PROVIDER_FAMILIES"]


def _fit(w: int, h: int, scale: float) -> tuple[int, int]:
    return max(1, round(w * scale)), max(1, round(h * scale))


def _one(name: str, w: int, h: int, size: tuple[int, int], proc: str, *, tiles: int, note: str) -> ViewPlan:
    ops = () if size == (w, h) else (("resize", size[0], size[1], "bicubic"),)
    return ViewPlan(name, (w, h), (Tile(ops, size, (0.0, 0.0, float(w), float(h))),), size, proc, exact=False,
                    note=note, extra={"provider_tiles": tiles})


def _openai_high(w: int, h: int) -> ViewPlan:
    s = min(1.0, 2048 / max(w, h))
    if min(w, h) * s > 768:
        s *= 768 / (min(w, h) * s)
    size = _fit(w, h, s)
    tiles = math.ceil(size[0] / 512) * math.ceil(size[1] / 512)
    return _one("openai-high", w, h, size, "OpenAI detail=high: fit 2048x2048, short side 768 (docs, 2026-12-06)",
                tiles=tiles, note=f"{tiles} tiles of 512 px (cut unpublished); filter unpublished (bicubic assumed)")


def _openai_low(w: int, h: int) -> ViewPlan:
    size = _fit(w, h, min(1.0, 512 / max(w, h)))
    return _one("openai-low", w, h, size, "OpenAI detail=low: one 512x512 image (docs, 2026-12-06)", tiles=1,
                note="aspect ratio kept inside 512x512 (our reading); filter unpublished (bicubic assumed)")


def _anthropic(w: int, h: int) -> ViewPlan:
    if max(w, h) > 8000:
        raise ValueError(f"an image of {w}x{h} px is refused: anthropic rejects images over 8000 px on a side")
    s = min(1.0, 1568 / max(w, h), math.sqrt(1600 * 750 / (w * h)))
    size = _fit(w, h, s)
    return _one("anthropic", w, h, size, "Anthropic: long edge <= 1568 px and <= ~1600 tokens (docs, 2026-12-06)",
                tiles=1, note="filter unpublished (bicubic assumed)")


def _gemini(w: int, h: int) -> ViewPlan:
    tiles = 1 if max(w, h) <= 384 else math.ceil(w / 768) * math.ceil(h / 768)
    return _one("gemini", w, h, (w, h), "Gemini: <=384 px one image, else 768 px tiles (docs, 2026-12-06)",
                tiles=tiles, note=f"{tiles} tile(s) of 768 px; their crop and scale are unpublished: pixels shown "
                "unchanged")


#: family -> planner(width, height) -> ViewPlan, for the API providers' published rules.
PROVIDER_FAMILIES = {
    "openai-high": _openai_high,
    "openai-low": _openai_low,
    "anthropic": _anthropic,
    "gemini": _gemini,
}
