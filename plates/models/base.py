"""The one protocol every model backend speaks.

A backend receives a sequence of :class:`Query` values (each a few-shot conversation of :class:`Turn` values
whose images are PIL RGB images, sRGB 0-255) and yields ``(index, Reply)`` pairs as each answer completes, in
any order, every index exactly once. A request that finally fails becomes a :class:`Reply` with ``text=None``
and an ``error`` message: a failure is never stored as answer text.

When every request keeps failing the same way (a wrong key, a wrong model name, a server that is down),
``ask`` raises :class:`BackendFailing` instead of filling a results table with identical errors.
"""

from __future__ import annotations

import json
import types
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from plates.validation import check_int

#: Roles a turn may take.
ROLES = ("user", "assistant")
#: Prompt kinds (see plates.tasks.prompts): open answer, yes/no, multiple choice.
QUERY_KINDS = ("open", "yesno", "mc")


@dataclass(frozen=True)
class Turn:
    """One message of a conversation: a role, its text and the images shown with it.

    Few-shot examples (ColorBlindnessEval B.2, HueManity Table 3) are earlier user turns with their images
    followed by assistant turns carrying the correct answers.

    Parameters
    ----------
    role : str
        One of `ROLES`.
    text : str
        The message text.
    images : tuple of PIL.Image.Image
        Images shown with it, in order (RGB, sRGB 0-255); any iterable is stored as a tuple.

    Raises
    ------
    ValueError
        ``role`` not in `ROLES`, ``text`` not a str, or an image that is not a PIL image.
    """

    role: str
    text: str
    images: tuple[Image.Image, ...] = field(default=())

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"Turn role {self.role!r} is not allowed; allowed: {', '.join(ROLES)}")
        if not isinstance(self.text, str):
            raise ValueError(f"Turn text must be a str, got {type(self.text).__name__}")
        images = tuple(self.images)
        for image in images:
            if not isinstance(image, Image.Image):
                raise ValueError(f"Turn images must be PIL images, got {type(image).__name__}")
        object.__setattr__(self, "images", images)


@dataclass(frozen=True)
class Query:
    """One request: the conversation, the prompt kind, and generation settings.

    ``kind`` lets a backend decline what it cannot answer (e.g. the baseline reader only answers open
    questions) by replying with ``unsupported=True``.

    Parameters
    ----------
    turns : tuple of Turn
        The conversation, at least one turn, the last one the user's; any iterable is stored as a tuple.
    kind : str
        The prompt kind, one of `QUERY_KINDS` (``"open"``, ``"yesno"``, ``"mc"``).
    max_tokens : int
        Token budget of the reply, >= 1.
    temperature : float
        Sampling temperature, 0-2 (0: greedy).
    answer_kind : str or None
        What the question expects (`plates.tasks.ANSWER_KINDS`: "label", "yesno", "choice", ...); None: not
        stated (a query from outside, e.g. over HTTP).
    label_space : str or None
        The answer space a label is read in (e.g. "cbe", "huemanity-alnum", "any"), or None.
    answer_format : str or None
        How an answer is written (e.g. "Answer: {answer}"), or None.
    pixel_reply : str or None
        What an observer reading the stimulus's pixels replies (`plates.tasks.base.pixel_reply`); only the
        reference observer reads it, no backend sends it anywhere. None where pixels do not decide.

    Raises
    ------
    ValueError
        No turns, a turn that is not a `Turn`, a last turn that is not the user's, ``kind`` not in
        `QUERY_KINDS`, ``max_tokens`` below 1 or not an int, ``temperature`` outside 0-2 (or not a number).

    Examples
    --------
    >>> query = Query((Turn("user", "What number is in the image?"),), max_tokens=16)
    >>> query.kind, query.images
    ('open', ())
    """

    turns: tuple[Turn, ...]
    kind: str = "open"
    max_tokens: int = 512
    temperature: float = 0.0
    #: What the question expects, stated explicitly so no backend has to guess it from the prompt text:
    #: ``answer_kind`` (`plates.tasks.ANSWER_KINDS`: "label", "yesno", "choice", ...), ``label_space`` (the
    #: answer space a label is read in, e.g. "cbe", "huemanity-alnum", "any") and ``answer_format`` (how an
    #: answer is written, e.g. "Answer: {answer}"). None: not stated (a query from outside, e.g. over HTTP).
    answer_kind: str | None = None
    label_space: str | None = None
    answer_format: str | None = None
    #: What an observer reading the stimulus's pixels replies (`plates.tasks.base.pixel_reply`); None where
    #: pixels do not decide the answer. Only the reference observer reads it: no backend sends it anywhere.
    pixel_reply: str | None = None

    def __post_init__(self) -> None:
        turns = tuple(self.turns)
        if not turns:
            raise ValueError("Query needs at least one turn; got none")
        for turn in turns:
            if not isinstance(turn, Turn):
                raise ValueError(f"Query turns must be Turn values, got {type(turn).__name__}")
        if turns[-1].role != "user":
            raise ValueError(f"the last turn of a Query must have role 'user', got {turns[-1].role!r}")
        if self.kind not in QUERY_KINDS:
            raise ValueError(f"Query kind {self.kind!r} is not allowed; allowed: {', '.join(QUERY_KINDS)}")
        check_int("max_tokens", self.max_tokens, 1)
        if not 0.0 <= float(self.temperature) <= 2.0:
            raise ValueError(f"temperature must be within 0-2, got {self.temperature!r}")
        object.__setattr__(self, "turns", turns)

    @property
    def images(self) -> tuple[Image.Image, ...]:
        """Every image of the conversation, in order."""
        return tuple(image for turn in self.turns for image in turn.images)


