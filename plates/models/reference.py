"""The reference observer that reads pixels: kind ``"reference-pixels"``, a ceiling, not a model.

It answers illusion and scene questions with what the stimulus's pixels say (`plates.tasks.base.pixel_reply`:
the mean sRGB 0-255 under each illusion target's mask compared in CIEDE2000 and CIELAB L*; a scene's answer
recomputed on the drawn scene) and declines everything else (a plate's figure is a shape to read, not a pixel
measurement). On illusions it is the zero of "fooled the way people are" (RCID §3.3's human-like share, the
quiz's PSE table's "a pixel-exact observer"); on scenes it is the ceiling a model's accuracy is read against.
Its rows carry the model name `MODEL`, which says so on every page and in every legend.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence

from plates.models.base import Backend, Query, Reply

#: The model name of every row this observer writes: legends and tables show it as it is.
MODEL = "reference observer (reads pixels; a ceiling, not a model)"


class ReferencePixelsBackend(Backend):
    """The pixel-reading reference observer behind the Backend protocol (module docstring); no options.

    Parameters
    ----------
    model : str, optional
        The name its rows record.
    """

    kind = "reference-pixels"
    model = MODEL

    def __init__(self, model: str = MODEL) -> None:
        if model != MODEL:
            raise ValueError(f"unknown reference-pixels model {model!r}; allowed: {MODEL}")

    def answer(self, query: Query) -> Reply:
        """The query's pixel reply, or declined (``unsupported``) where pixels do not decide the answer.

        Parameters
        ----------
        query : Query
            The question (its turns, images and sampling).

        Returns
        -------
        Reply
            The reply.
        """
        start = time.perf_counter()
        if query.pixel_reply is None:
            return Reply(text=None, unsupported=True)
        return Reply(text=query.pixel_reply, latency_s=time.perf_counter() - start,
                     settings={"decoding": "pixel measurement (reference observer, not a model)"})

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
