"""Classic lightness illusions: checker-shadow, Cornsweet, Chevreul staircase, neon colour spreading.

Each draws in the canonical frame (target A's context on the left). Colours: sRGB 0-255 uint8 pixels; CIELAB
for the spec's colours; linear RGB 0-1 only inside the shadow. Sources and prediction rules: `kinds`.
"""

from __future__ import annotations

import numpy as np

from plates import colour as C
from plates.colour.transfer import srgb255_to_linear
from plates.stimuli.illusions.colours import encode_linear, lerp, luminance, rgb8
from plates.stimuli.illusions.geometry import (
    Drawing,
    Job,
    centres,
    compose,
    disc,
    inducer_pair,
    lighter_of,
    paint,
)

__all__ = ["draw_checker_shadow", "draw_chevreul", "draw_cornsweet", "draw_neon"]

_BOARD_MARGIN = 0.06  # board inset, fraction of the size
_BACKDROP = (82.0, 0.0, 0.0)  # CIELAB: the surface around the board
_CYLINDER = (55.0, -45.0, 35.0)  # CIELAB: Adelson's green cylinder, lit side
_SHADOW_R, _PENUMBRA = 1.25, 0.6  # shadow radius and penumbra width, in checks
_SHADOW_STEPS = 4096  # shadow weights are quantised to this many steps (a table, not per-pixel encoding)
_RAMP = 0.15  # Cornsweet ramp width on each side of the edge, fraction of the size
_NEON_R = 0.17  # neon disc radius, fraction of the size
_LINE = 0.012  # lattice line width, fraction of the size (at least 1 px)


def _hue(lab) -> float:
    return round(float(np.degrees(np.arctan2(lab[2], lab[1])) % 360.0), 1)


# --- Adelson's checker-shadow ---------------------------------------------------------------------------


def _capsule_shadow(size: int, p1: np.ndarray, p2: np.ndarray, radius: float, penumbra: float):
    """Shadow weight sigma (1: full shadow) of a soft capsule around segment p1 -> p2 ((x, y) px), computed in
    its bounding box only: returns (y0, y1, x0, x1, sigma of that box)."""
    reach = radius + penumbra / 2
    x0, x1 = (
        int(np.clip(np.floor(v), 0, size)) for v in (min(p1[0], p2[0]) - reach, max(p1[0], p2[0]) + reach + 1)
    )
    y0, y1 = (
        int(np.clip(np.floor(v), 0, size)) for v in (min(p1[1], p2[1]) - reach, max(p1[1], p2[1]) + reach + 1)
    )
    y = np.arange(y0, y1, dtype=np.float64)[:, None] + 0.5
    x = np.arange(x0, x1, dtype=np.float64)[None, :] + 0.5
    d = p2 - p1
    t = np.clip(((x - p1[0]) * d[0] + (y - p1[1]) * d[1]) / float(d @ d), 0.0, 1.0)
    dist = np.hypot(x - (p1[0] + t * d[0]), y - (p1[1] + t * d[1]))
    e = np.clip((reach - dist) / penumbra, 0.0, 1.0)
    return y0, y1, x0, x1, e * e * (3 - 2 * e)  # smoothstep


