"""Which model answers in the explorer (plates/explorer/backends.py): the choice under the public policy, the
model cache and its one-at-a-time local models, the hub check, and API backends with a visitor's key against a
real local API server."""

from __future__ import annotations

import threading
import time

import pytest

from plates.conditions import Condition
from plates.explorer import models as em
from plates.explorer import plate as ex
from plates.explorer.backends import (
    FAILED_LOAD_MEMORY_S,
    ModelCache,
    ModelChoice,
    OneAtATime,
    ask_all,
    check_hf_model,
    gpu_wrapped,
    hub_offline,
    open_backend,
    redact,
)
from plates.explorer.history import history_parquet
from plates.explorer.policy import Policy
from plates.explorer.sweep import sweep
from plates.models import Query
from plates.secrets import clean_message
from plates.tasks.prompts import query_for, render_prompt
from tests.support.chat_server import ChatServer
from tests.support.explorer_asks import KEY, PUBLIC, Scripted, spec


def test_model_choice_follows_the_public_policy():
    assert ModelChoice("baseline").validate(PUBLIC).kind == "baseline"
    assert ModelChoice("baseline", None, None).validate(PUBLIC).model == ""  # a hidden, empty box sends None
    assert ModelChoice("openai", " m ", "https://ok.example/v1/").validate(PUBLIC).base_url == "https://ok.example/v1"
    with pytest.raises(ValueError, match="base URL 'http://169.254.169.254/v1' is not allowed here.*allowed: .*https://ok"):
        ModelChoice("openai", "m", "http://169.254.169.254/v1").validate(PUBLIC)
    with pytest.raises(ValueError, match="Hugging Face model 'evil/model' is not allowed here; allowed: org/ok"):
        ModelChoice("hf", "evil/model").validate(PUBLIC)
    with pytest.raises(ValueError, match="model kind 'gpt' is unknown; allowed: baseline, hf, openai"):
        ModelChoice("gpt").validate(Policy())
    with pytest.raises(ValueError, match="is not an http"):
        ModelChoice("openai", "m", "file:///etc/passwd").validate(Policy())
    assert ModelChoice("hf", "./local/dir").validate(Policy()).model == "./local/dir"  # private: paths ok


def test_remote_code_is_an_explicit_private_opt_in_and_refused_in_public_mode():
    seen = []

    def factory(kind, **options):
        seen.append((kind, options))
        return Scripted()

    with pytest.raises(ValueError, match="trust_remote_code is refused in public mode"):
        ModelChoice("hf", "org/ok", trust_remote_code=True).validate(PUBLIC)
    with pytest.raises(ValueError, match="trust_remote_code=True is not allowed for a openai model"):
        ModelChoice("openai", "m", "https://ok.example/v1", trust_remote_code=True).validate(Policy())
    cache = ModelCache(factory)
    cache.get(ModelChoice("hf", "org/plain").validate(Policy()))
    cache.get(ModelChoice("hf", "org/own-code", trust_remote_code=True).validate(Policy()))
    assert seen == [("hf", {"model_id_or_path": "org/plain"}),
                    ("hf", {"model_id_or_path": "org/own-code", "trust_remote_code": True})]


def test_public_mode_never_uses_the_servers_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "server-owned-key")
    with pytest.raises(ValueError, match="an API key is needed"):
        open_backend(ModelChoice("openai", "m", "https://ok.example/v1"), "", PUBLIC, ModelCache())


def test_model_cache_loads_each_model_once():
    made = []
    cache = ModelCache(lambda kind, **o: made.append((kind, o)) or Scripted())
    first = cache.get(ModelChoice("baseline"))
    assert cache.get(ModelChoice("baseline")) is first and made == [("baseline", {})]
    cache.get(ModelChoice("hf", "org/ok"))
    assert made[-1] == ("hf", {"model_id_or_path": "org/ok"})
    with pytest.raises(ValueError, match="not cached"):
        cache.get(ModelChoice("openai", "m", "https://x/v1"))
    small = ModelCache(lambda kind, **o: Scripted(), max_models=1)
    old = small.get(ModelChoice("hf", "org/a"))
    assert small.get(ModelChoice("hf", "org/b")) is not old and len(small._models) == 1


def test_a_session_key_reaches_the_server_but_never_a_row():
    with ChatServer(answer=lambda body: f"12 (you sent {KEY})", api_key=KEY) as server:
        backend, close = open_backend(ModelChoice("openai", "test-model", server.url), KEY, Policy(),
                                      ModelCache())
        assert close
        row = em.ask_plate(spec(), em.Ask("cbe-open"), backend, colour_set="x", run_id="r", secrets=(KEY,))
        backend.close()
    assert server.count == 1 and row["error"] is None
    assert KEY not in history_parquet([row]).decode("latin-1") and "***" in row["reply"]


