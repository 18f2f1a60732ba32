"""What the explorer's tabs share while `plates.explorer.app.build_app` builds them: one `AppContext` per app
(limits, guard, caches, scratch folder: `Scratch`), the Plate tab's inputs other tabs read (`PlateTab`), and the
options of the events the page wires for itself (`INTERNAL`)."""

from __future__ import annotations

import contextlib
import os
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from plates.admission import Admission
from plates.explorer import plate as ex
from plates.explorer.backends import ModelCache
from plates.explorer.history import history_parquet
from plates.explorer.policy import Policy
from plates.explorer.pool import ExplorerPool
from plates.explorer.specs import spec_from_controls

__all__ = ["INTERNAL", "AppContext", "PlateTab", "Scratch"]

#: Chained steps and events the page wires for itself: not endpoints of the API page.
INTERNAL = dict(api_visibility="private")


class Scratch:
    """A folder of files the explorer names itself (never from user input), pruned as new ones are written.

    Files older than ``max_age_s`` seconds are deleted (at most once a minute), so a long-running Space does
    not
    fill its disk.

    Parameters
    ----------
    root : str or os.PathLike
        The folder (made when missing).
    max_age_s : float
        Seconds a file is kept.
    """

    def __init__(self, root: str | os.PathLike, max_age_s: float = 900.0) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.max_age_s = max_age_s
        self._last_prune = 0.0

    def write(self, stem: str, suffix: str, data: bytes) -> str:
        """Write ``data`` to a fresh file ``<stem>-<random>.<suffix>``.

        Parameters
        ----------
        stem : str
            1-40 characters of ``[a-z0-9-]``.
        suffix : str
            png, jpeg, json or parquet.
        data : bytes
            The file's content.

        Returns
        -------
        str
            The file's path.

        Raises
        ------
        ValueError
            When the stem or suffix is not allowed.
        """
        if not re.fullmatch(r"[a-z0-9-]{1,40}", stem) or suffix not in ("png", "jpeg", "json", "parquet"):
            raise ValueError(f"scratch name {stem!r}.{suffix!r} is not allowed; allowed: [a-z0-9-] and "
                             "png/jpeg/json/parquet")
        now = time.time()
        if now - self._last_prune > 60:
            self._last_prune = now
            for old in self.root.iterdir():
                with contextlib.suppress(OSError):
                    if now - old.stat().st_mtime > self.max_age_s:
                        old.unlink()
        path = self.root / f"{stem}-{uuid.uuid4().hex[:12]}.{suffix}"
        path.write_bytes(data)
        return str(path)


@dataclass
class AppContext:
    """What every tab of one app uses.

    Attributes
    ----------
    policy : Policy
        This server's limits.
    admission : Admission or None
        The public mode's admission limits; None in private mode.
    guard : callable
        The error guard event handlers are wrapped in.
    slots : dict
        The concurrency slots per kind of work.
    cache : ModelCache
        The loaded models.
    plates_seen : PlateCache
        The plates on screen (owned by ``work``).
    scratch : Scratch
        The folder for the files we name.
    ttl : float or None
        The session state's time to live, seconds.
    work : ExplorerPool
        Where the CPU work runs (worker processes or this one).
    """

    policy: Policy
    admission: Admission | None
    guard: Callable
    slots: dict
    cache: ModelCache
    plates_seen: ex.PlateCache
    scratch: Scratch
    ttl: float | None
    work: ExplorerPool  # renders and the reader's answers (worker processes or this one); owns plates_seen

    def make_spec(self, base_json, *vals):
        """The Plate tab's controls (and the pasted or linked spec they sit on) as a PlateSpec.

        Parameters
        ----------
        base_json : str or None
            The pasted or linked spec, or None.
        *vals
            The control values in `plates.explorer.plate.Controls` field order.

        Returns
        -------
        PlateSpec
            The validated spec.

        Raises
        ------
        ValueError
            Naming a bad control value.
        """
        return spec_from_controls(self.policy, base_json, *vals)

    def admit_answers(self, request, answers: int, what: str) -> None:
        """Public mode: refuse a model call past the memory budget or the visitor's share (private: no-op).

        Parameters
        ----------
        request : gradio.Request
            The event's request (its client address).
        answers : int
            How many model answers the call asks for.
        what : str
            What is asked, named in the refusal.

        Raises
        ------
        plates.admission.Refused
            (a ValueError the page shows) while the process is over its memory budget, or when ``answers``
            more
            answers would pass this visitor's share (`plates.admission.Admission.model_answers`).
        """
        if self.admission is not None:
            self.admission.memory.check(what)
            self.admission.model_answers.take(self.admission.client(request), answers)

    def parquet(self, history):
        """Write the session history as a Parquet file in the scratch folder.

        Parameters
        ----------
        history : list of dict
            The session's rows (`plates.explorer.history.history_parquet`).

        Returns
        -------
        str
            The file's path.
        """
        return self.scratch.write("explorer-history", "parquet", history_parquet(history))


@dataclass
class PlateTab:
    """The Plate tab's widgets other tabs read.

    Attributes
    ----------
    controls : list
        Its control widgets, in `plates.explorer.plate.Controls` order.
    plate_inputs : list
        The render event's inputs (the base spec first).
    render_kw : dict
        The render event's other arguments.
    """

    controls: list
    plate_inputs: list
    render_kw: dict
