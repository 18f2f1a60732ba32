"""``plates rescore RESULTS [--out OUT]``: judge stored replies again under today's scoring rules, with no model
call, and write each run found under RESULTS as a new run (``<run id>-rules<version>``, a ``rescored_from``
column naming the source run) under OUT (default: beside RESULTS). Prints, per run, how many verdicts changed per
prompt and the old -> new parse-status counts. A run already judged under today's rules, or already rescored
under OUT, is left alone. With ``--judge MODEL`` (flags as `plates run`'s; docs/judge.md) a judge model reads the
replies the rules abstain on, and the new run is ``<run id>-rules<version>-judge<hash>``. The library side is
`plates.runs.rescore`."""

from __future__ import annotations

import argparse
import sys
from contextlib import nullcontext
from pathlib import Path

from plates.cli import EXIT_BACKEND
from plates.cli.run import add_judge_arguments, judge_from_args


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``plates rescore`` and its flags to ``subparsers``.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        The ``plates`` parser's subcommands.
    """
    p = subparsers.add_parser("rescore", help="judge stored replies again under today's scoring rules (no model call)",
                              description=__doc__)
    p.add_argument("results", help="a results folder or Parquet file (folders are searched recursively)")
    p.add_argument("--out", default=None, help="folder for the rescored runs (default: the RESULTS folder)")
    add_judge_arguments(p)
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    """Run ``plates rescore``: judge stored replies again under today's scoring rules (no model call).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    int
        The exit status: 0 on success (see `plates.cli.EXIT_CODES`; bad input raises ValueError, which
        `plates.cli.main` reports).
    """
    from plates.models import BackendFailing
    from plates.runs.judge import Judge

    spec = judge_from_args(args)
    if spec is not None:
        spec.key_variable()  # named before anything is read
    try:
        with Judge(spec) if spec is not None else nullcontext() as judge:
            return _rescore(args, judge)
    except BackendFailing as exc:
        print(f"plates rescore: error: the judge keeps failing, stopped: {str(exc).removeprefix('stopping: ')}\n"
              "plates rescore: runs already rescored are written; fix the cause and rerun the same command",
              file=sys.stderr)
        return EXIT_BACKEND


def _rescore(args: argparse.Namespace, judge) -> int:
    from plates.results import ResultsWriter, load_results
    from plates.runs.rescore import rescore_run, rescored_run_id, rescored_suffix
    from plates.tasks.answers import RULES_VERSION

    spec = None if judge is None else judge.spec
    source = Path(args.results)
    if not source.exists():
        raise ValueError(f"RESULTS {str(source)!r} does not exist; allowed: a results folder or Parquet file")
    out = Path(args.out) if args.out else (source if source.is_dir() else source.parent)
    loaded = load_results(source)
    for path, reason in loaded.skipped:
        print(f"skipped {path}: {reason}")
    frame = loaded.frame
    if frame.empty:
        raise ValueError(f"no results rows under {str(source)!r}; allowed: a folder holding `plates run` parts")
    present = set(load_results(out, columns=["run_id"]).frame["run_id"].dropna()) if out.exists() else set()
    written = 0
    for run_id, run in frame.groupby("run_id", sort=True):
        versions = set(run["rules_version"].dropna().astype(int))
        if spec is None and versions == {RULES_VERSION}:
            print(f"{run_id}: already judged under rules {RULES_VERSION}; left alone")
            continue
        if spec is not None and run_id.endswith(rescored_suffix(spec)):
            print(f"{run_id}: already judged under rules {RULES_VERSION} and this judge; left alone")
            continue
        if rescored_run_id(run_id, spec) in present:
            print(f"{run_id}: {rescored_run_id(run_id, spec)} is already under {out}; left alone")
            continue
        done = rescore_run(run.to_dict("records"), judge)
        with ResultsWriter(out, done.run_id, flush_rows=max(len(done.rows), 1)) as writer:
            for row in done.rows:
                writer.add(row)
        written += 1
        old = ", ".join(str(v) for v in sorted(done.old_versions))
        print(f"{run_id} (rules {old}) -> {done.run_id} (rules {RULES_VERSION}): {len(done.rows)} rows, "
              f"{done.changed} verdicts changed" + (f"; label space inferred for {done.inferred} rows"
                                                     if done.inferred else "")
              + (f"; the judge {spec.model} decided {done.judged} verdicts" if spec is not None else ""))
        for prompt, (n, changed, before, after) in sorted(done.per_prompt.items()):
            print(f"  {prompt}: {changed} of {n} verdicts changed; correct {before} -> {after}")
        for (before, after), n in sorted(done.transitions.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"  parse status {before} -> {after}: {n}")
    print(f"{written} run(s) rescored under rules {RULES_VERSION}; results in {out}")
    return 0
