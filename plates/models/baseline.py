"""The offline baseline reader as a backend: kind ``"baseline"``, model ``"baseline-cnn"``.

It answers the papers' OPEN prompts with the text the ONNX reader (:mod:`plates.reader.reader`) reads on the
image of the query's last user turn, and DECLINES yes/no and multiple-choice prompts with
``Reply(text=None, unsupported=True)``: it reads text, it does not judge claims, and a guessed "yes"/"no"
would pollute the comparisons of ColorBlindnessEval's ``Y*/N`` and ``Y/N*`` columns (CBE §2.2).

It reads plates only: a query that states its answer kind (every query `plates run` and the explorer make) is
answered when that kind is "label" (reading the plate's text), in the query's ``label_space`` and written in its
``answer_format``; any other kind (an illusion's options, a scene's count) is declined as unsupported. A query
from outside (the OpenAI-compatible server `plates serve-baseline`) states nothing but its text: a text equal to
one of the built-in OPEN templates of :mod:`plates.tasks.prompts` takes that template's ``label_space`` and
``answer_format``; any other text is read by these documented rules:

- a prompt asking for "alpha-numeric"/"alphanumeric"/"exact text" -> decode within HueManity's
  alphanumeric space (App. B.1); otherwise a prompt mentioning a "number" -> digits only: HueManity's "10".."99"
  when it asks for the ``Answer: ...`` format (HueManity §4 numeric prompt), else ColorBlindnessEval's
  "0".."99" (CBE App. F open prompt); otherwise any one or two symbols;
- a prompt containing "Answer:" gets ``"Answer: XX"`` (HueManity §4 prompts), else the bare text
  (CBE: "Output the number you see only").
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from plates.models.base import Backend, Query, Reply
from plates.reader import MODEL_NAME
from plates.tasks.prompts import PROMPTS

_ALNUM = re.compile(r"alpha-?numeric|exact text", re.IGNORECASE)
_NUMBER = re.compile(r"\bnumbers?\b", re.IGNORECASE)


def _template_for(prompt: str):
    """The built-in open template whose text is ``prompt`` (stripped), or None."""
    for template in PROMPTS.values():
        if template.kind == "open" and template.template.strip() == prompt.strip():
            return template
    return None


def label_space_for(prompt: str) -> str:
    """The label space a prompt asks for (see module doc): one of plates.stimuli.ishihara.labels.LABEL_SPACE_NAMES.

    Parameters
    ----------
    prompt : str
        The question's text.

    Returns
    -------
    str
        A label space's name.
    """
    template = _template_for(prompt)
    if template is not None:
        return template.label_space
    if _ALNUM.search(prompt):
        return "huemanity-alnum"
    if _NUMBER.search(prompt):
        return "huemanity-numeric" if "Answer:" in prompt else "cbe"
    return "any"


def format_answer(prompt: str, text: str) -> str:
    """The reply text for ``text`` read on a plate, in the form the prompt asks for (module doc).

    Parameters
    ----------
    prompt : str
        The question's text.
    text : str
        What the reader read.

    Returns
    -------
    str
        The reply.
    """
    template = _template_for(prompt)
    if template is not None:
        return template.answer_format.format(answer=text)
    return f"Answer: {text}" if "Answer:" in prompt else text


def count_tokens(text: str, n_images: int = 0) -> int:
    """A rough token count for usage reports: whitespace words, plus one per image (not a real tokenizer).

    Parameters
    ----------
    text : str
        The text.
    n_images : int, optional
        Images sent with it.

    Returns
    -------
    int
        The count.

    Examples
    --------
    >>> count_tokens("What number is this?", n_images=1)
    5
    """
    return len(text.split()) + n_images


class BaselineBackend(Backend):
    """The bundled ONNX plate reader behind the Backend protocol; runs on one CPU core, no network.

    ``model_path``: ONNX weights (default: the bundled plates/assets/baseline/baseline.onnx);
    ``threads``: onnxruntime intra-op threads.

    Parameters
    ----------
    model : str, optional
        The model's name (only ``"baseline-cnn"``).
    model_path : str or pathlib.Path, optional
        ONNX weights (default: the bundled ones).
    threads : int, optional
        onnxruntime intra-op threads.

    Raises
    ------
    ValueError
        For another model name.
    """

    kind = "baseline"
    model = MODEL_NAME

    def __init__(self, model: str = MODEL_NAME, model_path: str | Path | None = None, threads: int = 1) -> None:
        from plates.reader.reader import BaselineReader

        if model != self.model:
            raise ValueError(f"unknown baseline model {model!r}; allowed: {self.model}")
        self._reader = BaselineReader(model_path, threads=threads)
        #: the weights that answer: "sha256:" and the first 16 hex digits of the ONNX file's digest
        self.revision = "sha256:" + hashlib.sha256(self._reader.path.read_bytes()).hexdigest()[:16]

    def answer(self, query: Query) -> Reply:
        """One query -> Reply (declines non-open kinds; needs an image in the last user turn).

        Parameters
        ----------
        query : Query
            The question (its turns, images and sampling).

        Returns
        -------
        Reply
            The reply, or a declined one (``unsupported``).
        """
        if query.kind != "open" or query.answer_kind not in (None, "label"):
            return Reply(text=None, unsupported=True)
        last = query.turns[-1]
        if not last.images:
            return Reply(text=None, error="the baseline reader needs an image in the last user turn; it has none")
        start = time.perf_counter()
        space = query.label_space or label_space_for(last.text)
        reading = self._reader.read(last.images[-1], space)
        text = (query.answer_format.format(answer=reading.text) if query.answer_format is not None
                else format_answer(last.text, reading.text))
        return Reply(
            text=text,
            latency_s=time.perf_counter() - start,
            prompt_tokens=sum(count_tokens(t.text, len(t.images)) for t in query.turns),
            completion_tokens=count_tokens(text),
            # what decides the answer: the most likely character per position (no sampling), read in this space
            settings={"decoding": "argmax", "label_space": space, "reader_mode": self._reader.mode,
                      "input_size": self._reader.input_size},
            revision=self.revision,
        )

    def ask(self, queries: Sequence[Query]) -> Iterator[tuple[int, Reply]]:
        """Answer each query in turn.

        Parameters
        ----------
        queries : sequence of Query
            The questions.

        Yields
        ------
        (int, Reply)
            Index into ``queries`` and its reply, in order.
        """
        for index, query in enumerate(queries):
            yield index, self.answer(query)
