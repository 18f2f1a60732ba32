"""How to install an optional part of this project, said once for every message that needs it.

The project is installed from a checkout of its repository (``pip install -e .``): the ``plates`` package on
PyPI is an unrelated project, so ``pip install "plates[hf]"`` would install something else. Every hint about a
missing extra comes from :func:`extra_hint`.
"""

from __future__ import annotations

import json
import os
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlsplit

from plates.validation import check_choice

#: The extras pyproject.toml declares (``[project.optional-dependencies]``).
EXTRAS = ("hf", "train", "hub", "inspect", "export", "space", "ray", "s3", "dev")


def extra_hint(extra: str | None = None) -> str:
    """The install command for ``extra`` (one of :data:`EXTRAS`; None = the default install), run in a
    checkout of this repository; ValueError naming the extras otherwise.

    Parameters
    ----------
    extra : str or None, optional
        One of `EXTRAS`; None: the default install.

    Returns
    -------
    str
        The command, in a sentence.

    Raises
    ------
    ValueError
        For an unknown extra.
    """
    if extra is not None:
        check_choice("extra", extra, EXTRAS)
    target = "." if extra is None else f'".[{extra}]"'
    return (
        f"pip install -e {target} from the root of a checkout of this repository (the 'plates' package "
        "on PyPI is an unrelated project)"
    )


def shadowing_note(package_dir: Path, cwd: Path, installed: Path | None) -> str | None:
    """A sentence naming the cause when the ``plates`` imported (its folder ``package_dir``) is a checkout under
    the current folder ``cwd`` that shadows the installed one (``installed``: the folder holding the installed
    ``plates``, or None when none is installed); None when they are the same or nothing is shadowed. Python puts
    the folder it runs in first on its path, so ``python snippet.py`` run beside a clone imports the clone's
    ``plates/``: without its built or downloaded files (the reader's weights), the error would blame those.

    Parameters
    ----------
    package_dir : pathlib.Path
        The imported package's folder.
    cwd : pathlib.Path
        The current folder.
    installed : pathlib.Path or None
        The installed package's folder.

    Returns
    -------
    str or None
        The sentence, or None.

    Examples
    --------
    >>> shadowing_note(Path("/home/me/plates/plates"), Path("/home/me/plates"), Path("/opt/plates")) is None
    False
    >>> shadowing_note(Path("/opt/plates/plates"), Path("/home/me"), Path("/opt/plates")) is None
    True
    """
    package_dir, cwd = package_dir.resolve(), cwd.resolve()
    if installed is None or not package_dir.is_relative_to(cwd) or package_dir.parent == installed.resolve():
        return None
    return (f"note: `plates` was imported from {package_dir} (a checkout in the folder Python runs in), not the "
            f"installed one under {installed}; run from another folder, or install that checkout "
            f"({extra_hint()})")


def installed_root() -> Path | None:
    """The folder holding the installed ``plates`` package: an editable install's checkout (its
    ``direct_url.json``), else the site-packages folder; None when the distribution is not installed."""
    try:
        dist = metadata.distribution("plates")
    except metadata.PackageNotFoundError:
        return None
    direct = dist.read_text("direct_url.json")
    if direct:
        info = json.loads(direct)
        if info.get("dir_info", {}).get("editable") and info.get("url", "").startswith("file://"):
            return Path(unquote(urlsplit(info["url"]).path))
    return Path(str(dist.locate_file("")))


def shadowing() -> str | None:
    """`shadowing_note` for this process: the imported ``plates``, the current folder, the installed one."""
    import plates

    return shadowing_note(Path(plates.__file__).parent, Path(os.getcwd()), installed_root())