@dataclass(frozen=True)
class Reply:
    """A backend's answer to one query: its raw text or why there is none, and what decided it.

    Parameters
    ----------
    text : str or None
        The model's raw reply, or None when the request failed (then ``error`` says why) or was declined
        (``unsupported=True``).
    error : str or None
        Why there is no text; never contains a secret.
    latency_s : float
        Wall-clock seconds of the last attempt.
    prompt_tokens : int or None
        Prompt tokens, where the backend reports them.
    completion_tokens : int or None
        Reply tokens, where the backend reports them.
    attempts : int
        Requests made (1 = no retry).
    unsupported : bool
        The backend declined the query's kind.
    settings : mapping or None
        Every generation setting that decided the answer, as the backend sent or applied it (JSON-able
        values: sampling on or off, temperature, top-k/top-p/min-p, penalties, token budget, stop tokens, the
        prompt format; and which settings were left to the server): stored per row as ``generation_json``;
        kept as a read-only copy. None: nothing generated the text (a person's answer).
    revision : str or None
        What identifies the weights that answered, where known (a local model's commit hash; an API's served
        model name and system fingerprint).

    Raises
    ------
    ValueError
        ``settings`` is neither a mapping nor None.

    Examples
    --------
    >>> reply = Reply("Answer: 12", settings={"temperature": 0.0})
    >>> reply.ok, reply.settings_json
    (True, '{"temperature": 0.0}')
    """

    text: str | None
    error: str | None = None
    latency_s: float = 0.0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    attempts: int = 1
    unsupported: bool = False
    settings: Mapping[str, Any] | None = None
    revision: str | None = None

    def __post_init__(self) -> None:
        if self.settings is not None:
            if not isinstance(self.settings, Mapping):
                raise ValueError(f"Reply settings must be a mapping or None, got {type(self.settings).__name__}")
            object.__setattr__(self, "settings", types.MappingProxyType(dict(self.settings)))

    @property
    def settings_json(self) -> str | None:
        """``settings`` as canonical JSON (sorted keys), or None when there are none."""
        return None if self.settings is None else json.dumps(dict(self.settings), sort_keys=True)

    @property
    def ok(self) -> bool:
        """True when the reply carries answer text."""
        return self.text is not None and self.error is None and not self.unsupported


class BackendFailing(RuntimeError):
    """Every request keeps failing the same way: stop rather than record the same error for every item.

    The message says why (status, error class, the server's message) and never contains an API key.
    """


class Backend(ABC):
    """A model that answers queries. Subclasses set ``kind`` and ``model``."""

    kind: str = ""
    model: str = ""
    #: True when the backend sends images as PNG bytes (an HTTP API): the runner then hands it every image as a
    #: `plates.images.StoredPng`, a stored file's bytes as they are and a changed image encoded once.
    sends_png: bool = False

    @abstractmethod
    def ask(self, queries: Sequence[Query]) -> Iterator[tuple[int, Reply]]:
        """Yield ``(index into queries, Reply)`` as each completes: any order, every index exactly once.

        Raises :class:`BackendFailing` when every request keeps failing the same way.

        Parameters
        ----------
        queries : sequence of Query
            The questions.

        Yields
        ------
        (int, Reply)
            Index into ``queries`` and its reply.
        """

    def ask_one(self, query: Query) -> Reply:
        """Answer a single query (convenience over :meth:`ask`).

        Parameters
        ----------
        query : Query
            The question (its turns, images and sampling).

        Returns
        -------
        Reply
            The reply.
        """
        for _, reply in self.ask([query]):
            return reply
        raise RuntimeError(f"{type(self).__name__}.ask yielded nothing for one query")

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources (connections, model weights). Safe to call twice."""

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(kind={self.kind!r}, model={self.model!r})"