def draw_checker_shadow(job: Job) -> Drawing:
    """A flat n x n board (n = count, even); A = the dark check (row n-2, column 1), B = the light check
    (row n-2, column n-2) inside a soft capsule-shaped shadow cast by a shaded green cylinder at the upper
    right. Light checks interpolate from the target colour to the inducer with strength; the shadow multiplies
    linear RGB by tau = Y(target) / Y(light check) (full shadow) with a smoothstep penumbra of 0.6 checks
    (shadow weight quantised to 4096 steps).

    Strength 0 (the control) keeps the board at full check contrast (light checks = the inducer) and the
    cylinder, casts no shadow, and puts B on the dark check of its row at column n-3: both targets are then
    dark checks in the light with four light neighbours (A's context copied to B), equal in pixels at
    delta_e 0 and still findable as checks. (The limit strength -> 0 of the illusion is a uniform board where
    no check can be found; the control is that board's geometry with the inducer removed, not the limit.)

    Parameters
    ----------
    job : Job
        The spec, the target colours for the canonical left and right (sRGB 0-255) and the random streams.

    Returns
    -------
    Drawing
        The canonical drawing (sRGB 0-255 pixels, target and context masks, the prediction).

    References
    ----------
    Adelson (1995), the checker-shadow illusion; Adelson (2000), 'Lightness perception and lightness
    illusions', in The New Cognitive Neurosciences, MIT Press, 339-351.
    """
    size, spec = job.size, job.spec
    n = spec.resolved_count
    control = spec.strength == 0
    m = _BOARD_MARGIN * size
    cell = (size - 2 * m) / n
    pos = np.arange(size, dtype=np.float64) + 0.5
    # the cylinder's geometry (drawn last), so that every colour converts in one call
    cx, rw = m + (n - 1.1) * cell, 0.6 * cell
    top, bottom, ry = m + 0.3 * cell, m + (n - 3.4) * cell, 0.21 * cell
    cy0, cy1 = int(max(0, np.floor(top - ry))), int(min(size, np.ceil(bottom + ry) + 1))
    cx0, cx1 = int(max(0, np.floor(cx - rw))), int(min(size, np.ceil(cx + rw) + 1))
    u = np.clip((pos[cx0:cx1] - cx) / rw, -1.0, 1.0)  # -1 (lit left edge) .. 1 (dark right edge), per column
    shade = np.stack(
        [_CYLINDER[0] - 11 * (u + 1), np.full_like(u, _CYLINDER[1]), np.full_like(u, _CYLINDER[2])], 1
    )
    fixed = [
        _BACKDROP,
        spec.resolved_target,
        spec.resolved_inducers[0]
        if control
        else lerp(spec.resolved_target, spec.resolved_inducers[0], spec.strength),
        (_CYLINDER[0] + 18, _CYLINDER[1] * 0.8, _CYLINDER[2] * 0.8),
    ]
    colours = rgb8(np.vstack([np.asarray(fixed, dtype=float), shade]))
    palette, cap_rgb, shade_rgb = colours[:3], colours[3], colours[4:]  # backdrop, dark check, light check
    tau = 1.0 if control else min(1.0, luminance(palette[1]) / max(luminance(palette[2]), 1e-9))
    idx = np.floor((pos - m) / cell).astype(np.int64)  # check row (for y) or column (for x), -1 / n outside
    valid = (idx >= 0) & (idx < n)
    on = valid[:, None] & valid[None, :]
    parity = (idx & 1).astype(np.uint8)
    labels = (2 - (parity[:, None] ^ parity[None, :])) * on.view(np.uint8)  # 0 backdrop, 1 dark, 2 light
    light_check = labels == 2
    img = compose(labels, palette)
    # the shadow: a capsule around the segment from the cylinder's base through B's centre and 30% beyond
    p1 = np.array([m + (n - 1.1) * cell, m + (n - 3.4) * cell])  # (x, y) px
    pb = np.array([m + (n - 1.5) * cell, m + (n - 1.5) * cell])
    y0, y1, x0, x1, sigma = _capsule_shadow(
        size, p1, pb + 0.3 * (pb - p1), _SHADOW_R * cell, _PENUMBRA * cell
    )
    # shading by table: sigma in 4096 steps; each base colour x step is encoded once (not once per pixel)
    q = np.rint(sigma * (_SHADOW_STEPS - 1)).astype(np.int32)
    lit = np.ones((size, size), dtype=bool)
    lit[y0:y1, x0:x1] = q == 0
    if tau < 1.0:
        factor = 1.0 - np.arange(_SHADOW_STEPS) / (_SHADOW_STEPS - 1) * (1.0 - tau)  # last step: exactly tau
        table = encode_linear(srgb255_to_linear(palette)[:, None, :] * factor[None, :, None])  # (3, steps, 3)
        # the penumbra sweeps through every level between a check and its shadow: a penumbra step that
        # lands exactly on a target colour moves one level darker, so target colours stay in the targets
        # (full shadow is left alone: there a light check equals the target at delta_e 0, by design)
        for target in (job.left, job.right):
            hit = np.all(table == np.asarray(target, dtype=np.uint8), axis=-1)
            hit[:, -1] = False
            table[hit] = np.clip(table[hit].astype(int) - 1, 0, 255).astype(np.uint8)
        shaded = q > 0
        paint(img[y0:y1, x0:x1], shaded, table[labels[y0:y1, x0:x1][shaded], q[shaded]])
    # the cylinder (drawn over board and shadow): body, rounded base, lighter top ellipse; shaded by column
    y, x = pos[cy0:cy1, None], pos[None, cx0:cx1]  # the cylinder's bounding box
    body = (np.abs(x - cx) <= rw) & (y >= top) & (y <= bottom)
    body |= ((x - cx) / rw) ** 2 + ((y - bottom) / ry) ** 2 <= 1
    cap = ((x - cx) / rw) ** 2 + ((y - top) / ry) ** 2 <= 1
    body_only = body & ~cap
    box = img[cy0:cy1, cx0:cx1]
    paint(box, body_only, np.broadcast_to(shade_rgb[None, :, :], (*body.shape, 3))[body_only])
    paint(box, cap, cap_rgb)
    free = lit
    free[cy0:cy1, cx0:cx1] &= ~(body | cap)
    b_col = n - 3 if control else n - 2
    a, b = _check(idx, n - 2, 1), _check(idx, n - 2, b_col)
    paint(img, a, job.left)
    paint(img, b, job.right)
    if control:  # each target's context: its four neighbouring checks (light, in the light, for both)
        ctx_a, ctx_b = _neighbours(idx, n - 2, 1), _neighbours(idx, n - 2, b_col)
    else:
        ctx_a, ctx_b = light_check & free, on & ~light_check & free & ~a
    return Drawing(
        img,
        a,
        b,
        ctx_a,
        ctx_b,
        "right" if tau < 1.0 else None,
        stats={"shadow_transmittance": round(float(tau), 4)},
    )


