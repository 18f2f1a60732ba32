"""The explorer's model side (plates/explorer/models.py) with a scripted backend and a real local API server."""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Sequence

import pyarrow.parquet as pq
import pytest

from plates.conditions import Condition
from plates.explorer import compare
from plates.explorer import models as em
from plates.explorer import plate as ex
from plates.models import Backend, BackendFailing, Query, Reply
from plates.results import SCHEMA
from plates.secrets import clean_message
from plates.tasks.prompts import query_for, render_prompt
from tests.support.chat_server import ChatServer

KEY = "sk-session-7hQ2pX9wLm3vR8tN"
PUBLIC = ex.Policy(public=True, allowed_base_urls=("https://ok.example/v1",), allowed_hf_models=("org/ok",),
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


def test_model_choice_follows_the_public_policy():
    assert em.ModelChoice("baseline").validate(PUBLIC).kind == "baseline"
    assert em.ModelChoice("baseline", None, None).validate(PUBLIC).model == ""  # a hidden, empty box sends None
    assert em.ModelChoice("openai", " m ", "https://ok.example/v1/").validate(PUBLIC).base_url == "https://ok.example/v1"
    with pytest.raises(ValueError, match="base URL 'http://169.254.169.254/v1' is not allowed here; allowed: https://ok"):
        em.ModelChoice("openai", "m", "http://169.254.169.254/v1").validate(PUBLIC)
    with pytest.raises(ValueError, match="Hugging Face model 'evil/model' is not allowed here; allowed: org/ok"):
        em.ModelChoice("hf", "evil/model").validate(PUBLIC)
    with pytest.raises(ValueError, match="model kind 'gpt' is unknown; allowed: baseline, hf, openai"):
        em.ModelChoice("gpt").validate(ex.Policy())
    with pytest.raises(ValueError, match="is not an http"):
        em.ModelChoice("openai", "m", "file:///etc/passwd").validate(ex.Policy())
    assert em.ModelChoice("hf", "./local/dir").validate(ex.Policy()).model == "./local/dir"  # private: paths ok


def test_remote_code_is_an_explicit_private_opt_in_and_refused_in_public_mode():
    seen = []

    def factory(kind, **options):
        seen.append((kind, options))
        return Scripted()

    with pytest.raises(ValueError, match="trust_remote_code is refused in public mode"):
        em.ModelChoice("hf", "org/ok", trust_remote_code=True).validate(PUBLIC)
    with pytest.raises(ValueError, match="trust_remote_code=True is not allowed for a openai model"):
        em.ModelChoice("openai", "m", "https://ok.example/v1", trust_remote_code=True).validate(ex.Policy())
    cache = em.ModelCache(factory)
    cache.get(em.ModelChoice("hf", "org/plain").validate(ex.Policy()))
    cache.get(em.ModelChoice("hf", "org/own-code", trust_remote_code=True).validate(ex.Policy()))
    assert seen == [("hf", {"model_id_or_path": "org/plain"}),
                    ("hf", {"model_id_or_path": "org/own-code", "trust_remote_code": True})]


def test_public_mode_never_uses_the_servers_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "server-owned-key")
    with pytest.raises(ValueError, match="an API key is needed"):
        em.open_backend(em.ModelChoice("openai", "m", "https://ok.example/v1"), "", PUBLIC, em.ModelCache())


def test_model_cache_loads_each_model_once():
    made = []
    cache = em.ModelCache(lambda kind, **o: made.append((kind, o)) or Scripted())
    first = cache.get(em.ModelChoice("baseline"))
    assert cache.get(em.ModelChoice("baseline")) is first and made == [("baseline", {})]
    cache.get(em.ModelChoice("hf", "org/ok"))
    assert made[-1] == ("hf", {"model_id_or_path": "org/ok"})
    with pytest.raises(ValueError, match="not cached"):
        cache.get(em.ModelChoice("openai", "m", "https://x/v1"))
    small = em.ModelCache(lambda kind, **o: Scripted(), max_models=1)
    old = small.get(em.ModelChoice("hf", "org/a"))
    assert small.get(em.ModelChoice("hf", "org/b")) is not old and len(small._models) == 1


