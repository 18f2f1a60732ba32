"""Shards: a deterministic slice of a plan, so a batch system (a Slurm job array, any scheduler) scales
`plates generate` and `plates run` out over machines that share one output folder.

Shard ``I/N`` (1 <= I <= N) owns the plan entries whose key hashes to ``I - 1`` modulo ``N`` (SHA-256 of the key:
a run's row key, a plate's preset position), so the N shards partition the plan whatever its order, each gets
about 1/N of it, and the same shard always gets the same entries. Shards of one run write parts with unique
names beside each other (no shared file is rewritten); see `plates.runs.runner` and `plates.datasets.generate`.

Examples
--------
>>> shard = Shard.parse("2/3")
>>> shard, shard.tag
(Shard(index=2, count=3), '2-of-3')
>>> sum(Shard(i, 3).owns("a row key") for i in (1, 2, 3))
1
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from plates.validation import check_int

_SPELLING = re.compile(r"^\s*(\d{1,6})\s*/\s*(\d{1,6})\s*$")


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` of ``count`` (1-based, as Slurm's ``SLURM_ARRAY_TASK_ID`` runs 1..N with ``--array=1-N``).

    Parameters
    ----------
    index : int
        1 to ``count``.
    count : int
        Shards in all (>= 1).

    Raises
    ------
    ValueError
        Unless both are integers with 1 <= index <= count.
    """

    index: int
    count: int

    def __post_init__(self) -> None:
        for name, value in (("index", self.index), ("count", self.count)):
            check_int(f"shard {name}", value)
        if not 1 <= self.index <= self.count:
            raise ValueError(f"shard {self.index}/{self.count} is not valid; allowed: I/N with 1 <= I <= N")

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"I/N"`` (e.g. ``"3/8"``) as a Shard; ValueError naming the allowed form otherwise.

        Parameters
        ----------
        text : str
            ``"I/N"``.

        Returns
        -------
        Shard
            The shard.

        Raises
        ------
        ValueError
            For another form.

        Examples
        --------
        >>> Shard.parse("3/8")
        Shard(index=3, count=8)
        """
        match = _SPELLING.match(text) if isinstance(text, str) else None
        if match is None:
            raise ValueError(f"--shard {text!r} is not valid; allowed: I/N with 1 <= I <= N, e.g. 3/8")
        return cls(int(match.group(1)), int(match.group(2)))

    @property
    def tag(self) -> str:
        """A file-name-safe name, e.g. ``"3-of-8"``."""
        return f"{self.index}-of-{self.count}"

    def owns(self, key: str) -> bool:
        """Whether this shard owns the plan entry named ``key`` (any string, stable across runs).

        Parameters
        ----------
        key : str
            A plan entry's name.

        Returns
        -------
        bool
            Whether this shard owns it.
        """
        digest = hashlib.sha256(key.encode()).digest()
        return int.from_bytes(digest[:8], "big") % self.count == self.index - 1
