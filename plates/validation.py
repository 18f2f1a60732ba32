"""The one home of the package's input checks: a name looked up in a registry and a number in a range.

Every check raises a ``ValueError`` that names what was wrong and what is allowed (the project's rule), in the
style of colour-science's ``validate_method``: ``lookup(PALETTES, "colorblindnesseval-2", "palette")`` gives
the palette or ``palette 'colorblindnesseval-2' is not known; allowed: ...; did you mean
'colorblindnesseval-1'?``. The suggestion (``difflib.get_close_matches``) helps with near-miss names typed on
the command line or in a TOML file.

Examples
--------
>>> lookup({"red": 1, "green": 2}, "gren", "colour")
Traceback (most recent call last):
...
ValueError: colour 'gren' is not known; allowed: red, green; did you mean 'green'?
>>> check_number("size", 512, 64, 4096, integer=True)
512
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

__all__ = ["check_choice", "check_number", "lookup", "not_known", "suggestion"]

T = TypeVar("T")


def suggestion(value: Any, allowed: Iterable[Any]) -> str | None:
    """The allowed name closest to ``value`` (``difflib.get_close_matches``, cutoff 0.6, case-insensitive),
    or None when ``value`` is not a string or nothing is close."""
    if not isinstance(value, str) or not value:
        return None
    names = {str(a).lower(): str(a) for a in allowed}
    close = difflib.get_close_matches(value.lower(), list(names), n=1)
    return names[close[0]] if close else None


def not_known(what: str, value: Any, allowed: Iterable[Any], *, extra: str = "") -> ValueError:
    """The error for ``value`` outside a fixed set of names: ``"{what} {value!r} is not known; allowed: a, b
    {extra}; did you mean 'a'?"`` (the suggestion only when one is close). Returned, not raised, so a caller
    writes ``raise not_known(...) from None``."""
    names = [str(a) for a in allowed]
    message = f"{what} {value!r} is not known; allowed: {', '.join(names)}{extra}"
    close = suggestion(value, names)
    if close is not None:
        message += f"; did you mean {close!r}?"
    return ValueError(message)


def lookup(registry: Mapping[str, T], name: Any, what: str, *, extra: str = "") -> T:
    """``registry[name]``, or the `not_known` ValueError listing the registry's names (``what`` names the
    kind of thing, e.g. "palette"; ``extra`` is appended to the allowed list, e.g. " or a .ttf path")."""
    if isinstance(name, str) and name in registry:
        return registry[name]
    raise not_known(what, name, registry, extra=extra)


def check_choice(what: str, value: T, allowed: Iterable[Any], *, extra: str = "") -> T:
    """``value`` itself when it is one of ``allowed`` (names, numbers or None), else the `not_known`
    ValueError."""
    allowed = tuple(allowed)
    try:
        ok = value in allowed
    except TypeError:  # an unhashable value in a set of names
        ok = False
    if not ok:
        raise not_known(what, value, allowed, extra=extra)
    return value


def _show(bound: float) -> str:
    return str(bound) if isinstance(bound, int) else f"{bound:g}"


def check_number(name: str, value: Any, lo: float, hi: float, *, integer: bool = False,
                 none_ok: bool = False) -> Any:
    """``value`` when it is a finite number (``integer``: an int; never a bool) in ``[lo, hi]``: as ``int``
    when ``integer``, else as ``float``; None passes when ``none_ok``. Otherwise a ValueError
    ``"{name}={value!r} is not valid; allowed: a number in [lo, hi]"``."""
    if value is None and none_ok:
        return None
    kind = (int,) if integer else (int, float)
    try:
        ok = (not isinstance(value, bool) and isinstance(value, kind) and math.isfinite(value)
              and lo <= value <= hi)
    except (TypeError, OverflowError):
        ok = False
    if not ok:
        what = "an integer" if integer else "a number"
        raise ValueError(f"{name}={value!r} is not valid; allowed: {what} in [{_show(lo)}, {_show(hi)}]"
                         + (" or None" if none_ok else ""))
    return int(value) if integer else float(value)
