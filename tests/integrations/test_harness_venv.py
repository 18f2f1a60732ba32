"""The harnesses' cached venvs (`tests.support.harness_venv`) stand alone: none sees the packages of the
interpreter that built it, and each is rebuilt when its interpreter, its package list or the project's pins
change (an install cut short leaves no marker, so it is rebuilt too)."""

import subprocess

import pytest

from tests.support import harness_venv
from tests.support.harness_venv import CONSTRAINTS, LMMS_EVAL, TORCH, interpreter, marker_text, pins, venv

pytestmark = pytest.mark.slow


def test_a_venv_sees_none_of_this_interpreters_packages_and_is_rebuilt_when_its_interpreter_changes(
        tmp_path, monkeypatch):
    monkeypatch.setattr(harness_venv, "CACHE", tmp_path)
    bin_dir = venv("probe", ())
    folder = bin_dir.parent
    assert (folder / ".plates-packages").read_text() == f"python: {interpreter()}\n"
    assert "include-system-site-packages = false" in (folder / "pyvenv.cfg").read_text()
    import numpy  # noqa: F401  here, numpy is installed; in the venv it is not

    proc = subprocess.run([str(bin_dir / "python"), "-c", "import numpy"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 1 and "No module named 'numpy'" in proc.stderr

    (folder / "stamp").touch()
    assert venv("probe", ()) == bin_dir and (folder / "stamp").exists()  # the same inputs: kept as built
    monkeypatch.setattr(harness_venv, "interpreter", lambda: "/elsewhere/python3.11 3.11.0 (another build)")
    venv("probe", ())
    assert not (folder / "stamp").exists()  # another interpreter: rebuilt
    assert (folder / ".plates-packages").read_text().startswith("python: /elsewhere/python3.11 3.11.0")


def test_the_marker_names_the_interpreter_the_packages_and_the_pins():
    base = marker_text(("a==1",))
    assert base.splitlines() == [f"python: {interpreter()}", "a==1"]
    assert marker_text(("a==2",)) != base and marker_text(("a==1",), ("b==1",)) != base
    constrained = marker_text(("a==1",), constrained=True)
    assert constrained.splitlines()[1].startswith("constraints: sha256 ") and constrained != base
    assert "python-dotenv==1.2.4" in LMMS_EVAL and TORCH in LMMS_EVAL  # lmms-eval's openai model imports dotenv
    assert pins("numpy", "PyYAML", "huggingface-hub") == tuple(
        line for name in ("numpy==", "PyYAML==", "huggingface_hub==") for line in CONSTRAINTS.read_text().split()
        if line.startswith(name))
    with pytest.raises(ValueError, match="no-such-package not pinned in .*constraints.txt; allowed: "):
        pins("no-such-package")
