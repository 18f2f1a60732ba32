"""The `plates` console script.

Each subcommand lives in its own module of this package and exposes ``register(subparsers)``, which adds
its parser and sets ``func`` (a callable taking the parsed ``argparse.Namespace`` and returning an exit code).
Registration must stay cheap: heavy imports happen inside ``func``.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from plates import __version__

# One line per subcommand module, in the order `plates --help` lists them.
SUBCOMMAND_MODULES = (
    "generate",
    "run",
    "staircase",
    "prompts",
    "dashboard",
    "reference",
    "baseline",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="plates",
        description="Colour-perception stimuli for vision-language models: generate plates, run models, review results.",
    )
    parser.add_argument("--version", action="version", version=f"plates {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMAND_MODULES:
        importlib.import_module(f"plates.cli.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except ValueError as exc:  # bad input: a clear message, no traceback
        print(f"plates {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # an --out under a file, a folder without write permission, a full disk, ...
        print(f"plates {args.command}: error: {exc}; allowed: input files that exist and an output folder this "
              "user can create and write",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"plates {args.command}: interrupted; rerun the same command to resume", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
