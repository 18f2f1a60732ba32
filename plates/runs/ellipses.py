"""``plates ellipses``: thresholds along N directions around centre colours, one QUEST+ per direction, trials
interleaved, and a discrimination ellipse per centre.

Each trial is a plate (`plates.stimuli.ishihara`, the run's style, font and size) whose ground is the centre
colour (8-bit sRGB) and whose figure is the centre moved by the level along the direction; the label comes from
the prompt's label space. Two modes:

* ``"uv"`` (chromatic): N directions evenly spaced in the CIE 1976 u'v' plane (angle 0 = +u'), at the centre's
  luminance Y; the level is the u'v' distance in units of 10⁻³. Thresholds become xy points and an ellipse per
  centre (`plates.analysis.ellipses`).
* ``"lab"``: the six CIELAB directions L*+, L*−, C*+, C*−, h+, h− (D65 2°): lightness, chroma and metric hue
  difference ΔH*ab; the level is in CIELAB units. Thresholds only (no ellipse); the centre needs C*ab >= 1.

The level shown is measured on the dots as drawn (as the drawn ΔE2000 is, `plates.stimuli.ishihara.measure`):
the area-weighted mean of the figure dots in linear light against the ground. With ``dither``, a figure colour
between 8-bit codes is drawn as 16 colours per plate, each channel floor or ceil of the wanted value in the
share that makes its mean the wanted value, one drawn per dot (the plate's colour choice): sub-step levels
exist on average over the figure, and the level shown says what the dots give. Without it the figure is the
wanted colour rounded to 8 bits, and a level under half a step shows nothing.

Per direction: the largest level inside sRGB (``gamut_max``); a level asked beyond it is shown at it, and a
threshold whose upper credible bound reaches it is "gamut-limited" (a lower bound, left out of the ellipse).
A threshold whose upper bound reaches the top of the level range is "range-limited" (also left out).
``code_steps``: the largest channel difference, in 8-bit codes, between the figure at the threshold and the
centre; within one step the threshold is "quantisation-limited".

Trial order: round r asks every (centre, direction) once, in order; a trial's label and plate seed come from
SHA-256(seed, centre, direction, r, attempt), attempt 0 unless an earlier ask of that trial brought no answer
(a failed request, a declined query), which is asked again as attempt 1, 2, ... (item ``centre|direction|rrrr``,
then ``centre|direction|rrrr|attempt``: every ask is its own row).

Resume, as `plates.runs.staircase` does: the run id hashes the run's settings; a rerun reads the run's rows
under ``out``, replays each (centre, direction)'s answered trials in round order into its QUEST+ state
(`AdaptiveState.replay`: the posterior is rebuilt exactly, so the next level asked is the one an unbroken run
would ask), skips the rounds answered and goes on. The run holds its lock (`plates.runs.locks.run_lock`) while
it asks, so two processes never continue the same rows.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from plates.analysis.adaptive import AdaptiveSpec, AdaptiveState
from plates.analysis.ellipses import (
    MACADAM_FACTOR,
    compare_macadam,
    fit_ellipse,
    macadam_centres,
    macadam_ellipses,
)
from plates.analysis.psychometric import prompt_guess_rate
from plates.colour.chromaticity import check_centre, srgb255_to_xyY, uv_to_xy, xy_to_uv, xyY_to_srgb
from plates.colour.spaces import delta_e2000, lab_to_srgb255, srgb255_to_lab
from plates.models import make_backend as registry_make
from plates.models.base import Reply
from plates.results import ResultsWriter, compact_run, load_results
from plates.results.schema import KIND_KEY, SUMMARY_KIND
from plates.runs.experiment import ModelSpec
from plates.runs.locks import run_lock
from plates.runs.rows import Asked, build_row
from plates.stimuli.ishihara.labels import LABEL_SPACES
from plates.stimuli.ishihara.plate import PlateSpec, render
from plates.tasks import task_of
from plates.tasks.prompts import get_prompt, query_for
from plates.validation import check_choice, check_int, check_number

__all__ = ["LAB_DIRECTIONS", "MODES", "Centre", "EllipseResult", "EllipseRun", "parse_centres", "resume_state", "run_ellipses",
           "summarise", "write_summary"]

MODES = ("uv", "lab")
LAB_DIRECTIONS = ("L*+", "L*-", "C*+", "C*-", "h+", "h-")
#: Level ranges per mode: (low, high, threshold grid step): 10⁻³ u'v' or CIELAB units.
LEVELS = {"uv": (0.1, 30.0, 0.1), "lab": (0.1, 40.0, 0.1)}
UNITS = {"uv": "1e-3 u'v'", "lab": "CIELAB"}
MIN_TRIALS = 10
DITHER_COLOURS = 16
_CENTRE = re.compile(r"^\s*([-+0-9.eE]+)\s*,\s*([-+0-9.eE]+)\s*$")
_MAX_FAILURES = 10


@dataclass(frozen=True)
class Centre:
    """A centre: ``name`` ("macadam-13" or "x,y"), the requested CIE 1931 ``x``, ``y`` and luminance ``Y``
    (0-1); ``rgb`` its 8-bit sRGB 0-255 colour (the ground), ``xy_drawn`` and ``Y_drawn`` what that colour is."""

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

    Raises
    ------
    ValueError
        An unparsable centre, one outside the spectral locus or sRGB, a luminance sRGB cannot show, or none.
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
    ``style``, ``font``: the plates; ``macadam_factor``: MacAdam's ellipses are scaled by it beside ours."""

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
        if self.mode == "lab":
            return LAB_DIRECTIONS
        return tuple(f"uv-{360.0 * k / self.directions:05.1f}" for k in range(self.directions))

    def angle(self, k: int) -> float | None:
        """Direction ``k``'s angle in the u'v' plane, degrees from +u' (None in mode "lab")."""
        return 360.0 * k / self.directions if self.mode == "uv" else None

    def figure(self, c: Centre, k: int, level: float) -> np.ndarray:
        """The figure colour at ``level`` along direction ``k``: sRGB 0-255 float, NOT clipped."""
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
        """The level an sRGB 0-255 figure colour shows against the centre (mode's units, >= 0)."""
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
        """The largest level along direction ``k`` whose figure lies in sRGB (bisection to 1e-4 of the range)."""
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
        """The largest channel difference in 8-bit codes between the figure at ``level`` and the centre."""
        return float(np.max(np.abs(self.figure(c, k, level) - np.array(c.rgb, dtype=float))))

    def figure_colours(self, c: Centre, k: int, level: float) -> tuple[tuple[int, int, int], ...]:
        """The figure's 8-bit colours: one (rounded) or, with ``dither``, `DITHER_COLOURS` (module docstring)."""
        want = np.clip(self.figure(c, k, level), 0, 255)
        if not self.dither:
            return (tuple(int(v) for v in np.rint(want)),)
        low = np.floor(want)
        ups = np.rint((want - low) * DITHER_COLOURS).astype(int)
        return tuple(tuple(int(min(255, low[ch] + (i < ups[ch]))) for ch in range(3)) for i in range(DITHER_COLOURS))

    def base_spec(self, c: Centre, figure: tuple[tuple[int, int, int], ...], label: str, seed: int) -> PlateSpec:
        return PlateSpec(text=label, size=self.size, font=self.font, style=self.style, palette=None,
                         foreground=figure, background=(c.rgb,), seed=seed)

    def adaptive_spec(self) -> AdaptiveSpec:
        """QUEST+ over a logistic with the prompt's guess rate (`plates.runs.staircase.Staircase` does the same
        for ΔE2000), levels in the mode's units over `LEVELS`."""
        low, high, step = LEVELS[self.mode]
        guess = prompt_guess_rate(get_prompt(self.prompt))
        return AdaptiveSpec.for_threshold(guess, low=low, high=high, threshold_step=step, max_trials=self.trials)

    def identity(self) -> dict[str, Any]:
        return {"centres": [[c.name, c.x, c.y, c.Y] for c in self.centres], "prompt": self.prompt,
                "model": {"backend": self.model.backend, "model": self.model.model,
                          "max_tokens": self.model.max_tokens, "temperature": self.model.temperature},
                "mode": self.mode, "directions": self.directions, "trials": self.trials, "seed": self.seed,
                "size": self.size, "style": self.style, "font": self.font, "dither": self.dither}

    @property
    def run_id(self) -> str:
        digest = hashlib.sha256(json.dumps(self.identity(), sort_keys=True).encode()).hexdigest()[:12]
        return f"ellipses-{digest}"


