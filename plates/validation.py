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
import numbers
import re
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

__all__ = ["IMAGE_SIZES", "check_choice", "check_int", "check_keys", "check_list", "check_number", "check_size",
           "is_number", "lookup", "not_known", "suggestion"]

#: The sizes (px, longest side) a viewing condition may scale an image to, inclusive: the one size rule of
#: ``plates.conditions`` and the experiment file's ``conditions.sizes``.
IMAGE_SIZES = (16, 4096)

#: The longest integer text `check_int` reads (untrusted text is bounded before it is parsed; 2**63-1 has 19
#: digits).
_INT_CHARS = 40
_INT_TEXT = re.compile(r"[+-]?[0-9]+")

T = TypeVar("T")


def suggestion(value: Any, allowed: Iterable[Any]) -> str | None:
    """The allowed name closest to ``value`` (``difflib.get_close_matches``, cutoff 0.6, case-insensitive),
    or None when ``value`` is not a string or nothing is close.

    Parameters
    ----------
    value : object
        What was given.
    allowed : iterable
        The allowed names.

    Returns
    -------
    str or None
        The closest name.

    Examples
    --------
    >>> suggestion("gren", ["red", "green"])
    'green'
    """
    if not isinstance(value, str) or not value:
        return None
    names = {str(a).lower(): str(a) for a in allowed}
    close = difflib.get_close_matches(value.lower(), list(names), n=1)
    return names[close[0]] if close else None


def not_known(what: str, value: Any, allowed: Iterable[Any], *, extra: str = "") -> ValueError:
    """The error for ``value`` outside a fixed set of names: ``"{what} {value!r} is not known; allowed: a, b
    {extra}; did you mean 'a'?"`` (the suggestion only when one is close). Returned, not raised, so a caller
    writes ``raise not_known(...) from None``.

    Parameters
    ----------
    what : str
        The kind of thing.
    value : object
        What was given.
    allowed : iterable
        The allowed names.
    extra : str, optional
        Appended to the allowed list.

    Returns
    -------
    ValueError
        The error, to raise.
    """
    names = [str(a) for a in allowed]
    message = f"{what} {value!r} is not known; allowed: {', '.join(names)}{extra}"
    close = suggestion(value, names)
    if close is not None:
        message += f"; did you mean {close!r}?"
    return ValueError(message)


def lookup(registry: Mapping[str, T], name: Any, what: str, *, extra: str = "") -> T:
    """``registry[name]``, or the `not_known` ValueError listing the registry's names (``what`` names the
    kind of thing, e.g. "palette"; ``extra`` is appended to the allowed list, e.g. " or a .ttf path").

    Parameters
    ----------
    registry : mapping
        Names to entries.
    name : object
        The name given.
    what : str
        The kind of thing.
    extra : str, optional
        Appended to the allowed list.

    Returns
    -------
    object
        The entry.

    Raises
    ------
    ValueError
        For a name not in ``registry``.
    """
    if isinstance(name, str) and name in registry:
        return registry[name]
    raise not_known(what, name, registry, extra=extra)


def check_choice(what: str, value: T, allowed: Iterable[Any], *, extra: str = "") -> T:
    """``value`` itself when it is one of ``allowed`` (names, numbers or None), else the `not_known`
    ValueError.

    Parameters
    ----------
    what : str
        The kind of thing.
    value : object
        What was given.
    allowed : iterable
        The allowed values.
    extra : str, optional
        Appended to the allowed list.

    Returns
    -------
    object
        ``value``.

    Raises
    ------
    ValueError
        For a value not in ``allowed``.
    """
    allowed = tuple(allowed)
    try:
        ok = value in allowed
    except TypeError:  # an unhashable value in a set of names
        ok = False
    if not ok:
        raise not_known(what, value, allowed, extra=extra)
    return value


def is_number(value: Any, *, integer: bool = False) -> bool:
    """Whether ``value`` is a number, never a bool: a real (``int``, ``float``, numpy's integers and floats,
    any ``numbers.Real``), or with ``integer`` an integral one (``int``, numpy's integers). The one test behind
    `check_number` and `check_int`, for code that asks rather than refuses (an optional field of a reply).

    A type test only: NaN and the infinities are floats, so they count; a numeric string does not.

    Parameters
    ----------
    value : Any
        The value to test.
    integer : bool, optional
        Ask for an integral number (any ``numbers.Integral``: ``int``, numpy's integers).

    Returns
    -------
    bool
        True for a number (an integral one with ``integer``) that is not a ``bool``, else False.

    Examples
    --------
    >>> is_number(3.5), is_number(True), is_number("3"), is_number(3.0, integer=True)
    (True, False, False, False)
    """
    return not isinstance(value, bool) and isinstance(value, numbers.Integral if integer else numbers.Real)


