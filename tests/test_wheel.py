"""The built wheel, installed in a fresh virtual environment and run from outside the checkout: `plates dashboard`
serves the dashboard shipped inside the package (its pages included), and `python -m plates.explorer` serves the
explorer. The environment borrows this interpreter's installed dependencies through a ``.pth`` file naming this
interpreter's site-packages folders (not ``--system-site-packages``: run from a virtual environment, that flag hands
the new one the *base* interpreter's packages, not this environment's); the wheel itself is installed with
``--no-deps --force-reinstall`` into the new environment's own site-packages, which comes first on the path, so
`plates` comes from the wheel, not the checkout."""

from __future__ import annotations

import json
import os
import site
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.support import ROOT
from tests.support.dashboard_rows import outcomes, write_part

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str, timeout_s: float, proc: subprocess.Popen) -> bytes:
    """The body at ``url`` once the server answers 200 (polling; the server must stay up meanwhile)."""
    deadline = time.monotonic() + timeout_s
    while True:
        if proc.poll() is not None:
            raise AssertionError(f"the server exited with {proc.returncode}: {proc.stdout.read()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return response.read()
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"{url} did not answer within {timeout_s} s")
        time.sleep(0.5)


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> tuple[Path, dict]:
    """(the environment's python, an environment without the checkout on the path) after installing the wheel."""
    root = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(root / "dist"), str(ROOT)], check=True, timeout=300)
    wheel = next((root / "dist").glob("plates-*.whl"))
    subprocess.run([sys.executable, "-m", "venv", str(root / "venv")], check=True, timeout=120)
    python = root / "venv" / "bin" / "python"
    own = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, check=True, timeout=60).stdout.strip()
    # this interpreter's folders, appended after the new environment's own (a .pth line is a path entry; the
    # .pth files inside those folders, such as the checkout's editable install, are not run)
    Path(own, "borrowed-dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", str(wheel)],
                   check=True, timeout=300)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(GRADIO_ANALYTICS_ENABLED="False", STREAMLIT_BROWSER_GATHER_USAGE_STATS="false",
               PATH=f"{python.parent}:{env.get('PATH', '/usr/bin:/bin')}")
    where = subprocess.run([str(python), "-c", "import plates; print(plates.__file__)"], cwd=root, env=env,
                           capture_output=True, text=True, check=True, timeout=60).stdout.strip()
    assert Path(where).is_relative_to(root / "venv"), f"plates came from {where}, not from the wheel"
    return python, env


def test_the_dashboard_runs_from_the_wheel(venv, tmp_path):
    python, env = venv
    results = tmp_path / "results"
    write_part(results / "run" / "part-000.parquet", outcomes("a", 7, 10))
    # every page of the packaged app, through Streamlit's own script runner, from outside the checkout
    script = (
        "import pathlib, plates.dashboard as d\n"
        "from streamlit.testing.v1 import AppTest\n"
        "at = AppTest.from_file(str(pathlib.Path(d.__file__).parent / 'app.py'), default_timeout=120).run()\n"
        "for page in ('overview', 'colour_sets', 'drilldown'):\n"
        "    at.switch_page(f'sections/{page}.py').run()\n"
        "    assert not at.exception and not at.error, (page, [e.value for e in [*at.exception, *at.error]])\n"
        "print(at.title[0].value)\n"
    )
    out = subprocess.run([str(python), "-c", script], cwd=tmp_path, env={**env, "PLATES_RESULTS": str(results)},
                         capture_output=True, text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    help_text = subprocess.run([str(python.parent / "plates"), "dashboard", "--help"], cwd=tmp_path, env=env,
                               capture_output=True, text=True, timeout=120, check=True).stdout
    assert "results dashboard" in help_text
    port = _free_port()
    proc = subprocess.Popen([str(python.parent / "plates"), "dashboard", str(results), "--port", str(port)],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert _get(f"http://127.0.0.1:{port}/_stcore/health", 120, proc) == b"ok"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_the_explorer_runs_from_the_wheel(venv, tmp_path):
    python, env = venv
    port = _free_port()
    proc = subprocess.Popen([str(python), "-m", "plates.explorer"], cwd=tmp_path,
                            env={**env, "GRADIO_SERVER_PORT": str(port)}, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        config = json.loads(_get(f"http://127.0.0.1:{port}/config", 180, proc))
        assert config["title"] == "plates · live plate explorer"
    finally:
        proc.terminate()
        proc.wait(timeout=30)
