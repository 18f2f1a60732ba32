"""Isolated virtual environments for the evaluation harnesses, created once and cached between runs.

inspect_ai caps ``fsspec`` below this project's pin and lmms-eval pins ``filelock`` and ``wandb``: each lives in
its own venv under ``~/.cache/plates-harness/`` (``PLATES_HARNESS_CACHE`` moves it), built with
``python -m venv`` (never ``--system-site-packages``: a venv made from a venv's interpreter would see the *base*
interpreter's packages, not the test environment's) and pip, and driven from its own command line with this
checkout on ``PYTHONPATH``. Each venv installs everything its harness and ``plates.tasks`` import, so it stands
alone: the same packages whichever interpreter or environment runs the tests.

A venv is rebuilt when what it was built from changes: the base interpreter (real path and ``sys.version``),
the package list, and for a venv installed under the project's pins the digest of ``constraints.txt``. All three
are written into the venv's marker file when the install finished; a venv without the marker (an install that
was cut short) is rebuilt too.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

CACHE = Path(os.environ.get("PLATES_HARNESS_CACHE", Path.home() / ".cache" / "plates-harness"))
CHECKOUT = Path(__file__).resolve().parents[2]
#: The versions the suite was last green with (pip constraints; torch is pinned beside it, in scripts/test.sh).
CONSTRAINTS = CHECKOUT / "constraints.txt"
TORCH = "torch==2.13.0"  # this machine's local CPU wheel (pip's find-links); scripts/test.sh pins the same
#: pytest-timeout (seconds) of a test that runs a harness: its first run builds the venv (pip, hundreds of MB;
#: measured 7 to 13 minutes cold on a busy 2-core machine) before the harness runs, and the suite's 600 s
#: default counts both.
HARNESS_TEST_TIMEOUT_S = 2400


def pins(*names: str) -> tuple[str, ...]:
    """``name==version`` for each name, as constraints.txt pins it (names compared as pip does: case, ``-``,
    ``_`` and ``.`` alike)."""
    key = lambda name: re.sub(r"[-_.]+", "-", name).lower()  # noqa: E731  PEP 503 normalisation
    pinned = {key(line.split("==")[0]): line.strip() for line in CONSTRAINTS.read_text().splitlines()
              if "==" in line and not line.startswith("#")}
    missing = [n for n in names if key(n) not in pinned]
    if missing:
        raise ValueError(f"{', '.join(missing)} not pinned in {CONSTRAINTS}; allowed: "
                         f"{', '.join(sorted(pinned))}")
    return tuple(pinned[key(n)] for n in names)


#: What `plates.tasks` and the exported Parquet need inside a harness's venv (the project's pins).
PLATES_MINIMAL = pins("numpy", "pillow", "scipy", "pyarrow")
#: inspect_ai with its own dependencies (not the project's constraints: it caps fsspec below our pin, and its
#: aiobotocore bounds botocore apart from ours), the OpenAI SDK its ``openai-api`` provider imports.
INSPECT = ("inspect_ai==0.3.285", *pins("openai"), *PLATES_MINIMAL)
#: lmms-eval's 52 requirements pin filelock and wandb and pull a CUDA torch: lmms-eval goes in without its
#: dependencies, and beside it, under the project's pins, what its command line, its ``openai`` model and the
#: exported task import: CPU torch, transformers, accelerate, datasets and the few libraries of its own.
LMMS_EVAL_NO_DEPS = ("lmms_eval==0.7.3",)
LMMS_EVAL = (TORCH, *pins("transformers", "accelerate", "datasets", "openai", "PyYAML", "pandas"), *PLATES_MINIMAL,
             "loguru==0.7.3", "sacrebleu==2.6.0", "evaluate==0.4.6", "tenacity==9.2.1", "pytablewriter==1.2.1",
             "python-dotenv==1.2.4")


def interpreter() -> str:
    """The interpreter a venv made here runs on: ``python -m venv`` from a venv's interpreter makes a venv of
    the *base* interpreter, so its real path and version are what a cached venv depends on."""
    base = getattr(sys, "_base_executable", sys.executable)
    return f"{os.path.realpath(base)} {sys.version}"


def marker_text(packages: tuple[str, ...], no_deps: tuple[str, ...] = (), constrained: bool = False) -> str:
    """What a venv is built from, as its marker file records it: interpreter, constraints digest, packages."""
    lines = [f"python: {interpreter()}"]
    if constrained:
        lines.append(f"constraints: sha256 {hashlib.sha256(CONSTRAINTS.read_bytes()).hexdigest()}")
    return "\n".join([*lines, *packages, *(f"{p} --no-deps" for p in no_deps)]) + "\n"


def venv(name: str, packages: tuple[str, ...], *, no_deps: tuple[str, ...] = (), constrained: bool = False,
         timeout: float = 1800) -> Path:
    """The ``bin`` folder of the cached venv ``name`` holding ``packages`` (and ``no_deps``, installed without
    their dependencies; ``constrained``: every package, dependencies included, at constraints.txt's versions),
    built on first use and rebuilt when `marker_text` changes."""
    folder = CACHE / name
    marker = folder / ".plates-packages"
    want = marker_text(packages, no_deps, constrained)
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f".{name}.lock", "a+") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)  # two test processes never build the same venv at once
        if marker.is_file() and marker.read_text() == want:
            return folder / "bin"
        shutil.rmtree(folder, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, timeout=120)
        pip = [str(folder / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
               *(["-c", str(CONSTRAINTS)] * constrained)]
        if no_deps:
            subprocess.run([*pip, "--no-deps", *no_deps], check=True, timeout=timeout)
        if packages:
            subprocess.run([*pip, *packages], check=True, timeout=timeout)
        marker.write_text(want)
    return folder / "bin"


def harness_env(**extra: str) -> dict[str, str]:
    """The environment a harness command runs in: offline hubs, this checkout first on the path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    env.update(PYTHONPATH=str(CHECKOUT), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               HF_HUB_DISABLE_TELEMETRY="1", INSPECT_DISPLAY="none", **extra)
    return env
