"""The OpenAI-compatible backend against a real chat-completions server on 127.0.0.1 (tests/support/chat_server.py).

Every fault path a real API shows: 429 with Retry-After, 500/503, slow answers past the timeout,
malformed JSON, dropped connections, 401/404, an unreachable server. Counts are exact: every item is answered
or recorded as an error, and the server saw exactly the attempts the replies report.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import socket
import time

import pytest
from PIL import Image

from plates.images import data_url_to_image
from plates.models import BackendFailing, Query, Reply, Turn, make_backend
from plates.models.openai_compat import OpenAIBackend, parse_retry_after
from tests.support.chat_server import ChatServer, Fault, image_urls

FAST = {"backoff_base": 0.01, "backoff_max": 0.05}  # retries without real waiting (behaviour, not timing)


def _plate(seed: int) -> Image.Image:
    """A small RGB test image (sRGB 0-255) whose pixels depend on the seed."""
    image = Image.new("RGB", (24, 16), (seed * 37 % 256, 120, 200))
    image.putpixel((3, 5), (seed % 256, 0, 255))
    return image


def _queries(n: int, prefix: str = "item") -> list[Query]:
    return [Query((Turn("user", f"{prefix}-{i}?", (_plate(i),)),)) for i in range(n)]


def _backend(server, **options) -> OpenAIBackend:
    return OpenAIBackend("test-model", base_url=server.url, **{"api_key_env": None, **FAST, **options})


def _answers(backend: OpenAIBackend, queries: list[Query]) -> dict[int, Reply]:
    replies: dict[int, Reply] = {}
    for index, reply in backend.ask(queries):
        assert index not in replies, f"index {index} yielded twice"
        replies[index] = reply
    assert sorted(replies) == list(range(len(queries)))
    return replies


def test_answers_every_query_with_images_as_png_data_urls():
    with ChatServer(answer=lambda body: f"seen {len(image_urls(body))}") as server:
        replies = _answers(_backend(server), _queries(12))
        assert server.count == 12
        for record in server.records:
            (url,) = image_urls(record.body)
            assert url.startswith("data:image/png;base64,")
            i = int(record.text.split("-")[1].rstrip("?"))
            assert data_url_to_image(url).convert("RGB").tobytes() == _plate(i).tobytes()
    for reply in replies.values():
        assert reply.ok and reply.text == "seen 1" and reply.attempts == 1
        assert reply.latency_s > 0 and reply.prompt_tokens is not None and reply.completion_tokens == 2


def test_few_shot_turns_become_messages_and_options_pass_through():
    shot = _plate(99)
    turns = (Turn("user", "What number?", (shot,)), Turn("assistant", "12"),
             Turn("user", "And this one?", (_plate(1),)))
    queries = [Query(turns, max_tokens=7, temperature=0.3), Query(turns, kind="yesno")]
    with ChatServer() as server:
        backend = _backend(server, system="Be brief.", extra_body={"top_k": 1}, seed=5, image_detail="high")
        _answers(backend, queries)
        bodies = sorted((r.body for r in server.records), key=lambda b: b.get("max_tokens"))
    first, second = bodies
    assert [m["role"] for m in first["messages"]] == ["system", "user", "assistant", "user"]
    assert first["messages"][2] == {"role": "assistant", "content": "12"}
    assert first["messages"][1]["content"][-1] == {"type": "text", "text": "What number?"}
    assert first["messages"][1]["content"][0]["image_url"]["detail"] == "high"
    assert (first["max_tokens"], first["temperature"], first["top_k"], first["seed"]) == (7, 0.3, 1, 5)
    assert (second["max_tokens"], second["temperature"]) == (512, 0.0)
    override = {"max_tokens": 3, "temperature": 1.0, "token_param": "max_completion_tokens"}
    with ChatServer() as server:
        _answers(_backend(server, **override), queries[:1])
        body = server.records[0].body
    assert (body["max_completion_tokens"], body["temperature"], "max_tokens" in body) == (3, 1.0, False)


def _sent(body: dict) -> dict:
    """A request body without its conversation and model name: the settings it sent."""
    return {k: v for k, v in body.items() if k not in ("messages", "model")}


def test_openai_sampling_fields_send_temperature_only_and_name_what_the_server_chooses():
    queries = [Query((Turn("user", "item-0?", (_plate(0),)),), max_tokens=9)]
    with ChatServer(answer=lambda body: "12", fingerprint="fp_abc123") as server:
        (reply,) = _answers(_backend(server), queries).values()
        body = server.records[0].body
    assert _sent(body) == {"max_tokens": 9, "temperature": 0.0}  # nothing outside the OpenAI schema
    assert reply.revision == "test-model@fp_abc123"
    assert dict(reply.settings) == {
        "max_tokens": 9, "temperature": 0.0, "sampling_fields": "openai", "system": None, "image_detail": None,
        "left_to_server": ["frequency_penalty", "min_p", "presence_penalty", "repetition_penalty", "top_k", "top_p"]}


def test_vllm_sampling_fields_send_every_field_vllm_would_take_from_the_model_file():
    greedy = Query((Turn("user", "item-0?", (_plate(0),)),), max_tokens=5)
    warm = Query((Turn("user", "item-1?", (_plate(1),)),), max_tokens=5, temperature=0.7)
    with ChatServer(answer=lambda body: "12") as server:
        replies = _answers(_backend(server, sampling_fields="vllm", seed=3), [greedy, warm])
        bodies = {r.text: r.body for r in server.records}
    neutral = {"top_p": 1.0, "top_k": -1, "min_p": 0.0, "repetition_penalty": 1.0, "presence_penalty": 0.0,
               "frequency_penalty": 0.0}
    assert _sent(bodies["item-0?"]) == {"max_tokens": 5, "temperature": 0.0, "seed": 3, **neutral}
    assert _sent(bodies["item-1?"]) == {"max_tokens": 5, "temperature": 0.7, "seed": 3, **neutral}
    for i, text in enumerate(("item-0?", "item-1?")):  # the reply records exactly what the server received
        recorded = {k: v for k, v in replies[i].settings.items()
                    if k not in ("sampling_fields", "system", "image_detail", "left_to_server")}
        assert recorded == _sent(bodies[text]) and replies[i].settings["left_to_server"] == []
    assert replies[0].revision == "test-model"  # no system_fingerprint from this server


def test_extra_body_wins_over_the_sampling_fields_and_a_protocol_can_leave_everything_to_the_server():
    query = Query((Turn("user", "item-0?", (_plate(0),)),), max_tokens=5)
    with ChatServer() as server:
        (reply,) = _answers(_backend(server, sampling_fields="vllm", extra_body={"top_p": 0.9, "top_k": 40}),
                            [query]).values()
        (reply_left,) = _answers(_backend(server, sampling_fields="vllm", send_temperature=False, token_param=None),
                                 [query]).values()
        first, second = (r.body for r in server.records)
    assert (first["top_p"], first["top_k"], first["repetition_penalty"]) == (0.9, 40, 1.0)
    assert (reply.settings["top_p"], reply.settings["top_k"]) == (0.9, 40)
    assert _sent(second) == {}
    assert reply_left.settings["left_to_server"] == ["frequency_penalty", "max_tokens", "min_p", "presence_penalty",
                                                     "repetition_penalty", "temperature", "top_k", "top_p"]


FAULTS = {
    "429": Fault.http(429, retry_after=0.05),
    "500": Fault.http(500),
    "503": Fault.http(503),
    "408": Fault.http(408),
    "slow": Fault.slow(2.5),  # past the 1 s timeout these tests give the slow case
    "malformed": Fault.malformed(),
    "drop": Fault.drop(),
    "drop-mid": Fault.drop(mid_response=True),
}


@pytest.mark.parametrize("name", sorted(FAULTS))
def test_each_fault_is_retried_then_answered_and_counts_are_exact(name):
    fault = FAULTS[name]
    plan = {"item-2?": [fault], "item-5?": [fault, fault]}
    with ChatServer(faults_by_text=plan) as server:
        replies = _answers(_backend(server, timeout=1.0 if name == "slow" else 10.0), _queries(8))
        assert server.count == sum(r.attempts for r in replies.values()) == 8 + 3
    assert all(r.ok for r in replies.values())
    assert (replies[2].attempts, replies[5].attempts, replies[0].attempts) == (2, 3, 1)
    assert replies[2].text == "echo: item-2?"


@pytest.mark.parametrize("name", sorted(FAULTS))
def test_a_fault_that_persists_is_recorded_as_an_error_never_as_text(name):
    fault = FAULTS[name]
    with ChatServer(faults_by_text={"item-1?": [fault] * 9}) as server:
        replies = _answers(_backend(server, timeout=1.0 if name == "slow" else 10.0, max_attempts=3), _queries(4))
        assert server.count == 3 + 3
    failed = replies[1]
    assert failed.text is None and not failed.ok and failed.attempts == 3
    assert failed.error and "after 3 attempts" in failed.error
    assert all(replies[i].ok for i in (0, 2, 3))


def test_client_errors_are_not_retried():
    with ChatServer(faults_by_text={"item-0?": [Fault.http(400, message="image too large")]}) as server:
        replies = _answers(_backend(server), _queries(3))
        assert server.count == 3
    assert replies[0].attempts == 1 and replies[0].error == "HTTP 400: image too large (after 1 attempt)"


def _gap_between_attempts(server: ChatServer, text: str) -> float:
    first, second = server.records_for(text)[:2]
    return second.started - first.finished


@pytest.mark.parametrize("header", ["seconds", "ms", "http-date"])
def test_retry_after_is_honoured(header):
    if header == "seconds":
        fault, at_least = Fault.http(429, retry_after=0.6), 0.6
    elif header == "ms":
        fault, at_least = Fault.http(429, retry_after_ms=600), 0.6
    else:  # an HTTP date 2 s ahead, whole seconds: at least ~1 s away when it arrives
        fault, at_least = Fault.http(503, retry_after=email.utils.formatdate(time.time() + 2, usegmt=True)), 0.9
    with ChatServer(faults_by_text={"item-0?": [fault]}) as server:
        replies = _answers(_backend(server), _queries(1))
        assert replies[0].ok and replies[0].attempts == 2
        assert _gap_between_attempts(server, "item-0?") >= at_least


def test_a_429_holds_back_every_request_until_its_retry_after():
    with ChatServer(delay=0.05, faults_by_text={"item-0?": [Fault.http(429, retry_after=0.6)]}) as server:
        replies = _answers(_backend(server, concurrency=2), _queries(8))
        assert all(r.ok for r in replies.values())
        limited = server.records_for("item-0?")[0]
        later = [r for r in server.records if r.started > limited.finished + 0.15]  # past the in-flight ones
        assert later and all(r.started >= limited.finished + 0.55 for r in later)


def test_retry_after_longer_than_allowed_fails_the_request_without_waiting():
    with ChatServer(faults_by_text={"item-0?": [Fault.http(429, retry_after=3600)]}) as server:
        replies = _answers(_backend(server, max_retry_after=5), _queries(2))
        assert server.count == 2
    assert replies[0].text is None and "3600" in replies[0].error


def test_parse_retry_after_forms():
    assert parse_retry_after({"retry-after": "2"}) == 2.0
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # in the past
    future = email.utils.formatdate(1_000_010, usegmt=True)
    assert parse_retry_after({"retry-after": future}, now=1_000_000) == pytest.approx(10.0)


def test_concurrency_bound_is_respected():
    with ChatServer(delay=0.05) as server:
        _answers(_backend(server, concurrency=3), _queries(24))
        assert server.count == 24
        assert server.max_in_flight == 3


def test_every_request_failing_the_same_way_stops_with_a_clear_message():
    with ChatServer(faults=lambda n, body: Fault.http(503, message="overloaded")) as server:
        backend = _backend(server, max_attempts=2, fail_after=4, concurrency=2)
        yielded = []
        with pytest.raises(BackendFailing, match=r"last 4 requests .* all failed the same way \(HTTP 503\)"):
            for pair in backend.ask(_queries(50)):
                yielded.append(pair)
        assert yielded == []  # the streak's failures are held back: a rerun asks them again
        assert len({r.text for r in server.records}) <= 4 + 2  # the streak, plus what was in flight


def test_a_short_failure_streak_is_yielded_as_errors():
    plan = {f"item-{i}?": [Fault.http(500)] * 5 for i in (0, 1, 2)}
    with ChatServer(faults_by_text=plan) as server:
        replies = _answers(_backend(server, max_attempts=1, fail_after=10, concurrency=1), _queries(5))
        assert server.count == 5
    assert [replies[i].ok for i in range(5)] == [False, False, False, True, True]


def test_unknown_model_stops_at_once():
    with ChatServer(models=("other-model",)) as server:
        with pytest.raises(BackendFailing, match=r"HTTP 404.*check the model name 'test-model'"):
            list(_backend(server, concurrency=1).ask(_queries(20)))
        assert server.count < 20


def test_unreachable_server_stops_with_a_clear_message():
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    backend = OpenAIBackend("m", base_url=f"http://127.0.0.1:{port}/v1", api_key_env=None, max_attempts=2, **FAST)
    with pytest.raises(BackendFailing, match="unreachable after 2 attempts: cannot connect"):
        list(backend.ask(_queries(3)))


def test_missing_key_variable_is_named():
    with pytest.raises(ValueError, match="PLATES_TEST_NO_SUCH_KEY is not set"):
        make_backend("openai", model="m", base_url="http://127.0.0.1:1/v1", api_key_env="PLATES_TEST_NO_SUCH_KEY")


@pytest.mark.parametrize("options", [{"concurrency": 0}, {"max_attempts": 0}, {"timeout": -1},
                                     {"base_url": "127.0.0.1:8000"}, {"token_param": "tokens"}, {"model": ""},
                                     {"sampling_fields": "anthropic"}])
def test_bad_options_raise_value_errors_naming_them(options):
    with pytest.raises(ValueError, match=next(iter(options))):
        OpenAIBackend(**{"model": "m", "api_key_env": None, **options})


def test_the_key_never_appears_in_output(monkeypatch, capsys, caplog):
    key = "sk-plates-test-SECRET-0123456789"
    monkeypatch.setenv("PLATES_TEST_KEY", key)
    caplog.set_level(logging.DEBUG)
    seen = []
    with ChatServer(api_key=key) as server:  # the right key: answered
        backend = _backend(server, api_key_env="PLATES_TEST_KEY")
        seen += [repr(backend), str(vars(backend))]
        seen += [repr(r) for _, r in backend.ask(_queries(2))]
        assert server.count == 2 and all(r.authorization_ok for r in server.records)
    with ChatServer(api_key="another-key") as server:  # a wrong key: stops at once, naming the variable
        with pytest.raises(BackendFailing, match=r"HTTP 401.*PLATES_TEST_KEY") as info:
            list(_backend(server, api_key_env="PLATES_TEST_KEY").ask(_queries(3)))
        seen.append(str(info.value))
    with ChatServer(faults=lambda n, body: Fault.http(500, message=f"echoing your key {key}")) as server:
        replies = _answers(_backend(server, api_key_env="PLATES_TEST_KEY", max_attempts=1), _queries(2))
        seen += [r.error for r in replies.values()]
        assert all("***" in r.error for r in replies.values())
    captured = capsys.readouterr()
    seen += [captured.out, captured.err, caplog.text]
    assert not [s for s in seen if key in s]


@pytest.mark.parametrize("spelled", ["{key}\n", " {key}\r\n", "{key}"])
def test_an_echoed_key_is_redacted_by_the_backend_itself(monkeypatch, spelled):
    # A key read from a file often ends in a newline; the server echoes the Authorization header it got. The
    # backend's own error texts (Reply.error, BackendFailing) never carry the key in any spelling: the runner
    # redacts stored errors too, this is the second line of defence.
    key = "sk-plates-echo-SECRET-0123456789"
    monkeypatch.setenv("PLATES_TEST_KEY", spelled.format(key=key))
    echo = Fault.http(500, message="Incorrect API key provided: {authorization}")
    with ChatServer(faults=lambda n, body: echo) as server:
        replies = _answers(_backend(server, api_key_env="PLATES_TEST_KEY", max_attempts=1), _queries(2))
        assert server.count == 2 and all(r.body is not None for r in server.records)
    errors = [r.error for r in replies.values()]
    assert all("HTTP 500: Incorrect API key provided: Bearer ***" in e for e in errors), errors
    assert not [e for e in errors if key in e or key[3:] in e]
    with ChatServer(api_key=key) as server:  # what is sent is the key itself, without the whitespace
        replies = _answers(_backend(server, api_key_env="PLATES_TEST_KEY", max_attempts=1), _queries(1))
        assert all(r.ok for r in replies.values()) and all(r.authorization_ok for r in server.records)


def test_a_key_handed_over_directly_is_sent_and_never_shown(capsys):
    key = "sk-session-only-SECRET-987"
    with ChatServer(api_key=key) as server:
        backend = _backend(server, api_key=key)
        replies = _answers(backend, _queries(2))
        assert all(r.ok for r in replies.values()) and all(r.authorization_ok for r in server.records)
    with ChatServer(api_key="another") as server:
        with pytest.raises(BackendFailing, match=r"HTTP 401.*check the API key") as info:
            list(_backend(server, api_key=key).ask(_queries(1)))
    shown = [repr(backend), str(vars(backend)), str(info.value), *capsys.readouterr()]
    assert not [s for s in shown if key in s]


def test_ask_works_inside_a_running_event_loop():
    async def inside_gradio() -> dict[int, Reply]:
        return dict(backend.ask(_queries(5)))

    with ChatServer() as server:
        backend = _backend(server)
        replies = asyncio.run(inside_gradio())
    assert sorted(replies) == list(range(5)) and all(r.ok for r in replies.values())


def test_closing_the_generator_early_cancels_the_rest():
    with ChatServer(delay=0.2) as server:
        backend = _backend(server, concurrency=2)
        answers = backend.ask(_queries(40))
        next(answers)
        answers.close()
        time.sleep(0.3)
        count = server.count
        time.sleep(0.4)
        assert server.count == count < 10  # nothing new is sent after the close


def test_empty_and_bad_queries():
    backend = OpenAIBackend("m", base_url="http://127.0.0.1:1/v1", api_key_env=None)
    assert list(backend.ask([])) == []
    with pytest.raises(ValueError, match=r"queries\[0\] must be a Query"):
        list(backend.ask(["What number?"]))


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_with_follow_redirects_off_a_redirect_reaches_no_other_address_and_is_not_quoted(status):
    """Regression: an allowed endpoint answering 3xx sent the request on (a 307 re-sent the whole POST) to
    another address, whose reply text then appeared in the error. With follow_redirects=False (the explorer's
    public mode) the target never sees a request, and the message quotes neither body nor Location."""
    from tests.support.redirect_server import RedirectServer

    with ChatServer(answer=lambda body: "INTERNAL-ONLY-REPLY") as inner, \
            RedirectServer(inner.url, status) as outer:
        backend = _backend(outer, follow_redirects=False)
        expected = rf"HTTP {status}: the endpoint answered with a redirect, which is not followed here"
        with pytest.raises(BackendFailing, match=expected) as info:
            list(backend.ask(_queries(3)))
        assert inner.count == 0 and not inner.records  # nothing reached the other address
        assert len(outer.requests) >= 1 and all(method == "POST" for method, _, _ in outer.requests)
        inner_address = inner.url.split("//")[1]
    message = str(info.value)
    assert inner_address not in message and "moved to" not in message and "INTERNAL" not in message


def test_redirects_are_followed_by_default_for_the_command_line():
    """The default keeps the SDK's behaviour (a local server behind a redirect still works from the CLI):
    this is what public mode turns off."""
    from tests.support.redirect_server import RedirectServer

    with ChatServer(answer=lambda body: "followed") as inner, RedirectServer(inner.url, 307) as outer:
        replies = _answers(_backend(outer), _queries(1))
        assert replies[0].text == "followed" and inner.count == 1
    with pytest.raises(ValueError, match="follow_redirects must be True or False"):
        OpenAIBackend("m", base_url="http://127.0.0.1:1/v1", api_key_env=None, follow_redirects="no")
