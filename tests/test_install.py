"""Install hints and the shadowing checkout (plates/install.py): a clone's ``plates/`` imported from the folder
Python runs in, instead of the installed package, is named as the cause of what it lacks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from plates.install import installed_root, shadowing_note


def test_a_checkout_under_the_current_folder_that_is_not_the_installed_one_is_named(tmp_path):
    clone = tmp_path / "clone"
    note = shadowing_note(clone / "plates", clone, Path("/opt/site-packages"))
    assert note and str(clone / "plates") in note and "/opt/site-packages" in note and "another folder" in note
    assert shadowing_note(clone / "plates", clone, clone) is None  # the installed (editable) checkout itself
    assert shadowing_note(clone / "plates", tmp_path / "elsewhere", Path("/opt")) is None  # not under cwd
    assert shadowing_note(clone / "plates", clone, None) is None  # nothing installed: nothing shadowed


def test_the_reader_names_a_shadowing_checkout_instead_of_sending_the_user_to_train(tmp_path):
    """Run from a folder holding a clone whose weights are absent: the error says the clone shadows the
    installed package (the cause), not "train them" (a 13-minute detour)."""
    root = installed_root()
    if root is None or not (root / "plates" / "assets" / "baseline" / "baseline.onnx").is_file():
        pytest.skip("needs an installed plates with its weights")
    import plates

    source = Path(plates.__file__).parent  # the code under test, copied without its assets: a bare clone
    clone = tmp_path / "clone" / "plates"
    clone.mkdir(parents=True)
    for name in ("__init__.py", "install.py", "validation.py"):
        (clone / name).write_bytes((source / name).read_bytes())
    (clone / "reader").mkdir()
    for path in (source / "reader").glob("*.py"):
        (clone / "reader" / path.name).write_bytes(path.read_bytes())
    code = ("import plates.reader.reader as r\n"
            "try:\n    r.default_model_path()\nexcept ValueError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=clone.parent, capture_output=True, text=True,
                         timeout=120)
    if "No module named" in out.stderr:
        pytest.skip(f"the copied subset of the package does not import alone: {out.stderr.splitlines()[-1]}")
    assert "weights are missing" in out.stdout and "a checkout in the folder Python runs in" in out.stdout
    assert "train them" not in out.stdout
