"""``plates prompts``: list the registered prompts (name, kind, label space, variant, source)."""

from __future__ import annotations

import argparse
import json


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("prompts", help="list the prompts `plates run --prompt` accepts",
                              description=__doc__)
    p.add_argument("--json", action="store_true", help="one JSON object per line instead of a table")
    p.add_argument("--text", action="store_true", help="also print each template's first line")
    p.add_argument("--prompt-file", action="append", default=[], metavar="TOML",
                   help="also list your own [[prompt]] templates from this file (repeatable; validates it)")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    # lazy: loads only when this subcommand runs (plates.cli)
    from plates.tasks.prompts import list_prompts, load_prompt_file

    own = {t.name: t for path in args.prompt_file for t in load_prompt_file(path)}
    rows = list_prompts(tuple(own.values()))
    if args.json:
        for row in rows:
            print(json.dumps(row))
        return 0
    cols = ["name", "task", "kind", "label_space", "variant", "cot", "source"] + (["first_line"] if args.text else [])
    table = [[str(row[c]) for c in cols] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in table)) for i, c in enumerate(cols)]
    print("  ".join(c.ljust(w) for c, w in zip(cols, widths)).rstrip())
    for r in table:
        print("  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip())
    return 0
