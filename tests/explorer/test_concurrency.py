"""How much of the explorer runs at once (plates/explorer/concurrency.py): events per concurrency group, the
queue's bound, the worker processes and the calls their pool takes."""

from __future__ import annotations

import pytest

from plates.explorer.concurrency import RENDER_WORKERS_ENV, concurrency, pool_bound, render_workers
from plates.explorer.policy import Policy


@pytest.mark.parametrize("env, public, expected", [
    ({RENDER_WORKERS_ENV: "3"}, False, 3),
    ({RENDER_WORKERS_ENV: " 0 "}, True, 0),
    ({}, False, 0),  # a private explorer: one visitor, renders in its threads
])
def test_render_workers_from_the_environment(env, public, expected):
    assert render_workers(Policy(public=public), env) == expected


def test_public_mode_renders_in_one_worker_per_core_on_a_multicore_machine(monkeypatch):
    monkeypatch.setattr("plates.explorer.concurrency.cores", lambda: 4)
    assert render_workers(Policy(public=True), {}) == 4
    monkeypatch.setattr("plates.explorer.concurrency.cores", lambda: 1)
    assert render_workers(Policy(public=True), {}) == 0


@pytest.mark.parametrize("text", ["-1", "two", "1.5"])
def test_a_bad_worker_count_is_refused(text):
    with pytest.raises(ValueError, match=rf"PLATES_RENDER_WORKERS='{text}' is not allowed; allowed: a whole number"):
        render_workers(Policy(), {RENDER_WORKERS_ENV: text})


def test_with_workers_twice_as_many_render_and_model_events_run_at_once(monkeypatch):
    monkeypatch.setattr("plates.explorer.concurrency.cores", lambda: 2)
    slots = concurrency(Policy(public=True), 3)
    assert slots["render"] == slots["model"] == 6  # a worker is never idle while files are sent
    slots = concurrency(Policy(public=True), 0)
    assert slots["render"] == 2 and slots["model"] == 1  # in this process: one per core; one model call
    assert pool_bound(slots, 0) is None


def test_the_pool_takes_every_call_the_admitted_events_can_make(monkeypatch):
    """Six render events (one call each), six model events (a sweep: one call per worker) at three workers,
    four quiz events (a trial's image, or the reader's staircase at a result) and two events of no group: 30
    calls; an event the page admitted is never told the server is busy."""
    monkeypatch.setattr("plates.explorer.concurrency.cores", lambda: 2)
    assert pool_bound(concurrency(Policy(public=True), 3), 3) == 6 + 6 * 3 + 4 + 2
