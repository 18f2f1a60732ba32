"""``plates prompts``: list the registered prompts (name, task, kind, label space, variant, chain of thought), each
with its source below it, indented and wrapped to the terminal (at most 100 columns); ``--json`` for scripts."""

from __future__ import annotations

import argparse
import json
import shutil
import textwrap

#: The widest `plates prompts` prints, whatever the terminal (a narrower terminal narrows it).
MAX_WIDTH = 100


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``plates prompts`` and its flags to ``subparsers``.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        The ``plates`` parser's subcommands.
    """
    p = subparsers.add_parser("prompts", help="list the prompts `plates run --prompt` accepts",
                              description=__doc__)
    p.add_argument("--json", action="store_true", help="one JSON object per line instead of a table")
    p.add_argument("--text", action="store_true", help="also print each template's first line")
    p.add_argument("--prompt-file", action="append", default=[], metavar="TOML",
                   help="also list your own [[prompt]] templates from this file (repeatable; validates it)")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    # lazy: loads only when this subcommand runs (plates.cli)
    """Run ``plates prompts``: list the prompts ``plates run --prompt`` accepts.

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
    from plates.tasks.prompts import list_prompts, load_prompt_file

    own = {t.name: t for path in args.prompt_file for t in load_prompt_file(path)}
    rows = list_prompts(tuple(own.values()))
    if args.json:
        for row in rows:
            print(json.dumps(row))
        return 0
    width = min(MAX_WIDTH, shutil.get_terminal_size((MAX_WIDTH, 24)).columns)
    for line in table_lines(rows, width=width, text=args.text):
        print(line)
    return 0


def table_lines(rows: list[dict], *, width: int = MAX_WIDTH, text: bool = False) -> list[str]:
    """The table as lines of at most ``width`` characters (a column wider than that is the only overflow):
    one line of short columns per prompt, then its source (and with ``text`` its template's first line),
    indented by four and wrapped.

    Parameters
    ----------
    rows : list of dict
        One per prompt.
    width : int, optional
        The most characters a line takes.
    text : bool, optional
        Add each template's first line.

    Returns
    -------
    list of str
        The lines.
    """
    cols = ["name", "task", "kind", "label_space", "variant", "cot"]
    table = [[("yes" if row[c] else "") if c == "cot" else str(row[c]) for c in cols] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in table)) for i, c in enumerate(cols)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(cols, widths)).rstrip()]
    for row, r in zip(rows, table):
        lines.append("  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip())
        lines += textwrap.wrap(row["source"], width, initial_indent="    ", subsequent_indent="    ",
                               break_on_hyphens=False)
        if text:
            lines += textwrap.wrap(f"« {row['first_line']} »", width, initial_indent="    ", break_on_hyphens=False,
                                   subsequent_indent="      ")
    return lines
