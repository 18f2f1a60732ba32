"""Safe by default: the explorer is public unless its operator says private, always public on a hosted Space,
and private mode sends the server's key only to the endpoint it belongs to. Driven through the real app and
real loopback chat servers (tests/support/chat_server.py); the policy read from the environment on its own:
tests/explorer/test_policy.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

gradio_client = pytest.importorskip("gradio_client")
from gradio_client import Client
from gradio_client.exceptions import AppError

from plates.explorer import app as explorer_app
from plates.explorer.policy import Policy
from tests.support.chat_server import ChatServer

SERVER_KEY = "sk-server-owned-7Hq2Lm9XvB4c"


def _launch(policy):
    demo = explorer_app.build_app(policy)
    demo.launch(prevent_thread_lock=True, quiet=True, **explorer_app.launch_options(policy=policy))
    return demo, Client(demo.local_url, verbose=False)


def _text(out) -> str:
    parts = [json.dumps(out, default=str)]
    for value in out if isinstance(out, (list, tuple)) else [out]:
        # a file the app wrote (a path is one short line; page text is not a path and may be too long for one)
        if isinstance(value, str) and len(value) < 4096 and "\n" not in value and Path(value).is_file():
            parts.append(Path(value).read_bytes().decode("latin-1"))
    return "\n".join(parts)


def test_on_a_space_without_plates_public_a_typed_url_is_refused_and_the_servers_key_never_sent(monkeypatch):
    """The attack: app.py served with SPACE_ID set and no PLATES_PUBLIC; a visitor picks the openai kind, types
    their own base URL, leaves the key empty: the server's OPENAI_API_KEY went there and was echoed."""
    monkeypatch.setenv("OPENAI_API_KEY", SERVER_KEY)
    with ChatServer(answer=lambda body: f"thanks for {body}") as visitors_server:
        for env in ({"SPACE_ID": "someone/plates"},
                    {"SPACE_ID": "someone/plates", "PLATES_PUBLIC": "0"},  # what the operator set does not matter
                    {"SPACE_ID": "someone/plates", "PLATES_ALLOWED_BASE_URLS": visitors_server.url}):
            policy = Policy.from_env({**env, "OPENAI_API_KEY": SERVER_KEY})
            assert policy.public
            demo, client = _launch(policy)
            try:
                with pytest.raises(AppError) as err:
                    client.predict(kind="openai", hf_id="", api_model="test-model", base_url=visitors_server.url,
                                   api_name="/ask")
            finally:
                demo.close()
            allowed = "PLATES_ALLOWED_BASE_URLS" in env
            assert ("an API key is needed" if allowed else "is not allowed here") in str(err.value)
            assert SERVER_KEY not in str(err.value)
        assert visitors_server.count == 0  # nothing reached the visitor's address, key or no key


def test_private_mode_sends_the_servers_key_only_to_its_own_endpoint(monkeypatch):
    """Keys are bound to configured endpoints: OPENAI_API_KEY goes with OPENAI_BASE_URL only; a URL a visitor
    types gets no key at all."""
    with ChatServer(answer=lambda body: "12", api_key=SERVER_KEY) as own, \
            ChatServer(answer=lambda body: "12") as typed:
        monkeypatch.setenv("OPENAI_API_KEY", SERVER_KEY)
        policy = Policy.from_env({"PLATES_PUBLIC": "0", "OPENAI_BASE_URL": own.url + "/"})
        assert not policy.public and policy.key_endpoint == own.url
        demo, client = _launch(policy)
        try:
            to_typed = client.predict(kind="openai", hf_id="", api_model="test-model", base_url=typed.url,
                                      api_name="/ask")
            to_own = client.predict(kind="openai", hf_id="", api_model="test-model", base_url=own.url,
                                    api_name="/ask")
        finally:
            demo.close()
        assert to_typed[0] == "12" and to_own[0] == "12"
        assert typed.count == 1 and SERVER_KEY not in typed.records[0].authorization
        assert own.count == 1 and own.records[0].authorization == f"Bearer {SERVER_KEY}"
        assert SERVER_KEY not in _text(to_typed) + _text(to_own)


