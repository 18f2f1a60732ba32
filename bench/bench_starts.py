"""How fast a newcomer's first pages come, measured as a person meets them: a real headless Chromium (Debian's)
opening freshly started apps.

Figures, each against its target (ratio <= 1 meets it):

* explorer first page, cold: ``python -m plates.explorer`` started in a new process (the first start of this
  bench: imports, fonts and workers from cold Python caches as far as the OS allows) until the page shows the
  drawn plate; target <= 8 s;
* explorer first page, warm: the same again right after (the OS file cache now holds the imports); <= 4 s;
* the first ΔE2000 sweep: on that page, the Model tab's "Run sweep" (its defaults: 0.25-16, 8 points, the
  bundled reader) pressed until its coarse pass (4 points by ratio) is shown; <= 2 s; printed beside it, with
  no target, the whole sweep: until the fine pass inside the bracket is done (the range boxes show it);
* dashboard first page: ``plates dashboard results/runs`` (the shipped runs) started in a new process until
  the Overview's chart is drawn; <= 3 s. Beside it, with no target, the floor no dashboard can go under:
  Streamlit's own start, a page of one small Plotly chart served with the same flags as ``plates dashboard``
  (`plates.cli.dashboard.streamlit_command`) and measured the same way (once per repeat, from this checkout).

Beside each wall-clock figure, the CPU time the app's processes spent until then (user + system, the server
and every process it started, read from ``/proc`` when the page is usable): on a shared, busy machine the
wall clock waits for other people's work, the CPU time much less. Then the CPU time of importing each app's
entry module in a fresh process (``plates.explorer.app`` as a serving process has it, `serving_process`;
``plates.dashboard.app``). ``uptime``'s load is printed beside them. Rerun on a quiet machine for figures to
quote against the targets.

``--root`` names checkouts to compare (this one by default): each is started from its own folder (so its own
``plates`` is imported), the checkouts taking turns start by start, and every figure is the median of its
``--repeat`` tries, side by side, with the ratio of each checkout's figure to the first's. ``--only
dashboard`` (or ``explorer``) times one app's figures alone. A checkout's cold
start is its first explorer start; the first checkout's cold start also fills the OS file cache with the
libraries the others share, so compare cold starts with care. Nothing is downloaded; the apps bind
127.0.0.1 on free ports. The apps run without ``PYTHONDONTWRITEBYTECODE`` (as a newcomer's Python does): a
checkout's first start compiles its modules and caches the bytecode (``__pycache__``, ignored by git) and the
later starts read it; with that variable set every start would compile the ~150 modules of ``plates`` the
explorer imports again (about 0.2 s of CPU, more on a loaded machine), and two checkouts would differ by
whether their caches happened to exist.

``--only explorer`` measures the explorer's starts alone (no sweep, no dashboard: its import CPU time
still printed), beside Gradio's floor (a page of one image launched as the explorer launches: what no
explorer start can go under); ``--only dashboard`` the dashboard's, beside Streamlit's floor (a page of one small
Plotly chart served as ``plates dashboard`` serves it: what no dashboard start can go under).

    python3 bench/bench_starts.py [--repeat 1] [--root /path/to/main --root .] [--only explorer|dashboard]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TICK_S = 1.0 / os.sysconf("SC_CLK_TCK")
#: The apps' entry modules whose import CPU time is printed (the explorer's as a serving process has it).
IMPORTS = {
    "explorer import": "import plates.explorer as e; e.serving_process(); import plates.explorer.app",
    "dashboard import": "import plates.dashboard.app",
}
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
TARGETS_S = {"explorer cold": 8.0, "explorer warm": 4.0, "first sweep": 2.0, "dashboard first page": 3.0}
#: The figures of each app (``--only``).
APPS = {"explorer": ("explorer cold", "explorer warm", "explorer import"),
        "dashboard": ("dashboard first page", "dashboard import")}
#: The floor under any Streamlit dashboard: a page of one small Plotly chart (what the Overview's selector waits
#: for), nothing of plates.
FLOOR_PAGE = """import plotly.graph_objects as go
import streamlit as st

