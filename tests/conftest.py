"""Shared test setup: nothing may phone home, nothing may reach a model hub."""

import os

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("STREAMLIT_BROWSER_GATHER_USAGE_STATS", "false")
# The apps built in this process share it with every other test (torch, models, data): its RSS is not an app
# server's, so public mode's memory budget (plates.admission) is set out of reach here; the tests of the
# budget give their own.
os.environ.setdefault("PLATES_MEMORY_BUDGET_MB", "1000000")
# Public-mode apps built here compute in this process: worker processes (plates.explorer.pool) for every
# app a test builds would cost seconds of CPU each; tests/explorer/test_pool.py turns them on itself.
os.environ.setdefault("PLATES_RENDER_WORKERS", "0")

import sys  # noqa: E402

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _keep_main_module():
    """Streamlit's AppTest runs a page script as ``__main__`` and leaves it in ``sys.modules``; a later test that
    starts spawned worker processes (``plates generate``) would then make every worker re-run the dashboard
    script. Each test gets back the ``__main__`` it started with."""
    main = sys.modules.get("__main__")
    yield
    if main is not None and sys.modules.get("__main__") is not main:
        sys.modules["__main__"] = main