def test_public_limits_count_per_address_not_per_browser_session(monkeypatch, tmp_path):
    """Each quiz start held 33.5 MB and the cap counted per Gradio session, so fresh sessions were free; one
    client parked ~14 MB/s of uploads for 30 minutes. Now: quiz starts and uploaded bytes are counted per
    address (every client here is 127.0.0.1), the memory budget is checked before new work, and Gradio keeps
    at most PUBLIC_SESSION_CAPACITY sessions' state."""
    import httpx

    from plates.admission import Admission, MemoryBudget, RateLimit

    monkeypatch.delenv("PLATES_HUMAN_RESULTS", raising=False)
    policy = Policy(public=True)
    used = [0]
    admission = Admission(memory=MemoryBudget(1_000_000_000, rss=lambda: used[0]),
                          quiz_starts=RateLimit("quiz starts", 2, 600.0),
                          uploads=RateLimit("uploads", 1_500_000, 1800.0, total=10_000_000, unit="bytes"))
    options = explorer_app.launch_options(policy=policy, admission=admission)
    assert options["state_session_capacity"] == explorer_app.PUBLIC_SESSION_CAPACITY
    demo = explorer_app.build_app(policy, admission)
    demo.launch(prevent_thread_lock=True, quiet=True, **options)
    try:
        for _ in range(2):  # two fresh browser sessions from one address
            Client(demo.local_url, verbose=False).predict(True, api_name="/quiz_start")
        assert len(admission.quizzes) == 2
        with pytest.raises(AppError, match="too many quiz starts from your address: 2 in the last 10 min"):
            Client(demo.local_url, verbose=False).predict(True, api_name="/quiz_start")
        used[0] = 2_000_000_000  # over the budget: new work refused politely, nothing else changes
        with pytest.raises(AppError, match=r"this server is busy \(2000 MB of its 1000 MB memory budget"):
            Client(demo.local_url, verbose=False).predict(kind="baseline", hf_id="", api_model="", base_url="",
                                                          api_name="/ask")
        upload = f"{demo.local_url.rstrip('/')}/gradio_api/upload"
        spec = b"{" + b" " * 900_000 + b"}"
        first = httpx.post(upload, files={"files": ("a.json", spec)}, timeout=30)
        second = httpx.post(upload, files={"files": ("b.json", spec)}, timeout=30)  # another "session"
        assert first.status_code == 200, first.text
        assert second.status_code == 429 and "too many uploads from your address: 0.9 MB" in second.text
    finally:
        demo.close()


def test_public_comparisons_take_allowed_models_only_and_count_each_answer_per_address():
    """Side by side in public mode: a model outside the allow-lists is refused before anything is asked, and
    every compared model's answer counts against the address's share of model answers (plates.admission)."""
    from plates.admission import Admission, RateLimit

    with ChatServer(answer=lambda body: "12") as allowed, ChatServer(answer=lambda body: "12") as other:
        policy = Policy(public=True, allowed_base_urls=(allowed.url,))
        admission = Admission(model_answers=RateLimit("model answers", 3, 600.0))
        demo = explorer_app.build_app(policy, admission)
        demo.launch(prevent_thread_lock=True, quiet=True,
                    **explorer_app.launch_options(policy=policy, admission=admission))
        model = ["baseline", "", "", "", "cbe-open", "", 0, False, 0, "none", 1, "standard"]
        try:
            client = Client(demo.local_url, verbose=False)
            with pytest.raises(AppError, match="line 2 of the models to compare: base URL .* is not allowed here"):
                client.predict(*model, f"baseline\nopenai test-model {other.url}", api_name="/compare")
            table = client.predict(*model, f"baseline\nopenai test-model {allowed.url}", api_name="/compare")[0]
            verdicts = [row[5] for row in table["data"]]
            assert verdicts == ["✅ correct", "error"]  # no key typed: the endpoint is not asked without one
            assert "an API key is needed" in table["data"][1][2]
            client.predict(kind="baseline", hf_id="", api_model="", base_url="", api_name="/ask")  # the third
            with pytest.raises(AppError, match="too many model answers from your address: 3 in the last 10 min"):
                Client(demo.local_url, verbose=False).predict(*model, "baseline", api_name="/compare")
        finally:
            demo.close()
        assert other.count == 0 and allowed.count == 0


def test_public_mode_asks_the_visitors_provider_with_their_own_key_only(monkeypatch, caplog):
    """Your own key in public mode: a provider from the fixed list (here a loopback server injected into the
    policy's table, as tests alone can), the visitor's key sent to it as the bearer token and nowhere else: not
    in a reply, the history file, a log line, and never the server's own key; compared side by side with the
    bundled reader. A URL off the list is refused even with a key."""
    visitor_key = "sk-visitor-own-Zq81Lw2rT5"
    monkeypatch.setenv("OPENAI_API_KEY", SERVER_KEY)
    with ChatServer(answer=lambda body: "12", api_key=visitor_key) as provider, \
            ChatServer(answer=lambda body: "12") as typed:
        policy = Policy(public=True, providers=(("Stand-in provider", provider.url),))
        demo, client = _launch(policy)
        model = ["openai", "", "test-model", provider.url, "cbe-open", "", 0, False, 0, "none", 1, "standard"]
        try:
            with caplog.at_level("DEBUG"):
                with pytest.raises(AppError, match="an API key is needed"):  # the server's key is never used
                    client.predict(kind="openai", hf_id="", api_model="test-model", base_url=provider.url,
                                   api_name="/ask")
                assert "set for this session only" in client.predict(visitor_key, api_name="/set_key")
                asked = client.predict(kind="openai", hf_id="", api_model="test-model", base_url=provider.url,
                                       api_name="/ask")
                with pytest.raises(AppError, match="is not allowed here"):
                    client.predict(kind="openai", hf_id="", api_model="test-model", base_url=typed.url,
                                   api_name="/ask")
                side = client.predict(*model, f"baseline\nopenai test-model {provider.url}", api_name="/compare")
        finally:
            demo.close()
    assert asked[0] == "12" and "✅" in asked[1]
    assert [row[5] for row in side[0]["data"]] == ["✅ correct", "✅ correct"]  # the reader and the provider
    assert provider.count == 2 and typed.count == 0
    assert all(r.authorization == f"Bearer {visitor_key}" for r in provider.records)
    for out in (asked, side):
        assert visitor_key not in _text(out) and SERVER_KEY not in _text(out)
    assert visitor_key not in caplog.text and SERVER_KEY not in caplog.text
