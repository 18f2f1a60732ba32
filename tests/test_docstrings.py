"""Every public name in plates/ has a numpy docstring (a summary, and a Parameters section when it takes any), as
``scripts/check_docstrings.py`` defines them, except the names still on the allowlist
(``tests/data/docstrings_todo.txt``), which may only shrink: a name lacking that is not on it fails, and so does
a name on it that no longer lacks (documented, renamed or deleted: take it off the list).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import sys
import typing

from tests.support import ROOT

TODO = ROOT / "tests" / "data" / "docstrings_todo.txt"


def _checker():
    spec = importlib.util.spec_from_file_location("check_docstrings", ROOT / "scripts" / "check_docstrings.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


CHECKER = _checker()


def allowlist() -> set[str]:
    """The qualified names still allowed to lack a section (one a line; ``#`` starts a comment)."""
    lines = (line.split("#", 1)[0].strip() for line in TODO.read_text(encoding="utf-8").splitlines())
    return {line for line in lines if line}


def test_no_public_name_lacks_beyond_the_allowlist():
    lacking = {name for found in CHECKER.missing().values() for name, _ in found}
    new = sorted(lacking - allowlist())
    assert not new, f"{len(new)} public names lack a summary or a Parameters section (write them): {new}"
    done = sorted(allowlist() - lacking)
    assert not done, f"take these off {TODO.relative_to(ROOT)} (they lack nothing now, or are gone): {done}"


def test_the_checker_finds_what_lacks(monkeypatch):
    """A function without a Parameters section (decorated or not), a class without a summary and a bare property
    are each found; a
    documented function, a private name, a re-exported one, a Protocol's constructor and a dataclass field's
    function default are not."""
    import types

    module = types.ModuleType("plates._probe")

    def documented(x):
        """Twice x.

        Parameters
        ----------
        x : float
            A number.
        """
        return 2 * x

    def bare(x):
        """Twice x, with no Parameters section."""
        return 2 * x

    def _private(x):
        return x

    @functools.lru_cache(maxsize=1)
    def cached(x):
        """Twice x, cached, with no Parameters section."""
        return 2 * x

    class Thing:
        def __init__(self, size):
            self.size = size

        @property
        def area(self):
            return self.size ** 2

        def no_arguments(self):
            """Nothing to say about parameters."""

    class Shape(typing.Protocol):
        """A protocol: never built, so no Parameters section for its constructor."""

        def area(self) -> float:
            """The area."""

    @dataclasses.dataclass
    class Spec:
        """A spec.

        Attributes
        ----------
        hook : callable
            A field whose default is a function (no method of the class).
        """

        hook: object = bare

    for obj in (documented, bare, _private, cached.__wrapped__, Thing, Shape, Spec):
        obj.__module__ = module.__name__
        setattr(module, obj.__name__, obj)
    module.cached = cached  # seen through the decorator
    Thing.area.fget.__module__ = Thing.no_arguments.__module__ = module.__name__
    module.lookup = CHECKER.check_module  # re-exported from elsewhere: not this module's
    monkeypatch.setitem(sys.modules, module.__name__, module)
    found = dict(CHECKER.check_module(module.__name__))
    assert found == {
        "plates._probe.bare": ["Parameters"],
        "plates._probe.cached": ["Parameters"],
        "plates._probe.Thing": ["summary", "Parameters"],
        "plates._probe.Thing.area": ["summary"],
    }


def test_the_allowlist_is_what_write_todo_writes():
    """`--write-todo` rewrites the allowlist from what lacks now: the committed file is exactly that text."""
    assert TODO.read_text(encoding="utf-8") == CHECKER.todo_text(CHECKER.missing())


def test_the_counts_are_per_subpackage():
    assert CHECKER.subpackage("plates.stimuli.ishihara.render") == "plates.stimuli"
    assert CHECKER.subpackage("plates.runs") == "plates.runs"
    assert CHECKER.subpackage("plates.storage") == "plates"
    assert "plates.storage" in CHECKER.modules() and "plates.dashboard.sections.colour_sets" not in CHECKER.modules()
