"""Label coding of the baseline reader: a plate's text <-> one class per character position.

The reader has one head per character position (HueManity §4: "two independent classification heads", one
character each). Each head chooses among :data:`CLASSES`: a "blank" class (index 0, so ColorBlindnessEval's
single-digit numbers 0-9 read as ``("7", blank)``) followed by HueManity's 58 symbols (App. B: digits, ASCII
letters with case, minus lowercase ``l`` and uppercase ``I``, ``J``, ``O``).

Label spaces constrain decoding (:func:`allowed_mask`): ``cbe`` is "0".."99" (ColorBlindnessEval §2.1),
``huemanity-numeric`` is "10".."99" and ``huemanity-alnum`` is every ordered pair of the 58 symbols
(HueManity App. B.1); ``any`` is every text of one or two symbols.
"""

from __future__ import annotations

import string

import numpy as np

from plates.stimuli.ishihara.labels import LABEL_SPACE_NAMES
from plates.validation import check_choice

#: The blank class: "no character at this position".
BLANK = ""
#: HueManity App. B: 62 symbols minus the four ambiguous ones ("l", "I", "J", "O").
SYMBOLS = tuple(c for c in string.digits + string.ascii_uppercase + string.ascii_lowercase if c not in "lIJO")
#: Classes of every position head: blank first, then the 58 symbols (frozen: the shipped weights rely on it).
CLASSES = (BLANK, *SYMBOLS)
N_CLASSES = len(CLASSES)
#: Character positions read (HueManity's labels have two characters; CBE's one or two).
N_POSITIONS = 2

_INDEX = {c: i for i, c in enumerate(CLASSES)}


def encode(text: str) -> tuple[int, int]:
    """Class indices of each position for a label of one or two symbols (a short label padded with blank).

    Parameters
    ----------
    text : str
        1 to `N_POSITIONS` characters of `SYMBOLS`.

    Returns
    -------
    tuple of int
        One index into `CLASSES` per position.

    Raises
    ------
    ValueError
        ``text`` is not a str of 1 to `N_POSITIONS` characters, or holds a character outside `SYMBOLS`.

    Examples
    --------
    >>> decode(encode("12")), encode("7")[1] == CLASSES.index(BLANK)
    ('12', True)
    """
    if not isinstance(text, str) or not 1 <= len(text) <= N_POSITIONS:
        raise ValueError(f"label {text!r} must be a str of 1 to {N_POSITIONS} characters")
    bad = [c for c in text if c not in _INDEX or c == BLANK]
    if bad:
        raise ValueError(f"label {text!r} has characters {bad} outside the allowed symbols {''.join(SYMBOLS)}")
    padded = list(text) + [BLANK] * (N_POSITIONS - len(text))
    return tuple(_INDEX[c] for c in padded)  # type: ignore[return-value]


def decode(indices) -> str:
    """The text of per-position class indices (blank positions dropped).

    Parameters
    ----------
    indices : iterable of int
        Indices into `CLASSES`.

    Returns
    -------
    str
    """
    return "".join(CLASSES[int(i)] for i in indices)


def allowed_mask(label_space: str) -> np.ndarray:
    """(N_POSITIONS, N_CLASSES) bool: which class each position may take in ``label_space``.

    Position 0 is never blank. Joint constraints (no leading zero in "07") are applied by :func:`best_label`.

    Parameters
    ----------
    label_space : str
        One of `LABEL_SPACES` ("cbe", "huemanity-numeric", "huemanity-alnum", "any").

    Returns
    -------
    numpy.ndarray
        (N_POSITIONS, N_CLASSES) bool.

    Raises
    ------
    ValueError
        ``label_space`` is not known; the message lists them.
    """
    check_choice("label space", label_space, LABEL_SPACE_NAMES)
    mask = np.zeros((N_POSITIONS, N_CLASSES), dtype=bool)
    digits = [_INDEX[c] for c in string.digits]
    if label_space == "any":
        mask[:, 1:] = True
        mask[1, 0] = True
    elif label_space == "cbe":
        mask[0, digits] = True
        mask[1, digits] = True
        mask[1, 0] = True
    elif label_space == "huemanity-numeric":
        mask[0, digits[1:]] = True
        mask[1, digits] = True
    else:  # huemanity-alnum
        mask[:, 1:] = True
    return mask


def best_label(log_probs: np.ndarray, label_space: str = "any") -> tuple[str, float]:
    """The most probable label in ``label_space`` and its probability.

    ``log_probs``: (N_POSITIONS, N_CLASSES) log-softmax of one plate. Positions are independent (HueManity §4),
    so the best label maximises each position within the mask; for ``cbe`` a two-digit reading starting with
    "0" is not a label, so the best of ("d", blank) and (non-zero digit, digit) is taken jointly.

    Parameters
    ----------
    log_probs : numpy.ndarray
        (N_POSITIONS, N_CLASSES) log-softmax of one plate.
    label_space : str
        One of `LABEL_SPACES`.

    Returns
    -------
    tuple of (str, float)
        The label and its probability, 0-1.

    Raises
    ------
    ValueError
        ``log_probs`` of another shape, or ``label_space`` not known.

    References
    ----------
    HueManity §4 (independent per-position classes).
    """
    log_probs = np.asarray(log_probs, dtype=np.float64)
    if log_probs.shape != (N_POSITIONS, N_CLASSES):
        raise ValueError(f"log_probs must have shape {(N_POSITIONS, N_CLASSES)}, got {log_probs.shape}")
    masked = np.where(allowed_mask(label_space), log_probs, -np.inf)
    if label_space == "cbe":
        zero = _INDEX["0"]
        single_first = masked[0].copy()
        single = (int(np.argmax(single_first)), 0)
        single_lp = single_first[single[0]] + masked[1, 0]
        first = masked[0].copy()
        first[zero] = -np.inf
        second = masked[1].copy()
        second[0] = -np.inf
        double = (int(np.argmax(first)), int(np.argmax(second)))
        double_lp = first[double[0]] + second[double[1]]
        best, lp = (single, single_lp) if single_lp >= double_lp else (double, double_lp)
    else:
        best = tuple(int(i) for i in np.argmax(masked, axis=1))
        lp = float(sum(masked[p, best[p]] for p in range(N_POSITIONS)))
    return decode(best), float(np.exp(lp))