def test_ask_plate_gives_a_scored_row_in_the_results_schema():
    backend = Scripted(lambda q: "12")
    ask = em.Ask("cbe-open", condition=Condition(size=96, grayscale=True), variant="clear")
    row = em.ask_plate(spec(delta_e=9.0), ask, backend, colour_set="colorblindnesseval-1", run_id="r1")
    assert set(row) == set(SCHEMA.names)
    assert (row["parsed"], row["correct"], row["parse_status"], row["failure_mode"]) == ("12", True, "ok", None)
    assert (row["size"], row["grayscale"], row["variant"], row["cvd"]) == (96, True, "clear", "none")
    assert row["delta_e"] == pytest.approx(9.0, abs=0.2) and row["target"] == "12"
    assert backend.seen[0].turns[-1].images[0].size == (96, 96)
    assert "What number do you see" in row["prompt_text"]
    wrong = em.ask_plate(spec(), ask, Scripted(lambda q: "74"), colour_set="x", run_id="r1")
    assert wrong["correct"] is False and wrong["failure_mode"] is None  # a plain misreading (HueManity App. E)
    assert "❌ wrong" in em.result_markdown(wrong) and "`74`" in em.result_markdown(wrong)


def test_an_edited_prompt_is_what_the_model_receives():
    backend = Scripted()
    em.ask_plate(spec(), em.Ask("cbe-open", prompt_text="Which digits? Reply with digits only."), backend,
                 colour_set="x", run_id="r")
    assert backend.seen[0].turns[-1].text == "Which digits? Reply with digits only."
    assert em.prompt_defaults("cbe-open-clear")[1] == "clear"


def test_open_prompts_accept_any_text_and_bad_asks_are_explained():
    row = em.ask_plate(spec(text="A7"), em.Ask("cbe-open"), Scripted(lambda q: "A7"), colour_set="x", run_id="r")
    assert row["correct"] is True
    with pytest.raises(ValueError, match="prompt 'nope' is unknown; allowed: cbe-open"):
        em.Ask("nope").validate(ex.Policy())
    with pytest.raises(ValueError, match="image size 4000 px is not allowed; allowed: 64-1024 px"):
        em.Ask("cbe-open", condition=Condition(size=4000)).validate(PUBLIC)


def test_yes_no_prompts_and_declining_backends():
    row = em.ask_plate(spec(), em.Ask("cbe-yn-correct"), Scripted(lambda q: "Yes."), colour_set="x", run_id="r")
    assert row["expected"] == "yes" and row["correct"] is True

    class Declines(Scripted):
        def ask(self, queries):
            for i, _ in enumerate(queries):
                yield i, Reply(text=None, unsupported=True)

    row = em.ask_plate(spec(), em.Ask("cbe-yn-correct"), Declines(), colour_set="x", run_id="r")
    assert row["parse_status"] == "unsupported" and row["correct"] is None
    assert "declines" in em.result_markdown(row)


def test_backend_failing_becomes_a_clear_redacted_message():
    with pytest.raises(ValueError, match=r"keeps failing: 401 for key \*\*\*"):
        em.ask_plate(spec(), em.Ask("cbe-open"), Scripted(fail=f"401 for key {KEY}"), colour_set="x", run_id="r",
                     secrets=(KEY,))


