"""The explorer's live ellipse, apart from any widget: one centre, the chosen model, a few directions and
trials (`plates.runs.ellipses`), drawn beside MacAdam's ellipse (`plates.charts.ellipses`). Public mode caps
the work a visitor can ask for (`limits`); the caller admits the answers first."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache

import pandas as pd

from plates.analysis.ellipses import macadam_centres
from plates.explorer.policy import Policy
from plates.models.base import Backend, Query, Reply
from plates.runs.ellipse_plan import EllipseRun, parse_centres
from plates.runs.ellipses import run_ellipses
from plates.runs.experiment import ModelSpec
from plates.validation import check_int

__all__ = ["DIRECTION_CHOICES", "limits", "live_ellipse", "offered_centres"]


@lru_cache(maxsize=1)
def offered_centres() -> tuple[str, ...]:
    """The centres offered: MacAdam's inside sRGB, by name (read on first use: colour-science's MacAdam table
    is not loaded when the module is imported)."""
    return tuple(name for name, _, _ in macadam_centres()[0])


DIRECTION_CHOICES = (3, 5, 6, 8)
#: (most trials per direction, plate size px): public mode, private mode.
PUBLIC_LIMITS, PRIVATE_LIMITS = (12, 256), (40, 512)


def limits(policy: Policy) -> tuple[int, int]:
    """The work a visitor may ask of the live ellipse under ``policy``.

    Parameters
    ----------
    policy : Policy
        This server's limits (public or private mode).

    Returns
    -------
    tuple of int
        (most trials per direction, plate size in px): :data:`PUBLIC_LIMITS` or :data:`PRIVATE_LIMITS`.
    """
    return PUBLIC_LIMITS if policy.public else PRIVATE_LIMITS


class _Borrowed(Backend):
    """A backend the explorer holds (a cached local model): the run asks through it and never closes it."""

    def __init__(self, inner: Backend) -> None:
        self._inner, self.kind, self.model = inner, inner.kind, inner.model

    def ask(self, queries: Sequence[Query]) -> Iterator[tuple[int, Reply]]:
        return self._inner.ask(queries)


def live_ellipse(backend: Backend, centre: str, directions: int, trials: int, policy: Policy, *,
                 on_trial: Callable[[int], None] | None = None) -> tuple[object, pd.DataFrame, dict]:
    """Run one centre's discrimination ellipse for ``backend`` (the huemanity-numeric prompt, dense plates).

    The trial rows go to a temporary folder and are dropped.

    Parameters
    ----------
    backend : Backend
        The model (borrowed: the run never closes it).
    centre : str
        A MacAdam centre by name (:func:`offered_centres`).
    directions : int
        Directions around the centre, one of :data:`DIRECTION_CHOICES`.
    trials : int
        Trials per direction, 10 to the policy's most (:func:`limits`).
    policy : Policy
        This server's limits.
    on_trial : callable or None
        Called with the number of trials done after each trial.

    Returns
    -------
    plotly.graph_objects.Figure
        The ellipse on the CIE 1931 xy diagram beside MacAdam's (`plates.charts.ellipses.ellipse_figure`).
    pandas.DataFrame
        Per direction: threshold, 95% interval (10⁻³ u'v'), 8-bit code steps, limits and status.
    dict
        The ellipse row (`plates.runs.ellipses`).

    Raises
    ------
    ValueError
        A centre not in :func:`offered_centres`, directions not in :data:`DIRECTION_CHOICES`, trials outside
        10 to the policy's most.
    """
    if centre not in offered_centres():
        raise ValueError(f"centre {centre!r} is not offered; allowed: {', '.join(offered_centres())}")
    if directions not in DIRECTION_CHOICES:
        raise ValueError(f"directions {directions!r} is not offered; allowed: {DIRECTION_CHOICES}")
    most, size = limits(policy)
    check_int("trials", trials, 10, most, note=" per direction here")
    centres, _ = parse_centres(centre)
    count = [0]

    def progress(*_args) -> None:
        count[0] += 1
        if on_trial is not None:
            on_trial(count[0])

    with tempfile.TemporaryDirectory(prefix="plates-ellipse-") as out:
        run = EllipseRun(centres=tuple(centres), model=ModelSpec(backend.kind, backend.model, 64, 0.0, {}),
                         directions=directions, trials=trials, size=size, out=out)
        result = run_ellipses(run, make_backend=lambda *a, **k: _Borrowed(backend), on_trial=progress)
    ellipses = pd.DataFrame(result.ellipses)
    table = pd.DataFrame(result.thresholds)[["direction", "threshold", "ci_low", "ci_high", "code_steps",
                                              "limits", "status"]]
    from plates.charts.ellipses import ellipse_figure  # lazy: off the explorer's start (its first page)

    return ellipse_figure(ellipses), table, result.ellipses[0]