def _check(idx: np.ndarray, row: int, col: int) -> np.ndarray:
    """Mask (S, S) of the check at (row, col); ``idx``: each pixel row's / column's check index (S,)."""
    return (idx == row)[:, None] & (idx == col)[None, :]


def _neighbours(idx: np.ndarray, row: int, col: int) -> np.ndarray:
    """Mask (S, S) of the four checks sharing a side with the check at (row, col)."""
    return (
        _check(idx, row - 1, col)
        | _check(idx, row + 1, col)
        | _check(idx, row, col - 1)
        | _check(idx, row, col + 1)
    )


# --- Cornsweet edge -------------------------------------------------------------------------------------


def draw_cornsweet(job: Job) -> Drawing:
    """Two fields meeting at x = size / 2. Within 0.15 x size of the edge each side's colour moves from its
    target colour toward its edge colour along (1 - d / w)^2 (d: distance to the edge, w: ramp width), in
    CIELAB; ramp pixels that would round to either target's exact pixels move one level further toward the
    edge colour, so the target colours occur only in the flat parts (the masks). Columns only: every row is
    the same.

    Strength 0 (the control) gives B's side A's full edge colour: a symmetric groove (or ridge) along the edge
    that keeps the two fields findable, where the limit strength -> 0 is one uniform field.

    Parameters
    ----------
    job : Job
        The spec, the target colours for the canonical left and right (sRGB 0-255) and the random streams.

    Returns
    -------
    Drawing
        The canonical drawing (sRGB 0-255 pixels, target and context masks, the prediction).

    References
    ----------
    Cornsweet (1970), Visual Perception, Academic Press; O'Brien (1958), J. Opt. Soc. Am. 48(2):112-119.
    """
    size = job.size
    lab0, lab1, _, _ = inducer_pair(job.spec)
    if job.spec.strength == 0:
        lab0 = lab1 = np.asarray(job.spec.resolved_inducers[0], dtype=float)
    _, x = centres(size)
    xs = x[0]
    w = _RAMP * size
    edge = size / 2
    cols = np.empty((size, 3), dtype=np.uint8)
    left_flat, right_flat = xs < edge - w, xs >= edge + w
    cols[left_flat], cols[right_flat] = job.left, job.right
    for _side, target, peak, sel in (
        ("left", job.left, lab0, ~left_flat & (xs < edge)),
        ("right", job.right, lab1, ~right_flat & (xs >= edge)),
    ):
        t_lab = C.srgb255_to_lab(np.asarray(target, dtype=float))
        d = np.abs(xs[sel] - edge)
        k = ((1 - d / w) ** 2)[:, None]
        ramp = rgb8(t_lab + k * (np.asarray(peak) - t_lab))
        step = int(np.sign(float(peak[0]) - float(t_lab[0])))
        for _ in range(3) if step else ():  # either target's exact colour: one level on, toward the peak
            same = np.zeros(len(ramp), dtype=bool)
            for colour in (job.left, job.right):
                same |= np.all(ramp == np.asarray(colour, dtype=np.uint8), axis=1)
            if not same.any():
                break
            ramp[same] = np.clip(ramp[same].astype(int) + step, 0, 255).astype(np.uint8)
        cols[sel] = ramp
    img = np.ascontiguousarray(np.broadcast_to(cols[None, :, :], (size, size, 3)))
    full = np.ones((size, 1), dtype=bool)
    a, b = full & left_flat[None, :], full & right_flat[None, :]
    ramp_l, ramp_r = full & (~left_flat & (xs < edge))[None, :], full & (~right_flat & (xs >= edge))[None, :]
    return Drawing(img, a, b, ramp_l, ramp_r, lighter_of(lab0, lab1, contrast=False))


