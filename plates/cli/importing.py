"""``plates import``: an evaluation harness's results as a run of our own, beside `plates run`'s.

    plates import inspect logs/2026-11-25T22-00_colorblindnesseval_x.eval --data exports/cbe-open \\
        --out results/runs/harness
    plates import lmms-eval lmms-out/ --data exports/cbe-open --out results/runs/harness

Each harness sample becomes one results row (model, item, prompt, condition, reply), judged again by the
task's own rules (``correct``) with the harness's verdict beside it (``harness_correct``); the dashboard shows
the run like any other. ``--data`` is the exported folder the harness asked (`plates export hf`): samples of
items not in it are skipped and counted. A log of another task is refused. Rows already stored are never
changed; importing the same log again writes nothing.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``plates import inspect | lmms-eval`` and their flags to ``subparsers``.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        The ``plates`` parser's subcommands.
    """
    p = subparsers.add_parser("import", help="turn an inspect_ai or lmms-eval log into a results run",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="source", metavar="HARNESS")
    ins = sub.add_parser("inspect", help="inspect_ai logs (.eval or .json) of plates/integrations/inspect_tasks.py")
    ins.add_argument("logs", nargs="+", metavar="LOG")
    lm = sub.add_parser("lmms-eval", help="an lmms-eval --output_path of a run with --log_samples")
    lm.add_argument("output_dir", metavar="OUTPUT_DIR")
    for q in (ins, lm):
        q.add_argument("--data", required=q is lm, help="the folder `plates export hf` wrote, which the harness "
                       "asked (required for lmms-eval, whose samples name rows by index)")
        q.add_argument("--out", required=True, help="results folder to add the run to")
    ins.set_defaults(func=main_inspect)
    lm.set_defaults(func=main_lmms_eval)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _report(summary) -> int:
    skipped = ", ".join(f"{n} {why}" for why, n in summary.skipped.items()) or "none"
    print(f"run {summary.run_id}: {summary.written} rows written ({summary.correct} correct by our rules, "
          f"{summary.agree} agreeing with the harness), {summary.existing} already there, skipped: {skipped}; "
          f"results in {summary.out}")
    return 0


def main_inspect(args: argparse.Namespace) -> int:
    """Run ``plates import inspect``: inspect_ai logs (.eval or .json) of ``plates/integrations/inspect_tasks.py`` as a results run.

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
    from plates.integrations.importing import import_samples, inspect_samples

    source = "\n".join(sorted(str(Path(p).resolve()) for p in args.logs))  # one log, one run id, however named
    return _report(import_samples(inspect_samples(args.logs), args.out, harness="inspect_ai", source=source,
                                  export=args.data))


def main_lmms_eval(args: argparse.Namespace) -> int:
    """Run ``plates import lmms-eval``: an lmms-eval ``--output_path`` of a run with ``--log_samples`` as a results run.

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
    from plates.integrations.importing import import_samples, lmms_eval_samples

    return _report(import_samples(lmms_eval_samples(args.output_dir, args.data), args.out, harness="lmms-eval",
                                  source=str(Path(args.output_dir).resolve()), export=args.data))
