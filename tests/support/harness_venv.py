"""Isolated virtual environments for the evaluation harnesses, created once and cached between runs.

inspect_ai caps ``fsspec`` below this project's pin and lmms-eval pins ``filelock`` and ``wandb``: each lives in
its own venv under ``~/.cache/plates-harness/`` (``PLATES_HARNESS_CACHE`` moves it), built with
``python3 -m venv`` and pip from the package registry, and driven from its own command line with this checkout
on ``PYTHONPATH`` (so the venv holds only the harness and the few libraries ``plates.tasks`` imports). A venv
is rebuilt when its package list changes (the list is written into it when the install finished).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

CACHE = Path(os.environ.get("PLATES_HARNESS_CACHE", Path.home() / ".cache" / "plates-harness"))
#: What `plates.tasks` and the exported Parquet need inside a harness's venv (the project's pins).
PLATES_MINIMAL = ("numpy==2.4.6", "pillow==12.3.0", "scipy==1.17.1", "pyarrow==26.0.1")
INSPECT = ("inspect_ai==0.3.285", "openai==3.57.0", *PLATES_MINIMAL)
#: lmms-eval's 52 requirements pin filelock and wandb and pull a CUDA torch: its venv sees this environment's
#: packages (torch, transformers, accelerate, datasets: --system-site-packages) and adds lmms-eval without its
#: dependencies, plus the few modules its command line imports that this environment lacks.
LMMS_EVAL_NO_DEPS = ("lmms_eval==0.7.3",)
LMMS_EVAL = ("loguru==0.7.3", "sacrebleu==2.6.0", "evaluate==0.4.6", "tenacity==9.2.1", "pytablewriter==1.2.1")
CHECKOUT = Path(__file__).resolve().parents[2]


def venv(name: str, packages: tuple[str, ...], *, no_deps: tuple[str, ...] = (), system_site: bool = False,
         timeout: float = 900) -> Path:
    """The ``bin`` folder of the cached venv ``name`` holding ``packages`` (and ``no_deps``, installed without
    their dependencies; ``system_site``: the venv also sees this environment's packages), built on first use."""
    folder = CACHE / name
    marker = folder / ".plates-packages"
    want = "\n".join([*packages, *(f"{p} --no-deps" for p in no_deps), *(["--system-site-packages"] * system_site)])
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f".{name}.lock", "a+") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)  # two test processes never build the same venv at once
        if marker.is_file() and marker.read_text() == want:
            return folder / "bin"
        shutil.rmtree(folder, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", *(["--system-site-packages"] * system_site), str(folder)],
                       check=True, timeout=120)
        if no_deps:
            subprocess.run([str(folder / "bin" / "pip"), "install", "-q", "--no-deps", *no_deps], check=True,
                           timeout=timeout)
        subprocess.run([str(folder / "bin" / "pip"), "install", "-q", *packages], check=True, timeout=timeout)
        marker.write_text(want)
    return folder / "bin"


def harness_env(**extra: str) -> dict[str, str]:
    """The environment a harness command runs in: offline hubs, this checkout first on the path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    env.update(PYTHONPATH=str(CHECKOUT), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               HF_HUB_DISABLE_TELEMETRY="1", INSPECT_DISPLAY="none", **extra)
    return env
