"""The modules a fresh Python process holds after running some code: the guard that an app's start loads no
heavy library it does not need (`loaded_after`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.support import ROOT

#: Libraries no app may load before its first page: local models (torch, transformers, onnxruntime),
#: statistics and fits (scipy.stats, scipy.optimize), plotting (matplotlib, colour-science's plotting).
HEAVY = ("torch", "transformers", "onnxruntime", "scipy.stats", "scipy.optimize", "matplotlib", "colour.plotting")


def loaded_after(code: str, timeout_s: float = 300.0) -> set[str]:
    """The names in ``sys.modules`` after ``code`` ran in a fresh Python started in the repository's root (so
    this checkout's ``plates`` is imported), with Gradio's analytics and Streamlit's statistics off."""
    env = dict(os.environ, GRADIO_ANALYTICS_ENABLED="False", STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    env.pop("PYTHONPATH", None)
    script = f"{code}\nimport json, sys\nprint('\\n' + json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout_s)
    if done.returncode != 0:
        raise AssertionError(f"the code failed ({done.returncode}):\n{code}\n{done.stderr[-3000:]}")
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def heavy_in(modules: set[str], heavy: tuple[str, ...] = HEAVY) -> list[str]:
    """The ``heavy`` libraries (or any of their submodules) among ``modules``."""
    return sorted(h for h in heavy if h in modules or any(m.startswith(h + ".") for m in modules))


HOW_TO_FIND = ("see who imports it: python3 -X importtime -c 'CODE' 2>&1 | less, and import it inside the "
               "function that needs it")