@dataclass
class EllipseResult:
    """What a run did: its ``thresholds`` (one row per centre x direction) and ``ellipses`` (one per centre,
    mode "uv"; empty in mode "lab") as lists of dicts, queries, errors, seconds, where the files are."""

    run_id: str
    out: str
    thresholds: list[dict[str, Any]]
    ellipses: list[dict[str, Any]]
    queries: int
    errors: int
    seconds: float


def _trial_seed(run: EllipseRun, ci: int, k: int, r: int, attempt: int = 0) -> tuple[int, int]:
    tail = f"\x1f{r}" if attempt == 0 else f"\x1f{r}\x1f{attempt}"
    digest = hashlib.sha256(f"{run.seed}\x1fellipses\x1f{ci}\x1f{k}{tail}".encode()).digest()
    return int.from_bytes(digest[:8], "big"), int.from_bytes(digest[8:16], "big") >> 1


def _shown_level(run: EllipseRun, c: Centre, k: int, plate: Any) -> tuple[float, float]:
    """(The level the figure dots show, its ΔE2000): their area-weighted mean in linear light, re-encoded as
    sRGB 0-255, against the ground."""
    fg = plate.is_fg
    if not fg.any():
        return 0.0, 0.0
    dots = plate.dot_colours[fg].astype(float)
    if (dots == dots[0]).all():  # one colour: itself (the linear-light round trip would leave ~1e-13)
        enc = dots[0]
    else:
        rgb = dots / 255.0
        lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
        mean = (lin * (plate.r[fg] ** 2)[:, None]).sum(0) / (plate.r[fg] ** 2).sum()
        enc = np.where(mean <= 0.0031308, 12.92 * mean, 1.055 * mean ** (1 / 2.4) - 0.055) * 255.0
    return run.shown(c, k, enc), float(delta_e2000(enc, np.array(c.rgb, dtype=float)))