def test_sweep_yields_one_row_per_value_as_they_come():
    values = em.sweep_values(2.0, 20.0, 4, ex.Policy())
    assert values == [2.0, 8.0, 14.0, 20.0]
    rows = list(em.sweep(spec(), values, em.Ask("cbe-open"), Scripted(), colour_set="x", run_id="r"))
    assert sorted(round(r["delta_e"]) for r in rows) == [2, 8, 14, 20]
    figure = compare.sweep_figure(rows)
    answers = next(t for t in figure.data if t.name == "scripted answers")
    assert sorted(answers.x) == pytest.approx([2, 8, 14, 20], abs=0.5) and set(answers.text) == {"12"}
    assert any(t.name == "scripted fit" for t in figure.data)  # plates.charts.ishihara' psychometric fit
    points = next(t for t in figure.data if t.name == "scripted")  # one answer per ΔE: no n=1 Wilson bars
    assert points.error_y.visible is False
    assert not any(t.name.endswith("answers") for t in compare.sweep_figure([]).data)
    with pytest.raises(ValueError, match="sweep of 30 points is not allowed; allowed: 2-12"):
        em.sweep_values(1, 9, 30, PUBLIC)
    with pytest.raises(ValueError, match="range 5.0-5.0 is not allowed"):
        em.sweep_values(5.0, 5.0, 3, ex.Policy())


def test_history_downloads_as_parquet_in_the_results_schema():
    rows = [em.ask_plate(spec(seed=s), em.Ask("cbe-open"), Scripted(), colour_set="c", run_id="r") for s in (1, 2)]
    table = pq.read_table(io.BytesIO(em.history_parquet(rows)))
    assert table.schema.equals(SCHEMA) and table.num_rows == 2
    shown = em.history_display(rows)
    assert len(shown) == 2 and len(shown[0]) == len(em.HISTORY_COLUMNS)
    assert ex.spec_from_text(table.column("spec_json")[0].as_py()).seed == 1


def test_a_session_key_reaches_the_server_but_never_a_row():
    with ChatServer(answer=lambda body: f"12 (you sent {KEY})", api_key=KEY) as server:
        backend, close = em.open_backend(em.ModelChoice("openai", "test-model", server.url), KEY, ex.Policy(),
                                         em.ModelCache())
        assert close
        row = em.ask_plate(spec(), em.Ask("cbe-open"), backend, colour_set="x", run_id="r", secrets=(KEY,))
        backend.close()
    assert server.count == 1 and row["error"] is None
    assert KEY not in em.history_parquet([row]).decode("latin-1") and "***" in row["reply"]


def test_redact_and_gpu_wrapping_off_zero_gpu(monkeypatch):
    assert em.redact(f"a {KEY} b", [KEY, None, ""]) == "a *** b"
    monkeypatch.delenv("SPACES_ZERO_GPU", raising=False)

    def fn():
        return 1

    assert em.gpu_wrapped(fn) is fn


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


def local_cache() -> em.ModelCache:
    """A cache whose Hugging Face models are `Local` stand-ins (the reader a `Scripted`)."""
    return em.ModelCache(lambda kind, **options: Local() if kind == "hf" else Scripted())


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
        return em.ask_all(backend, queries)

    local = em.OneAtATime(Local(), threading.Lock(), on_gpu)
    rows = list(em.sweep(spec(), [3.0, 9.0], em.Ask("cbe-open"), local, colour_set="x", run_id="r"))
    assert calls == [2] and len(rows) == 2 and all(r["backend"] == "hf" for r in rows)
    cache = local_cache()
    assert isinstance(cache.get(em.ModelChoice("hf", "org/tiny")), em.OneAtATime)
    assert isinstance(cache.get(em.ModelChoice()), Scripted)  # the reader (and an API) answer at once


def test_local_models_never_answer_at_once_and_plates_are_drawn_outside_their_turn():
    """Two threads ask one local model while it answers: the second thread's plate is drawn at once (outside
    the model's turn) and a render proceeds, but its question waits until the first answer is done."""
    cache = local_cache()
    local = cache.get(em.ModelChoice("hf", "org/tiny"))
    other = cache.get(em.ModelChoice("hf", "org/other"))  # two local models share the process: one turn
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
    local = cache.get(em.ModelChoice("hf", "org/tiny"))
    queries = [query(seed) for seed in range(3)]
    started = local.ask(queries)
    assert next(started)[1].text == "12"  # one answer read, the other two never: the page went away
    assert finishes(lambda: list(local.ask(queries[:1])))  # another visitor's question is answered
    assert finishes(lambda: cache.get(em.ModelChoice("hf", "org/other")).ask_one(queries[0]))
    never_read = local.ask(queries)  # an ask never read holds nothing either
    assert finishes(lambda: list(local.ask(queries[:1])))
    del started, never_read


