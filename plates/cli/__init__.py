"""The `plates` console script.

Each subcommand lives in its own module of this package and exposes ``register(subparsers)``, which adds
its parser and sets ``func`` (a callable taking the parsed ``argparse.Namespace`` and returning an exit code).
Registration must stay cheap: heavy imports happen inside ``func``.

Exit codes (the same for every subcommand; :data:`EXIT_CODES` is what ``plates --help`` prints): 0 done, 2 bad
input, 3 a backend kept failing, 4 the machine failed (a full, read-only or failing disk: nothing is wrong with
the input), 130 interrupted, 141 the reader of the output went away.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from plates import __version__
from plates.faults import environment_failure

# One line per subcommand module, in the order `plates --help` lists them.
SUBCOMMAND_MODULES = (
    "generate",
    "run",
    "rescore",
    "staircase",
    "ellipses",
    "consistency",
    "prompts",
    "dashboard",
    "reference",
    "baseline",
    "export",
    "importing",
    "view",
)


#: Exit status when the input was wrong (the message names the field or value and what is allowed).
EXIT_BAD_INPUT = 2
#: Exit status when a model backend kept failing the same way (rows already written are kept).
EXIT_BACKEND = 3
#: Exit status when the machine failed, not the input: a full disk, a quota, a read-only or failing disk.
EXIT_ENVIRONMENT = 4
#: Exit status after the reader of our output went away: 128 + SIGPIPE, what `yes | head` leaves behind.
EXIT_BROKEN_PIPE = 141

EXIT_CODES = f"""exit codes:
  0    done
  {EXIT_BAD_INPUT}    bad input: the message names the field or value and what is allowed
  {EXIT_BACKEND}    a model backend kept failing (run, staircase): rows already written are kept; fix and rerun
  {EXIT_ENVIRONMENT}    the machine failed, not the input: a full, read-only or failing disk (the message names
       the folder); free space or pick another --out, then rerun the same command to continue
  130  interrupted (Ctrl-C); rerun the same command to resume
  {EXIT_BROKEN_PIPE}  the reader of the output went away (`plates ... | head`)"""


def build_parser() -> argparse.ArgumentParser:
    """The ``plates`` command's parser: every subcommand of `SUBCOMMAND_MODULES` registered.

    Returns
    -------
    argparse.ArgumentParser
        ``plates`` with every subcommand registered.
    """
    parser = argparse.ArgumentParser(
        prog="plates",
        description="Colour-perception stimuli for vision-language models: generate plates, run models, review results.",
        epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"plates {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMAND_MODULES:
        importlib.import_module(f"plates.cli.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """The ``plates`` command: parse ``argv``, run the subcommand, and turn its errors into messages and exit statuses.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: the command line).

    Returns
    -------
    int
        The exit status (`EXIT_CODES`): the subcommand's own (0 on success; `EXIT_BACKEND` when a model keeps
        failing), 2 without a subcommand, `EXIT_BAD_INPUT` for bad input
        (a ValueError or an unusable path, its message on stderr), `EXIT_ENVIRONMENT` for a full or failing disk,
        `EXIT_BROKEN_PIPE` when the reader of stdout stopped, 130 when interrupted.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # the command as typed (an export's card quotes it)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        _check_out(args)
        return int(args.func(args) or 0)
    except BrokenPipeError:  # `plates reference show | head`: the reader stopped reading; nothing went wrong
        return _quiet_broken_pipe()
    except ValueError as exc:  # bad input: a clear message, no traceback
        print(f"plates {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        failure = environment_failure(exc)
        if failure is not None:  # a full or failing disk: the machine's fault, not the input's
            print(f"plates {args.command}: error: {failure}; nothing is wrong with the input: free space there "
                  "(or choose another output folder) and rerun the same command; what was written is kept",
                  file=sys.stderr)
            return EXIT_ENVIRONMENT
        # an --out under a file, a folder without write permission, an input file that is not there, ...
        print(f"plates {args.command}: error: {exc}; allowed: input files that exist and an output folder this "
              "user can create and write",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f"plates {args.command}: interrupted; rerun the same command to resume", file=sys.stderr)
        return 130


#: The subcommands whose --out may be an object-store URL (`plates.storage`); the others write local folders.
OBJECT_STORE_OUT = ("run", "generate")


def _check_out(args: argparse.Namespace) -> None:
    """ValueError for an object-store --out where a subcommand writes local folders only (it would otherwise
    make a folder named after the URL). The URL is not echoed: it may carry credentials."""
    from plates.storage import is_url  # pyarrow: after parsing, so `plates --help` stays fast

    if args.command not in OBJECT_STORE_OUT and is_url(getattr(args, "out", None)):
        raise ValueError("--out is an object-store URL, which only plates run and plates generate --format "
                         "parquet write (plates run --dataset and plates dashboard read them); allowed here: a "
                         "local folder")


class PresetsHelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Help with ``{presets}`` in an option's help replaced by every family's presets
    (`plates.datasets.family_presets.presets_listing`), imported only when help is printed, so that
    registering the subcommand stays cheap."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = super()._get_help_string(action) or ""
        if "{presets}" in text:
            from plates.datasets.family_presets import presets_listing  # renders nothing; only for --help

            text = text.replace("{presets}", presets_listing())
        return text


def _quiet_broken_pipe() -> int:
    """Point stdout at /dev/null so Python's final flush does not fail again (and print "Exception ignored"),
    and exit with :data:`EXIT_BROKEN_PIPE` without a message."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout without a file descriptor (e.g. captured in tests)
        pass
    return EXIT_BROKEN_PIPE


def positive(flag: str, value: int | None) -> int | None:
    """``value`` when it is None or an integer >= 1, else ValueError naming ``flag`` (every subcommand's
    --limit, --concurrency, ... say the same).

    Parameters
    ----------
    flag : str
        The flag, for the message.
    value : int or None
        Its value.

    Returns
    -------
    int or None
        ``value``.

    Raises
    ------
    ValueError
        For anything but None or an integer >= 1.
    """
    if value is not None and value < 1:
        raise ValueError(f"{flag} {value} is not allowed; expected an integer >= 1")
    return value


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
