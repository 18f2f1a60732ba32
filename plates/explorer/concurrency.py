"""How much of the live plate explorer runs at once: events per concurrency group, the queue's bound, the
worker processes for renders and the reader's answers (`plates.explorer.pool`), and the calls that pool takes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from plates.explorer.policy import Policy

#: Events waiting in the explorer's queue at most (a visitor beyond it is told the server is busy): public mode
#: keeps it short, so a crowd waits seconds rather than minutes; private mode allows a sweep-heavy session.
QUEUE_SIZE = {True: 32, False: 64}
#: Quiz events (start, answer) run at once: each is short (a trial's image; at the end, the result).
QUIZ_AT_ONCE = 4


def cores() -> int:
    """Cores this process may run on (its CPU affinity where the platform says, else ``os.cpu_count()``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS, Windows
        return max(1, os.cpu_count() or 1)


#: Worker processes for the explorer's renders and the bundled reader's answers: a whole number >= 0 (0: in the
#: server's own process).
RENDER_WORKERS_ENV = "PLATES_RENDER_WORKERS"


def render_workers(policy: Policy, environ: Mapping[str, str] | None = None) -> int:
    """Worker processes for renders and the reader's answers (`plates.explorer.pool`).

    Parameters
    ----------
    policy : Policy
        This server's limits (public or private mode).
    environ : mapping of str to str or None
        The environment; None reads ``os.environ``.

    Returns
    -------
    int
        ``PLATES_RENDER_WORKERS`` when set; else one per core in public mode on a machine of two cores or more
        (many visitors), else 0: a private explorer has one visitor, whose renders run in the server's own
        threads.

    Raises
    ------
    ValueError
        When ``PLATES_RENDER_WORKERS`` is not a whole number >= 0.
    """
    env = os.environ if environ is None else environ
    text = env.get(RENDER_WORKERS_ENV, "").strip()
    if text:
        if not text.isdigit():
            raise ValueError(f"{RENDER_WORKERS_ENV}={text!r} is not allowed; allowed: a whole number >= 0")
        return int(text)
    n = cores()
    return n if policy.public and n > 1 else 0


def concurrency(policy: Policy, workers: int) -> dict[str, int]:
    """Events run at once per concurrency group (Gradio ``concurrency_id``), and the queue's bound.

    Renders (every plate, illusion and scene redraw) and model answers (ask and sweep share one group; the
    baseline
    reader is CPU-bound like a render) run up to the cores in this process. Where renders and the reader's
    answers
    run in ``workers`` worker processes, twice as many render events, and as many model events, as workers run
    at
    once: an event's server thread mostly waits, and the next one reaches a worker while this one's files are
    written and sent; a local Hugging Face model still answers one question at a time
    (`plates.explorer.backends.OneAtATime`). A public server that computes in its own threads answers one
    model
    call at a time.

    Parameters
    ----------
    policy : Policy
        This server's limits (public or private mode).
    workers : int
        Worker processes (:func:`render_workers`); 0: this process's threads.

    Returns
    -------
    dict of str to int
        ``render``, ``model``, ``quiz`` (`QUIZ_AT_ONCE`), ``default`` (events of no group) and ``queue``
        (Gradio's ``max_size``: bounded in both modes, :data:`QUEUE_SIZE`).
    """
    n = cores()
    model = 2 * workers if workers else (1 if policy.public else n)
    return {"render": 2 * workers if workers else n, "model": model, "quiz": QUIZ_AT_ONCE, "default": n,
            "queue": QUEUE_SIZE[policy.public]}


def pool_bound(slots: Mapping[str, int], workers: int) -> int | None:
    """Calls the explorer's worker pool takes at once, waiting or running.

    As many as the events ``slots`` runs at once can make (a render event one call; a model event, a sweep,
    one per
    worker; a quiz event one, the trial's image or the reader's staircase at a result; and an event of no
    group,
    the Model tab drawing the plate it asks about, one), so an event the page has admitted is never refused
    there;
    past that a call is refused in words ("this server is busy ..."). Gradio's queue bounds the events waiting
    before them.

    Parameters
    ----------
    slots : mapping of str to int
        :func:`concurrency`'s events per group.
    workers : int
        Worker processes of the pool (`plates.explorer.pool.ExplorerPool`).

    Returns
    -------
    int or None
        The bound; None without workers.
    """
    if not workers:
        return None
    return slots["render"] + slots["model"] * workers + slots["quiz"] + slots["default"]
