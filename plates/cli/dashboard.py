"""`plates dashboard [PATH] [--port P]`: the Streamlit results dashboard on a results folder.

Runs ``streamlit run`` on the app inside the package (`plates.dashboard.app`, shipped in the wheel) headless,
with usage statistics off. The results folder reaches the app
through the ``PLATES_RESULTS`` environment variable (the app's path box starts there; default ``results/``).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from pathlib import Path

#: Where the Streamlit app lives: `plates/dashboard/app.py`, inside the package (so an installed wheel has it).
APP_PATH = Path(__file__).resolve().parents[1] / "dashboard" / "app.py"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``plates dashboard`` and its flags to ``subparsers``.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        The ``plates`` parser's subcommands.
    """
    parser = subparsers.add_parser(
        "dashboard",
        help="open the results dashboard (Streamlit) on a results folder",
        description="Open the Streamlit results dashboard on every Parquet part under PATH (recursively).",
    )
    parser.add_argument(
        "path", nargs="?", default="results", help="results folder or Parquet file (default: results), or an "
        "object-store URL, s3://BUCKET/PREFIX: its committed parts are copied to --cache and kept in step while "
        "the dashboard runs (credentials from the environment: see plates.storage)"
    )
    parser.add_argument("--cache", help="with a URL: the local folder holding the copies (default: "
                        "~/.cache/plates/mirror/<hash of the URL>)")
    parser.add_argument("--port", type=int, default=8501, help="port to serve on (default: 8501)")
    parser.add_argument("--address", default="127.0.0.1", help="address to bind (default: 127.0.0.1)")
    parser.set_defaults(func=run)


def streamlit_command(port: int, address: str) -> list[str]:
    """The exact command line that serves the dashboard: headless, no usage statistics, no file watcher, uploads
    capped at `plates.admission.UploadLimits`' bytes (MB, Streamlit's unit) instead of Streamlit's 200 MB.

    Parameters
    ----------
    port : int
        The TCP port.
    address : str
        The address to listen on.

    Returns
    -------
    list of str
        The command's arguments.
    """
    from plates.admission import UploadLimits  # not plates.results: its package imports pandas

    if not 1 <= port <= 65535:
        raise ValueError(f"--port {port} is not a TCP port; allowed: 1-65535")
    if not APP_PATH.is_file():
        raise ValueError(
            f"the dashboard app is not at {APP_PATH}; the plates package is incomplete: reinstall it "
            "(pip install plates, or pip install -e . in a checkout)"
        )
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(APP_PATH),
        "--server.port",
        str(port),
        "--server.address",
        address,
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        "--client.toolbarMode",
        "viewer",
        # no file watcher: the app is installed code, not edited while served, and watching was 56% of the
        # server's busy time
        "--server.fileWatcherType",
        "none",
        # Streamlit's own cap is 200 MB a file; an upload set is checked again as a whole, from its Parquet
        # footers, before it is opened (plates.admission.UploadLimits, plates.results.uploads.check_uploads)
        "--server.maxUploadSize",
        str(UploadLimits().max_bytes // 1_000_000),
    ]


def mirror_folder(url: str, cache: str | None) -> Path:
    """Where the parts of ``url`` are copied for the dashboard: ``cache``, else a folder per URL under
    ``~/.cache/plates/mirror``.

    Parameters
    ----------
    url : str
        An object-store URL.
    cache : str or None
        The folder the user named (``~`` expanded).

    Returns
    -------
    pathlib.Path
        The folder.
    """
    if cache is not None:
        return Path(cache).expanduser()
    return Path.home() / ".cache" / "plates" / "mirror" / hashlib.sha256(url.encode()).hexdigest()[:16]


def run(args: argparse.Namespace) -> int:
    """Run ``plates dashboard``: open the results dashboard (Streamlit) on a results folder.

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
    from plates.storage import is_url, mirror  # pyarrow: not at registration (plates.cli)

    extra = {}
    if is_url(args.path):
        path = mirror_folder(args.path, args.cache)
        copied = mirror(args.path, path)
        print(f"plates dashboard: {copied} parts copied from {args.path} to {path}", file=sys.stderr, flush=True)
        extra = {"PLATES_RESULTS_URL": args.path}
    elif args.cache is not None:
        raise ValueError("--cache applies to an object-store URL only; allowed: plates dashboard s3://BUCKET/PREFIX "
                         "--cache DIR")
    else:
        path = Path(args.path)
    if not path.exists():
        raise ValueError(
            f"results path {str(path)!r} does not exist; give a folder of Parquet parts (e.g. results/)"
        )
    env = dict(os.environ, PLATES_RESULTS=str(path.resolve()), STREAMLIT_BROWSER_GATHER_USAGE_STATS="false",
               **extra)
    command = streamlit_command(args.port, args.address)
    print(
        f"plates dashboard: serving {args.path} on http://{args.address}:{args.port}", file=sys.stderr, flush=True
    )
    # Become the Streamlit server (no child process): stopping `plates dashboard` stops the server.
    os.execve(command[0], command, env)
    return 0  # pragma: no cover (execve does not return)
