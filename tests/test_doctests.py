"""Every docstring example in plates/ runs: a golden value in the docs is a test a reader can see.

One test per module (its name says which), under pytest's ``doctest_optionflags`` (pyproject.toml), so ``python3 -m pytest plates --doctest-modules`` with the same ``--ignore``s below
runs the same examples. A module that has no example passes with nothing tried.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import plates

#: Modules that cannot be imported in the test process, each with the reason. Nothing else is skipped.
NOT_IMPORTABLE = {
    # Streamlit page scripts: importing one runs the page, which needs Streamlit's script context
    # (plates.dashboard.app runs them; tests/dashboard drives them through AppTest).
    "plates.dashboard.sections": "Streamlit page scripts run on import",
    # inspect_ai caps fsspec below this project's pin and lives in its own environment (the `inspect` extra).
    "plates.integrations.inspect_tasks": "needs inspect_ai, installed in its own environment",
}
#: ``python -m`` entries (``__main__`` modules) run their program on import; pytest's doctest collection skips
#: them too.
ENTRY = "__main__"


def _modules() -> list[str]:
    names = [plates.__name__]
    for info in pkgutil.walk_packages(plates.__path__, prefix="plates."):
        if info.name.rsplit(".", 1)[-1] == ENTRY:
            continue
        if not any(info.name == skip or info.name.startswith(skip + ".") for skip in NOT_IMPORTABLE):
            names.append(info.name)
    return sorted(names)


MODULES = _modules()


def test_the_module_list_is_whole():
    """The walk finds the package's modules, and each exclusion names a module that exists."""
    assert {"plates.colour.spaces", "plates.tasks.answers.labels", "plates.storage"} <= set(MODULES)
    every = {info.name for info in pkgutil.walk_packages(plates.__path__, prefix="plates.")}
    assert set(NOT_IMPORTABLE) <= every


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_hold(name, pytestconfig):
    flags = 0
    for flag in pytestconfig.getini("doctest_optionflags"):
        flags |= doctest.OPTIONFLAGS_BY_NAME[flag]
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=flags)
    for test in finder.find(module, name):
        runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.failed == 0, f"{results.failed} of {results.attempted} examples in {name} failed (output above)"
