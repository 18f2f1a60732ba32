"""A full disk is the machine's fault, not the input's: named as such, an exit code of its own, no traceback from
the results writer's flush thread, and every row written before it kept for the resume."""

from __future__ import annotations

import errno
import os
import secrets
import subprocess
import sys
import threading
import time

import pytest

from plates.cli import EXIT_ENVIRONMENT, build_parser
from plates.faults import EnvironmentFailure
from plates.results import ResultsWriter, load_results
from plates.results import writer as writer_module
from tests.support import ROOT
from tests.support.chat_server import ChatServer


def _row(i: int) -> dict:
    return {"row_key": f"k{i}", "run_id": "r", "item_id": f"i{i}", "reply": "12"}


def test_timer_flush_on_a_full_disk_raises_in_the_callers_thread_and_keeps_the_rows(tmp_path, monkeypatch):
    real_write_part, full = writer_module.write_part, threading.Event()
    full.set()

    def write_part(table, path, store=None):
        if full.is_set():
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write_part(table, path, store)

    thread_errors = []
    monkeypatch.setattr(threading, "excepthook", lambda args: thread_errors.append(args))
    monkeypatch.setattr(writer_module, "write_part", write_part)
    w = ResultsWriter(tmp_path, "r", flush_rows=100, flush_seconds=0.05)
    w.add(_row(0))
    deadline = time.monotonic() + 10
    while w._timer.is_alive() and time.monotonic() < deadline:  # the timer's write fails and the timer stops
        time.sleep(0.01)
    assert not w._timer.is_alive() and thread_errors == []  # no traceback printed from the flush thread
    with pytest.raises(EnvironmentFailure, match=f"the disk holding {tmp_path} is full"):
        w.add(_row(1))  # the timer's error, raised here
    full.clear()  # space freed: close() writes the rows the failed flush kept buffered
    w.close()
    assert sorted(load_results(tmp_path).frame["row_key"]) == ["k0"]


def test_close_on_a_full_disk_raises_the_named_failure_and_closes(tmp_path, monkeypatch):
    def write_part(table, path, store=None):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(writer_module, "write_part", write_part)
    w = ResultsWriter(tmp_path, "r", flush_rows=100, autoflush=False)
    w.add(_row(0))
    with pytest.raises(EnvironmentFailure) as caught:
        w.close()
    assert caught.value.errno == errno.ENOSPC and caught.value.folder == str(tmp_path)
    with pytest.raises(ValueError, match="closed"):
        w.add(_row(1))


def test_other_os_errors_keep_their_own_type(tmp_path, monkeypatch):
    def write_part(table, path, store=None):
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr(writer_module, "write_part", write_part)
    w = ResultsWriter(tmp_path, "r", flush_rows=1, autoflush=False)
    with pytest.raises(PermissionError) as caught:
        w.add(_row(0))
    assert not isinstance(caught.value, EnvironmentFailure)


def test_help_documents_every_exit_code():
    text = build_parser().format_help()
    for code in ("0", "2", "3", str(EXIT_ENVIRONMENT), "130", "141"):
        assert f"\n  {code} " in text, code
    assert "full, read-only or failing disk" in text


@pytest.fixture
def small_disk(tmp_path):
    """A 1 MiB tmpfs (root only; skipped elsewhere), unmounted afterwards."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], capture_output=True,
                          check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode(errors='replace').strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


@pytest.mark.slow
def test_plates_run_on_a_full_disk_names_it_exits_4_and_resumes(small_disk):
    out = small_disk / "out"
    filler = small_disk / "filler"
    filler.write_bytes(os.urandom(1024 * 1024 - 96 * 1024))  # ~96 KB left for results
    cmd = [sys.executable, "-m", "plates.cli", "run", "--dataset", "huemanity-numeric", "--prompt",
           "huemanity-numeric", "--model", "test-model", "--size", "64", "--no-api-key", "--no-progress",
           "--limit", "60", "--out", str(out)]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with ChatServer(answer=lambda body: "12 " + secrets.token_hex(1500)) as server:  # ~3 KB per row, incompressible
        full = subprocess.run([*cmd, "--base-url", server.url], capture_output=True, text=True, check=False, env=env,
                              cwd=ROOT, timeout=300)
        assert full.returncode == EXIT_ENVIRONMENT, full.stderr
        assert f"the disk holding {out} is full" in full.stderr
        assert "Traceback" not in full.stderr and "Exception in thread" not in full.stderr
        assert "allowed: input files" not in full.stderr  # not blamed on the input
        kept = load_results(out)
        assert kept.skipped == [] and 0 < len(kept.frame) < 60
        filler.unlink()  # space freed: the same command finishes the run
        again = subprocess.run([*cmd, "--base-url", server.url], capture_output=True, text=True, check=False,
                               env=env, cwd=ROOT, timeout=300)
        assert again.returncode == 0, again.stderr
    frame = load_results(out).frame
    assert len(frame) == 60 and frame["row_key"].is_unique
    assert not list(out.glob(".*.tmp"))
