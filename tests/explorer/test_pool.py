"""The explorer's renders in worker processes (plates.explorer.render_pool): the same bytes as in this process
and as Gradio's own encoder, the plate in the plates-on-screen cache, the worker count from the environment, and
a public app whose renders run in real workers serving the same files a private app serves."""

from __future__ import annotations

from pathlib import Path

import psutil
import pytest
from gradio.processing_utils import encode_pil_to_bytes

from plates.explorer import plate as ex
from plates.explorer.render_pool import PlateRenderer, encode_views, jpeg_bytes

SPEC = ex.default_spec().replace(size=256, delta_e=6.0, seed=11, text="38")
CONTROLS = tuple(ex.spec_to_controls(SPEC).__dict__.values())
POLICY = ex.Policy(public=True)


def test_views_are_encoded_byte_for_byte_as_gradio_encodes_them():
    views = ex.render_views(SPEC)
    encoded = encode_views(SPEC)
    assert encoded.png == ex.png_bytes(views.images["plate"]) and encoded.stats == views.stats
    assert set(encoded.jpeg) == set(ex.VIEWS[1:])
    for v in ex.VIEWS[1:]:
        assert encoded.jpeg[v] == jpeg_bytes(views.images[v]) == encode_pil_to_bytes(views.images[v], "jpeg")


def test_worker_renders_equal_this_processs_and_fill_the_plates_on_screen():
    cache = ex.PlateCache()
    renderer = PlateRenderer(cache, 2)
    try:
        here = encode_views(SPEC)
        there = renderer.from_controls(POLICY, None, *CONTROLS)
        assert there.plate.spec == SPEC
        assert (there.png, there.jpeg, there.stats) == (here.png, here.jpeg, here.stats)
        assert len(renderer.pool.pids()) == 2
        assert cache(SPEC) is there.plate  # a model asked about it does not render it again
        pids = renderer.pool.pids()
    finally:
        renderer.close()
    assert renderer.pool is None
    assert not any(psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE for p in pids)


def test_in_process_renders_go_through_the_cache():
    cache = ex.PlateCache()
    encoded = PlateRenderer(cache, 0).from_controls(POLICY, None, *CONTROLS)
    assert encoded.plate.spec == SPEC and cache(SPEC) is encoded.plate


def test_a_bad_control_is_refused_in_words_from_a_worker_too():
    bad = (ex.CUSTOM, "not-a-colour", *CONTROLS[2:])  # custom colours, a bad foreground
    renderer = PlateRenderer(ex.PlateCache(), 1)
    try:
        for workers in (PlateRenderer(ex.PlateCache(), 0), renderer):
            with pytest.raises(ValueError, match="foreground colour 'not-a-colour' is not a colour"):
                workers.from_controls(POLICY, None, *bad)
    finally:
        renderer.close()


@pytest.mark.parametrize("env, public, expected", [
    ({ex.RENDER_WORKERS_ENV: "3"}, False, 3),
    ({ex.RENDER_WORKERS_ENV: " 0 "}, True, 0),
    ({}, False, 0),  # a private explorer: one visitor, renders in its threads
])
def test_render_workers_from_the_environment(env, public, expected):
    assert ex.render_workers(ex.Policy(public=public), env) == expected


def test_public_mode_renders_in_one_worker_per_core_on_a_multicore_machine(monkeypatch):
    monkeypatch.setattr(ex, "cores", lambda: 4)
    assert ex.render_workers(ex.Policy(public=True), {}) == 4
    monkeypatch.setattr(ex, "cores", lambda: 1)
    assert ex.render_workers(ex.Policy(public=True), {}) == 0


@pytest.mark.parametrize("text", ["-1", "two", "1.5"])
def test_a_bad_worker_count_is_refused(text):
    with pytest.raises(ValueError, match=rf"PLATES_RENDER_WORKERS='{text}' is not allowed; allowed: a whole number"):
        ex.render_workers(ex.Policy(), {ex.RENDER_WORKERS_ENV: text})
    with pytest.raises(ValueError, match="workers=-1 is not allowed"):
        PlateRenderer(ex.PlateCache(), -1)


def test_a_public_app_rendering_in_workers_serves_the_files_a_private_app_serves(monkeypatch):
    from gradio_client import Client

    from plates.explorer import app as explorer_app

    controls = ex.spec_to_controls(SPEC).__dict__
    outs = {}
    for public, count in ((False, "0"), (True, "2")):
        monkeypatch.setenv(ex.RENDER_WORKERS_ENV, count)
        before = {p.pid for p in psutil.Process().children(recursive=True)}
        policy = ex.Policy(public=public)
        demo = explorer_app.build_app(policy)
        demo.launch(prevent_thread_lock=True, quiet=True, **explorer_app.launch_options(policy=policy))
        try:
            outs[public] = Client(demo.local_url, verbose=False).predict(*controls.values(), api_name="/render")
            spawned = [p for p in psutil.Process().children(recursive=True) if p.pid not in before]
            workers = [p.pid for p in spawned if "resource_tracker" not in " ".join(p.cmdline())]
        finally:
            demo.close()
        assert len(workers) == int(count)  # a private app renders in its own threads
        assert not any(psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE
                       for p in workers)  # the app's close stopped its workers
    private, public = outs[False], outs[True]
    for mine, theirs in zip(private[:6], public[:6]):
        assert Path(mine).read_bytes() == Path(theirs).read_bytes()
    assert private[6:8] == public[6:8]  # the stats line and the spec JSON


def test_with_render_workers_twice_as_many_render_events_run_at_once(monkeypatch):
    monkeypatch.setattr(ex, "cores", lambda: 2)
    monkeypatch.setenv(ex.RENDER_WORKERS_ENV, "3")
    assert ex.concurrency(ex.Policy(public=True))["render"] == 6  # a worker is never idle while files are sent
    monkeypatch.setenv(ex.RENDER_WORKERS_ENV, "0")
    assert ex.concurrency(ex.Policy(public=True))["render"] == 2  # in this process: one per core