# --- Chevreul staircase ---------------------------------------------------------------------------------


def draw_chevreul(job: Job) -> Drawing:
    """n = count (odd) vertical bands of equal width, colours stepping linearly in CIELAB from the first
    inducer to the second (both moved toward their midpoint by 1 - strength); the middle band holds the
    targets: A its left half, B its right half.

    Strength 0 (the control) keeps the full steps on A's side and mirrors them onto B's side (a V-shaped
    staircase), so both halves of the middle band have equal neighbours and the bands stay visible, where the
    limit strength -> 0 is one uniform field.

    Parameters
    ----------
    job : Job
        The spec, the target colours for the canonical left and right (sRGB 0-255) and the random streams.

    Returns
    -------
    Drawing
        The canonical drawing (sRGB 0-255 pixels, target and context masks, the prediction).

    References
    ----------
    Chevreul (1839), De la loi du contraste simultané des couleurs; Ratliff (1965), Mach Bands, Holden-Day.
    """
    size, n = job.size, job.spec.resolved_count
    control = job.spec.strength == 0
    lab0, lab1, _, _ = inducer_pair(job.spec, 1.0 if control else None)
    _, x = centres(size)
    band = np.minimum((x[0] * n / size).astype(int), n - 1)
    mid = n // 2
    order = [min(k, n - 1 - k) for k in range(n)] if control else list(range(n))
    steps = rgb8(np.stack([lerp(lab0, lab1, k / (n - 1)) for k in order]))
    cols = steps[band]
    a_cols = (band == mid) & (x[0] < size / 2)
    b_cols = (band == mid) & (x[0] >= size / 2)
    cols[a_cols], cols[b_cols] = job.left, job.right
    img = np.ascontiguousarray(np.broadcast_to(cols[None, :, :], (size, size, 3)))
    full = np.ones((size, 1), dtype=bool)
    labs = C.srgb255_to_lab(steps[[mid - 1, mid + 1]].astype(float))
    return Drawing(
        img,
        full & a_cols[None, :],
        full & b_cols[None, :],
        full & (band == mid - 1)[None, :],
        full & (band == mid + 1)[None, :],
        lighter_of(labs[0], labs[1], contrast=True),
    )


