"""Tests mirror the package: every module ``plates/<a>/<b>.py`` has its test file ``tests/<a>/test_<b>.py``, except
the modules recorded below, each with its reason. Packages' ``__init__.py`` and ``__main__.py`` are outside the rule
(their tests live in the package's test folder). The allowlist may only shrink: an entry whose module is gone or has
its mirrored test file now fails, so it is taken out when the test is written."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "plates"

_PAGE = "UI only: covered by browser test tests/dashboard/test_legible_browser.py (every page of PAGES) and AppTest"

#: module (path under the repository root) -> why it has no mirrored test file
ALLOWED: dict[str, str] = {
    # thin Streamlit pages: a few lines each over plates.dashboard.pages / queries, which have their own tests
    "plates/dashboard/sections/chain_of_thought.py": f"{_PAGE} in tests/dashboard/test_app.py",
    "plates/dashboard/sections/colour_sets.py": f"{_PAGE} in tests/dashboard/test_app.py",
    "plates/dashboard/sections/compare.py": f"{_PAGE} in tests/dashboard/test_app.py",
    "plates/dashboard/sections/delta_e.py": f"{_PAGE} in tests/dashboard/test_app.py",
    "plates/dashboard/sections/drilldown.py": f"{_PAGE} in tests/dashboard/test_app.py",
    "plates/dashboard/sections/failure_modes.py": f"{_PAGE} in tests/dashboard/test_app.py",
    "plates/dashboard/sections/grayscale.py": f"{_PAGE} in tests/dashboard/test_app.py",
    "plates/dashboard/sections/illusions.py": f"{_PAGE} in tests/dashboard/test_sections.py",
    "plates/dashboard/sections/observers.py": f"{_PAGE} in tests/dashboard/test_observer_queries.py",
    "plates/dashboard/sections/overview.py": f"{_PAGE} in tests/dashboard/test_app.py",
    "plates/dashboard/sections/people.py": f"{_PAGE} in tests/dashboard/test_sections.py",
    "plates/dashboard/sections/published.py": f"{_PAGE} in tests/dashboard/test_app.py",
    "plates/dashboard/sections/resolution.py": f"{_PAGE} in tests/dashboard/test_app.py",
    "plates/dashboard/sections/scenes.py": f"{_PAGE} in tests/dashboard/test_sections.py",
    "plates/dashboard/sections/yes_no.py": f"{_PAGE} in tests/dashboard/test_app.py",
    # thin Gradio tab: widgets over plates.explorer.ellipse (tests/explorer/test_ellipse.py)
    "plates/explorer/ellipse_tab.py": "UI only: covered by browser test tests/explorer/test_ellipse_browser.py",
}


def mirrored(module: Path) -> Path:
    """The test file that mirrors ``module`` (a path under ``plates/``): ``plates/a/b.py`` -> ``tests/a/test_b.py``."""
    rel = module.relative_to(PACKAGE)
    return ROOT.joinpath("tests", *rel.parts[:-1], "test_" + rel.name)


def modules() -> list[Path]:
    """Every module under ``plates/`` that the rule covers (not a package's ``__init__``/``__main__``)."""
    return sorted(p for p in PACKAGE.rglob("*.py") if p.name not in ("__init__.py", "__main__.py"))


def test_the_mirror_rule_maps_a_module_to_its_test_file():
    assert mirrored(PACKAGE / "colour" / "gamut.py") == ROOT / "tests" / "colour" / "test_gamut.py"
    assert mirrored(PACKAGE / "toml_files.py") == ROOT / "tests" / "test_toml_files.py"
    assert len(modules()) > 100 and PACKAGE / "cli" / "__main__.py" not in modules()


def test_every_module_has_its_mirrored_test_file_or_a_recorded_reason():
    missing = [str(m.relative_to(ROOT)) for m in modules()
               if not mirrored(m).exists() and str(m.relative_to(ROOT)) not in ALLOWED]
    assert not missing, ("modules without their mirrored test file tests/<a>/test_<b>.py (write it, or record why "
                         f"not in tests/test_layout.py ALLOWED): {missing}")


def test_the_allowlist_only_names_modules_that_still_need_it():
    stale = [path for path in ALLOWED
             if not (ROOT / path).exists() or mirrored(ROOT / path).exists()]
    assert not stale, f"take these out of ALLOWED in tests/test_layout.py (gone, or now mirrored): {stale}"
    assert all(reason.strip() for reason in ALLOWED.values())
