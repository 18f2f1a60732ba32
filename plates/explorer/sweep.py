"""The live plate explorer's ΔE2000 sweep, apart from any widget: the values asked, the plates drawn for them
(a value the colours cannot reach is named, not drawn), the asking as a generator of scored rows
(`plates.explorer.models.ask_many`), the page's batched updates, and the verdict panel and raw replies.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from plates.colour import delta_e2000
from plates.explorer.models import Ask, ask_many
from plates.explorer.policy import Policy
from plates.models import Backend
from plates.stimuli.ishihara.directions import DIRECTION_MODES, with_direction
from plates.stimuli.ishihara.plate import PlateSpec

#: The sweep's default range and points (CIELAB ΔE2000 units): wide, from below the smallest thresholds the
#: bundled reader and people reach on the default plate (about 0.2-3) to well above; asked as a coarse pass
#: (`COARSE_POINTS` by ratio), then refined inside the bracket where the plate shown turns readable.
SWEEP_DEFAULT = (0.25, 16.0, 8)
#: A range wider than this ratio (high / low) is spaced by ratio (geometrically): a coarse pass that brackets
#: a threshold; a narrower one evenly: a fine pass around it.
LOG_SPACING_RATIO = 20.0
#: A wide range (over `LOG_SPACING_RATIO`) is first asked at this many points spaced by ratio (the coarse
#: pass); the rest of the points then fill the bracket where the answers turn right (`bracket`, `fine_values`).
COARSE_POINTS = 4


def sweep_values(low: float, high: float, points: int, policy: Policy) -> list[float]:
    """The ΔE2000 values a sweep asks, within the policy's cap.

    Spaced by ratio when ``high / low`` exceeds `LOG_SPACING_RATIO` (a coarse pass: as many points from 0.25
    to 1
    as from 4 to 16), else evenly (a fine pass).

    Parameters
    ----------
    low, high : float
        The range's ends, CIEDE2000 (CIELAB ΔE2000 units), 0 < low < high.
    points : int
        How many values, 2 to ``policy.max_sweep_points``.
    policy : Policy
        This server's limits.

    Returns
    -------
    list of float
        The values, rounded to 3 places, ascending.

    Raises
    ------
    ValueError
        When ``points`` or the range is not allowed (the message says what is).

    Examples
    --------
    >>> sweep_values(0.25, 16, 4, Policy()), sweep_values(2, 20, 4, Policy())
    ([0.25, 1.0, 4.0, 16.0], [2.0, 8.0, 14.0, 20.0])
    """
    if not 2 <= int(points) <= policy.max_sweep_points:
        raise ValueError(f"sweep of {points} points is not allowed; allowed: 2-{policy.max_sweep_points}")
    if not 0 < low < high:
        raise ValueError(f"ΔE2000 range {low}-{high} is not allowed; allowed: 0 < low < high")
    space = np.geomspace if high / low > LOG_SPACING_RATIO else np.linspace
    return [round(float(v), 3) for v in space(low, high, int(points))]


def coarse_pass(low: float, high: float, points: int) -> int | None:
    """How many points the coarse pass of a sweep asks first.

    Parameters
    ----------
    low, high : float
        The range's ends, CIEDE2000, 0 < low.
    points : int
        The points the whole sweep asks.

    Returns
    -------
    int or None
        `COARSE_POINTS` when the range is wide (``high / low`` over `LOG_SPACING_RATIO`) and more points than
        that
        were asked for, else None (one pass over the range as asked).

    Examples
    --------
    >>> coarse_pass(0.25, 16, 8), coarse_pass(0.25, 16, 4), coarse_pass(2, 20, 8)
    (4, None, None)
    """
    return COARSE_POINTS if high / low > LOG_SPACING_RATIO and points > COARSE_POINTS else None


def bracket(rows: Sequence[Mapping]) -> tuple[float, float]:
    """The ΔE2000 range around where a sweep's answers turn right for good.

    From the largest requested value answered wrong to the next one asked, above which every answer is right.
    Every answer right: the threshold lies below the range, so the bracket is the step below the smallest
    value (by
    the ratio between the two smallest); none right: the step above the largest. Rows without a verdict
    (errors,
    abstentions) are left out.

    Parameters
    ----------
    rows : sequence of mapping
        Scored rows (``spec_json``, ``correct``).

    Returns
    -------
    tuple of float
        (low, high), requested CIEDE2000 values.

    Raises
    ------
    ValueError
        When no row has a verdict.

    Examples
    --------
    >>> def rows(*answers):
    ...     return [{"spec_json": f'{{"delta_e": {v}}}', "correct": ok} for v, ok in answers]
    >>> bracket(rows((0.25, False), (1.0, True), (4.0, False), (16.0, True)))
    (4.0, 16.0)
    >>> bracket(rows((1.0, True), (4.0, True))), bracket(rows((1.0, False), (4.0, False)))
    ((0.25, 1.0), (4.0, 16.0))
    """
    seen = sorted((requested_delta_e(r), bool(r["correct"])) for r in rows
                  if r.get("correct") is not None and requested_delta_e(r) is not None)
    if not seen:
        raise ValueError("the sweep has no answer with a verdict: no threshold to bracket; allowed: a sweep "
                         "with at least one right or wrong answer")
    values = [v for v, _ in seen]
    step = values[1] / values[0] if len(values) > 1 else 4.0
    wrong = [i for i, (_, ok) in enumerate(seen) if not ok]
    if not wrong:
        return round(values[0] / step, 3), values[0]
    if wrong[-1] == len(seen) - 1:
        return values[-1], round(values[-1] * (values[-1] / values[-2] if len(values) > 1 else step), 3)
    return values[wrong[-1]], values[wrong[-1] + 1]


def fine_values(low: float, high: float, points: int) -> list[float]:
    """ΔE2000 values evenly spaced strictly inside a bracket (its ends were asked in the coarse pass).

    Parameters
    ----------
    low, high : float
        The bracket, CIEDE2000.
    points : int
        How many values; none for ``points`` < 1.

    Returns
    -------
    list of float
        The values, rounded to 3 places.

    Examples
    --------
    >>> fine_values(1, 4, 2), fine_values(1, 4, 0)
    ([2.0, 3.0], [])
    """
    return [round(float(v), 3) for v in np.linspace(low, high, int(points) + 2)[1:-1]] if points >= 1 else []


def fine_passes(rows_of: Mapping, points: int) -> tuple[dict, list[tuple[tuple, list[float]]]]:
    """After a coarse pass, each model's bracket (:func:`bracket` of its own rows) and the fine passes that fill
    them: the rest of its ``points`` (``points`` minus the rows it has) evenly inside its bracket
    (:func:`fine_values`). Models whose brackets and counts match share one pass (one set of plates); a model
    with no verdict yet (all errors or abstentions) gets no bracket and no fine pass.

    Parameters
    ----------
    rows_of : mapping
        Model (any hashable key) -> its coarse pass's scored rows (``spec_json``, ``correct``).
    points : int
        The points each model's whole sweep asks.

    Returns
    -------
    tuple
        (model -> (low, high) bracket in CIELAB ΔE2000, [(models, ΔE2000 values)] one per fine pass, in the
        order of ``rows_of``).

    Examples
    --------
    >>> def rows(*answers):
    ...     return [{"spec_json": f'{{"delta_e": {v}}}', "correct": ok} for v, ok in answers]
    >>> fine_passes({"a": rows((1.0, False), (4.0, True)), "b": rows((1.0, True), (4.0, True))}, 4)
    ({'a': (1.0, 4.0), 'b': (0.25, 1.0)}, [(('a',), [2.0, 3.0]), (('b',), [0.5, 0.75])])
    """
    brackets, passes = {}, {}
    for model, rows in rows_of.items():
        if not any(r.get("correct") is not None for r in rows):
            continue
        brackets[model] = bracket(rows)
        values = tuple(fine_values(*brackets[model], int(points) - len(rows)))
        if values:
            passes.setdefault(values, []).append(model)
    return brackets, [(tuple(models), list(values)) for values, models in passes.items()]


@dataclass(frozen=True)
class SweepPlan:
    """The plates of a ΔE2000 sweep.

    Attributes
    ----------
    specs : tuple of PlateSpec
        One per reachable requested value, in order.
    skipped : tuple of (float, str)
        The requested values (CIEDE2000) this colour set cannot reach in sRGB, each with PlateSpec's reason
        (which
        names the largest reachable ΔE2000).
    """

    specs: tuple[PlateSpec, ...]
    skipped: tuple[tuple[float, str], ...] = ()


def sweep_plan(spec: PlateSpec, values: Sequence[float], directions: str = "distributed") -> SweepPlan:
    """``spec`` re-targeted at each ΔE2000 in ``values``; an unreachable value is skipped and named.

    Parameters
    ----------
    spec : PlateSpec
        The plate on screen.
    values : sequence of float
        Requested CIEDE2000 values.
    directions : str
        "distributed" (default): each point's background lies along its own CIELAB direction
        (`plates.stimuli.ishihara.directions.with_direction`, seeded by the spec's seed and the point's
        index), so
        the sweep's fit describes ΔE2000, not the palette line's 8-bit colours; "palette": the palette's line.

    Returns
    -------
    SweepPlan
        The plates and the values skipped.

    Raises
    ------
    ValueError
        When ``directions`` is not one of `plates.stimuli.ishihara.directions.DIRECTION_MODES`.
    """
    if directions not in DIRECTION_MODES:
        raise ValueError(f"directions {directions!r} is not known; allowed: {', '.join(DIRECTION_MODES)}")
    specs, skipped = [], []
    for i, v in enumerate(values):
        try:
            specs.append(with_direction(spec, float(v), spec.seed + i) if directions == "distributed"
                         else spec.replace(delta_e=float(v)))
        except ValueError as exc:
            skipped.append((float(v), str(exc)))
    return SweepPlan(tuple(specs), tuple(skipped))


def sweep(spec: PlateSpec, values: Sequence[float], ask: Ask, backend: Backend, *, colour_set: str,
          run_id: str, secrets: Sequence[str | None] = ()) -> Iterator[dict]:
    """The ΔE sweep: the same plate re-rendered at each ΔE2000 in ``values``, asked as one batch.

    An API backend runs the requests concurrently. Values this colour set cannot reach are left out
    (:func:`sweep_plan` names them).

    Parameters
    ----------
    spec : PlateSpec
        The plate on screen.
    values : sequence of float
        Requested CIEDE2000 values.
    ask : Ask
        The prompt, viewing condition and decoding (`plates.explorer.models.Ask`).
    backend : Backend
        The model.
    colour_set : str
        The rows' colour set (the palette name, or "custom").
    run_id : str
        The session's run id.
    secrets : sequence of str or None
        Keys to redact from the rows.

    Yields
    ------
    dict
        Scored results rows (`plates.explorer.models.ask_many`), as they come.

    Raises
    ------
    ValueError
        When no value is reachable, or a bad ask.
    """
    plan = sweep_plan(spec, values)
    if not plan.specs:
        raise ValueError(f"no ΔE2000 of the sweep can be drawn with these colours: {plan.skipped[0][1]}")
    yield from ask_many(plan.specs, ask, backend, colour_set=colour_set, run_id=run_id, secrets=secrets)


def in_batches(items: Iterable, every_s: float,
               clock: Callable[[], float] = time.monotonic) -> Iterator[list]:
    """``items`` gathered into lists, one yielded once ``every_s`` seconds have passed since the previous one.

    A fast model's sweep updates the page once, a slow one's as each answer comes, and the page never redraws
    its
    chart more often than every ``every_s`` seconds.

    Parameters
    ----------
    items : iterable
        The items (scored rows).
    every_s : float
        Seconds between yielded lists (the first counted from the start).
    clock : callable
        Seconds, monotonic (tests pass their own).

    Yields
    ------
    list
        The items gathered since the previous list; the rest at the end.
    """
    batch: list = []
    last = clock()
    for item in items:
        batch.append(item)
        now = clock()
        if now - last >= every_s:
            yield batch
            batch, last = [], now
    if batch:
        yield batch


def requested_delta_e(row: Mapping) -> float | None:
    """The ΔE2000 a row's plate asked for (its spec's target).

    The row's ``delta_e`` is what was drawn: the mean CIEDE2000 over the colour set's foreground x background
    pairs.

    Parameters
    ----------
    row : mapping
        A results row (its ``spec_json``).

    Returns
    -------
    float or None
        The target CIEDE2000; None for the colours as given (or no spec).
    """
    target = json.loads(row["spec_json"]).get("delta_e") if row.get("spec_json") else None
    return None if target is None else float(target)


def pair_delta_e_range(spec: PlateSpec) -> tuple[float, float]:
    """The smallest and largest CIEDE2000 over the colour pairs ``spec`` draws.

    Parameters
    ----------
    spec : PlateSpec
        A plate.

    Returns
    -------
    tuple of float
        (smallest, largest) over the foreground x background pairs (sRGB 0-255 colours as resolved, before any
        jitter; `plates.colour.delta_e2000`).
    """
    fg, bg = (np.asarray(c, dtype=np.float64) for c in spec.colours)
    grid = delta_e2000(np.repeat(fg, len(bg), axis=0), np.tile(bg, (len(fg), 1)))
    return float(np.min(grid)), float(np.max(grid))


#: How far (ΔE2000) the drawn mean may sit from the requested value before the sweep warns.
SWEEP_TOLERANCE = 0.5


def sweep_summary(rows: Sequence[dict], skipped: Sequence[tuple[float, str]] = ()) -> str:
    """The sweep's verdict panel, as Markdown.

    Parameters
    ----------
    rows : sequence of dict
        The sweep's scored rows.
    skipped : sequence of (float, str)
        The values the colours cannot reach, with why (:class:`SweepPlan`).

    Returns
    -------
    str
        The correct count, then one line per point with the ΔE2000 requested and drawn (mean over the colour
        set's
        pairs, and the smallest pair), the answer and verdict, ordered by the request; a warning for each
        point
        drawn more than :data:`SWEEP_TOLERANCE` from its request (a multi-colour set's pairs spread around the
        target, which is measured from the foregrounds' CIELAB mean) and for each value the colours cannot
        reach.
    """
    answered = [r for r in rows if r.get("correct") is not None]
    lines = [f"**Sweep:** {sum(bool(r['correct']) for r in answered)} of {len(answered)} correct"
             + (f" · {len(rows) - len(answered)} without a verdict" if len(answered) < len(rows) else "")]
    lines += ["", "| ΔE2000 asked | drawn (mean of pairs) | smallest pair | answer | verdict |",
              "|---:|---:|---:|---|---|"]
    warnings = []
    for r in sorted(rows, key=lambda r: requested_delta_e(r) or 0.0):
        asked, drawn = requested_delta_e(r), float(r["delta_e"])
        smallest = pair_delta_e_range(PlateSpec.from_json(r["spec_json"]))[0]
        verdict = ("error" if r.get("error") else "—" if r.get("correct") is None
                   else "✅" if r["correct"] else "❌")
        answer = str(r.get("parsed") if r.get("parsed") is not None else "")[:20].replace("|", "/")
        lines.append(f"| {asked:.2f} | {drawn:.2f} | {smallest:.2f} | `{answer}` | {verdict} |")
        if asked is not None and abs(drawn - asked) > SWEEP_TOLERANCE:
            warnings.append(f"ΔE2000 {asked:.2f} was asked but {drawn:.2f} is drawn (mean over the colour "
                            f"set's foreground × background pairs, smallest {smallest:.2f}): this colour set "
                            "cannot reach it as asked")
    warnings += [f"ΔE2000 {v:.2f} cannot be reached: {why}" for v, why in skipped]
    if warnings:
        lines += ["", *(f"⚠️ {w}" for w in warnings)]
    return "\n".join(lines)


def sweep_replies(rows: Sequence[dict]) -> str:
    """The raw replies of a sweep, one line per point ordered by requested ΔE2000.

    Parameters
    ----------
    rows : sequence of dict
        The sweep's scored rows.

    Returns
    -------
    str
        Lines ``ΔE2000 asked (drawn): reply`` (an error or parse status in brackets when there is no reply).
    """
    out = []
    for r in sorted(rows, key=lambda r: requested_delta_e(r) or 0.0):
        text = r.get("reply")
        if text is None:
            text = f"[{r.get('error') or r.get('parse_status')}]"
        out.append(f"ΔE2000 {requested_delta_e(r) or 0:.2f} (drawn {float(r['delta_e']):.2f}): {text}")
    return "\n".join(out)