def _item_id(run: EllipseRun, c: Centre, k: int, r: int, attempt: int) -> str:
    base = f"{c.name}|{run.direction_names[k]}|{r:04d}"
    return base if attempt == 0 else f"{base}|{attempt}"


def _answer(row: Mapping[str, Any]) -> int | None:
    """The answer code a trial row gives QUEST+ (1 correct, 0 wrong; an unparsed reply is wrong, as the task
    scores it), or None when it is no answer (a failed request, a declined query)."""
    correct = row.get("correct")
    if row.get("parse_status") in ("error", "unsupported") or correct is None or (
            isinstance(correct, float) and math.isnan(correct)):
        return None
    return int(bool(correct))


def resume_state(run: EllipseRun, spec: AdaptiveSpec) -> tuple[dict[tuple[int, int], AdaptiveState],
                                                              dict[tuple[int, int, int], int]]:
    """What the rows of ``run`` already under ``run.out`` say (module docstring, Resume): (every (centre,
    direction)'s QUEST+ state with its answered trials replayed in round order, the asks so far per (centre,
    direction, round)).

    Raises
    ------
    ValueError
        A row of this run names a centre or direction the run does not have (its rows were not written by
        these settings).
    """
    out = Path(run.out)
    files = sorted(out.glob(f"{run.run_id}-*.parquet")) if out.is_dir() else []
    frame = load_results(files, columns=["run_id", "item_id", "level_shown", "correct", "parse_status"]).frame \
        if files else None
    keys = {(c.name, name): (ci, k) for ci, c in enumerate(run.centres) for k, name in enumerate(run.direction_names)}
    asks: dict[tuple[int, int, int], list[tuple[int, float, int | None]]] = {}
    rows = [] if frame is None else frame[frame["run_id"] == run.run_id].to_dict("records")
    for row in rows:
        parts = str(row["item_id"]).split("|")
        if len(parts) not in (3, 4) or (parts[0], parts[1]) not in keys or not parts[2].isdigit() or (
                len(parts) == 4 and not parts[3].isdigit()):
            raise ValueError(f"row {row['item_id']!r} of run {run.run_id} in {out} is not one of this run's trials; "
                             "allowed: 'centre|direction|round[|attempt]' with this run's centres and directions")
        ci, k = keys[(parts[0], parts[1])]
        attempt = int(parts[3]) if len(parts) == 4 else 0
        asks.setdefault((ci, k, int(parts[2])), []).append((attempt, float(row["level_shown"]), _answer(row)))
    states = {key: AdaptiveState.start(spec) for key in keys.values()}
    history: dict[tuple[int, int], list[tuple[float, int]]] = {key: [] for key in keys.values()}
    counts = {}
    for (ci, k, r), tries in sorted(asks.items()):
        tries.sort()
        counts[(ci, k, r)] = len(tries)
        history[(ci, k)] += [(level, code) for _, level, code in tries if code is not None]
    for key, pairs in history.items():
        states[key] = AdaptiveState.replay(spec, pairs)
    return states, counts


