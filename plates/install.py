"""How to install an optional part of this project, said once for every message that needs it.

The project is installed from a checkout of its repository (``pip install -e .``): the ``plates`` package on
PyPI is an unrelated project, so ``pip install "plates[hf]"`` would install something else. Every hint about a
missing extra comes from :func:`extra_hint`.
"""

from __future__ import annotations

from plates.validation import check_choice

#: The extras pyproject.toml declares (``[project.optional-dependencies]``).
EXTRAS = ("hf", "train", "hub", "inspect", "export", "space", "ray", "s3", "dev")


def extra_hint(extra: str | None = None) -> str:
    """The install command for ``extra`` (one of :data:`EXTRAS`; None = the default install), run in a
    checkout of this repository; ValueError naming the extras otherwise."""
    if extra is not None:
        check_choice("extra", extra, EXTRAS)
    target = "." if extra is None else f'".[{extra}]"'
    return (
        f"pip install -e {target} from the root of a checkout of this repository (the 'plates' package "
        "on PyPI is an unrelated project)"
    )
