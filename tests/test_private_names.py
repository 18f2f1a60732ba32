"""No module uses another module's private names: a ``_name`` is its own module's business, so it can change
without breaking a caller elsewhere. Read with ``ast`` over ``plates/``, ``tests/``, ``bench/`` and ``scripts/``
(and the top-level scripts), for names of the project's own modules (``plates.*``, ``tests.*``):

* ``from plates.x import _name`` (aliases included) and ``import plates._x``;
* ``x._name`` where ``x`` is a name bound to one of our modules or to a name imported from one
  (``storage._flush``, ``Plate._cache``);
* a private name as a string in ``setattr/getattr/delattr/hasattr(x, "_name")`` on such a name, or in a dotted
  ``"plates.x._name"`` string (``monkeypatch.setattr``, ``mock.patch``).

A module's own privates are fine, and so is attribute access on objects (``self._x``). ``ALLOWED`` lists the
uses still tolerated, each as ``"file: target"``; it may only shrink (a stale entry fails), and it is empty:
make a name public, with a docstring, or test through the public API instead."""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OURS = ("plates", "tests")
SOURCES = [*(ROOT / "plates").rglob("*.py"), *(ROOT / "tests").rglob("*.py"), *(ROOT / "bench").rglob("*.py"),
           *(ROOT / "scripts").rglob("*.py"), *ROOT.glob("*.py")]
SOURCES.remove(Path(__file__).resolve())  # this file names private targets as data, in its scanner's test
_REFLECTION = {"setattr", "getattr", "delattr", "hasattr"}
_DOTTED = re.compile(r"^(?:plates|tests)(?:\.\w+)+$")

#: "file (relative to the repository root): the private name it uses" -> why it is still tolerated.
ALLOWED: dict[str, str] = {}


def private(name: str) -> bool:
    """Whether ``name`` is private: a leading underscore, not a dunder (``__all__``, ``__version__``)."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__")) and name != "_"


def module_name(path: Path, root: Path = ROOT) -> str:
    """The dotted module name of ``path`` under ``root`` (a package's ``__init__``: the package)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _absolute(node: ast.ImportFrom, me: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    package = me.split(".") if is_package else me.split(".")[:-1]
    package = package[: len(package) - (node.level - 1)]
    return ".".join([*package, *([node.module] if node.module else [])])


def _bound_target(node: ast.expr, bound: dict[str, str]) -> str | None:
    """The dotted target of ``a.b.c`` when ``a`` is bound to one of our modules (or a name from one)."""
    chain = []
    while isinstance(node, ast.Attribute):
        chain.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and node.id in bound:
        return ".".join([bound[node.id], *reversed(chain)])
    return None


def _module_prefix(parts: list[str]) -> str | None:
    """The longest leading part of the dotted name ``parts`` that is one of our module files, or None (a made-up
    name such as a test's probe module)."""
    for end in range(len(parts), 0, -1):
        folder = ROOT.joinpath(*parts[:end])
        if folder.with_suffix(".py").is_file() or (folder / "__init__.py").is_file():
            return ".".join(parts[:end])
    return None


def _names_private(module: str, rest: list[str]) -> bool:
    """Whether the dotted path ``rest`` after ``module`` goes through a private name that ``module`` defines (a
    name its source never mentions is made up, as a test's probe module is)."""
    if not rest or not any(private(p) for p in rest):
        return False
    folder = ROOT.joinpath(*module.split("."))
    source = (folder / "__init__.py" if folder.is_dir() else folder.with_suffix(".py")).read_text(encoding="utf-8")
    return re.search(rf"\b{re.escape(rest[0])}\b", source) is not None


def private_uses(path: Path, root: Path = ROOT) -> list[str]:
    """Every private name of another of our modules that ``path`` uses, as ``"file: target"`` (sorted).

    Parameters
    ----------
    path : pathlib.Path
        A Python source file under ``root``.
    root : pathlib.Path
        The folder module names are taken from (the repository root).

    Returns
    -------
    list of str
        ``"<file relative to root>: <dotted target>"``, one per use site (duplicates removed).
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    me, rel = module_name(path, root), path.relative_to(root).as_posix()
    is_package = path.name == "__init__.py"
    bound: dict[str, str] = {}
    found: set[str] = set()

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = _absolute(node, me, is_package)
            if not base.startswith(OURS):
                continue
            for alias in node.names:
                if private(alias.name) and base != me:
                    found.add(f"{rel}: {base}.{alias.name}")
                bound[alias.asname or alias.name] = f"{base}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if not alias.name.startswith(OURS):
                    continue
                if any(private(part) for part in alias.name.split(".")):
                    found.add(f"{rel}: {alias.name}")
                head = alias.name if alias.asname else alias.name.split(".")[0]
                bound[alias.asname or head] = head
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and private(node.attr):
            owner = _bound_target(node.value, bound)
            if owner is not None and owner != me:
                found.add(f"{rel}: {owner}.{node.attr}")
        elif isinstance(node, ast.Call):
            func = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            args = node.args
            if func in _REFLECTION and len(args) >= 2 and isinstance(args[1], ast.Constant) \
                    and isinstance(args[1].value, str) and private(args[1].value):
                owner = _bound_target(args[0], bound)
                if owner is not None and owner != me:
                    found.add(f"{rel}: {owner}.{args[1].value}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _DOTTED.match(node.value):
            parts = node.value.split(".")
            owner = _module_prefix(parts)
            if owner is not None and owner != me and _names_private(owner, parts[owner.count(".") + 1:]):
                found.add(f"{rel}: {node.value}")
    return sorted(found)


@lru_cache(maxsize=1)
def all_uses() -> list[str]:
    """`private_uses` of every source file the rule covers."""
    return [use for path in sorted(SOURCES) for use in private_uses(path)]


def test_the_scanner_finds_each_kind_of_use(tmp_path):
    (tmp_path / "tests").mkdir()
    path = tmp_path / "tests" / "test_probe.py"
    path.write_text("\n".join([
        "from plates.storage import _fsync_dir",
        "from plates.storage import write_atomic as _write",  # a private alias of a public name: fine
        "import plates.colour.spaces as spaces",
        "from plates import storage",
        "from plates.stimuli.ishihara.plate import PlateSpec",
        "spaces._HEX",
        "PlateSpec._check",
        "setattr(storage, '_libc_syncfs', None)",
        "patch = 'plates.storage._os_sync'",
        "made_up = 'plates._probe.bare'",  # no such module: a test's throwaway name
        "self_like = object(); self_like._x",  # an object's attribute: not a module's name
        "storage.__all__",  # a dunder: not private
        "import numpy as np; np._NoValue",  # not one of our modules
    ]))
    assert private_uses(path, tmp_path) == sorted(f"tests/test_probe.py: {t}" for t in (
        "plates.storage._fsync_dir", "plates.colour.spaces._HEX", "plates.stimuli.ishihara.plate.PlateSpec._check",
        "plates.storage._libc_syncfs", "plates.storage._os_sync"))


def test_a_module_may_use_its_own_private_names():
    own = ROOT / "plates" / "storage.py"
    assert "_fsync_dir" in own.read_text() and private_uses(own) == []


def test_no_module_uses_another_modules_private_names():
    uses = [use for use in all_uses() if use not in ALLOWED]
    assert not uses, ("private names of another module (make them public with a docstring, or test through the "
                      f"public API): {uses}")


def test_the_allowlist_only_names_uses_that_remain():
    stale = sorted(set(ALLOWED) - set(all_uses()))
    assert not stale, f"take these out of ALLOWED in tests/test_private_names.py (no longer used): {stale}"
