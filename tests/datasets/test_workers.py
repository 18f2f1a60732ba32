"""The dataset writers' worker set-up (plates.datasets.workers)."""

from __future__ import annotations

import multiprocessing as mp
import platform

import pytest

from plates.datasets.workers import init_worker, keep_freed_memory


def _applied() -> bool:
    return keep_freed_memory()


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_a_worker_keeps_freed_memory_on_glibc():
    with mp.get_context("spawn").Pool(1, initializer=init_worker) as pool:
        assert pool.apply(_applied) is True

