"""The live explorer's speed, measured through gradio_client against the running app.

Targets: a 512 px plate re-renders in <= 150 ms median per change (the /render endpoint: plate, clear plate,
mask and three CVD views, stats, spec JSON and share link); the baseline reader answers in <= 100 ms median
(the /ask endpoint about the plate on screen: condition, prompt, read, score, history row, Parquet download;
the plate itself was rendered by the untimed /render before it, as in the app); an 8-point ΔE2000 sweep with
the baseline reader completes in <= 1 s median (the /sweep endpoint, every streamed update received: 8 plates
rendered and read, the rows, the chart, the replies and the requested-vs-drawn table).

``--visitors N`` measures the explorer under a crowd instead: it serves the explorer in a process of its own as
a hosted Space would (`bench_public_load`: public mode, each visitor from an address of its own) and N visitors,
each a gradio_client session, start together and each make ``--renders`` rounds of requests: by default a 512 px
plate re-render (/render, ΔE2000 and seed moving); ``--work mixed`` also asks the bundled reader about a new
512 px plate (/ask) and redraws a 512 px illusion (/illusion_render) and scene (/scene_render) in every round
(``--work reader,scene`` picks some); ``--work quiz`` has each visitor take the "Try it yourself" quiz instead: it
starts one (untimed) and then answers a trial per round, each answer's reply carrying the next trial's 512 px
image drawn in a worker (a plate's typed number, or the first button of an illusion's pair; at least
`QUIZ_ANSWER_GAP_S` between a visitor's answers, as the quiz allows, untimed). It prints the round trips'
p50 / p95 / max per kind and together against
the target p95 <= 1 s at 10 visitors, requests refused as busy, where the server computes (worker processes:
`plates.explorer.pool`), how many events run at once, and the queue bound.

Each change moves ΔE2000 and the seed, so no two requests ask for the same plate. Timings are wall-clock
round trips seen by the client (``download_files=False``: the browser fetches images itself, lazily), after
warm-up requests. By default the bench builds the app in-process and launches it on a free port; ``--url``
points it at an app that is already running (e.g. ``python app.py``).

    python3 bench/bench_app.py [--changes 40] [--asks 20] [--sweeps 10] [--url http://127.0.0.1:7860/]
    python3 bench/bench_app.py --visitors 10 [--renders 6] [--work mixed | --work quiz]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

from plates.validation import check_choice  # noqa: E402 (after the path insert, as the other benches)

RENDER_TARGET_MS = 150.0
CROWD_P95_TARGET_MS = 1000.0  # 10 concurrent visitors rendering 512 px plates
ASK_TARGET_MS = 100.0
SWEEP_TARGET_MS = 1000.0
SWEEP_POINTS = 8


def timed(fn, n: int, warmup: int = 3, setup=None) -> list[float]:
    """Milliseconds of ``fn(i)`` for i in range(n), after ``warmup`` untimed calls; ``setup(i)`` runs
    untimed before each call."""
    out = []
    for i in range(-warmup, n):
        if setup is not None:
            setup(i)
        start = time.perf_counter()
        fn(i)
        if i >= 0:
            out.append(1000 * (time.perf_counter() - start))
    return out


def report(name: str, ms: list[float], target: float) -> None:
    ms = sorted(ms)
    median = statistics.median(ms)
    p90 = ms[int(0.9 * (len(ms) - 1))]
    print(f"{name}: median {median:.1f} ms, p90 {p90:.1f} ms, min {ms[0]:.1f} ms over {len(ms)} "
          f"(target <= {target:.0f} ms; ratio {median / target:.2f})")


def framework_floor(n: int) -> list[float]:
    """Milliseconds of a gradio_client round trip to an echo endpoint on this machine: the floor under every
    figure above (queue join, event stream, JSON), printed so a loaded machine's figures can be read."""
    import gradio as gr
    from gradio_client import Client

    with gr.Blocks() as echo:
        box, out = gr.Textbox(), gr.Textbox()
        box.submit(lambda x: x, box, out, api_name="echo")
    echo.launch(prevent_thread_lock=True, quiet=True, server_name="127.0.0.1", server_port=None)
    try:
        client = Client(echo.local_url, verbose=False, download_files=False)
        return timed(lambda i: client.predict("x", api_name="/echo"), n)
    finally:
        echo.close()


