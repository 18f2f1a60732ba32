"""What an ellipse run is (`plates.runs.ellipses` runs it): its centres, directions, levels and plates.

`Centre` is a centre colour as drawn (8-bit sRGB 0-255 ground), `parse_centres` reads ``--centres``, and
`EllipseRun` is the frozen, validated run: the directions (mode "uv": N evenly spaced in CIE 1976 u'v' at the
centre's luminance, the level in 10⁻³ u'v'; mode "lab": CIELAB L*, C*ab and metric hue, in CIELAB units), the
figure colour at a level (rounded, or dithered over `DITHER_COLOURS` colours), the gamut limit per direction, the
code steps a level spans, the QUEST+ specification and the run id. The procedure, its flags and its resume rule
are in `plates.runs.ellipses`'s docstring; the trial (`plates.runs.ellipse_trials`) and the fit
(`plates.runs.ellipse_summary`) read these definitions and keep none of their own.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from plates.analysis.adaptive import AdaptiveSpec
from plates.analysis.ellipses import MACADAM_FACTOR, macadam_centres, macadam_ellipses
from plates.analysis.psychometric import prompt_guess_rate
from plates.colour.chromaticity import check_centre, srgb255_to_xyY, uv_to_xy, xy_to_uv, xyY_to_srgb
from plates.colour.spaces import lab_to_srgb255, srgb255_to_lab
from plates.runs.experiment import ModelSpec
from plates.stimuli.ishihara.labels import LABEL_SPACES
from plates.stimuli.ishihara.plate import PlateSpec
from plates.tasks import task_of
from plates.tasks.prompts import get_prompt
from plates.validation import check_choice, check_int, check_number

__all__ = ["DITHER_COLOURS", "LAB_DIRECTIONS", "LEVELS", "MIN_TRIALS", "MODES", "UNITS", "Centre", "EllipseRun",
           "parse_centres"]

MODES = ("uv", "lab")
LAB_DIRECTIONS = ("L*+", "L*-", "C*+", "C*-", "h+", "h-")
#: Level ranges per mode: (low, high, threshold grid step): 10⁻³ u'v' or CIELAB units.
LEVELS = {"uv": (0.1, 30.0, 0.1), "lab": (0.1, 40.0, 0.1)}
UNITS = {"uv": "1e-3 u'v'", "lab": "CIELAB"}
MIN_TRIALS = 10
DITHER_COLOURS = 16
_CENTRE = re.compile(r"^\s*([-+0-9.eE]+)\s*,\s*([-+0-9.eE]+)\s*$")


@dataclass(frozen=True)
class Centre:
    """A centre: ``name`` ("macadam-13" or "x,y"), the requested CIE 1931 ``x``, ``y`` and luminance ``Y``
    (0-1); ``rgb`` its 8-bit sRGB 0-255 colour (the ground), ``xy_drawn`` and ``Y_drawn`` what that colour is.

    Parameters
    ----------
    name : str
        "macadam-13" or "x,y".
    x, y : float
        The requested CIE 1931 chromaticity.
    Y : float
        The requested luminance, 0-1.

    Attributes
    ----------
    rgb : tuple of 3 int
        The 8-bit sRGB 0-255 colour drawn (the ground).
    xy_drawn : (float, float)
        Its CIE 1931 xy.
    Y_drawn : float
        Its luminance, 0-1.
    """

    name: str
    x: float
    y: float
    Y: float
    rgb: tuple[int, int, int] = field(init=False)
    xy_drawn: tuple[float, float] = field(init=False)
    Y_drawn: float = field(init=False)

    def __post_init__(self) -> None:
        rgb = np.clip(np.rint(xyY_to_srgb([self.x, self.y], self.Y) * 255), 0, 255).astype(int)
        xy, Y = srgb255_to_xyY(rgb.astype(float))
        object.__setattr__(self, "rgb", tuple(int(c) for c in rgb))
        object.__setattr__(self, "xy_drawn", (float(xy[0]), float(xy[1])))
        object.__setattr__(self, "Y_drawn", float(Y))


def parse_centres(text: str, luminance: float | None = None) -> tuple[list[Centre], list[str]]:
    """``"macadam"`` or ``"x,y;macadam-13;..."`` -> (centres, skipped names); a centre at one of MacAdam's (within
    5e-4 in x and y) takes its name, so its ellipse is compared with his. ``luminance``: Y 0-1 for every centre, or
    None for half the largest in-gamut Y at each (`plates.colour.chromaticity.check_centre`).

    Parameters
    ----------
    text : str
        ``"macadam"`` or ``;``-separated centres (``x,y`` or ``macadam-N``).
    luminance : float or None, optional
        Y 0-1 for every centre, or None.

    Returns
    -------
    (list of Centre, list of str)
        The centres, and the names skipped.

    Raises
    ------
    ValueError
        An unparsable centre, one outside the spectral locus or sRGB, a luminance sRGB cannot show, or none.

    References
    ----------
    MacAdam (1942), "Visual sensitivities to color differences in daylight", JOSA 32(5):247-274 (the 25 centres).
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"centres {text!r} is not valid; allowed: 'macadam' or 'x,y;x,y...' (CIE 1931 xy)")
    if text.strip().lower() == "macadam":
        used, skipped = macadam_centres()
        return [Centre(n, x, y, check_centre([x, y], luminance)) for n, x, y in used], skipped
    table = macadam_ellipses()
    names = [str(n) for n in table["name"]]
    centres = []
    for part in text.split(";"):
        if part.strip() in names:  # a MacAdam centre by name
            i = names.index(part.strip())
            x, y = float(table["x"][i]), float(table["y"][i])
        else:
            m = _CENTRE.match(part)
            if not m:
                raise ValueError(f"centre {part!r} is not valid; allowed: 'x,y' with two numbers (CIE 1931 xy) or "
                                 "a MacAdam centre's name (macadam-01..macadam-25), separated by ';', or 'macadam'")
            x, y = float(m.group(1)), float(m.group(2))
        at = [n for n, mx, my in zip(names, table["x"], table["y"], strict=True)
              if abs(mx - x) < 5e-4 and abs(my - y) < 5e-4]  # MacAdam's own centre: named, so compared
        centres.append(Centre(at[0] if at else f"{x:g},{y:g}", x, y, check_centre([x, y], luminance)))
    return centres, []


