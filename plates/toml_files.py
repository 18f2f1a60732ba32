"""Reading the project's TOML files (experiments, staircases, grids, prompt files) with one kind of error: a
ValueError that names the file, what it was read as, and what went wrong (missing, or not valid TOML)."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

__all__ = ["read_toml"]


def read_toml(path: str | os.PathLike, what: str) -> dict[str, Any]:
    """The parsed TOML document at ``path``; ``what`` names the file's role in messages ("experiment",
    "staircase", ...): "<what> file '<path>' does not exist", "... is a folder" or "... is not valid TOML:
    <reason>" (a binary file, or TOML that does not parse).

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    what : str
        Its role, for messages.

    Returns
    -------
    dict
        The document.

    Raises
    ------
    ValueError
        For a missing file, a folder, or text that is not valid TOML.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"{what} file {str(path)!r} does not exist") from None
    except IsADirectoryError:
        raise ValueError(f"{what} file {str(path)!r} is a folder; allowed: a TOML file") from None
    except UnicodeDecodeError as exc:  # a binary file, or text in another encoding
        raise ValueError(f"{what} file {str(path)!r} is not valid TOML: not UTF-8 text (byte {exc.start}); "
                         "allowed: a UTF-8 TOML file") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{what} file {str(path)!r} is not valid TOML: {exc}") from None