#: What a crowd's visitor asks for, by name: the endpoint and its arguments for the visitor's i-th request (each
#: request a new plate, illusion or scene: ΔE2000 / strength and the seed move).
CROWD_ENDPOINTS = {"plate": "/render", "reader": "/ask", "illusion": "/illusion_render", "scene": "/scene_render",
                   "quiz": "/quiz_answer"}
#: What ``--work mixed`` asks for in every round (the quiz, whose trials a person paces, is asked for by name).
CROWD_WORK = ("plate", "reader", "illusion", "scene")
#: Seconds a quiz visitor leaves between answers: just over `plates.runs.quiz.QuizLimits.min_seconds_between`.
QUIZ_ANSWER_GAP_S = 0.55


def crowd_request(kind: str, base: dict, n: int, i: int, shown: str = "") -> tuple[str, list]:
    """(endpoint, arguments) of visitor ``n``'s ``i``-th request of ``kind`` (`CROWD_ENDPOINTS`): a 512 px plate
    re-render, the bundled reader asked about a new 512 px plate (rendered for the question: not on screen), a
    512 px illusion (targets outlined, truth, its questions), a 512 px scene (facts, a ColorBench question), or
    the quiz: started when ``i`` < 0, else the trial on screen answered (``shown``: the quiz's progress line
    from the previous reply, which says whether it is a plate or an illusion's pair)."""
    endpoint = CROWD_ENDPOINTS[check_choice("crowd work", kind, CROWD_ENDPOINTS)]
    if kind == "quiz":
        if i < 0:
            return "/quiz_start", [True]
        return ("/quiz_option_0", []) if "darker" in shown else (endpoint, ["12"])
    seed = 10_000 + 100 * n + i
    delta_e = 4.0 + ((n * 7 + i) % 40) * 0.5
    if kind == "plate":
        return endpoint, list({**base, "delta_e": delta_e, "seed": seed}.values())
    if kind == "reader":
        model = ["baseline", "", "", "", "cbe-open", None, 0, False, 0, "none", 1.0, "standard"]
        return endpoint, [*model, *{**base, "delta_e": delta_e, "seed": seed}.values()]
    if kind == "illusion":
        # kinds the comparison question applies to (rcid-filter's list of questions leaves it out)
        kinds = ("rcid-contrast", "simultaneous-contrast", "whites", "checker-shadow", "munker-white")
        return endpoint, [True, "rcid-compare-human", kinds[(n + i) % len(kinds)], 1.0,
                          (i % 9) - 4.0, "left-right", False, seed, 512]
    return endpoint, ["colour-counting", 6, 4, 20.0, 0.2, 1.0, ["circle", "square", "triangle", "star"],
                      "xkcd-basic-11", seed, 512]


def _percentiles(ms: list[float]) -> tuple[float, float, float]:
    ms = sorted(ms)
    return statistics.median(ms), ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))], ms[-1]


def tree_cpu(pid: int) -> tuple[float, float]:
    """(user + system CPU seconds of process ``pid``, of all its children): the server and its workers."""
    import psutil

    server = psutil.Process(pid)
    return sum(server.cpu_times()[:2]), sum(sum(c.cpu_times()[:2]) for c in server.children(recursive=True))


def settled(pid: int, timeout: float = 120.0) -> None:
    """Wait until process ``pid`` and its children (the explorer's workers, warming) use under 5% of a core
    over a second, or ``timeout`` seconds have passed."""
    deadline = time.monotonic() + timeout
    before = sum(tree_cpu(pid))
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = sum(tree_cpu(pid))
        if now - before < 0.05:
            return
        before = now


