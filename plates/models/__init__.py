"""Model backends behind one protocol.

``make_backend("openai", model="gpt-4o-mini", base_url=...)`` builds a backend by name. Each backend lives in
its own module and imports its SDK lazily, so importing this package costs nothing and a missing SDK raises an
error naming the extra to install (``pip install -e ".[hf]"`` in a checkout: plates.install.extra_hint)
instead of crashing at startup.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from types import MappingProxyType
from typing import Any

from plates.install import extra_hint
from plates.models.base import Backend, BackendFailing, Query, Reply, Turn
from plates.reader import MODEL_NAME

_BACKENDS: dict[str, str] = {
    "openai": "plates.models.openai_compat:OpenAIBackend",
    "hf": "plates.models.hf:HFBackend",
    "baseline": "plates.models.baseline:BaselineBackend",
    "reference-pixels": "plates.models.reference:ReferencePixelsBackend",
    "python": "plates.models.python_observer:PythonBackend",
}
#: Backend kind -> "module:ClassName" (imported only when the backend is made); read-only: `registered_backend`
#: adds one for a while.
BACKENDS: Mapping[str, str] = MappingProxyType(_BACKENDS)

#: Backend kind -> the model it runs when none is named (backends that hold one model only).
DEFAULT_MODELS: dict[str, str] = {
    "baseline": MODEL_NAME,
    "reference-pixels": "reference observer (reads pixels; a ceiling, not a model)",
}
#: Backend kinds that are not models (a reference observer): never offered as a model to pick in the apps.
REFERENCE_KINDS: frozenset[str] = frozenset({"reference-pixels"})
#: Backend kinds that run code their model name points to (`plates.models.python_observer`): never offered to a
#: visitor of the apps.
LOCAL_CODE_KINDS: frozenset[str] = frozenset({"python"})

_EXTRAS: dict[str, str | None] = {"openai": None, "hf": "hf", "baseline": None, "reference-pixels": None,
                                  "python": None}
#: Backend kind -> the extra that installs its SDK (None: the default install); see plates.install.extra_hint.
EXTRAS: Mapping[str, str | None] = MappingProxyType(_EXTRAS)


@contextmanager
def registered_backend(kind: str, target: str, *, extra: str | None = None) -> Iterator[None]:
    """`BACKENDS` with ``kind`` registered as ``target`` while the block runs, then as it was before.

    The supported way to add a backend for a while (a test's fake, one under development) or stand another
    class in for a registered kind; `BACKENDS` itself is read-only.

    Parameters
    ----------
    kind : str
        The backend kind, new or registered (then replaced until the block ends).
    target : str
        ``"module:ClassName"``, imported when the backend is made (`backend_class`).
    extra : str or None
        The extra that installs its SDK (`EXTRAS`), named when an import fails.

    Raises
    ------
    ValueError
        A ``target`` that is not ``"module:ClassName"``.

    Examples
    --------
    >>> with registered_backend("echo", "plates.models.python_observer:PythonBackend"):
    ...     "echo" in BACKENDS
    True
    >>> "echo" in BACKENDS
    False
    """
    module_name, colon, class_name = str(target).partition(":")
    if not (isinstance(target, str) and colon and module_name and class_name):
        raise ValueError(f"backend target {target!r} is not valid; allowed: 'module:ClassName'")
    before = (_BACKENDS.get(kind), _EXTRAS.get(kind), kind in _BACKENDS)
    _BACKENDS[kind], _EXTRAS[kind] = target, extra
    try:
        yield
    finally:
        if before[2]:
            _BACKENDS[kind], _EXTRAS[kind] = before[0], before[1]  # type: ignore[assignment]
        else:
            _BACKENDS.pop(kind, None)
            _EXTRAS.pop(kind, None)


def backend_class(kind: str) -> type[Backend]:
    """The class registered under ``kind`` (one of :data:`BACKENDS`), imported on demand.

    Parameters
    ----------
    kind : str
        A name in `BACKENDS`.

    Returns
    -------
    type
        The backend's class.

    Raises
    ------
    ValueError
        For an unknown kind, or a module that defines no such class.
    ImportError
        When the backend's SDK is not installed (the message names the extra to install).
    """
    if kind not in BACKENDS:
        raise ValueError(f"unknown backend {kind!r}; allowed: {', '.join(BACKENDS)}")
    module_name, _, class_name = BACKENDS[kind].partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            raise ValueError(
                f"backend {kind!r} is registered but its module {module_name} is not present in this install"
            ) from exc
        hint = extra_hint(EXTRAS.get(kind))
        raise ImportError(f"backend {kind!r} needs the package {exc.name!r}: {hint}") from exc
    cls = getattr(module, class_name, None)
    if cls is None:
        raise ValueError(f"backend {kind!r}: module {module_name} defines no {class_name}")
    return cls


def make_backend(kind: str, **options: Any) -> Backend:
    """Build a backend by kind, with its keyword options.

    Parameters
    ----------
    kind : str
        One of `BACKENDS`: "openai" (any OpenAI-compatible server), "hf" (a local transformers model),
        "baseline" (the bundled ONNX reader), "reference-pixels" (the pixel-reading reference observer) or
        "python" (any Python callable from image and question to a reply: `plates.models.python_observer`).
    **options
        The backend class's keyword arguments (``model``, ``base_url``, ``api_key_env``, ``concurrency``,
        ``batch_size``, ...): see each class (`backend_class`).

    Returns
    -------
    Backend

    Raises
    ------
    ValueError
        An unknown kind (listing the allowed ones) or bad options.
    ImportError
        The backend's SDK is missing; the message names the extra to install.

    Examples
    --------
    >>> make_backend("baseline").model
    'baseline-cnn'
    >>> make_backend("gpt")
    Traceback (most recent call last):
    ...
    ValueError: unknown backend 'gpt'; allowed: openai, hf, baseline, reference-pixels, python
    """
    return backend_class(kind)(**options)


__all__ = ["BACKENDS", "DEFAULT_MODELS", "LOCAL_CODE_KINDS", "REFERENCE_KINDS", "Backend", "BackendFailing", "Query", "Reply", "Turn", "backend_class", "make_backend",
           "registered_backend"]
