"""render(IllusionSpec) -> Stimulus: draw, place A and B by the layout, and measure the truth on the pixels.

The kind draws in its canonical frame (A's context on the left); ``swap`` mirrors the scene left-right with
the target colours exchanged first, so A stays on the left with its own colour but in the other context;
layout "up-down" then transposes the image (A on top). Stripe directions are chosen so the final image has
the spec's direction.

Truth is measured FROM THE PIXELS under the masks, never taken from the generator's bookkeeping: the mean
sRGB 0-255 of each target, its CIELAB, their CIEDE2000, which target is lighter (by L*) or "same" when the
means are identical. The perceptual answer comes from the kind's prediction rule (`kinds`), combined with the
pixels:

* ``strength == 0`` (equal inducer contexts): "control"; people answer by the pixels.
* identical target pixels and ``strength > 0``: "illusion"; people follow the illusion's direction (None
  where the kind predicts no lightness direction: rcid-filter, whose illusion is in colour names).
* different target pixels and ``strength > 0``: "trap" (IllusionBench+ §III-A: looks like an illusion, the
  difference is real); people see the physical difference when the illusion pushes the same way, and the
  answer is None (undetermined: it depends on the illusion's size, which a sweep measures) when it opposes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

import numpy as np
from PIL import Image

from plates import colour as C
from plates.stimuli.base import Stimulus
from plates.stimuli.illusions.classic import draw_checker_shadow, draw_chevreul, draw_cornsweet, draw_neon
from plates.stimuli.illusions.contrast import draw_koffka, draw_rcid_contrast, draw_simultaneous
from plates.stimuli.illusions.filter import draw_filter
from plates.stimuli.illusions.geometry import Drawing, Job
from plates.stimuli.illusions.marks import mark_letters
from plates.stimuli.illusions.spec import IllusionSpec
from plates.stimuli.illusions.stripes import draw_stripes

__all__ = ["DRAW", "POSITIONS", "canonical_job", "render"]

#: kind -> canonical drawing function (read-only)
DRAW: Mapping[str, Callable[[Job], Drawing]] = MappingProxyType(
    {
        "rcid-contrast": draw_rcid_contrast,
        "rcid-stripe": draw_stripes,
        "rcid-filter": draw_filter,
        "simultaneous-contrast": draw_simultaneous,
        "simultaneous-contrast-chromatic": draw_simultaneous,
        "whites": draw_stripes,
        "munker-white": draw_stripes,
        "checker-shadow": draw_checker_shadow,
        "cornsweet": draw_cornsweet,
        "chevreul": draw_chevreul,
        "koffka-ring": draw_koffka,
        "neon-spreading": draw_neon,
    }
)

#: The images a stimulus offers: the scene, and "targets" (A magenta, B cyan on the scene dimmed to 40%).
VARIANTS = ("standard", "targets")
#: layout -> (A's position, B's position)
POSITIONS = MappingProxyType({"left-right": ("left", "right"), "up-down": ("top", "bottom")})
_TRANSPOSED = {"horizontal": "vertical", "vertical": "horizontal", "diagonal": "diagonal", None: None}
_OTHER = {"A": "B", "B": "A", "same": "same", None: None}


def _frozen(mask: np.ndarray) -> np.ndarray:
    out = np.ascontiguousarray(mask, dtype=bool)
    out.flags.writeable = False
    return out


def _place(spec: IllusionSpec, d: Drawing) -> tuple[np.ndarray, dict, dict, str | None, dict]:
    """Canonical drawing -> final pixels, target masks {"A","B"}, context masks, lighter target, per-target
    truth keyed by "A"/"B"."""
    px, ml, mr, cl, cr = d.pixels, d.left, d.right, d.context_left, d.context_right
    side_of = {"left": "A", "right": "B", None: None}
    per = {"A": d.per_target.get("left", {}), "B": d.per_target.get("right", {})}
    if spec.swap:  # mirror: the canonical right (drawn with A's colour) becomes the left
        px, ml, mr, cl, cr = (arr[:, ::-1] for arr in (px, mr, ml, cr, cl))
        side_of = {"left": "B", "right": "A", None: None}
        per = {"A": d.per_target.get("right", {}), "B": d.per_target.get("left", {})}
    if spec.layout == "up-down":
        px = px.transpose(1, 0, 2)
        ml, mr, cl, cr = ml.T, mr.T, cl.T, cr.T
    px = np.ascontiguousarray(px)
    masks = {"A": ml, "B": mr}
    if spec.info.lettered:  # in the final frame, so the letters read normally
        px = px.copy() if not px.flags.writeable or px.base is not None else px
        masks = mark_letters(px, masks)
    masks = {k: _frozen(v) for k, v in masks.items()}
    contexts = {"A": np.ascontiguousarray(cl, dtype=bool), "B": np.ascontiguousarray(cr, dtype=bool)}
    return px, masks, contexts, side_of[d.lighter], per


def _measure(px: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, int, bool]:
    """Mean sRGB 0-255 (3,) of the pixels under ``mask``, their count, and whether they are one flat colour
    (per channel: a 2-D boolean index of each channel plane, ~10x faster than indexing the (H, W, 3) array).
    """
    n = int(np.count_nonzero(mask))
    if n == 0:
        return np.full(3, np.nan), 0, True
    sums, flat = np.empty(3), True
    for c in range(3):
        vals = px[..., c][mask]
        sums[c] = vals.sum(dtype=np.int64)
        flat = flat and int(vals.min()) == int(vals.max())
    return sums / n, n, flat


def _targets_variant(px: np.ndarray, masks: dict) -> Callable[[], Image.Image]:
    def make() -> Image.Image:
        out = (px.astype(np.uint16) * 2 // 5).astype(np.uint8)  # the scene dimmed to 40%
        out[masks["A"]] = (255, 0, 255)
        out[masks["B"]] = (0, 255, 255)
        return Image.fromarray(out, "RGB")

    return make


def canonical_job(spec: IllusionSpec) -> Job:
    """What the kind's drawing function gets for ``spec``: the target colours on the canonical left / right
    (A's on the left unless the spec swaps), the stripe direction in the canonical frame and the random
    streams.

    Parameters
    ----------
    spec : IllusionSpec

    Returns
    -------
    plates.stimuli.illusions.geometry.Job
        ``left`` / ``right`` sRGB 0-255; ``rng`` four independent PCG64 streams (layout, noise, scene, spare)
        spawned from the spec's seed.
    """
    a_rgb, b_rgb = spec.target_srgb
    left, right = (b_rgb, a_rgb) if spec.swap else (a_rgb, b_rgb)
    direction = spec.resolved_direction
    if spec.layout == "up-down":
        direction = _TRANSPOSED[direction]
    rng = tuple(np.random.Generator(np.random.PCG64(s)) for s in np.random.SeedSequence(spec.seed).spawn(4))
    return Job(spec, left, right, direction, -1 if spec.swap else 1, rng)


def render(spec: IllusionSpec) -> Stimulus:
    """Draw an illusion and measure it: a pure function of the spec.

    Parameters
    ----------
    spec : IllusionSpec

    Returns
    -------
    plates.stimuli.base.Stimulus
        ``image`` PIL RGB (sRGB 0-255); ``masks`` {"A", "B"}: read-only bool (H, W), exactly the target
        pixels; ``truth`` and ``stats`` JSON-able dicts (keys in the module docstring); variant "targets":
        A magenta, B cyan on the dimmed scene.

    References
    ----------
    Each kind's source is in `plates.stimuli.illusions.kinds.ILLUSION_TYPES` (RCID §3.1; Chevreul 1839;
    White 1979; ...).

    Examples
    --------
    >>> stimulus = render(IllusionSpec(kind="simultaneous-contrast", size=128, seed=0))
    >>> stimulus.truth["mean_srgb"], stimulus.truth["perceived_lighter"]  # equal greys; A looks lighter
    ({'A': [132.0, 132.0, 132.0], 'B': [132.0, 132.0, 132.0]}, 'A')
    """
    if not isinstance(spec, IllusionSpec):
        raise ValueError(f"render needs an IllusionSpec, got {type(spec).__name__}")
    drawing = DRAW[spec.kind](canonical_job(spec))
    px, masks, contexts, induced, per = _place(spec, drawing)

    measured = {k: _measure(px, masks[k]) for k in ("A", "B")}
    for k, (_, n, _) in measured.items():
        if n == 0:
            raise RuntimeError(f"target {k} of this drawing is empty: a geometry bug, please report the spec")
    means = np.stack([measured["A"][0], measured["B"][0]])
    flat = measured["A"][2] and measured["B"][2]
    counts = {k: measured[k][1] for k in ("A", "B")}
    ctx = np.stack([_measure(px, contexts[k])[0] for k in "AB"])
    # targets' and contexts' means in one conversion (a colour-science call costs ~0.4 ms whatever its size; rows
    # convert bit for bit as they do alone), each pair's ΔE2000 from those rows: what delta_e2000 computes
    labs = C.srgb255_to_lab(np.concatenate([means, ctx]))
    labs, ctx_lab = labs[:2], labs[2:]
    de = float(C.delta_e2000_lab(labs[0], labs[1]))
    same = bool(np.array_equal(means[0], means[1]))
    lighter = "same" if same else ("A" if labs[0, 0] > labs[1, 0] else "B")
    if spec.strength == 0:
        item_class, perceived = "control", lighter
    elif same:
        item_class, perceived = "illusion", induced
    else:
        item_class, perceived = "trap", lighter if induced == lighter else None
    a_pos, b_pos = POSITIONS[spec.layout]
    info = spec.info
    truth = {
        "kind": spec.kind,
        "item_class": item_class,
        "mean_srgb": {
            "A": [round(float(v), 3) for v in means[0]],
            "B": [round(float(v), 3) for v in means[1]],
        },
        "mean_lab": {"A": [round(float(v), 3) for v in labs[0]], "B": [round(float(v), 3) for v in labs[1]]},
        "delta_e2000": round(de, 4),
        "signed_delta_e2000": round(0.0 if same else (de if lighter == "A" else -de), 4),
        "pixel_lighter": lighter,
        "pixel_darker": _OTHER[lighter],
        "perceived_lighter": perceived,
        "perceived_darker": _OTHER[perceived],
        "induced_lighter": induced,
        "prediction": info.prediction,
        "source": info.source,
        "human_key": info.human_key,
        "layout": spec.layout,
        "positions": {"A": a_pos, "B": b_pos},
    }
    tints = {k: v["tint_hue"] for k, v in per.items() if "tint_hue" in v}
    if tints and spec.strength > 0:
        truth["perceived_tint_hue"] = (
            tints  # CIELAB hue angle (degrees) each target is predicted to tint toward
        )
    if spec.kind == "rcid-filter":
        truth["colour_names"] = {
            k: {
                "pixel": per[k]["pixel_name"],
                "perceived": per[k]["original_name"],
                "original_srgb": per[k]["original_srgb"],
            }
            for k in ("A", "B")
        }
    stats = {
        "kind": spec.kind,
        "strength": spec.strength,
        "requested_delta_e2000": spec.delta_e,
        "measured_delta_e2000": round(de, 4),
        "delta_e2000_error": round(abs(abs(spec.delta_e) - de), 4),
        "targets_flat": flat,
        "target_px": counts,
        "inducer_delta_e2000": round(float(C.delta_e2000_lab(ctx_lab[0], ctx_lab[1])), 4),
        "inducer_lightness_difference": round(float(ctx_lab[0, 0] - ctx_lab[1, 0]), 4),
        **drawing.stats,
    }
    return Stimulus(
        spec=spec,
        image=Image.fromarray(px, "RGB"),
        masks=masks,
        truth=truth,
        stats=stats,
        variants={"targets": _targets_variant(px, masks)},
    )