def _answered(states: Mapping[tuple[int, int], AdaptiveState], key: tuple[int, int], r: int) -> bool:
    """Round ``r`` of ``key`` has its answer (rounds are answered in order, one answer each)."""
    return len(states[key].history) > r


def run_ellipses(run: EllipseRun, *, make_backend: Callable[..., Any] | None = None,
                 on_trial: Callable[[str, str, int, float, dict], None] | None = None) -> EllipseResult:
    """Run (or continue: module docstring, Resume) every staircase of ``run`` to its trials, write the rows,
    DIR/thresholds.parquet and (mode "uv") DIR/ellipses.parquet; ``on_trial(centre, direction, round,
    level_shown, row)`` reports progress. ``queries`` and ``errors`` count this call's asks."""
    t0 = time.monotonic()
    out = Path(run.out)
    out.mkdir(parents=True, exist_ok=True)
    with run_lock(out, run.run_id):
        states, queries, errors = _ask_all(run, out, make_backend, on_trial)
    compact_run(out, run.run_id)
    thresholds, ellipses = summarise(run, states, _gamut(run), backend_name=run.model.backend)
    write_summary(thresholds, out / "thresholds.parquet")
    if run.mode == "uv":
        write_summary(ellipses, out / "ellipses.parquet")
    return EllipseResult(run.run_id, str(out), thresholds, ellipses, queries, errors, time.monotonic() - t0)


def _gamut(run: EllipseRun) -> dict[tuple[int, int], float]:
    return {(ci, k): run.gamut_max(c, k) for ci, c in enumerate(run.centres) for k in range(len(run.direction_names))}


def _ask_all(run: EllipseRun, out: Path, make_backend: Callable[..., Any] | None,
             on_trial: Callable[[str, str, int, float, dict], None] | None,
             ) -> tuple[dict[tuple[int, int], AdaptiveState], int, int]:
    """Ask every trial not yet answered (module docstring); (the final states, asks made, error rows)."""
    spec = run.adaptive_spec()
    template = get_prompt(run.prompt)
    labels = LABEL_SPACES[template.label_space]
    names = run.direction_names
    gamut = _gamut(run)
    states, counts = resume_state(run, spec)
    if all(_answered(states, key, r) for key in states for r in range(run.trials)):
        return states, 0, 0
    m = run.model
    backend = (make_backend or registry_make)(m.backend, model=m.model, **m.options)
    writer = ResultsWriter(out, run.run_id, flush_rows=64, flush_seconds=1.0)
    queries = errors = failures = 0
    try:
        for r in range(run.trials):
            for (ci, k), state in list(states.items()):
                if _answered(states, (ci, k), r):
                    continue
                c = run.centres[ci]
                attempt = counts.get((ci, k, r), 0)
                while True:
                    level = min(float(state.next_level()), gamut[(ci, k)])
                    label_pick, seed = _trial_seed(run, ci, k, r, attempt)
                    plate_spec = run.base_spec(c, run.figure_colours(c, k, level), labels[label_pick % len(labels)],
                                               seed)
                    plate = render(plate_spec)
                    shown, delta_e = _shown_level(run, c, k, plate)
                    question = task_of(template).question(plate.truth, template, seed=seed)
                    image = plate.variant(template.variant)
                    query = query_for(question, image, max_tokens=m.max_tokens, temperature=m.temperature)
                    (_, reply), = list(backend.ask([query]))
                    row = _row(run, c, k, (r, attempt), level, (shown, delta_e), plate_spec, question, image, reply)
                    writer.add(row)
                    queries += 1
                    attempt += 1
                    errors += row["parse_status"] == "error"
                    if on_trial is not None:
                        on_trial(c.name, names[k], r, shown, row)
                    code = _answer(row)
                    if code is None:
                        failures += 1
                        if failures >= _MAX_FAILURES:
                            raise ValueError(f"{failures} trials in a row brought no answer (last: parse status "
                                             f"{row['parse_status']!r}, {row['error'] or 'no error text'}); the "
                                             f"rows so far are in {out}; fix the cause and rerun to continue")
                        continue
                    failures = 0
                    states[(ci, k)] = state.update(shown, code)
                    break
    finally:
        writer.close()
        backend.close()
    return states, queries, errors


