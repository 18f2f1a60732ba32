"""What the explorer's model-side tests share (tests/explorer/test_backends.py, test_models.py, test_sweep.py,
test_history.py): a scripted backend, a small plate spec, a session key and a public policy with allow lists."""

from __future__ import annotations

from collections.abc import Sequence

from plates.explorer import plate as ex
from plates.explorer.policy import Policy
from plates.models import Backend, BackendFailing, Query, Reply

KEY = "sk-session-7hQ2pX9wLm3vR8tN"
PUBLIC = Policy(public=True, allowed_base_urls=("https://ok.example/v1",), allowed_hf_models=("org/ok",),
                max_plate_size=1024, max_sweep_points=12)


class Scripted(Backend):
    """Answers each query with ``answer(query)``; records the queries it saw."""

    kind, model = "baseline", "scripted"

    def __init__(self, answer=lambda q: "12", fail: str | None = None) -> None:
        self.answer, self.fail, self.seen = answer, fail, []

    def ask(self, queries: Sequence[Query]):
        if self.fail:
            raise BackendFailing(self.fail)
        self.seen.extend(queries)
        for i in reversed(range(len(queries))):  # any order is allowed
            yield i, Reply(text=self.answer(queries[i]), latency_s=0.01)


def spec(**changes):
    return ex.default_spec().replace(size=160, **changes)