# --- neon colour spreading ------------------------------------------------------------------------------


def draw_neon(job: Job) -> Drawing:
    """A square-celled lattice of lines in each half (count lines across a half, spacing size / (2 count),
    line width 1.2% of the size, at least 1 px); in both halves the segments inside a disc (radius 0.17 x size,
    centred in the half) take the neon colour (lattice colour -> neon colour with strength, CIELAB). In A's
    half the coloured segments continue the dark lines, which is what makes the colour spread over the
    background inside the disc (van Tuijl 1975); in B's half the same coloured segments stop short of the dark
    lines, a gap of 1.5 line widths (at least 2 px) round the disc's edge, and a gap that small abolishes the
    spreading (Bressan et al. 1997, §"Neon color spreading": the effect needs the coloured and dark segments to
    be collinear and continuous). So both halves hold the same coloured ink in the same disc: only A spreads.
    Target A = the background inside A's disc, B = its mirror image; the rest of the background is the
    target's base colour.

    Strength 0 (the control) draws A's continuous neon disc in both halves: equal contexts, both disc-shaped
    areas findable (the geometry kept). The inducer contexts measured are the lattice lines across the gap's
    ring: neon-coloured in A, absent (background) in B.

    Parameters
    ----------
    job : Job
        The spec, the target colours for the canonical left and right (sRGB 0-255) and the random streams.

    Returns
    -------
    Drawing
        The canonical drawing (sRGB 0-255 pixels, target and context masks, the prediction).

    References
    ----------
    van Tuijl (1975), Acta Psychol. 39(6):441-445; Bressan et al. (1997), Psychol. Rev. 104(1):1-22.
    """
    size, spec = job.size, job.spec
    n = spec.resolved_count
    control = spec.strength == 0
    line_lab, neon_full = spec.resolved_inducers
    neon_lab = lerp(line_lab, neon_full, 1.0 if control else spec.strength)
    line, neon, ground = rgb8(line_lab), rgb8(neon_lab), rgb8(spec.resolved_target)
    y, x = centres(size)
    sp = size / (2 * n)
    lw = max(1.0, _LINE * size)
    on_x = np.abs(np.mod(x, sp) - sp / 2) < lw / 2
    on_y = np.abs(np.mod(y, sp) - sp / 2) < lw / 2
    left_half = x < size / 2
    lines = (on_x | on_y) & left_half
    lines = lines | lines[:, ::-1]
    r = _NEON_R * size
    d = disc(size, size / 4, size / 2, r)
    ring = d & ~disc(size, size / 4, size / 2, max(r - max(1.5 * lw, 2.0), 1.0))  # the gap round B's disc
    a = d & ~lines
    b = a[:, ::-1]
    neon_segments = (d & lines) | (d & lines)[:, ::-1]
    gap = np.zeros_like(lines) if control else (ring & lines)[:, ::-1]
    img = compose(lines.view(np.uint8) + neon_segments.view(np.uint8) - 2 * gap.view(np.uint8),
                  np.stack([ground, line, neon]))
    paint(img, a, job.left)
    paint(img, b, job.right)
    target_l = float(C.srgb255_to_lab(ground.astype(float))[0])
    lighter = None
    if abs(float(neon_lab[0]) - target_l) > 1e-6 and spec.strength > 0:
        lighter = "right" if neon_lab[0] < target_l else "left"
    per_target = {"left": {"tint_hue": _hue(neon_lab)}} if spec.strength > 0 else {}
    return Drawing(
        img,
        a,
        b,
        ring & lines,
        (ring & lines)[:, ::-1],
        lighter,
        tint="hue of the neon segments" if per_target else "",
        per_target=per_target,
    )
