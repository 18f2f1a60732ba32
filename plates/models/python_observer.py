"""Any Python callable as an observer: kind ``"python"``, model ``"package.module:function"``.

The callable is imported from the model name (``importlib``: the module must be importable from this process,
e.g. installed or on ``PYTHONPATH``) and called once per query as ``function(image, question)``: ``image`` is
the PIL RGB image of the query's last user turn (sRGB 0-255; None when that turn has none), ``question`` the
turn's text. It returns the reply text (a ``str``), or a `plates.models.base.Reply` when it wants to say more
(declined, an error, settings). Anything else is an error reply naming the type it returned. An exception
raised by the callable becomes an error reply with its class and message (a failed request, never answer
text), so the runner's "keeps failing the same way" rule stops a broken observer as it stops a broken server.

Simulated and ideal observers (`plates.models.simulated`) are such callables; a person's own model of an
observer is one module away. The ``model`` column of every row is the ``module:function`` name, and
``generation_json`` says that a Python callable decided the reply. This kind runs code named by its user, so
the apps never offer it to a visitor (`LOCAL_CODE_KINDS`).
"""

from __future__ import annotations

import importlib
import re
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from plates.models.base import Backend, Query, Reply

__all__ = ["PythonBackend", "resolve_callable"]

_NAME = re.compile(r"^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*:[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$")


def resolve_callable(name: str) -> Callable[..., Any]:
    """The callable named ``"package.module:attribute"`` (dotted attributes allowed after the colon).

    Parameters
    ----------
    name : str
        ``"package.module:attribute"``.

    Returns
    -------
    callable
        The callable.

    Raises
    ------
    ValueError
        The name is not of that form, the module cannot be imported, the attribute is missing or is not
        callable (each message names the value and what is allowed).
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"python observer {name!r} is not valid; allowed: 'package.module:function' (a callable "
                         "importable from this process, e.g. 'plates.models.simulated:ideal')")
    module_name, _, attr = name.partition(":")
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"python observer {name!r}: module {module_name!r} cannot be imported ({exc}); allowed: "
                         "a module on this process's import path") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"python observer {name!r}: {module_name} has no attribute {attr!r}; allowed: a "
                             "callable defined in that module")
        obj = getattr(obj, part)
    if not callable(obj):
        raise ValueError(f"python observer {name!r} is a {type(obj).__name__}, not a callable; allowed: a function "
                         "(image, question) -> reply text")
    return obj


class PythonBackend(Backend):
    """A Python callable behind the Backend protocol (module docstring). ``model``: ``"package.module:function"``.

    Parameters
    ----------
    model : str
        ``"package.module:function"``.

    Raises
    ------
    ValueError
        When `resolve_callable` refuses it.
    """

    kind = "python"

    def __init__(self, model: str) -> None:
        self._fn = resolve_callable(model)
        self.model = model

    def answer(self, query: Query) -> Reply:
        """One query -> Reply: the callable's text, or an error reply when it raised or returned a non-string.

        Parameters
        ----------
        query : Query
            The question (its turns, images and sampling).

        Returns
        -------
        Reply
            The reply.
        """
        last = query.turns[-1]
        image = last.images[-1] if last.images else None
        start = time.perf_counter()
        try:
            out = self._fn(image, last.text)
        except Exception as exc:  # noqa: BLE001 - the observer's failure is a failed request, recorded as such
            return Reply(text=None, error=f"{type(exc).__name__}: {exc}"[:500],
                         latency_s=time.perf_counter() - start)
        latency = time.perf_counter() - start
        if isinstance(out, Reply):
            return out
        if not isinstance(out, str):
            return Reply(text=None, error=f"python observer {self.model} returned a {type(out).__name__}; allowed: "
                                          "str or plates.models.base.Reply", latency_s=latency)
        return Reply(text=out, latency_s=latency, settings={"decoding": f"python callable {self.model}"})

    def ask(self, queries: Sequence[Query]) -> Iterator[tuple[int, Reply]]:
        """Answer each query in turn.

        Parameters
        ----------
        queries : sequence of Query
            The questions.

        Yields
        ------
        (int, Reply)
            Index into ``queries`` and its reply, in order.
        """
        for index, query in enumerate(queries):
            yield index, self.answer(query)
