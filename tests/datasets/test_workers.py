"""The dataset writers' worker set-up (plates.datasets.workers)."""

from __future__ import annotations

import multiprocessing as mp
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from plates.datasets.workers import init_worker, keep_freed_memory


def _applied() -> bool:
    return keep_freed_memory()


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_a_worker_keeps_freed_memory_on_glibc():
    with mp.get_context("spawn").Pool(1, initializer=init_worker) as pool:
        assert pool.apply(_applied) is True



_POOL_SCRIPT = """
import sys
from plates.datasets.workers import family_pool

def loaded_before_any_work():
    return "colour" in sys.modules

if __name__ == "__main__":
    assert "colour" not in sys.modules, "plates.datasets.workers imported colour-science itself"
    with family_pool(2) as pool:
        print(pool.apply(loaded_before_any_work), pool._ctx.get_start_method())
"""


@pytest.mark.skipif("fork" not in mp.get_all_start_methods(), reason="fork is POSIX's")
def test_forked_family_workers_start_with_colour_science_loaded(tmp_path):
    """Every family's manifest values need colour-science (ΔE2000); a forked worker loaded it itself, about 1 s
    of CPU per worker. A fresh process (this one may have loaded it already) shows what a worker starts with."""
    script = tmp_path / "pool.py"
    script.write_text(_POOL_SCRIPT, encoding="utf-8")
    root = str(Path(__file__).parents[2])  # this checkout first, as the tests run it
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "fork"]