@pytest.mark.slow  # imports torch + transformers and builds a tiny model offline (tests/support/tiny_vlm.py)
def test_a_local_hf_model_is_loaded_once_answers_and_answers_one_thread_at_a_time(tmp_path):
    from tests.support.tiny_vlm import build_tiny_vlm

    path = str(build_tiny_vlm(tmp_path / "tiny-llava", arch="llava", seed=0))
    cache = em.ModelCache()
    backend, close = em.open_backend(em.ModelChoice("hf", path), None, ex.Policy(), cache)
    assert not close and em.open_backend(em.ModelChoice("hf", path), None, ex.Policy(), cache)[0] is backend
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

    cache = em.ModelCache(factory, remember_failures_s=em.FAILED_LOAD_MEMORY_S, clock=lambda: now[0])
    policy = ex.Policy(public=True, allowed_hf_models=("org/ok", str(tmp_path)))
    with pytest.raises(ValueError, match="'org/ok' is not downloaded on this server and the hub is offline"):
        em.open_backend(em.ModelChoice("hf", "org/ok"), None, policy, cache)  # conftest: HF_HUB_OFFLINE=1
    with pytest.raises(ValueError, match="holds no config.json"):
        em.open_backend(em.ModelChoice("hf", str(tmp_path)), None, policy, cache)
    assert made == []
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(OSError, match="corrupt"):
        em.open_backend(em.ModelChoice("hf", str(tmp_path)), None, policy, cache)
    now[0] += 10
    with pytest.raises(ValueError, match=r"failed to load 10 s ago \(OSError: weights are corrupt\); it is "
                                         r"not tried again for 590 s"):
        em.open_backend(em.ModelChoice("hf", str(tmp_path)), None, policy, cache)
    assert made == [str(tmp_path)]
    now[0] += em.FAILED_LOAD_MEMORY_S
    with pytest.raises(OSError):  # long enough ago: tried again
        em.open_backend(em.ModelChoice("hf", str(tmp_path)), None, policy, cache)
    assert made == [str(tmp_path)] * 2
    checked = []
    em.open_backend(em.ModelChoice("hf", "org/ok"), None, ex.Policy(),
                    em.ModelCache(lambda k, **o: Scripted()), check_hf=checked.append)
    assert checked == []  # private mode: no check (a first download may take its time)
    with pytest.raises(ValueError, match="neither a folder here nor an id"):
        em.check_hf_model("not an id at all")
    assert em.hub_offline({"HF_HUB_OFFLINE": "1"}) and not em.hub_offline({})


def test_field_and_prompt_caps():
    with pytest.raises(ValueError, match="prompt text has 1001 characters; allowed: at most 1000"):
        em.Ask("cbe-open", prompt_text="x" * 1001).validate(ex.Policy.from_env({"PLATES_PUBLIC": "1"}))
    em.Ask("cbe-open", prompt_text="x" * 1001).validate(ex.Policy())
    with pytest.raises(ValueError, match="model name 'aaaa.*has 301 characters; allowed: at most 300"):
        em.ModelChoice("hf", "a" * 301).validate(ex.Policy())


def test_in_batches_groups_fast_answers_and_passes_slow_ones_through():
    """The sweep's page updates: answers arriving within `every_s` of the last update are shown together."""
    clock = iter([0.0, 0.1, 0.2, 0.3, 0.9, 1.0, 2.5, 2.6]).__next__  # start, then one reading per item
    assert list(em.in_batches("abcdefg", 0.5, clock)) == [["a", "b", "c", "d"], ["e", "f"], ["g"]]
    assert list(em.in_batches([], 0.5)) == []


