"""Quiz answers pushed to a dataset repository with huggingface_hub's CommitScheduler, against a stand-in Hub on
127.0.0.1 (huggingface_hub takes the endpoint): only when configured, only the results parts, token sent as
authorisation and never written."""

from __future__ import annotations

import pytest

from plates.integrations.answers_push import REPO_ENV, TOKEN_ENV, answers_scheduler, push_config
from plates.runs.quiz import HUMAN_RESULTS_ENV
from tests.support.hub_server import HubServer

TOKEN = "hf_test_Zq8vR2mKpL4xW9nT"


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
    with HubServer() as hub:
        scheduler = answers_scheduler(env, every=60, endpoint=hub.url)
        try:
            scheduler.trigger().result(timeout=60)
        finally:
            scheduler.stop()
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
