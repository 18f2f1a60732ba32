"""The ``-fast`` view families: transformers' torchvision-backed image processors, reproduced in numpy.

transformers 5 picks a family's torchvision-backed processor (``CLIPImageProcessor``, ``Qwen2VLImageProcessor``,
... without the ``Pil`` suffix) whenever torchvision is installed, so many users' models see these pixels rather
than the PIL-backed processor's. Each fast processor follows the same geometry as its PIL twin (the same sizes,
crops, pads and tile order, `plates.models.views.hf`) and resizes the uint8 tensor with torch's antialiased
kernel, which `plates.models.views.tvresize` reproduces without torch. So ``llava-1.5-fast`` is ``llava-1.5``'s
plan with every resize done the torch way. Lanczos (Idefics3, SmolVLM) is torchvision's own Lanczos on CPU with
torchvision >= 0.27; on CUDA, or an older torchvision, transformers falls back to bicubic, which these views do
not follow.

References
----------
transformers 5.x ``image_processing_backends.py`` (``TorchvisionBackend.resize``) and
``models/<family>/image_processing_<family>.py``; checked against the real processors (torch 2.14.1, torchvision
0.29.1, transformers 5.24.0) by ``tests/models/views/test_fast.py`` on goldens that
``scripts/make_fast_view_goldens.py`` made.
"""

from __future__ import annotations

from dataclasses import replace

from plates.models.views.core import Tile, ViewPlan
from plates.models.views.hf import HF_FAMILIES

__all__ = ["FAST_FAMILIES", "fast_plan"]


def fast_plan(plan: ViewPlan) -> ViewPlan:
    """``plan`` (a PIL-backed family's) with every resize done by torch's antialiased uint8 kernel.

    Parameters
    ----------
    plan : ViewPlan
        A plan.

    Returns
    -------
    ViewPlan
        The same geometry with ``tv-`` filters.
    """
    tiles = tuple(Tile(tuple(("resize", *op[1:3], f"tv-{op[3]}") if op[0] == "resize" else op for op in t.ops),
                       t.size, t.box) for t in plan.tiles)
    processor = plan.processor.replace("ImageProcessorPil", "ImageProcessor", 1) + " [torchvision backend, CPU]"
    return replace(plan, family=f"{plan.family}-fast", tiles=tiles, processor=processor)


def _fast(planner):
    def plan(w: int, h: int) -> ViewPlan:
        return fast_plan(planner(w, h))
    return plan


#: ``<family>-fast`` -> planner(width, height) -> ViewPlan, one per PIL-backed family of `HF_FAMILIES`.
FAST_FAMILIES = {f"{name}-fast": _fast(planner) for name, planner in HF_FAMILIES.items()}