def test_a_sweep_names_points_the_colours_cannot_reach_and_tells_requested_from_drawn():
    """Regression: the explorer's sweep asked 0.5 -> 6 on CBE set 1 and silently drew 1.39 -> 6.07."""
    base = ex.default_spec().replace(size=128)  # CBE set 1: 2 foreground colours, 1 background
    plan = em.sweep_plan(base, [0.5, 6.0, 80.0])
    assert [s.delta_e for s in plan.specs] == [0.5, 6.0]
    assert plan.skipped[0][0] == 80.0 and "not reachable" in plan.skipped[0][1]
    rows = list(em.sweep(base, [0.5, 6.0, 80.0], em.Ask("cbe-open"), Scripted(), colour_set="c", run_id="r"))
    assert sorted(em.requested_delta_e(r) for r in rows) == [0.5, 6.0]
    import numpy as np

    from plates.colour import delta_e2000

    low = min(rows, key=lambda r: em.requested_delta_e(r))
    fg, bg = ex.PlateSpec.from_json(low["spec_json"]).colours  # drawn colours, measured independently
    pairs = [float(delta_e2000(np.array(f, float), np.array(b, float))) for f in fg for b in bg]
    assert low["delta_e"] == pytest.approx(np.mean(pairs), abs=1e-6) and low["delta_e"] > 1.0
    summary = em.sweep_summary(rows, plan.skipped)
    assert f"| 0.50 | {low['delta_e']:.2f} | {min(pairs):.2f} | `12` | ✅ |" in summary
    assert f"⚠️ ΔE2000 0.50 was asked but {low['delta_e']:.2f} is drawn" in summary
    assert "⚠️ ΔE2000 80.00 cannot be reached" in summary and "ΔE2000 6.00 was asked" not in summary
    with pytest.raises(ValueError, match="no ΔE2000 of the sweep can be drawn"):
        list(em.sweep(base, [90.0, 95.0], em.Ask("cbe-open"), Scripted(), colour_set="c", run_id="r"))
    assert em.history_headers()[3] == "ΔE2000 drawn"
    assert list(em.history_frame(rows).columns) == em.history_headers()


def test_the_request_shown_is_the_request_sent():
    """The Model tab showed the template with {options} unfilled and 'expected B' without the options."""
    ask = em.Ask("colorbench-mc", condition=Condition(size=96))
    image, text = em.sent(spec(), ask)
    assert image.size == (96, 96)
    assert "{options}" not in text and "Options: **A**" in text
    question = em.render_prompt(em.get_prompt("colorbench-mc"), spec().text, seed=0)
    assert question.text in text and f"Expected answer: `` {question.expected} `` (`` {spec().text} ``)" in text
    assert "Temperature 0 · max tokens 512 · image 96×96 px as sent" in text
    _, yes_no = em.sent(spec(), em.Ask("cbe-yn-incorrect"))
    assert "{candidate}" not in yes_no and "Expected answer: `` no `` (`` the label asked is not" in yes_no


def test_a_pathological_reply_is_an_unparsed_row_not_an_error_in_the_explorer():
    # The explorer judges through the same row builder and readers as plates run: a 4,400-digit reply (once
    # Python's int-conversion error) and a 1 MB reply are rows, the second read as its head and tail.
    ask = em.Ask("cbe-open", condition=Condition(size=64))
    digits = em.ask_plate(spec(), ask, Scripted(lambda q: "7" * 4400), colour_set="x", run_id="r")
    assert (digits["parse_status"], digits["failure_mode"], digits["correct"]) == ("unparsed", "erratic", False)
    long = em.ask_plate(spec(), ask, Scripted(lambda q: "Answer: 12. " + "dots " * 200_000), colour_set="x",
                        run_id="r")
    assert (long["parsed"], long["reply_truncated"], long["error"]) == ("12", True, None)