def write_summary(rows: list[dict[str, Any]], path: Path) -> None:
    """Write a summary table (thresholds or ellipses) as Parquet marked `SUMMARY_KIND` in its schema metadata,
    so the results readers leave it out (it sits beside the run's parts, and shares some column names)."""
    table = pa.Table.from_pylist(rows)
    pq.write_table(table.replace_schema_metadata({KIND_KEY: SUMMARY_KIND}), path)


def _row(run: EllipseRun, c: Centre, k: int, trial: tuple[int, int], level: float, drawn: tuple[float, float],
         spec: PlateSpec, question: Any, image: Any, reply: Reply) -> dict[str, Any]:
    """The results row of one trial (`plates.runs.rows.build_row`) with the ellipse columns; ``delta_e`` is the
    ΔE2000 of the figure dots' mean against the ground, ``drawn`` (level shown, that ΔE2000), ``trial`` (round,
    attempt)."""
    shown, delta_e = drawn
    item_id = _item_id(run, c, k, *trial)
    asked = Asked(run_id=run.run_id, row_key=hashlib.sha256(f"{run.run_id}|{item_id}".encode()).hexdigest()[:20],
                  item_id=item_id, dataset="ellipses", model=run.model.model, backend=run.model.backend,
                  question=question, spec_json=spec.to_json(), family="ishihara",
                  variant=get_prompt(run.prompt).variant, colour_set=f"ellipse-{run.mode}",
                  delta_e=delta_e,
                  font=spec.font, size=int(image.size[0]))
    row = build_row(asked, reply)
    row.update({"centre_x": c.xy_drawn[0], "centre_y": c.xy_drawn[1], "direction": run.direction_names[k],
                "direction_deg": run.angle(k), "level": float(level), "level_shown": float(shown),
                "level_unit": UNITS[run.mode], "code_steps": run.code_steps(c, k, level)})
    return row


