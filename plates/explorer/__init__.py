"""The explorer: the whole Gradio app (`app.build_app`; `python -m plates.explorer` or the Space's `app.py`
serves it). One module per tab holds its widget-free logic, tested without a browser: `plate` (the plate
designer: controls <-> spec, views), `specs` (a spec as JSON and as a share code), `backends` (which model
answers: the choice, the model cache), `models` (asking a model), `sweep` (the ΔE2000 sweep), `history` (the
session's rows), `compare` (models side by side, overlaid sweeps), `share` (the Model tab's state in a link),
`reproduce` (the Python and CLI lines of what is on screen), `codes` (the bounded link codes), `families` (the
illusion and scene tabs), `quiz` ("Try it yourself"). Every tab obeys the public-mode `Policy` (`policy`);
`concurrency` says how many events run at once and in how many worker processes (`pool`); `app`, `model_tab`
and `family_tabs` lay out the widgets and wire the events, sharing `context`."""

import importlib.abc
import importlib.util
import os
import sys

# Before any module of the explorer imports Gradio: no usage analytics leave the machine.
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")


def serving_process() -> None:
    """Prepare a process that only serves the explorer (``python -m plates.explorer``, the Space's ``app.py``),
    before it imports Gradio: Gradio's notebook helpers (its IPython magics, inline display, Colab check)
    import IPython when it is installed, about a sixth of Gradio's import time, and each treats a missing
    IPython as "not in a notebook", which a server process is not. A process already running IPython (a
    notebook) keeps it.

    It also stops Gradio rewriting its own type stubs while it is imported: `gradio.component_meta` parses
    the source of every component class it defines and rewrites the ``.pyi`` beside it (editor hints for
    custom components' authors), about 40% of Gradio's import CPU time, and a serving process never reads
    them. Only that function is replaced, with one that does nothing, and only when Gradio is not imported
    yet; nothing else changes.
    """
    sys.modules.setdefault("IPython", None)  # a None entry: `import IPython` raises ImportError here
    if "gradio" not in sys.modules and not any(isinstance(f, _NoStubRewrite) for f in sys.meta_path):
        sys.meta_path.insert(0, _NoStubRewrite())


class _NoStubRewrite(importlib.abc.MetaPathFinder):
    """Finds nothing itself: when ``gradio.component_meta`` is first imported, it has the normal finders load
    it and then replaces its ``create_or_modify_pyi`` (called once per component class defined) with a
    function that does nothing, then leaves ``sys.meta_path``."""

    TARGET, HOOK = "gradio.component_meta", "create_or_modify_pyi"

    def find_spec(self, name, path=None, target=None):
        if name != self.TARGET:
            return None
        sys.meta_path.remove(self)  # once: the normal finders locate the module
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            if hasattr(module, self.HOOK):  # a Gradio without it has nothing to skip
                setattr(module, self.HOOK, _no_stub_rewrite)

        spec.loader.exec_module = exec_module
        return spec


def _no_stub_rewrite(*_args, **_kwargs) -> None:
    """Stands in for Gradio's ``create_or_modify_pyi`` in a serving process (`serving_process`)."""