@dataclass(frozen=True)
class EllipseRun:
    """A validated ellipse run (module docstring). ``trials``: answers per direction (>= `MIN_TRIALS`);
    ``directions``: N for mode "uv" (3, or 5 and more: a centred ellipse needs three distinct axes); ``size``,
    ``style``, ``font``: the plates; ``macadam_factor``: MacAdam's ellipses are scaled by it beside ours.

    Parameters
    ----------
    centres : tuple of Centre
        The centres (at least one).
    model : ModelSpec
        The observer.
    prompt : str, optional
        A plate prompt with a label space.
    mode : str, optional
        "uv" (directions in the CIE 1976 u'v' plane) or "lab" (`LAB_DIRECTIONS`).
    directions : int, optional
        N for mode "uv": 3, or 5 to 72.
    trials : int, optional
        Answers per direction (>= `MIN_TRIALS`).
    seed : int, optional
        Seeds every trial's plate.
    size : int, optional
        The plates' side, px.
    style, font : str, optional
        The plates' style and font.
    dither : bool, optional
        Draw a figure colour between 8-bit codes as `DITHER_COLOURS` colours whose mean is the wanted value.
    out : str, optional
        The results folder.
    skipped : tuple of str, optional
        Centres left out when parsing (recorded).
    macadam_factor : float, optional
        MacAdam's ellipses are scaled by it beside ours.

    Raises
    ------
    ValueError
        For an unknown mode, no centres, directions or trials out of range, a prompt that cannot drive the run,
        or a size, style or font the plates refuse.
    """

    centres: tuple[Centre, ...]
    model: ModelSpec
    prompt: str = "huemanity-numeric"
    mode: str = "uv"
    directions: int = 8
    trials: int = 30
    seed: int = 0
    size: int = 512
    style: str = "dense"
    font: str = "dejavu-sans-bold-oblique"
    dither: bool = False
    out: str = "results/runs/ellipses"
    skipped: tuple[str, ...] = ()
    macadam_factor: float = MACADAM_FACTOR

    def __post_init__(self) -> None:
        check_choice("mode", self.mode, MODES)
        if not self.centres:
            raise ValueError("no centres; allowed: 'macadam' or one or more 'x,y' inside sRGB")
        if self.mode == "uv":
            why = " (a centred ellipse needs three distinct axes; 4 directions give two)"
            if check_int("directions", self.directions, 3, 72, note=" but 4" + why) == 4:
                raise ValueError(f"directions=4 is not allowed; allowed: 3 or 5-72{why}")
        elif self.directions not in (len(LAB_DIRECTIONS), 8):  # 8: the uv default left as it is
            raise ValueError(f"directions={self.directions!r} is not allowed in mode 'lab'; allowed: "
                             f"{len(LAB_DIRECTIONS)} ({', '.join(LAB_DIRECTIONS)})")
        check_int("trials", self.trials, MIN_TRIALS, 2000, note=" per direction (fewer answers cannot place a "
                  "threshold)")
        check_number("seed", self.seed, 0, 2**63 - 1, integer=True)
        template = get_prompt(self.prompt)
        if task_of(template).family != "ishihara" or not LABEL_SPACES.get(template.label_space):
            raise ValueError(f"prompt {self.prompt!r} cannot drive an ellipse run; allowed: a plate prompt with a "
                             "finite label space (e.g. huemanity-numeric, cbe-open)")
        check_number("macadam_factor", self.macadam_factor, 1e-3, 100.0)
        if self.mode == "lab":
            for c in self.centres:
                chroma = float(np.hypot(*srgb255_to_lab(c.rgb)[1:]))
                if chroma < 1.0:
                    raise ValueError(f"centre {c.name} has C*ab {chroma:.2f}: hue and chroma directions are "
                                     "undefined; allowed in mode 'lab': centres with C*ab >= 1")
        self.base_spec(self.centres[0], (self.centres[0].rgb,), "12", 0)  # a bad size/style/font fails now

    @property
    def direction_names(self) -> tuple[str, ...]:
        """The directions' names, in index order: `LAB_DIRECTIONS` in mode "lab", else ``uv-DDD.D`` (the angle in
        degrees from +u', zero-padded to one decimal) for each of the ``directions`` in mode "uv".

        Returns
        -------
        tuple of str
            One name per direction index ``k``.
        """
        if self.mode == "lab":
            return LAB_DIRECTIONS
        return tuple(f"uv-{360.0 * k / self.directions:05.1f}" for k in range(self.directions))

    def angle(self, k: int) -> float | None:
        """Direction ``k``'s angle in the u'v' plane, degrees from +u' (None in mode "lab").

        Parameters
        ----------
        k : int
            The direction's index.

        Returns
        -------
        float or None
            Degrees.
        """
        return 360.0 * k / self.directions if self.mode == "uv" else None

    def figure(self, c: Centre, k: int, level: float) -> np.ndarray:
        """The figure colour at ``level`` along direction ``k``: sRGB 0-255 float, NOT clipped.

        Parameters
        ----------
        c : Centre
            The centre.
        k : int
            The direction's index.
        level : float
            In the mode's units.

        Returns
        -------
        numpy.ndarray of float, shape (3,)
            sRGB 0-255.
        """
        if self.mode == "uv":
            t = math.radians(self.angle(k))
            uv = xy_to_uv(c.xy_drawn) + level / 1000.0 * np.array([math.cos(t), math.sin(t)])
            return xyY_to_srgb(uv_to_xy(uv), c.Y_drawn) * 255.0
        lab = srgb255_to_lab(c.rgb)
        chroma = float(np.hypot(lab[1], lab[2]))
        axis = {"L": np.array([1.0, 0, 0]), "C": np.array([0, lab[1], lab[2]]) / chroma,
                "h": np.array([0, -lab[2], lab[1]]) / chroma}[LAB_DIRECTIONS[k][0]]
        sign = 1.0 if LAB_DIRECTIONS[k].endswith("+") else -1.0
        return lab_to_srgb255(lab + sign * level * axis)

    def shown(self, c: Centre, k: int, figure_rgb: np.ndarray) -> float:
        """The level an sRGB 0-255 figure colour shows against the centre (mode's units, >= 0).

        Parameters
        ----------
        c : Centre
            The centre.
        k : int
            The direction's index.
        figure_rgb : numpy.ndarray, shape (3,)
            sRGB 0-255.

        Returns
        -------
        float
            The level.
        """
        if self.mode == "uv":
            xy, _ = srgb255_to_xyY(np.asarray(figure_rgb, dtype=float))
            return float(1000.0 * np.linalg.norm(xy_to_uv(xy) - xy_to_uv(c.xy_drawn)))
        lab0, lab1 = srgb255_to_lab(c.rgb), srgb255_to_lab(figure_rgb)
        kind = LAB_DIRECTIONS[k][0]
        if kind == "L":
            return float(abs(lab1[0] - lab0[0]))
        c0, c1 = float(np.hypot(*lab0[1:])), float(np.hypot(*lab1[1:]))
        if kind == "C":
            return abs(c1 - c0)
        dh = math.atan2(lab1[2], lab1[1]) - math.atan2(lab0[2], lab0[1])
        return float(abs(2 * math.sqrt(c0 * c1) * math.sin(dh / 2)))

    def gamut_max(self, c: Centre, k: int) -> float:
        """The largest level along direction ``k`` whose figure lies in sRGB (bisection to 1e-4 of the range).

        Parameters
        ----------
        c : Centre
            The centre.
        k : int
            The direction's index.

        Returns
        -------
        float
            The level.
        """
        high = LEVELS[self.mode][1]

        def inside(level: float) -> bool:
            rgb = self.figure(c, k, level)
            return bool(np.all((rgb >= -1e-6) & (rgb <= 255 + 1e-6)))
        if inside(high):
            return high
        lo, hi = 0.0, high
        while hi - lo > 1e-4 * high:
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if inside(mid) else (lo, mid)
        return lo

    def code_steps(self, c: Centre, k: int, level: float) -> float:
        """The largest channel difference in 8-bit codes between the figure at ``level`` and the centre.

        Parameters
        ----------
        c : Centre
            The centre.
        k : int
            The direction's index.
        level : float
            In the mode's units.

        Returns
        -------
        float
            8-bit codes.
        """
        return float(np.max(np.abs(self.figure(c, k, level) - np.array(c.rgb, dtype=float))))

    def figure_colours(self, c: Centre, k: int, level: float) -> tuple[tuple[int, int, int], ...]:
        """The figure's 8-bit colours: one (rounded) or, with ``dither``, `DITHER_COLOURS` (module docstring).

        Parameters
        ----------
        c : Centre
            The centre.
        k : int
            The direction's index.
        level : float
            In the mode's units.

        Returns
        -------
        tuple of (tuple of 3 int)
            sRGB 0-255.
        """
        want = np.clip(self.figure(c, k, level), 0, 255)
        if not self.dither:
            return (tuple(int(v) for v in np.rint(want)),)
        low = np.floor(want)
        ups = np.rint((want - low) * DITHER_COLOURS).astype(int)
        return tuple(tuple(int(min(255, low[ch] + (i < ups[ch]))) for ch in range(3)) for i in range(DITHER_COLOURS))

    def base_spec(self, c: Centre, figure: tuple[tuple[int, int, int], ...], label: str, seed: int) -> PlateSpec:
        """The plate of one trial: ``label`` drawn in the ``figure`` colours on the centre's colour, at the run's
        size, font and style, with no palette.

        Parameters
        ----------
        c : Centre
            The centre; its ``rgb`` (sRGB 0-255) is the one background colour.
        figure : tuple of (tuple of 3 int)
            The figure's colours, sRGB 0-255 (`figure_colours`).
        label : str
            The text the figure shows.
        seed : int
            The plate's layout seed.

        Returns
        -------
        PlateSpec
            The spec, validated by `PlateSpec` itself.
        """
        return PlateSpec(text=label, size=self.size, font=self.font, style=self.style, palette=None,
                         foreground=figure, background=(c.rgb,), seed=seed)

    def adaptive_spec(self) -> AdaptiveSpec:
        """QUEST+ over a logistic with the prompt's guess rate (`plates.runs.staircase.Staircase` does the same
        for ΔE2000), levels in the mode's units over `LEVELS`."""
        low, high, step = LEVELS[self.mode]
        guess = prompt_guess_rate(get_prompt(self.prompt))
        return AdaptiveSpec.for_threshold(guess, low=low, high=high, threshold_step=step, max_trials=self.trials)

    def identity(self) -> dict[str, Any]:
        """The settings that make the run what it is, as JSON-ready values: the centres (name, requested x, y, Y),
        prompt, model (backend, model, max_tokens, temperature), mode, directions, trials, seed, size, style,
        font and dither. ``out``, ``skipped`` and ``macadam_factor`` are not in it.

        Returns
        -------
        dict
            The identity; `run_id` hashes it.
        """
        return {"centres": [[c.name, c.x, c.y, c.Y] for c in self.centres], "prompt": self.prompt,
                "model": {"backend": self.model.backend, "model": self.model.model,
                          "max_tokens": self.model.max_tokens, "temperature": self.model.temperature},
                "mode": self.mode, "directions": self.directions, "trials": self.trials, "seed": self.seed,
                "size": self.size, "style": self.style, "font": self.font, "dither": self.dither}

    @property
    def run_id(self) -> str:
        """``ellipses-`` and the first 12 hex digits of SHA-256 over `identity` as sorted-key JSON: the same
        settings give the same id, so a run resumes from its rows (`plates.runs.ellipses`, Resume).

        Returns
        -------
        str
            The run id.
        """
        digest = hashlib.sha256(json.dumps(self.identity(), sort_keys=True).encode()).hexdigest()[:12]
        return f"ellipses-{digest}"


