"""What the explorer's tabs share while `plates.explorer.app.build_app` builds them: one `AppContext` per app
(limits, guard, caches, scratch folder), the Plate tab's inputs other tabs read (`PlateTab`), and the options of
the events the page wires for itself (`INTERNAL`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from plates.admission import Admission
from plates.explorer import models as em
from plates.explorer import plate as ex
from plates.explorer.pool import ExplorerPool

__all__ = ["INTERNAL", "AppContext", "PlateTab"]

#: Chained steps and events the page wires for itself: not endpoints of the API page.
INTERNAL = dict(api_visibility="private")


@dataclass
class AppContext:
    """What every tab of one app uses: the policy and admission limits, the error guard, the concurrency
    slots, the model cache, the plates on screen, the scratch folder for the files we name, and the session
    state's time to live, and where the CPU work runs."""

    policy: ex.Policy
    admission: Admission | None
    guard: Callable
    slots: dict
    cache: em.ModelCache
    plates_seen: ex.PlateCache
    scratch: ex.Scratch
    ttl: float | None
    work: ExplorerPool  # renders and the reader's answers (worker processes or this one); owns plates_seen

    def make_spec(self, base_json, *vals):
        """The Plate tab's controls (and the pasted/linked spec they sit on) as a PlateSpec."""
        return ex.spec_from_controls(self.policy, base_json, *vals)

    def admit_answers(self, request, answers: int, what: str) -> None:
        """Public mode: refuse (`plates.admission.Refused`, a ValueError the page shows) a model call while
        the process is over its memory budget, or when ``answers`` more model answers would pass this
        visitor's share (`plates.admission.Admission.model_answers`); nothing in private mode."""
        if self.admission is not None:
            self.admission.memory.check(what)
            self.admission.model_answers.take(self.admission.client(request), answers)

    def parquet(self, history):
        return self.scratch.write("explorer-history", "parquet", em.history_parquet(history))


@dataclass
class PlateTab:
    """The Plate tab's widgets other tabs read: its controls, their inputs (the base spec first) and the
    render event's arguments."""

    controls: list
    plate_inputs: list
    render_kw: dict
