"""The explorer: the whole Gradio app (`app.build_app`; `python -m plates.explorer` or the Space's `app.py`
serves it). One module per tab holds its widget-free logic, tested without a browser: `plate` (the plate
designer: controls <-> spec, views), `specs` (a spec as JSON and as a share code), `backends` (which model
answers: the choice, the model cache), `models` (asking a model), `sweep` (the ΔE2000 sweep), `history` (the
session's rows), `compare` (models side by side, overlaid sweeps), `share` (the Model tab's state in a link),
`reproduce` (the Python and CLI lines of what is on screen), `codes` (the bounded link codes), `families` (the
illusion and scene tabs), `quiz` ("Try it yourself"). Every tab obeys the public-mode `Policy` (`policy`);
`concurrency` says how many events run at once and in how many worker processes (`pool`); `app`, `model_tab`
and `family_tabs` lay out the widgets and wire the events, sharing `context`."""

import os
import sys

# Before any module of the explorer imports Gradio: no usage analytics leave the machine.
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")


def serving_process() -> None:
    """Prepare a process that only serves the explorer (``python -m plates.explorer``, the Space's ``app.py``),
    before it imports Gradio: Gradio's notebook helpers (its IPython magics, inline display, Colab check)
    import IPython when it is installed, about a sixth of Gradio's import time, and each treats a missing
    IPython as "not in a notebook", which a server process is not. A process already running IPython (a
    notebook) keeps it; nothing else changes.
    """
    sys.modules.setdefault("IPython", None)  # a None entry: `import IPython` raises ImportError here
