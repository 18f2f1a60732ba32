"""Failures of the machine rather than of the input: a full disk, a quota, a read-only or failing disk.

A command that meets one of these has nothing wrong with what it was given, so it must not say "bad input":
`environment_failure` turns such an ``OSError`` into an `EnvironmentFailure` whose message names the folder on
the failing disk, and the CLI exits with its own code for it (`plates.cli.EXIT_ENVIRONMENT`). Every other
``OSError`` (a missing input file, an output path under a file, a folder without permission) is left as it is.

Examples
--------
>>> import errno
>>> str(environment_failure(OSError(errno.ENOSPC, "No space left on device"), "/data/out"))
'the disk holding /data/out is full (No space left on device)'
>>> environment_failure(FileNotFoundError(errno.ENOENT, "No such file"), "/data/out") is None
True
"""

from __future__ import annotations

import errno
import os

__all__ = ["ENVIRONMENT_ERRNOS", "EnvironmentFailure", "environment_failure"]

#: errno -> what it says about the disk holding a folder (the errno values that are the machine's fault).
ENVIRONMENT_ERRNOS: dict[int, str] = {
    errno.ENOSPC: "is full",
    errno.EDQUOT: "is over this user's quota",
    errno.EROFS: "is mounted read-only",
    errno.EIO: "reported an I/O error",
}


class EnvironmentFailure(OSError):
    """The machine failed (full disk, quota, read-only or failing disk), not the input; ``folder`` is where.

    Parameters
    ----------
    err : int
        The errno.
    message : str
        What failed.
    folder : str
        Where: the disk or file.
    """

    def __init__(self, err: int, message: str, folder: str) -> None:
        super().__init__(err, message)
        self.folder = folder

    def __str__(self) -> str:
        return self.strerror


def environment_failure(exc: BaseException, folder: str | os.PathLike | None = None) -> EnvironmentFailure | None:
    """``exc`` as an `EnvironmentFailure` naming the disk that holds ``folder`` (or, without one, the file the
    error names) when its errno is one of `ENVIRONMENT_ERRNOS`; ``exc`` itself when it already is one; else
    None (the caller keeps the original error).

    Parameters
    ----------
    exc : BaseException
        The error.
    folder : str or os.PathLike, optional
        The folder being written.

    Returns
    -------
    EnvironmentFailure or None
        The machine's failure, or None.
    """
    if isinstance(exc, EnvironmentFailure):
        return exc
    if not isinstance(exc, OSError) or exc.errno not in ENVIRONMENT_ERRNOS:
        return None
    where = folder if folder is not None else exc.filename
    what = f"the disk holding {os.fspath(where)}" if where is not None else "a disk this command writes to"
    reason = exc.strerror or os.strerror(exc.errno)
    return EnvironmentFailure(exc.errno, f"{what} {ENVIRONMENT_ERRNOS[exc.errno]} ({reason})",
                              "" if where is None else os.fspath(where))