def _show(bound: float) -> str:
    return str(bound) if isinstance(bound, int) else f"{bound:g}"


def _refuse(name: str, value: Any, what: str, lo: float | None, hi: float | None, none_ok: bool,
            open: bool | str = False, note: str = "") -> ValueError:
    left, right = ("(" if open in (True, "lo") else "["), (")" if open in (True, "hi") else "]")
    span = ("" if lo is None and hi is None else f" {'>' if left == '(' else '>='} {_show(lo)}" if hi is None
            else f" {'<' if right == ')' else '<='} {_show(hi)}" if lo is None
            else f" in {left}{_show(lo)}, {_show(hi)}{right}")
    return ValueError(f"{name}={value!r} is not valid; allowed: {what}{span}" + (" or None" if none_ok else "")
                      + note)


def _within(x: Any, lo: float | None, hi: float | None, open: bool | str) -> bool:
    if open not in (False, True, "lo", "hi"):
        raise ValueError(f"open={open!r} is not valid; allowed: False, True, 'lo' or 'hi'")
    return ((lo is None or (x > lo if open in (True, "lo") else x >= lo))
            and (hi is None or (x < hi if open in (True, "hi") else x <= hi)))


def check_number(name: str, value: Any, lo: float | None = None, hi: float | None = None, *,
                 integer: bool = False, none_ok: bool = False, text: bool = False, open: bool | str = False,
                 note: str = "") -> Any:
    """A finite number in ``[lo, hi]`` (never a bool), as ``float``; with ``integer``, `check_int`'s integer.

    Parameters
    ----------
    name : str
        What the value is, as the error names it (``"jitter"``, ``"conditions.hue_shifts[0]"``).
    value : Any
        The number (`is_number`: numpy's numbers too); with ``text``, also a string read with ``float`` (a
        visitor's text box).
    lo, hi : float or None
        The inclusive bounds; None: no bound that side.
    integer : bool
        Read an integer instead (`check_int`, which never reads through ``float``).
    none_ok : bool
        None passes as None.
    text : bool
        Read strings too (``float(value)``); off for specs and files, whose numbers are numbers.
    open : bool or str
        The bounds are exclusive: ``(lo, hi)`` (``lo=0, open=True``: a number > 0); ``"lo"`` or ``"hi"``: that
        bound only (``0, 1, open="lo"``: a number in ``(0, 1]``).
    note : str
        Appended to the error, e.g. the unit: ``" (px)"``.

    Returns
    -------
    float or int or None

    Raises
    ------
    ValueError
        ``"{name}={value!r} is not valid; allowed: a number in [lo, hi]"``.
    """
    if integer:
        return check_int(name, value, lo, hi, none_ok=none_ok, text=text, open=open, note=note)
    if value is None and none_ok:
        return None
    x = value
    if text and isinstance(value, str) and len(value) <= _INT_CHARS:
        try:
            x = float(value)
        except ValueError:
            pass
    try:
        ok = is_number(x) and math.isfinite(x) and _within(x, lo, hi, open)
    except (TypeError, OverflowError):
        ok = False
    if not ok:
        raise _refuse(name, value, "a number", lo, hi, none_ok, open, note)
    return float(x)


