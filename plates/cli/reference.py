"""``plates reference``: the papers' published tables (results/reference/): rebuild them from their CSVs, list
them, or print one as CSV. The same build runs as ``python -m plates.results.reference build``."""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``plates reference`` and its flags to ``subparsers``.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        The ``plates`` parser's subcommands.
    """
    p = subparsers.add_parser("reference", help="the papers' published tables: build, list, show",
                              description=__doc__)
    sub = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    build = sub.add_parser("build", help="validate results/reference/src/*.csv and write results/reference/*.parquet")
    build.add_argument("--src", default=None, help="CSV folder (default results/reference/src)")
    build.add_argument("--out", default=None, help="output folder (default results/reference)")
    sub.add_parser("list", help="each table (source) with its row count")
    show = sub.add_parser("show", help="print rows as CSV, optionally one paper and/or one table")
    show.add_argument("--paper", default=None,
                      help="ColorBlindnessEval, HueManity, ColorBench, IllusionBench+, RCID (any case)")
    show.add_argument("--table", default=None,
                      help="e.g. 'Table 1', 'Table II' or 'ColorBench Table 4' (any case)")
    p.set_defaults(func=main)


def _canonical(value: str | None, names) -> str | None:
    """``value`` spelled as in ``names`` when it matches one ignoring case and surrounding spaces
    (``huemanity`` -> ``HueManity``); else ``value`` unchanged, for load_reference to refuse with the allowed
    names."""
    if value is None:
        return None
    by_key = {name.casefold(): name for name in names}
    return by_key.get(value.strip().casefold(), value)


def main(args: argparse.Namespace) -> int:
    # lazy: loads only when this subcommand runs (plates.cli)
    """Run ``plates reference``: build, list or show the papers' published tables.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    int
        The exit status: 0 on success (2 when the tables are not built; see `plates.cli.EXIT_CODES`; bad input raises ValueError, which
        `plates.cli.main` reports).
    """
    from plates.results import reference
    from plates.tasks.prompts import PAPERS

    if args.action == "build":
        argv = ["build"]
        if args.src:
            argv += ["--src", args.src]
        if args.out:
            argv += ["--out", args.out]
        return reference.main(argv)
    paper = _canonical(getattr(args, "paper", None), PAPERS)
    table = _canonical(getattr(args, "table", None),
                       {name for t in reference.TABLES.values() for name in (t.table, t.source)})
    try:
        frame = reference.load_reference(paper, table)
    except FileNotFoundError as exc:  # not built: say how, no traceback
        print(f"plates reference: error: {exc}", file=sys.stderr)
        return 2
    if args.action == "list":
        for source, count in frame.groupby("source", sort=False).size().items():
            print(f"{source}\t{count}")
        return 0
    frame.to_csv(sys.stdout, index=False)
    return 0
