"""The explorer: the whole Gradio app (`app.build_app`; `python -m plates.explorer` or the Space's `app.py`
serves it). One module per tab holds its widget-free logic, tested without a browser: `plate` (the plate
designer, and the public-mode `Policy` every tab obeys), `models` (asking a model, the ΔE2000 sweep, the
history), `compare` (models side by side, overlaid sweeps), `share` (the Model tab's state in a link),
`reproduce` (the Python and CLI lines of what is on screen), `codes` (the bounded link codes), `families` (the
illusion and scene tabs), `quiz` ("Try it yourself"); `app`, `model_tab` and `family_tabs` lay out the widgets and
wire the events."""

import os

# Before any module of the explorer imports Gradio: no usage analytics leave the machine.
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