def crowd(visitors: int, renders: int, work: tuple[str, ...] = ("plate",)) -> int:
    """``visitors`` gradio_client sessions against the explorer served in its own process (module docstring),
    each making ``renders`` rounds of the ``work`` requests (`crowd_request`): milliseconds of every round trip
    after each visitor's untimed first round, then the figures per kind of request and together."""
    import threading

    import psutil
    from bench_public_load import free_port, serve, wait_up
    from gradio_client import Client

    from plates.explorer import plate as ex
    from plates.explorer.concurrency import concurrency, render_workers
    from plates.explorer.policy import Policy

    for kind in work:  # a ValueError names a kind not known, before a server starts
        check_choice("crowd work", kind, CROWD_ENDPOINTS)
    if "quiz" in work and renders >= 40:
        raise ValueError(f"--renders {renders} is not allowed with the quiz; allowed: at most 39 (a quiz shows 40 "
                         "images)")
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    proc = serve(port)
    times: dict[str, list[float]] = {kind: [] for kind in work}
    errors: list[str] = []
    lock = threading.Lock()
    cpu: list[tuple[float, float]] = []  # (server, its workers) CPU seconds when the timed requests start

    def server_cpu() -> tuple[float, float, float]:
        return *tree_cpu(proc.pid), sum(psutil.Process().cpu_times()[:2])  # and the visitors' (this process's)

    start = threading.Barrier(visitors, action=lambda: cpu.append(server_cpu()))
    base = ex.spec_to_controls(ex.default_spec().replace(size=512)).__dict__

    def visitor(n: int) -> None:
        client = Client(url, verbose=False, download_files=False,
                        headers={"X-Forwarded-For": f"10.2.{n // 250}.{n % 250 + 1}"})
        mine: dict[str, list[float]] = {kind: [] for kind in work}
        quiz = {"shown": "", "at": 0.0}  # the quiz's progress line on screen, and when it came
        try:
            def request(kind: str, i: int) -> None:
                endpoint, args = crowd_request(kind, base, n, i, quiz["shown"])
                if kind == "quiz":  # a person looks before answering: the quiz refuses answers too fast
                    time.sleep(max(0.0, quiz["at"] + QUIZ_ANSWER_GAP_S - time.monotonic()))
                t = time.perf_counter()
                try:
                    out = client.predict(*args, api_name=endpoint)
                except Exception as exc:  # noqa: BLE001 - a refusal ("busy") is counted and reported
                    with lock:
                        errors.append(f"{kind}: {type(exc).__name__}: {str(exc)[:120]}")
                    return
                if i >= 0:
                    mine[kind].append(1000 * (time.perf_counter() - t))
                if kind == "quiz":
                    quiz["at"] = time.monotonic()
                    quiz["shown"] = next(o for o in out if isinstance(o, str) and o.startswith("**Image"))

            for kind in work:  # the session's first requests (page load, tab opened), untimed
                request(kind, -1)
            start.wait()
            for i in range(renders):
                for kind in work[n % len(work):] + work[:n % len(work)]:  # visitors start on different work
                    request(kind, i)
            with lock:
                for kind in work:
                    times[kind].extend(mine[kind])
        finally:
            client.close()

    try:
        wait_up(url, proc)
        settled(proc.pid)  # the workers warmed (fonts, colour-science, the reader) before any visitor comes
        threads = [threading.Thread(target=visitor, args=(n,)) for n in range(visitors)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
        cpu.append(server_cpu())
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    every = [ms for kind in work for ms in times[kind]]
    if not every:
        print(f"no request answered; errors: {errors[:3]}")
        return 1
    policy = Policy(public=True)
    workers = render_workers(policy)
    slots = concurrency(policy, workers)
    where = f"in {workers} worker processes" if workers else "in the server's threads"
    print(f"{visitors} concurrent visitors x {renders} rounds of {' + '.join(work)} at 512 px (explorer in its own "
          f"process, public mode: renders and the reader's answers {where}, {slots['render']} renders and "
          f"{slots['model']} model calls and {slots['quiz']} quiz events at once, queue bound {slots['queue']}); "
          f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    for kind in work:
        if times[kind]:
            p50, p95, top = _percentiles(times[kind])
            print(f"  {kind:8s} ({CROWD_ENDPOINTS[kind]}): p50 {p50:.0f} ms, p95 {p95:.0f} ms, "
                  f"max {top:.0f} ms over {len(times[kind])}")
    p50, p95, top = _percentiles(every)
    print(f"  all: p50 {p50:.0f} ms, p95 {p95:.0f} ms, max {top:.0f} ms over {len(every)} requests "
          f"({len(every) / wall:.1f} requests/s); target p95 <= {CROWD_P95_TARGET_MS:.0f} ms: ratio "
          f"{p95 / CROWD_P95_TARGET_MS:.2f} ({'meets' if p95 <= CROWD_P95_TARGET_MS else 'MISSES'})"
          + (f"; {len(errors)} refused or failed, e.g. {errors[0]}" if errors else "; none refused"))
    (own0, kids0, us0), (own1, kids1, us1) = cpu
    print(f"  server CPU per timed request: {1000 * (own1 - own0 + kids1 - kids0) / len(every):.0f} ms "
          f"({1000 * (own1 - own0) / len(every):.0f} ms in the server process, "
          f"{1000 * (kids1 - kids0) / len(every):.0f} ms in its workers); the {visitors} gradio_client visitors, "
          f"threads of this one process: {1000 * (us1 - us0) / len(every):.0f} ms CPU per request")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=40, help="plate re-renders to time")
    parser.add_argument("--asks", type=int, default=20, help="baseline answers to time")
    parser.add_argument("--sweeps", type=int, default=10, help=f"{SWEEP_POINTS}-point ΔE2000 sweeps to time")
    parser.add_argument("--url", default=None, help="an explorer already running (default: launch one here)")
    parser.add_argument("--visitors", type=int, default=0,
                        help="measure N concurrent visitors re-rendering plates instead (target: 10)")
    parser.add_argument("--renders", type=int, default=6, help="rounds per visitor with --visitors")
    parser.add_argument("--work", default="plate", help="with --visitors: what each visitor asks for in a round, "
                        f"comma-separated from {', '.join(CROWD_ENDPOINTS)} (default: plate; 'mixed': "
                        f"{', '.join(CROWD_WORK)})")
    args = parser.parse_args(argv)
    if args.visitors:
        work = CROWD_WORK if args.work == "mixed" else tuple(w.strip() for w in args.work.split(","))
        return crowd(args.visitors, args.renders, work)

    from gradio_client import Client

    from plates.explorer import plate as ex
    from plates.explorer.policy import Policy

    demo = None
    url = args.url
    if url is None:
        from plates.explorer import app as explorer_app

        demo = explorer_app.build_app(Policy())
        demo.launch(prevent_thread_lock=True, quiet=True, **explorer_app.launch_options())
        url = demo.local_url
    try:
        client = Client(url, verbose=False, download_files=False)
        base = ex.spec_to_controls(ex.default_spec().replace(size=512)).__dict__

        def plate(i: int) -> list:
            """Control values of the i-th plate: ΔE2000 and seed move every time."""
            return list({**base, "delta_e": 4.0 + (i % 40) * 0.5, "seed": 1000 + i}.values())

        def change(i: int) -> None:
            client.predict(*plate(i), api_name="/render")

        report("512 px plate re-render per change (/render)", timed(change, args.changes), RENDER_TARGET_MS)

        model = ["baseline", "", "", "", "cbe-open", None, 0, False, 0, "none", 1.0, "standard"]

        def ask(i: int) -> None:
            client.predict(*model, *plate(1000 + i), api_name="/ask")

        try:  # as a visitor does: the plate is on screen (rendered, untimed), then the model is asked about it
            report("baseline answer about the plate on screen, 512 px (/ask)",
                   timed(ask, args.asks, setup=lambda i: change(1000 + i)), ASK_TARGET_MS)
        except Exception as exc:  # noqa: BLE001 - report and go on: the render figure still stands
            print(f"baseline answer: not measured ({type(exc).__name__}: {exc})")

        updates: list[int] = []

        def sweep(i: int) -> None:
            """An 8-point sweep from ΔE2000 1+i/10 to 20 on a new seed each time, to its last update."""
            job = client.submit(1.0 + (i % 10) / 10, 20.0, SWEEP_POINTS, *model, *plate(2000 + i),
                                api_name="/sweep")
            outputs = list(job)
            rows = outputs[-1][0]["data"] if outputs else []
            if len(rows) < SWEEP_POINTS:
                raise RuntimeError(f"the sweep returned {len(rows)} rows, not {SWEEP_POINTS}")
            updates.append(len(outputs))

        try:
            report(f"{SWEEP_POINTS}-point ΔE2000 sweep with the baseline reader, 512 px (/sweep)",
                   timed(sweep, args.sweeps, warmup=2), SWEEP_TARGET_MS)
            print(f"  page updates per sweep: {min(updates)}-{max(updates)} (answers arriving together are "
                  "shown together)")
        except Exception as exc:  # noqa: BLE001 - report and go on
            print(f"sweep: not measured ({type(exc).__name__}: {exc})")
    finally:
        if demo is not None:
            demo.close()
    floor = statistics.median(framework_floor(args.changes))
    print(f"framework floor (gradio_client round trip to an echo endpoint): median {floor:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