def test_redact_and_gpu_wrapping_off_zero_gpu(monkeypatch):
    assert redact(f"a {KEY} b", [KEY, None, ""]) == "a *** b"
    monkeypatch.delenv("SPACES_ZERO_GPU", raising=False)

    def fn():
        return 1

    assert gpu_wrapped(fn) is fn


class Local(Scripted):
    """A local Hugging Face model stand-in: while ``go`` is clear an ask waits inside (``inside`` set), so a
    test can look at what happens meanwhile; ``most`` is the most asks it ever ran at once."""

    kind, model = "hf", "org/tiny"

    def __init__(self) -> None:
        super().__init__()
        self.inside, self.go = threading.Event(), threading.Event()
        self.go.set()
        self.running = self.most = 0
        self._count = threading.Lock()

    def ask(self, queries):
        with self._count:
            self.running += 1
            self.most = max(self.most, self.running)
        try:
            self.inside.set()
            assert self.go.wait(10)
            time.sleep(0.05)  # long enough for an overlapping ask to be seen
            yield from super().ask(queries)
        finally:
            with self._count:
                self.running -= 1


def query(seed: int = 0) -> Query:
    """The cbe-open question about the plate of ``spec(seed=seed)``."""
    return query_for(render_prompt("cbe-open", "12", seed=0), ex.render(spec(seed=seed)).image)


def local_cache() -> ModelCache:
    """A cache whose Hugging Face models are `Local` stand-ins (the reader a `Scripted`)."""
    return ModelCache(lambda kind, **options: Local() if kind == "hf" else Scripted())


def finishes(fn, timeout: float = 10.0) -> bool:
    """Whether ``fn()`` returns within ``timeout`` seconds in a thread of its own."""
    thread = threading.Thread(target=fn, daemon=True)
    thread.start()
    thread.join(timeout)
    return not thread.is_alive()


def test_a_local_models_batch_runs_inside_the_gpu_wrapper_when_one_is_given():
    calls = []

    def on_gpu(backend, queries):
        calls.append(len(queries))
        return ask_all(backend, queries)

    local = OneAtATime(Local(), threading.Lock(), on_gpu)
    rows = list(sweep(spec(), [3.0, 9.0], em.Ask("cbe-open"), local, colour_set="x", run_id="r"))
    assert calls == [2] and len(rows) == 2 and all(r["backend"] == "hf" for r in rows)
    cache = local_cache()
    assert isinstance(cache.get(ModelChoice("hf", "org/tiny")), OneAtATime)
    assert isinstance(cache.get(ModelChoice()), Scripted)  # the reader (and an API) answer at once


def test_local_models_never_answer_at_once_and_plates_are_drawn_outside_their_turn():
    """Two threads ask one local model while it answers: the second thread's plate is drawn at once (outside
    the model's turn) and a render proceeds, but its question waits until the first answer is done."""
    cache = local_cache()
    local = cache.get(ModelChoice("hf", "org/tiny"))
    other = cache.get(ModelChoice("hf", "org/other"))  # two local models share the process: one turn
    held = local.backend
    held.go.clear()
    rows, drawn = [], []

    def renderer(s):
        drawn.append(s)
        return ex.render(s)

    first = threading.Thread(target=lambda: rows.append(em.ask_plate(spec(), em.Ask("cbe-open"), local,
                                                                     colour_set="x", run_id="r")))
    first.start()
    assert held.inside.wait(10)
    second = threading.Thread(target=lambda: rows.append(em.ask_one(spec(seed=5), em.Ask("cbe-open"), other,
                                                                    colour_set="x", run_id="r",
                                                                    renderer=renderer)[0]))
    second.start()
    deadline = time.monotonic() + 10
    while not drawn and time.monotonic() < deadline:
        time.sleep(0.01)
    assert drawn == [spec(seed=5)] and first.is_alive()  # drawn while the first question is being answered
    assert finishes(lambda: ex.render(spec(seed=9)))  # a render proceeds meanwhile
    time.sleep(0.2)
    assert other.backend.seen == []  # the second question has not reached its model
    held.go.set()
    first.join(10)
    second.join(10)
    assert len(rows) == 2 and held.most == other.backend.most == 1 and len(other.backend.seen) == 1
    asked = query()
    many = [threading.Thread(target=lambda: rows.append(list(local.ask([asked])))) for _ in range(4)]
    for t in many:
        t.start()
    for t in many:
        t.join(10)
    assert held.most == 1 and len(rows) == 6


def test_an_abandoned_ask_of_a_local_model_does_not_keep_its_turn():
    cache = local_cache()
    local = cache.get(ModelChoice("hf", "org/tiny"))
    queries = [query(seed) for seed in range(3)]
    started = local.ask(queries)
    assert next(started)[1].text == "12"  # one answer read, the other two never: the page went away
    assert finishes(lambda: list(local.ask(queries[:1])))  # another visitor's question is answered
    assert finishes(lambda: cache.get(ModelChoice("hf", "org/other")).ask_one(queries[0]))
    never_read = local.ask(queries)  # an ask never read holds nothing either
    assert finishes(lambda: list(local.ask(queries[:1])))
    del started, never_read


