"""Quiz answers pushed to a dataset repository with huggingface_hub's CommitScheduler, against a stand-in Hub on
127.0.0.1 (huggingface_hub takes the endpoint): only when configured, only the results parts, token sent as
authorisation and never written."""

from __future__ import annotations

import pytest

from plates.integrations.answers_push import REPO_ENV, TOKEN_ENV, answers_scheduler, push_config
from plates.runs.quiz import HUMAN_RESULTS_ENV
from tests.support.hub_server import HubServer

TOKEN = "hf_test_Zq8vR2mKpL4xW9nT"


def push_once(env) -> HubServer:
    """One commit of the scheduler ``env`` configures to a stand-in Hub, which is returned (stopped)."""
    with HubServer() as hub:
        scheduler = answers_scheduler(env, every=60, endpoint=hub.url)
        try:
            scheduler.trigger().result(timeout=60)
        finally:
            scheduler.stop()
    return hub


def test_nothing_starts_unless_the_owner_configures_repo_and_token(tmp_path):
    assert answers_scheduler({HUMAN_RESULTS_ENV: str(tmp_path)}) is None
    assert answers_scheduler({HUMAN_RESULTS_ENV: str(tmp_path), REPO_ENV: "owner/answers"}) is None
    assert answers_scheduler({REPO_ENV: "owner/answers", TOKEN_ENV: TOKEN}) is None  # no results folder
    with pytest.raises(ValueError, match="'owner/name'") as err:
        push_config({HUMAN_RESULTS_ENV: str(tmp_path), REPO_ENV: "no-owner", TOKEN_ENV: TOKEN})
    assert TOKEN not in str(err.value)


def test_parts_are_pushed_to_a_private_dataset(tmp_path, monkeypatch):
    # the suite runs with HF_HUB_OFFLINE=1 (no test reaches the real Hub); this one talks to 127.0.0.1 only
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "quiz-abc-part.parquet").write_bytes(b"PAR1 rows PAR1")
    (tmp_path / ".quiz-abc-part.parquet.tmp").write_bytes(b"half written")
    (tmp_path / "notes.txt").write_text("not a part")
    env = {HUMAN_RESULTS_ENV: str(tmp_path), REPO_ENV: "owner/answers", TOKEN_ENV: TOKEN}
    hub = push_once(env)
    assert hub.created[0]["type"] == "dataset" and hub.created[0]["visibility"] == "private"
    assert hub.files == {"run/quiz-abc-part.parquet": b"PAR1 rows PAR1"} and hub.commits == 1
    assert all(auth == f"Bearer {TOKEN}" for _, _, auth in hub.requests)
    assert not any(TOKEN.encode() in p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())


def test_the_consent_says_where_answers_go_only_when_they_are_pushed(tmp_path, monkeypatch):
    from plates.explorer.quiz import QuizConfig, consent_text
    from plates.integrations.answers_push import PUSH_NOTE

    for name in (HUMAN_RESULTS_ENV, REPO_ENV, TOKEN_ENV):
        monkeypatch.delenv(name, raising=False)
    assert PUSH_NOTE not in consent_text(QuizConfig())
    monkeypatch.setenv(HUMAN_RESULTS_ENV, str(tmp_path))
    monkeypatch.setenv(REPO_ENV, "owner/answers")
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    text = consent_text(QuizConfig())
    assert text.endswith(PUSH_NOTE) and TOKEN not in text and "owner/answers" not in text


def test_a_persons_directions_rows_and_colour_vision_reach_the_dataset_and_nothing_that_identifies_them(
        tmp_path, monkeypatch):
    import io

    import huggingface_hub.constants
    import pyarrow.parquet as pq

    from plates.runs.quiz import QuizLimits
    from plates.runs.quiz_directions import DirectionsSession

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    address = "203.0.113.77"  # the visitor's address: the session holds it for its limits, no row may
    session = DirectionsSession.start(directions=3, trials=10, size=128, seed=9, folder=tmp_path, client=address,
                                      limits=QuizLimits(min_seconds_between=0.0), colour_vision="protan")
    for text in ("12", "?", "7", "12"):
        session.next_trial()
        session.answer(text)
    env = {HUMAN_RESULTS_ENV: str(tmp_path), REPO_ENV: "owner/answers", TOKEN_ENV: TOKEN}
    hub = push_once(env)
    assert len(hub.files) == 4 and all(p.endswith(".parquet") for p in hub.files)
    pushed = [pq.read_table(io.BytesIO(b)).to_pandas() for b in hub.files.values()]
    rows = sorted((r for frame in pushed for r in frame.to_dict("records")), key=lambda r: r["item_id"])
    assert sorted(r["reply"] for r in rows) == sorted(["12", "?", "7", "12"])
    assert {r["item_id"] for r in rows} == {r["item_id"] for r in session.rows}
    assert {r["colour_vision"] for r in rows} == {"protan"} and {r["backend"] for r in rows} == {"human"}
    assert all(r["direction"] and r["level_shown"] is not None for r in rows)
    assert {r["model"] for r in rows} == {session.model} and session.participant in session.model
    for data in hub.files.values():
        assert address.encode() not in data and TOKEN.encode() not in data