def summarise(run: EllipseRun, states: Mapping[tuple[int, int], AdaptiveState], gamut: Mapping[tuple[int, int], float],
              *, backend_name: str, draws: int = 400) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Per-direction thresholds and, in mode "uv", per-centre ellipses (`plates.analysis.ellipses.fit_ellipse`)
    from the final QUEST+ states."""
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence((run.seed, 0xE11))))
    grid = np.asarray(run.adaptive_spec().thresholds)
    thresholds, ellipses = [], []
    for ci, c in enumerate(run.centres):
        angles, radii, sds, samples = [], [], [], []
        statuses = [states[(ci, k)].estimate(check=True).status for k in range(len(run.direction_names))]
        for k, name in enumerate(run.direction_names):
            state = states[(ci, k)]
            e = state.estimate(check=True)
            steps = run.code_steps(c, k, e.threshold)
            gmax = gamut[(ci, k)]
            gamut_limited = e.ci_high >= gmax - 1e-9
            range_limited = not gamut_limited and e.ci_high >= LEVELS[run.mode][1] - LEVELS[run.mode][2]
            flags = [f for f, on in (("quantisation-limited", steps <= 1.0), ("gamut-limited", gamut_limited),
                                     ("range-limited", range_limited)) if on]
            thresholds.append({"run_id": run.run_id, "model": run.model.model, "backend": backend_name,
                               "centre": c.name, "centre_x": c.xy_drawn[0], "centre_y": c.xy_drawn[1],
                               "centre_Y": c.Y_drawn, "mode": run.mode, "direction": name,
                               "direction_deg": run.angle(k), "unit": UNITS[run.mode], "threshold": e.threshold,
                               "ci_low": e.ci_low, "ci_high": e.ci_high, "gamut_max": gmax, "code_steps": steps,
                               "limits": ",".join(flags), "trials": e.trials, "status": e.status,
                               "message": e.message})
            if run.mode != "uv" or gamut_limited or range_limited:
                continue
            marginal = state.posterior.sum(axis=(1, 2, 3))
            draw = rng.choice(grid, size=draws, p=marginal / marginal.sum())
            uv0 = xy_to_uv(c.xy_drawn)
            unit = _shown_unit(run, c, k, e.threshold, uv0)
            pts = uv_to_xy(uv0 + np.outer(np.append(draw, e.threshold), unit) / 1000.0) - np.array(c.xy_drawn)
            ang = math.atan2(pts[-1, 1], pts[-1, 0])
            rad = np.hypot(pts[:, 0], pts[:, 1])
            scale = rad[-1] / max(e.threshold, 1e-12)  # xy per level unit along this direction
            angles.append(ang)
            radii.append(rad[-1])
            sds.append(scale * (e.ci_high - e.ci_low) / 3.92)
            samples.append(rad[:-1])
        if run.mode != "uv":
            continue
        fit = fit_ellipse(angles, radii, sds, np.array(samples).T if samples else None, statuses)
        trials = sum(states[(ci, k)].estimate().trials for k in range(len(run.direction_names)))
        row = {"run_id": run.run_id, "model": run.model.model, "backend": backend_name, "centre": c.name,
               "centre_x": c.xy_drawn[0], "centre_y": c.xy_drawn[1], "centre_Y": c.Y_drawn,
               "a": fit.ellipse.a if fit.ellipse else float("nan"),
               "b": fit.ellipse.b if fit.ellipse else float("nan"),
               "theta_deg": fit.ellipse.theta_deg if fit.ellipse else float("nan"),
               "area": fit.ellipse.area if fit.ellipse else float("nan"),
               "a_low": fit.a_ci[0], "a_high": fit.a_ci[1], "b_low": fit.b_ci[0], "b_high": fit.b_ci[1],
               "theta_low": fit.theta_ci[0], "theta_high": fit.theta_ci[1], "area_low": fit.area_ci[0],
               "area_high": fit.area_ci[1], "directions_used": fit.points, "trials": trials,
               "fit_p": fit.fit_p, "fit_rms_rel": fit.fit_rms_rel, "status": fit.status, "message": fit.message}
        row.update(_macadam(fit.ellipse, c.name, run.macadam_factor))
        ellipses.append(row)
    return thresholds, ellipses


def _shown_unit(run: EllipseRun, c: Centre, k: int, level: float, uv0: np.ndarray) -> np.ndarray:
    """The u'v' direction the figure at ``level`` shows from the centre: its 8-bit colours (the mean of the
    dithered ones in linear light) rather than the direction asked. Rounding to 8 bits turns the figure off
    its direction by several degrees at levels of a few code steps, while the procedure's level is the distance
    shown; placing that distance on the asked direction turned the fitted ellipses by +4 to +7° in
    bench/bench_ellipses.py. When the figure rounds to the centre itself the direction asked is used (nothing
    was shown to measure one from)."""
    colours = np.asarray(run.figure_colours(c, k, level), dtype=float) / 255.0
    linear = np.where(colours <= 0.04045, colours / 12.92, ((colours + 0.055) / 1.055) ** 2.4).mean(axis=0)
    encoded = np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * linear ** (1 / 2.4) - 0.055) * 255.0
    step = xy_to_uv(srgb255_to_xyY(encoded)[0]) - uv0
    norm = float(np.hypot(*step))
    if norm < 1e-9:
        t = math.radians(run.angle(k))
        return np.array([math.cos(t), math.sin(t)])
    return step / norm


def _macadam(ellipse: Any, name: str, factor: float) -> dict[str, float]:
    keys = ("macadam_a", "macadam_b", "macadam_theta_deg", "macadam_factor", "area_ratio", "axis_ratio",
            "theta_diff_deg")
    if ellipse is None or not name.startswith("macadam-"):
        return dict.fromkeys(keys, float("nan"))
    return compare_macadam(ellipse, name, factor)
