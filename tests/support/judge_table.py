"""A judge model for tests: the loopback chat server (tests/support/chat_server.py) answering each judge prompt
(`plates.runs.judge.JUDGE_PROMPT`) from a table keyed by the model reply the prompt quotes."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tests.support.chat_server import last_user_text

JUDGE_MODEL = "judge-model"


def quoted_reply(body: dict[str, Any]) -> str:
    """The model reply a judge request quotes (between the prompt's ``<<<REPLY`` and ``REPLY>>>`` lines)."""
    text = last_user_text(body)
    start, end = text.find("<<<REPLY\n"), text.rfind("\nREPLY>>>")
    if start < 0 or end < 0:
        raise AssertionError(f"not a judge prompt: {text[:80]!r}")
    return text[start + len("<<<REPLY\n"):end]


def table_answer(table: Mapping[str, str], default: str = "Answer: none") -> Callable[[dict[str, Any]], str]:
    """An answer function for `ChatServer`: the table's answer for the quoted reply, else ``default``."""
    return lambda body: table.get(quoted_reply(body), default)