def check_int(name: str, value: Any, lo: int | None = None, hi: int | None = None, *, none_ok: bool = False,
              text: bool = False, open: bool | str = False, note: str = "") -> int | None:
    """An integer in ``[lo, hi]`` (a bound None: none that side), read with ``int``, never through ``float``.

    Parameters
    ----------
    name : str
        What the value is, as the error names it (``"seed"``, ``"conditions.sizes[0]"``).
    value : Any
        An ``int`` or a numpy integer (never a bool), returned as ``int``. With ``text`` (a visitor's controls), also a string of decimal digits with
        an optional sign, at most 40 characters, read with ``int`` so that ``"9007199254740993"`` stays exact,
        or a float with no fractional part (a number box's ``512.0``); ``"1.7"`` and ``1.7`` are refused, not
        truncated.
    lo : int or None
        The smallest allowed value, or None for no lower bound.
    hi : int or None
        The largest allowed value, or None for no upper bound.
    none_ok : bool
        None passes as None.
    text : bool
        Read strings and whole floats too.
    open : bool or str
        The bounds are exclusive, as `check_number`'s.
    note : str
        Appended to the error, e.g. the unit: ``" (px)"``.

    Returns
    -------
    int or None

    Raises
    ------
    ValueError
        ``"{name}={value!r} is not valid; allowed: an integer in [lo, hi]"`` (``>= lo`` without ``hi``,
        ``<= hi`` without ``lo``).

    Examples
    --------
    >>> check_int("seed", "9007199254740993", 0, 2**63 - 1, text=True)
    9007199254740993
    >>> check_int("seed", "1.7", 0, 2**63 - 1, text=True)
    Traceback (most recent call last):
    ...
    ValueError: seed='1.7' is not valid; allowed: an integer in [0, 9223372036854775807]
    """
    if value is None and none_ok:
        return None
    x: Any = None
    if is_number(value, integer=True):
        x = int(value)
    elif text and isinstance(value, str) and len(value) <= _INT_CHARS and _INT_TEXT.fullmatch(value.strip()):
        x = int(value.strip())
    elif text and isinstance(value, float) and value.is_integer():
        x = int(value)
    if x is None or not _within(x, lo, hi, open):
        raise _refuse(name, value, "an integer", lo, hi, none_ok, open, note)
    return x


def check_size(name: str, value: Any, *, none_ok: bool = False) -> int | None:
    """An image size in px (longest side) within `IMAGE_SIZES` (16-4096): the one size rule for viewing
    conditions.

    Parameters
    ----------
    name : str
        What the size is, as the error names it.
    value : Any
        An ``int`` (never a bool or a float).
    none_ok : bool
        None (keep the image's size) passes as None.

    Returns
    -------
    int or None

    Raises
    ------
    ValueError
        ``"{name}=8 is not valid; allowed: an integer in [16, 4096] (px)"``.
    """
    return check_int(name, value, *IMAGE_SIZES, none_ok=none_ok, note=" (px)")


def check_list(name: str, value: Any, *, wrap: bool = False, empty_ok: bool = False,
               example: str = "") -> list[Any]:
    """``value`` when it is a list (a TOML array).

    Parameters
    ----------
    name : str
        What the list is, as the error names it.
    value : Any
        The list.
    wrap : bool
        A single value that is not a list stands for a list of one (``sizes = 512`` reads as ``[512]``).
    empty_ok : bool
        An empty list passes.
    example : str
        An example the error shows (``"sizes = [900]"``).

    Returns
    -------
    list

    Raises
    ------
    ValueError
        ``"{name}={value!r} is not valid; allowed: a list"`` (and the example), or for an empty list
        ``"...allowed: a list of at least one value"``.
    """
    if not isinstance(value, list):
        if not wrap:
            raise ValueError(f"{name}={value!r} is not valid; allowed: a list" + (f", e.g. {example}" if example
                                                                                 else ""))
        value = [value]
    if not value and not empty_ok:
        raise ValueError(f"{name}=[] is not valid; allowed: a list of at least one value")
    return value


def check_keys(name: str, table: Any, allowed: Iterable[str], *, extra: str = "") -> Mapping[str, Any]:
    """``table`` when it is a table (a mapping) whose keys are all ``allowed``.

    Parameters
    ----------
    name : str
        What the table is, as the error names it (``"conditions"``).
    table : Any
        The table.
    allowed : iterable of str
        The known keys, in the order the error lists them.
    extra : str
        Appended to the unknown-keys part of the error (``" for backend 'openai'"``).

    Returns
    -------
    Mapping

    Raises
    ------
    ValueError
        ``"{name}: expected a table with keys a, b, got ..."`` or ``"{name}: unknown key(s) x; allowed: a, b"``.
    """
    allowed = tuple(allowed)
    if not isinstance(table, Mapping):
        raise ValueError(f"{name}: expected a table with keys {', '.join(allowed)}, got {table!r:.60}")
    bad = sorted(str(k) for k in set(table) - set(allowed))
    if bad:
        raise ValueError(f"{name}: unknown key(s) {', '.join(bad)}{extra}; allowed: {', '.join(allowed)}")
    return table