st.set_page_config(page_title="floor", layout="wide")
st.plotly_chart(go.Figure(go.Heatmap(z=[[1, 2], [3, 4]])))
"""
#: The floor under any Gradio explorer: a page of one image (what the explorer's first page waits for), launched
#: as the explorer launches (loopback, the port from GRADIO_SERVER_PORT) in a process prepared as the explorer's
#: is (`plates.explorer.serving_process`: no IPython, no stub rewriting; without it Gradio's import alone costs
#: about as much CPU as the whole explorer's start), nothing else of plates.
GRADIO_FLOOR_PAGE = """import os
import sys

sys.path.insert(0, os.getcwd())
import plates.explorer

plates.explorer.serving_process()
import gradio as gr
from PIL import Image

with gr.Blocks(title="floor") as demo:
    gr.Image(Image.new("RGB", (512, 512), (200, 80, 80)), elem_id="view-plate")
demo.launch(server_name="127.0.0.1", server_port=int(os.environ["GRADIO_SERVER_PORT"]))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(command: list[str], env: dict, root: Path) -> subprocess.Popen:
    """``command`` started in ``root`` (``python -m`` puts that folder first on the path: its ``plates``)."""
    env = {**os.environ, **env}
    env.pop("PYTHONPATH", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as a newcomer's Python: bytecode cached at the first start
    return subprocess.Popen(command, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def tree_cpu_s(pid: int) -> float:
    """CPU seconds (user + system) spent so far by process ``pid``, its waited-for children and every living
    descendant (each process's ``/proc/PID/stat``; descendants found by their parent ids); a process that ends
    meanwhile counts what was read before."""
    stats: dict[int, list[str]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stats[int(entry.name)] = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (FileNotFoundError, ProcessLookupError):
                continue
    children: dict[int, list[int]] = {}
    for p, fields in stats.items():
        children.setdefault(int(fields[1]), []).append(p)  # fields[1]: the parent's id
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        if p in stats:
            total += sum(int(x) for x in stats[p][11:15]) * TICK_S  # utime stime cutime cstime
        todo.extend(children.get(p, ()))
    return total


def import_cpu_s(root: Path, code: str) -> float:
    """CPU seconds of ``code`` (an import) in a fresh Python started in ``root``."""
    env = dict(os.environ, GRADIO_ANALYTICS_ENABLED="False")
    env.pop("PYTHONPATH", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as `start`
    timed = f"import time; t = time.process_time(); {code}; print(time.process_time() - t)"
    out = subprocess.run([sys.executable, "-c", timed], cwd=root, env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def until_page(page, url: str, selector_js: str, started: float, timeout_s: float = 600.0) -> float:
    """Seconds from ``started`` until ``url`` answers in the browser and ``selector_js`` holds (then, at once,
    the caller reads the app's CPU time)."""
    deadline = started + timeout_s
    while True:
        try:
            page.goto(url, timeout=5_000)
            break
        except Exception:  # noqa: BLE001 - not listening yet
            if time.monotonic() > deadline:
                raise RuntimeError(f"{url} did not answer within {timeout_s:g} s") from None
            time.sleep(0.05)
    page.wait_for_function(selector_js, timeout=timeout_s * 1000)
    return time.monotonic() - started


def explorer(browser, root: Path, *, sweep: bool,
             floor: Path | None = None) -> tuple[tuple[float, float], tuple[float, float] | None]:
    """((wall s, CPU s) to the first page, (coarse pass s, whole sweep s) or None) for the checkout ``root``; with
    ``floor`` (a Gradio script, `GRADIO_FLOOR_PAGE`), to that script's image instead (no sweep)."""
    port = free_port()
    env = {"GRADIO_SERVER_PORT": str(port), "GRADIO_ANALYTICS_ENABLED": "False"}
    started = time.monotonic()
    proc = start([sys.executable, *(["-m", "plates.explorer"] if floor is None else [str(floor)])], env, root)
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        first = (until_page(page, f"http://127.0.0.1:{port}/",
                            "() => (document.querySelector('#view-plate img')?.src || '') !== ''", started),
                 tree_cpu_s(proc.pid))
        swept = None
        if sweep:
            page.get_by_role("tab", name="Model").click()
            button = page.get_by_role("button", name="Run sweep")
            button.scroll_into_view_if_needed()
            t0 = time.monotonic()
            button.click()
            page.wait_for_function(
                "() => (document.querySelector('#reply textarea')?.value || '').split('\\n').length >= 4",
                timeout=120_000)
            swept = time.monotonic() - t0
            # then the fine pass inside the bracket: done when the range boxes show the bracket
            page.wait_for_function("() => document.querySelector('#sweep-lo input')?.value !== '0.25'"
                                   " || document.querySelector('#sweep-hi input')?.value !== '16'", timeout=120_000)
            whole = time.monotonic() - t0
            return first, (swept, whole)
        return first, swept
    finally:
        page.close()
        stop(proc)


def dashboard(browser, root: Path, floor: Path | None = None) -> tuple[float, float]:
    """(wall s, CPU s) to the dashboard's first page for the checkout ``root`` (its shipped runs); with
    ``floor`` (a Streamlit script), to that script's chart instead, served as ``plates dashboard`` serves."""
    port = free_port()
    env = {"STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    if floor is None:
        command = [sys.executable, "-m", "plates.cli", "dashboard", str(root / "results" / "runs"), "--port",
                   str(port), "--address", "127.0.0.1"]
    else:
        sys.path.insert(0, str(root))
        from plates.cli.dashboard import APP_PATH, streamlit_command

        command = [str(floor) if part == str(APP_PATH) else part for part in streamlit_command(port, "127.0.0.1")]
    started = time.monotonic()
    proc = start(command, env, root)
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        wall = until_page(page, f"http://127.0.0.1:{port}/",
                          "() => !!document.querySelector('.js-plotly-plot .main-svg')", started)
        return wall, tree_cpu_s(proc.pid)
    finally:
        page.close()
        stop(proc)


def progress(root: Path, name: str, wall: float | None, cpu: float | None) -> None:
    """One figure as it is measured (a long run on a busy host shows what it has so far)."""
    figures = [f"{wall:.2f} s wall" if wall is not None else "", f"CPU {cpu:.2f} s" if cpu is not None else ""]
    print(f"  {root.name}: {name}: " + "  ".join(f for f in figures if f) + f"   (load {os.getloadavg()[0]:.1f})",
          flush=True)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--repeat", type=int, default=1, help="warm starts, dashboard starts and imports to time "
                     "per checkout (median)")
    cli.add_argument("--root", type=Path, action="append", help="a checkout to start (repeat to compare; they "
                     "take turns); default: this one")
    cli.add_argument("--only", choices=sorted(APPS), help="measure one app's starts (the explorer's: cold, "
                     "warm and its import, no sweep); default: both and the first sweep")
    args = cli.parse_args()
    apps = [args.only] if args.only else list(APPS)
    roots = [r.resolve() for r in (args.root or [ROOT])]
    for root in roots:
        if not (root / "plates" / "explorer" / "__main__.py").is_file():
            raise SystemExit(f"--root {root} is not a plates checkout (no plates/explorer/__main__.py)")
    from playwright.sync_api import sync_playwright

    load = os.getloadavg()
    names = [n for n in (*TARGETS_S, *IMPORTS) if args.only is None or n in APPS[args.only]]
    wall = {r: {n: [] for n in names} for r in roots}
    cpu = {r: {n: [] for n in names} for r in roots}
    whole: dict[Path, float] = {}
    floor: list[tuple[float, float]] = []
    gradio_floor: list[tuple[float, float]] = []
    with sync_playwright() as p, tempfile.TemporaryDirectory() as scratch:
        floor_page = Path(scratch) / "floor.py"
        floor_page.write_text(FLOOR_PAGE)
        gradio_page = Path(scratch) / "gradio_floor.py"
        gradio_page.write_text(GRADIO_FLOOR_PAGE)
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for root in roots if "explorer cold" in names else ():
            (w, c), swept = explorer(browser, root, sweep="first sweep" in names)
            wall[root]["explorer cold"].append(w)
            cpu[root]["explorer cold"].append(c)
            progress(root, "explorer cold", w, c)
            if swept is not None:
                wall[root]["first sweep"].append(swept[0])
                whole[root] = swept[1]
                progress(root, "first sweep", swept[0], None)
        starts = {"explorer warm": lambda root: explorer(browser, root, sweep=False)[0],
                  "dashboard first page": lambda root: dashboard(browser, root)}
        for _ in range(args.repeat):
            if "dashboard" in apps:
                floor.append(dashboard(browser, ROOT, floor_page))
                progress(ROOT, "Streamlit floor (one chart)", *floor[-1])
            if "explorer" in apps:
                gradio_floor.append(explorer(browser, ROOT, sweep=False, floor=gradio_page)[0])
                progress(ROOT, "Gradio floor (one image)", *gradio_floor[-1])
            for root in roots:
                for name in (n for n in starts if n in names):
                    w, c = starts[name](root)
                    wall[root][name].append(w)
                    cpu[root][name].append(c)
                    progress(root, name, w, c)
                for name, code in ((n, c) for n, c in IMPORTS.items() if n in names):
                    cpu[root][name].append(import_cpu_s(root, code))
                    progress(root, name, None, cpu[root][name][-1])
        browser.close()
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; after: "
          + " ".join(f"{x:.2f}" for x in os.getloadavg()) + f"; {os.cpu_count()} CPUs; medians of "
          f"{args.repeat} (cold starts and the sweep: 1)")
    first = roots[0]
    for root in roots:
        print(f"\n{root}" + ("" if root == first else f"   (ratio: this checkout / {first.name})"))
        for name in names:
            w, c = median(wall[root][name]), median(cpu[root][name])
            line = f"{name:>22}: "
            if name in TARGETS_S:
                target = TARGETS_S[name]
                line += (f"{w:6.2f} s wall   target <= {target:g} s   ratio {w / target:5.2f}"
                         + ("" if w <= target else "   MISSED"))
            else:
                line += " " * 47
            if cpu[root][name]:
                line += f"   CPU {c:6.2f} s"
            if root != first:
                w0, c0 = median(wall[first][name]), median(cpu[first][name])
                line += "   vs first: " + (f"wall x{w / w0:4.2f} " if name in TARGETS_S else "") + (
                    f"CPU x{c / c0:4.2f}" if cpu[root][name] else "")
            print(line)
        if root in whole:
            print(f"{'whole sweep':>22}: {whole[root]:6.2f} s wall   (the coarse pass and the fine pass inside its "
                  "bracket; no target)")
    if gradio_floor:
        w, c = median([f[0] for f in gradio_floor]), median([f[1] for f in gradio_floor])
        print(f"\nGradio's floor (a page of one image, launched as the explorer launches; no target): {w:.2f} s "
              f"wall   CPU {c:.2f} s   (each: " + ", ".join(f"{a:.2f} / {b:.2f}" for a, b in gradio_floor) + ")")
    if floor:
        w, c = median([f[0] for f in floor]), median([f[1] for f in floor])
        print(f"\nStreamlit's floor (a page of one small Plotly chart, served as `plates dashboard` serves; no "
              f"target): {w:.2f} s wall   CPU {c:.2f} s   (each: " + ", ".join(f"{a:.2f} / {b:.2f}" for a, b in floor)
              + ")")


if __name__ == "__main__":
    main()
