"""run_experiment against the real loopback chat server (tests/support/chat_server.py) with real Parquet on disk."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence

import pytest

from plates.conditions import Condition, apply_condition
from plates.images import data_url_to_image
from plates.models.base import Backend, BackendFailing, Query, Reply
from plates.results import SCHEMA, load_results
from plates.runs.experiment import parse_experiment
from plates.runs.runner import run_experiment
from plates.stimuli.ishihara.plate import PlateSpec, render
from tests.support.cbe_runs import cbe_experiment
from tests.support.chat_server import ChatServer, Fault, image_urls

N_ITEMS = 6


@pytest.fixture(scope="module")
def items():
    """Six standard ColorBlindnessEval plates (label "0" in the five colour sets, then "1")."""
    from plates.datasets import load_dataset

    standard = [item for item in load_dataset("colorblindnesseval", limit=2 * N_ITEMS) if item.variant == "standard"]
    assert len(standard) == N_ITEMS
    return standard


def _run(exp, items, **kw):
    return run_experiment(exp, items=items, progress=False, **kw)


def test_one_complete_row_per_unit(tmp_path, items):
    with ChatServer(answer=lambda body: "12") as server:
        exp = cbe_experiment(server.url, tmp_path, prompts=["cbe-open", "colorbench-mc"],
                             conditions={"sizes": [64], "grayscale": [False, True]})
        summary = _run(exp, items)
        assert server.count == summary.written == summary.planned == N_ITEMS * 2 * 2
    frame = load_results(tmp_path).frame
    assert list(frame.columns) == SCHEMA.names and len(frame) == N_ITEMS * 4 and frame["row_key"].is_unique
    assert set(frame["run_id"]) == {exp.run_id} and set(frame["size"]) == {64}
    assert frame["correct"].notna().all() and (frame["parse_status"] != "error").all()
    assert frame["reply"].eq("12").all() and frame["timestamp"].notna().all() and frame["plates_version"].notna().all()
    mc = frame[frame["prompt_name"] == "colorbench-mc"]
    for _, row in mc.iterrows():
        options = json.loads(row["options_json"])
        assert options[row["expected"]] == row["target"] and row["expected"] in row["prompt_text"]
    by_id = {item.item_id: item for item in items}
    for _, row in frame.iterrows():  # the stored spec regenerates the plate exactly
        item = by_id[row["item_id"]]
        assert PlateSpec.from_json(row["spec_json"]) == item.spec and row["target"] == item.label
        assert row["group"] == row["colour_set"] == item.group and row["delta_e"] > 0
    first = frame[frame["item_id"] == items[0].item_id].iloc[0]  # the achieved CIEDE2000, as the plate reports it
    assert first["delta_e"] == pytest.approx(render(items[0].spec).stats.delta_e, rel=1e-9)


def test_rows_carry_the_settings_sent_and_the_model_revision(tmp_path, items):
    with ChatServer(answer=lambda body: "12", fingerprint="fp_1") as server:
        exp = cbe_experiment(server.url, tmp_path, model={"sampling_fields": "vllm"})
        _run(exp, items)
        bodies = [r.body for r in server.records]
    frame = load_results(tmp_path).frame
    assert len(frame) == len(bodies) == N_ITEMS and set(frame["model_revision"]) == {"test-model@fp_1"}
    sent = {json.dumps({k: v for k, v in b.items() if k not in ("messages", "model")}, sort_keys=True)
            for b in bodies}
    assert len(sent) == 1  # every request carried the same settings
    for stored in frame["generation_json"]:
        settings = json.loads(stored)
        assert settings.pop("sampling_fields") == "vllm" and settings.pop("left_to_server") == []
        assert (settings.pop("system"), settings.pop("image_detail")) == (None, None)
        assert json.dumps(settings, sort_keys=True) in sent
        assert (settings["temperature"], settings["repetition_penalty"], settings["top_k"]) == (0.0, 1.0, -1)


def test_a_key_among_the_settings_sent_never_reaches_the_rows(tmp_path, items, monkeypatch):
    key = "sk-test-settings-key-0003"
    monkeypatch.setenv("RUNNER_TEST_KEY", key)
    with ChatServer(answer=lambda body: "12", api_key=key) as server:  # a provider option carrying the key too
        exp = cbe_experiment(server.url, tmp_path,
                             model={"api_key_env": "RUNNER_TEST_KEY", "extra_body": {"user": key}})
        _run(exp, items[:2])
        assert server.records[0].body["user"] == key
    stored = load_results(tmp_path).frame["generation_json"]
    assert len(stored) == 2 and all(json.loads(s)["user"] == "***" for s in stored)


def test_the_image_sent_is_the_prompts_variant_under_the_condition(tmp_path, items):
    seen = {}

    def answer(body):
        seen[len(seen)] = image_urls(body)
        return "7"

    with ChatServer(answer=answer) as server:
        exp = cbe_experiment(server.url, tmp_path, prompts=["cbe-open-clear"],
                             conditions={"sizes": [96], "grayscale": [True], "hue_shifts": [0], "cvd": ["none"]})
        _run(exp, items[:1])
    assert len(seen) == 1 and len(seen[0]) == 1
    sent = data_url_to_image(seen[0][0])
    want = apply_condition(render(items[0].spec).variant("clear"), Condition(size=96, grayscale=True))
    assert sent.tobytes() == want.tobytes()
    assert load_results(tmp_path).frame["variant"].tolist() == ["clear"]


def test_rerun_continues_where_it_stopped_and_never_duplicates(tmp_path, items):
    with ChatServer(answer=lambda body: "12") as server:
        exp = cbe_experiment(server.url, tmp_path, prompts=["cbe-open", "cbe-yn-correct"])
        first = _run(exp, items[:2])
        assert first.written == 4 and server.count == 4
        second = _run(exp, items)
        assert second.existing == 4 and second.written == (N_ITEMS - 2) * 2 and server.count == N_ITEMS * 2
        third = _run(exp, items)
        assert third.written == 0 and server.count == N_ITEMS * 2
    frame = load_results(tmp_path).frame
    assert len(frame) == N_ITEMS * 2 and frame["row_key"].is_unique


def _bucket(body) -> int:
    """A stable per-request-content bucket (the image differs per item), 0-3."""
    return int(hashlib.sha256(image_urls(body)[0].encode()).hexdigest(), 16) % 4


def test_faults_end_as_answers_or_errors_with_exact_counts(tmp_path, items):
    attempts: dict[str, int] = {}
    faults_first = [Fault.http(429, retry_after=0.05), Fault.http(500), Fault.malformed(), Fault.drop(),
                    Fault.slow(3.0), Fault.drop(mid_response=True)]

    def plan_fault(n, body):
        url = image_urls(body)[0]
        attempts[url] = attempts.get(url, 0) + 1
        if _bucket(body) == 0:
            return Fault.http(503)  # always fails: ends as an error row
        if attempts[url] == 1:
            return faults_first[n % len(faults_first)]  # fails once, then answers
        return None

    with ChatServer(answer=lambda body: "12", faults=plan_fault) as server:
        exp = cbe_experiment(server.url, tmp_path, prompts=["cbe-open"],
                             conditions={"sizes": [64], "grayscale": [False, True]},
                             model={"timeout": 1.0, "max_attempts": 3})
        summary = _run(exp, items)
    frame = load_results(tmp_path).frame
    bad = sum(1 for url in attempts if int(hashlib.sha256(url.encode()).hexdigest(), 16) % 4 == 0)
    assert len(frame) == summary.planned == N_ITEMS * 2 and frame["row_key"].is_unique
    errors = frame[frame["parse_status"] == "error"]
    assert len(errors) == summary.errors == bad
    assert errors["reply"].isna().all() and errors["correct"].isna().all() and errors["error"].notna().all()
    assert (errors["attempts"] == 3).all()
    answered = frame[frame["parse_status"] != "error"]
    assert answered["reply"].eq("12").all() and (answered["attempts"] >= 1).all() and answered["error"].isna().all()
    assert (answered["attempts"] == 2).sum() >= 1


def test_backend_failing_stops_and_keeps_what_was_written(tmp_path, items, monkeypatch):
    monkeypatch.setenv("RUNNER_TEST_KEY", "sk-test-right-key-0001")
    with ChatServer(answer=lambda body: "12", api_key="sk-test-right-key-0001") as server:
        exp = cbe_experiment(server.url, tmp_path, model={"api_key_env": "RUNNER_TEST_KEY", "fail_after": 10})
        assert _run(exp, items[:2]).written == 2
        monkeypatch.setenv("RUNNER_TEST_KEY", "sk-test-WRONG-key-0002")
        with pytest.raises(BackendFailing) as info:
            _run(exp, items)
        assert "sk-test" not in str(info.value)
    frame = load_results(tmp_path)
    assert len(frame.frame) == 2 and frame.skipped == []


class _Picky(Backend):
    """A backend that declines yes/no questions and fails every third open one."""

    kind, model = "openai", "picky"

    def ask(self, queries: Sequence[Query]) -> Iterator[tuple[int, Reply]]:
        for i, q in enumerate(queries):
            if q.kind == "yesno":
                yield i, Reply(None, unsupported=True)
            elif i % 3 == 0:
                yield i, Reply(None, error="HTTP 500: boom", attempts=5)
            else:
                yield i, Reply("12", latency_s=0.01, prompt_tokens=3, completion_tokens=1)


def test_unsupported_and_failed_replies_are_not_scored(tmp_path, items):
    exp = cbe_experiment("http://127.0.0.1:9/v1", tmp_path, prompts=["cbe-open", "cbe-yn-correct"])
    summary = _run(exp, items, make_backend=lambda kind, **options: _Picky())
    frame = load_results(tmp_path).frame
    yn, op = frame[frame["prompt_name"] == "cbe-yn-correct"], frame[frame["prompt_name"] == "cbe-open"]
    assert (yn["parse_status"] == "unsupported").all() and yn["correct"].isna().all() and summary.unsupported == len(yn)
    failed = op[op["parse_status"] == "error"]
    assert len(failed) == summary.errors > 0 and failed["correct"].isna().all() and failed["reply"].isna().all()
    assert (failed["error"] == "HTTP 500: boom").all()
    ok = op[op["parse_status"] != "error"]
    assert ok["correct"].notna().all() and (ok["prompt_tokens"] == 3).all()


def test_retry_errors_asks_failed_rows_again_and_readers_keep_the_latest(tmp_path, items):
    exp = cbe_experiment("http://127.0.0.1:9/v1", tmp_path)
    first = _run(exp, items, make_backend=lambda kind, **options: _Picky())
    assert first.errors > 0
    assert _run(exp, items, make_backend=lambda kind, **options: _Picky()).written == 0  # errors are kept
    with ChatServer(answer=lambda body: "12") as server:
        retry = _run(cbe_experiment(server.url, tmp_path), items, retry_errors=True)
        assert retry.written == server.count == first.errors
    frame = load_results(tmp_path).frame
    assert len(frame) == N_ITEMS and frame["row_key"].is_unique and (frame["parse_status"] != "error").all()
    assert len(load_results(tmp_path, latest=False).frame) == N_ITEMS + first.errors


def test_few_shot_conversation_shape(tmp_path, pool_items):
    colour_set = pool_items[0].group
    pair = [item for item in pool_items if item.group == colour_set and item.variant == "standard"][:2]
    assert len(pair) == 2 and pair[0].label != pair[1].label
    with ChatServer(answer=lambda body: "12") as server:
        _run(cbe_experiment(server.url, tmp_path, shots=[1], prompts=["cbe-yn-correct"]), pair)
        records = [r for r in server.records if r.path.endswith("/chat/completions")]
    assert len(records) == 2 and all(r.images == 2 and r.messages == 3 for r in records)
    assert set(load_results(tmp_path).frame["shots"]) == {1}


def test_a_second_process_on_the_same_run_is_refused(tmp_path, items):
    from plates.runs.locks import run_lock

    exp = cbe_experiment("http://127.0.0.1:9/v1", tmp_path)
    with run_lock(tmp_path, exp.run_id), pytest.raises(ValueError, match="already running in another process"):
        _run(exp, items, make_backend=lambda kind, **options: _Picky())
    assert _run(exp, items, make_backend=lambda kind, **options: _Picky()).written == N_ITEMS  # released


def test_a_missing_key_of_a_later_model_stops_before_any_request(tmp_path, items, monkeypatch):
    monkeypatch.delenv("PLATES_SECOND_KEY", raising=False)
    with ChatServer(answer=lambda body: "12") as server:
        exp = parse_experiment({
            "dataset": "colorblindnesseval", "prompts": ["cbe-open"], "conditions": {"sizes": [64]},
            "out": str(tmp_path),
            "models": [{"backend": "openai", "model": "a", "base_url": server.url, "api_key_env": False},
                       {"backend": "openai", "model": "b", "base_url": server.url, "api_key_env": "PLATES_SECOND_KEY"}],
        })
        with pytest.raises(ValueError, match=r"models\[1\] \(b\): the environment variable PLATES_SECOND_KEY"):
            _run(exp, items)
        assert server.count == 0


def test_a_generated_folder_reports_the_drawn_delta_e_without_rendering_again(tmp_path, monkeypatch):
    """The manifest records each plate's nominal and drawn ΔE2000; a run over the folder takes them from there
    instead of rendering every plate a second time or computing CIEDE2000 again (it was 15% of a baseline
    run's time); the images themselves are read from their PNGs."""
    import pyarrow.parquet as pq

    from plates.datasets import generate, load_dataset
    from plates.runs import builder
    from plates.runs import images as run_images
    from plates.runs.experiment import quick_experiment

    generate("huemanity-numeric", tmp_path / "data", limit=3, size=128, workers=1, progress=False)
    manifest = pq.read_table(tmp_path / "data" / "manifest.parquet").to_pandas().set_index("item_id")

    def no_render(spec):
        raise AssertionError("a plate was rendered again")

    monkeypatch.setattr(builder, "render", no_render)
    monkeypatch.setattr(run_images, "render", no_render)
    monkeypatch.setattr(builder, "delta_e2000", lambda *a: pytest.fail("the nominal ΔE2000 was computed again"))
    exp = quick_experiment(dataset=str(tmp_path / "data"), prompt="huemanity-numeric", backend="baseline",
                           model="baseline-cnn", out=str(tmp_path / "out"))
    run_experiment(exp, progress=False, items=load_dataset(tmp_path / "data"))
    rows = load_results(tmp_path / "out").frame.set_index("item_id")
    assert len(rows) == 3
    for c in ("delta_e", "delta_e_drawn_min", "delta_e_drawn_median", "delta_e_drawn_p95"):
        assert rows[c].to_dict() == manifest.loc[rows.index, c].to_dict()


def _generated(tmp_path, n=3):
    from plates.datasets import generate, load_dataset

    generate("huemanity-numeric", tmp_path / "data", limit=n, size=96, workers=1, progress=False)
    return load_dataset(tmp_path / "data")


def _sent_png(url: str) -> bytes:
    import base64

    return base64.b64decode(url.split(",", 1)[1])


def test_stored_pngs_are_sent_byte_for_byte_when_no_condition_changes_them(tmp_path, monkeypatch):
    """A stored plate travels as its file's bytes (decoding and encoding it again was half the
    client's CPU); its own size as the condition changes nothing either."""
    import plates.images

    items = _generated(tmp_path)
    monkeypatch.setattr(plates.images, "encode_png", lambda *a, **k: pytest.fail("a stored plate was re-encoded"))
    with ChatServer(answer=lambda body: "Answer: 12") as server:
        exp = cbe_experiment(server.url, tmp_path / "out", prompts=["huemanity-numeric"], conditions={"sizes": [96]})
        summary = _run(exp, items)
        sent = [_sent_png(u) for r in server.records for u in image_urls(r.body)]
    assert summary.written == len(items) and summary.errors == 0 and len(server.records) == len(items)
    files = [item.path.read_bytes() for item in items]
    assert sorted(sent) == sorted(files)


def test_a_changed_image_is_encoded_once_for_every_request_that_shows_it(tmp_path, monkeypatch):
    """A condition that changes pixels (grey, another size) is applied and encoded once per plate, however many
    prompts and few-shot requests show it; the bytes sent decode to exactly the conditioned pixels."""
    import plates.images

    loaded = _generated(tmp_path, n=27)  # 25 colour sets in turn: the first two sets get two plates each
    items = [item for item in loaded if item.group in {loaded[0].group, loaded[1].group}]
    calls = []
    real = plates.images.encode_png
    monkeypatch.setattr(plates.images, "encode_png", lambda image, *a, **k: calls.append(1) or real(image, *a, **k))
    with ChatServer(answer=lambda body: "Answer: 12") as server:
        exp = cbe_experiment(server.url, tmp_path / "out", prompts=["huemanity-numeric", "cbe-open"], shots=[0, 1],
                             conditions={"sizes": [64], "grayscale": [True]})
        summary = _run(exp, items)
        bodies = [r.body for r in server.records]
    assert summary.errors == 0 and summary.written == len(bodies) == len(items) * 2 * 2
    assert len(calls) == len(items)  # one encoding per plate, not per request or per few-shot use
    want = {apply_condition(item.image(), Condition(size=64, grayscale=True)).tobytes() for item in items}
    sent = {_sent_png(u) for body in bodies for u in image_urls(body)}
    assert len(sent) == len(items) and {data_url_to_image(f"data:image/png;base64,{_b64(p)}").tobytes()
                                        for p in sent} == want


def _b64(data: bytes) -> str:
    import base64

    return base64.b64encode(data).decode()