@pytest.mark.slow  # imports torch + transformers and builds a tiny model offline (tests/support/tiny_vlm.py)
def test_a_local_hf_model_is_loaded_once_answers_and_answers_one_thread_at_a_time(tmp_path):
    from tests.support.tiny_vlm import build_tiny_vlm

    path = str(build_tiny_vlm(tmp_path / "tiny-llava", arch="llava", seed=0))
    cache = ModelCache()
    backend, close = open_backend(ModelChoice("hf", path), None, Policy(), cache)
    assert not close and open_backend(ModelChoice("hf", path), None, Policy(), cache)[0] is backend
    ask = em.Ask("cbe-open", condition=Condition(size=64))
    row = em.ask_plate(spec(), ask, backend, colour_set="x", run_id="r")
    assert row["backend"] == "hf" and row["error"] is None and isinstance(row["reply"], str)
    from plates.tasks.answers import PARSE_STATUSES

    assert row["parse_status"] in PARSE_STATUSES
    model, running, most, count = backend.backend, [0], [0], threading.Lock()
    real = model.ask

    def counted(queries):  # the real model's ask, counting asks that run at once
        with count:
            running[0] += 1
            most[0] = max(most[0], running[0])
        try:
            time.sleep(0.1)
            yield from real(queries)
        finally:
            with count:
                running[0] -= 1

    model.ask = counted
    for asker in (model, backend):  # the model itself (the count sees two at once), then as the cache serves it
        most[0], rows = 0, []
        def one(seed, asker=asker, rows=rows):
            rows.append(em.ask_plate(spec(seed=seed), ask, asker, colour_set="x", run_id="r"))

        threads = [threading.Thread(target=one, args=(seed,)) for seed in (1, 2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert len(rows) == 2 and all(r["error"] is None for r in rows)
        assert most[0] == (2 if asker is model else 1)
    cache.close()


def test_public_messages_lose_server_paths_but_keep_urls():
    msg = f"weights missing at /srv/app/plates/assets/baseline.onnx for {KEY}; allowed: https://ok.example/v1"
    assert clean_message(msg, [KEY], hide_paths=True) == (
        "weights missing at …/baseline.onnx for ***; allowed: https://ok.example/v1")
    assert "/srv/app" in clean_message(msg, [KEY], hide_paths=False)


def test_public_mode_checks_an_hf_model_before_loading_and_remembers_a_failed_load(tmp_path):
    """Regression: an allowed Hugging Face id that could not be loaded held the single model slot for 42 s. The
    check runs before any load (the factory, which holds the slot, is never called for a missing model), and a
    load that fails is answered at once for FAILED_LOAD_MEMORY_S seconds."""
    made = []
    now = [1000.0]

    def factory(kind, **options):
        made.append(options["model_id_or_path"])
        raise OSError("weights are corrupt")

    cache = ModelCache(factory, remember_failures_s=FAILED_LOAD_MEMORY_S, clock=lambda: now[0])
    policy = Policy(public=True, allowed_hf_models=("org/ok", str(tmp_path)))
    with pytest.raises(ValueError, match="'org/ok' is not downloaded on this server and the hub is offline"):
        open_backend(ModelChoice("hf", "org/ok"), None, policy, cache)  # conftest: HF_HUB_OFFLINE=1
    with pytest.raises(ValueError, match="holds no config.json"):
        open_backend(ModelChoice("hf", str(tmp_path)), None, policy, cache)
    assert made == []
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(OSError, match="corrupt"):
        open_backend(ModelChoice("hf", str(tmp_path)), None, policy, cache)
    now[0] += 10
    with pytest.raises(ValueError, match=r"failed to load 10 s ago \(OSError: weights are corrupt\); it is "
                                         r"not tried again for 590 s"):
        open_backend(ModelChoice("hf", str(tmp_path)), None, policy, cache)
    assert made == [str(tmp_path)]
    now[0] += FAILED_LOAD_MEMORY_S
    with pytest.raises(OSError):  # long enough ago: tried again
        open_backend(ModelChoice("hf", str(tmp_path)), None, policy, cache)
    assert made == [str(tmp_path)] * 2
    checked = []
    open_backend(ModelChoice("hf", "org/ok"), None, Policy(),
                 ModelCache(lambda k, **o: Scripted()), check_hf=checked.append)
    assert checked == []  # private mode: no check (a first download may take its time)
    with pytest.raises(ValueError, match="neither a folder here nor an id"):
        check_hf_model("not an id at all")
    assert hub_offline({"HF_HUB_OFFLINE": "1"}) and not hub_offline({})


def test_field_caps():
    with pytest.raises(ValueError, match="model name 'aaaa.*has 301 characters; allowed: at most 300"):
        ModelChoice("hf", "a" * 301).validate(Policy())
