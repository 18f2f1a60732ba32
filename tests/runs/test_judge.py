"""The judge model (plates.runs.judge) against a real judge server on 127.0.0.1 answering from a table
(tests/support/judge_table.py): where it is asked, what it decides, and a judge that errs (500), times out or
answers off-format; in a run (real Parquet parts) and in a rescore."""

from __future__ import annotations

import dataclasses
import json

import pandas as pd
import pytest

from plates.cli import main
from plates.models.base import BackendFailing, Reply
from plates.results import load_results, rows_to_table, write_part
from plates.results.query import open_results
from plates.runs.judge import (
    JUDGE_PROMPT_VERSION,
    JUDGE_REPLY_CHARS,
    Judge,
    JudgeSpec,
    judge_prompt,
    parse_judge,
)
from plates.runs.rescore import rescore_run, rescored_run_id
from plates.runs.rows import build_row
from plates.runs.runner import run_experiment
from plates.tasks.prompts import render_prompt
from tests.support.cbe_runs import cbe_experiment
from tests.support.chat_server import ChatServer, Fault
from tests.support.judge_table import JUDGE_MODEL, quoted_reply, table_answer
from tests.support.result_rows import plate_asked

RUN = "colorblindnesseval-00judge00000"
KEY = "sk-judge-5ecret-0123456789abcdef"

#: model reply -> what the judge server answers (a reply not here gets "Answer: none")
TABLE = {
    "12 or 17": "Answer: 12",  # the rules abstain (ambiguous); the judge reads 12
    "hmm, zzz": "Answer: none",  # the rules abstain (unparsed); the judge finds no answer either
    "banana": "The reply talks about fruit.",  # off-format: the rules read nothing in the judge's reply
    "uh, seventeen-ish": "Answer: 17",  # the judge reads 17 (wrong)
}


def _spec(server, **kw) -> JudgeSpec:
    return JudgeSpec(JUDGE_MODEL, base_url=server.url, key_env=("PLATES_TEST_JUDGE_KEY",), timeout=2,
                     max_attempts=2, **kw)


def _row(i: int, reply: Reply, prompt: str = "cbe-open") -> tuple:
    asked = plate_asked(i, prompt, run_id=RUN)
    return asked.question, build_row(asked, reply)


REPLIES = ["12", "12 or 17", "hmm, zzz", "banana", "I cannot tell what number this is.", "uh, seventeen-ish",
           "slow one", "failing one"]


def test_the_prompt_is_written_versioned_and_quotes_question_options_and_reply():
    q = render_prompt("colorbench-mc", "12", seed=0, label_space="cbe")
    text = judge_prompt(q, "<think>9?</think>  It is\n\n(B).")
    assert JUDGE_PROMPT_VERSION == 1
    assert q.text in text and "\n".join(f"{k}. {v}" for k, v in q.options.items()) in text
    assert "<<<REPLY\nIt is\n(B).\nREPLY>>>" in text  # read as the rules read it: reasoning stripped, spaces collapsed
    assert f"the letter of one option ({', '.join(q.options)})" in text and '"Answer: none"' in text
    yn = render_prompt("cbe-yn-correct", "12", seed=0, label_space="cbe")
    assert "Options: yes, no" in judge_prompt(yn, "yes")
    assert "no options" in judge_prompt(render_prompt("cbe-open", "12", seed=0, label_space="cbe"), "12")


def test_the_judge_reads_only_where_the_rules_abstain_and_the_rows_say_why_it_did_not_decide(monkeypatch):
    monkeypatch.setenv("PLATES_TEST_JUDGE_KEY", KEY)
    faults = {"slow one": [Fault.slow(5)] * 2, "failing one": [Fault.http(500, message="down {authorization}")] * 2}
    rows = [_row(i, Reply(r)) for i, r in enumerate(REPLIES)] + [_row(99, Reply(None, error="HTTP 503"))]
    # the slow and failing replies are unparsed by the rules: the judge is asked about them
    with ChatServer(answer=table_answer(TABLE), models=(JUDGE_MODEL,), api_key=KEY, faults_by_text=faults) as server:
        with Judge(_spec(server)) as judge:
            decided = judge.judge_rows(rows)
        asked = sorted(quoted_reply(r.body) for r in server.records)
    by = {row["reply"]: row for _, row in rows}
    # asked: unparsed and ambiguous replies only (not "12", not the refusal, not the failed request); the slow
    # and the failing ones twice (max_attempts)
    assert asked == sorted(["12 or 17", "hmm, zzz", "banana", "uh, seventeen-ish", "slow one", "slow one", "failing one",
                            "failing one"])
    assert decided == 2
    expect = {  # reply -> (judge_status, decided_by, parsed, parse_status, correct)
        "12": (None, "rules", "12", "ok", True),
        "12 or 17": ("read", "judge", "12", "ok", True),
        "hmm, zzz": ("none", "rules", None, "unparsed", False),
        "banana": ("off-format", "rules", None, "unparsed", False),
        "I cannot tell what number this is.": (None, "rules", None, "refusal", False),
        "uh, seventeen-ish": ("read", "judge", "17", "ok", False),
        "slow one": ("timeout", "rules", None, "unparsed", False),
        "failing one": ("error", "rules", None, "unparsed", False),
    }
    for reply, (status, who, parsed, parse_status, correct) in expect.items():
        row = by[reply]
        assert (row["judge_status"], row["decided_by"], row["parsed"], row["parse_status"], row["correct"]) == \
            (status, who, parsed, parse_status, correct), reply
        assert row["rules_parse_status"] == ("ok" if reply == "12" else "ambiguous" if reply == "12 or 17" else
                                             "refusal" if reply.startswith("I cannot") else "unparsed")
        assert row["judge_model"] == (None if status is None else JUDGE_MODEL)
        assert row["judge_prompt_version"] == (None if status is None else JUDGE_PROMPT_VERSION)
    assert by["12 or 17"]["rules_parsed"] is None and by["12 or 17"]["judge_parsed"] == "12"
    assert by["12 or 17"]["judge_reply"] == "Answer: 12" and by["banana"]["judge_reply"] == TABLE["banana"]
    assert by["slow one"]["judge_error"].startswith("no reply within 2 s") and by["slow one"]["judge_reply"] is None
    assert by["failing one"]["judge_error"].startswith("HTTP 500") and "***" in by["failing one"]["judge_error"]
    settings = json.loads(by["12 or 17"]["judge_generation_json"])
    assert settings["temperature"] == 0.0 and settings["max_tokens"] == 256
    failed = rows[-1][1]
    assert failed["parse_status"] == "error" and failed["judge_status"] is None and failed["decided_by"] == "rules"
    body = server.records[0].body
    assert body["temperature"] == 0.0 and all(isinstance(m["content"], str) for m in body["messages"])  # text only
    text = json.dumps(rows_to_table([row for _, row in rows]).to_pylist(), default=str)
    assert KEY not in text  # the key never reaches a row, even when the judge's server echoes it


def test_judge_all_asks_every_reply_and_the_rows_keep_both_readings(monkeypatch):
    monkeypatch.delenv("PLATES_JUDGE_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)  # the fallback variable
    table = {"12": "Answer: 17", "I cannot tell what number this is.": "Answer: none", "12 or 17": "Answer: 12"}
    rows = [_row(i, Reply(r)) for i, r in enumerate(["12", "I cannot tell what number this is.", "12 or 17"])]
    with ChatServer(answer=table_answer(table), models=(JUDGE_MODEL,), api_key=KEY) as server:
        spec = JudgeSpec(JUDGE_MODEL, base_url=server.url, judge_all=True)
        with Judge(spec) as judge:
            assert judge.judge_rows(rows) == 2
        assert server.count == 3
    first, refusal, both = (row for _, row in rows)
    # both read "12" -> rules 12, judge 17: the judge decides with --judge-all; the rules' reading is kept
    assert (first["rules_parsed"], first["rules_correct"], first["judge_parsed"], first["parsed"],
            first["correct"], first["decided_by"]) == ("12", True, "17", "17", False, "judge")
    assert (refusal["parse_status"], refusal["judge_status"], refusal["decided_by"]) == ("refusal", "none", "rules")
    assert (both["parsed"], both["decided_by"], both["rules_parse_status"]) == ("12", "judge", "ambiguous")


def test_a_run_with_a_judge_writes_both_readings_to_parquet(tmp_path, monkeypatch):
    from plates.datasets import load_dataset

    items = [i for i in load_dataset("colorblindnesseval", limit=4) if i.variant == "standard"]
    monkeypatch.setenv("PLATES_TEST_JUDGE_KEY", KEY)
    with ChatServer(answer=lambda body: "12 or 17") as model, \
            ChatServer(answer=lambda body: f"Answer: {quoted_reply(body)[:2]}", models=(JUDGE_MODEL,),
                       api_key=KEY) as judge:
        exp = dataclasses.replace(cbe_experiment(model.url, tmp_path), judge=_spec(judge))
        assert exp.run_id == cbe_experiment(model.url, tmp_path).run_id  # how replies are read: not the run id
        summary = run_experiment(exp, items=items, progress=False)
        assert judge.count == summary.written == summary.judged == len(items)
    frame = load_results(tmp_path).frame
    assert set(frame["decided_by"]) == {"judge"} and set(frame["parsed"]) == {"12"}
    assert set(frame["rules_parse_status"]) == {"ambiguous"} and frame["rules_parsed"].isna().all()
    assert set(frame["judge_model"]) == {JUDGE_MODEL} and set(frame["judge_prompt_version"]) == {JUDGE_PROMPT_VERSION}
    assert list(frame["correct"]) == [item.label == "12" for item in items]
    results = open_results(tmp_path)  # DuckDB reads the same columns
    try:
        shown = results.query("SELECT decided_by, count(*) AS n FROM results GROUP BY ALL")
    finally:
        results.close()
    assert shown.to_dict("records") == [{"decided_by": "judge", "n": len(items)}]


def test_a_misconfigured_judge_stops_the_run_and_a_missing_key_is_named(tmp_path, monkeypatch):
    from plates.datasets import load_dataset

    items = load_dataset("colorblindnesseval", limit=1)
    monkeypatch.delenv("PLATES_TEST_JUDGE_KEY", raising=False)
    with ChatServer(answer=lambda body: "12 or 17") as model, \
            ChatServer(models=(JUDGE_MODEL,), api_key=KEY) as judge:
        exp = dataclasses.replace(cbe_experiment(model.url, tmp_path), judge=_spec(judge))
        with pytest.raises(ValueError, match="PLATES_TEST_JUDGE_KEY"):
            run_experiment(exp, items=items, progress=False)
        assert model.count == 0
        monkeypatch.setenv("PLATES_TEST_JUDGE_KEY", "sk-wrong-key-000000")
        with pytest.raises(BackendFailing, match="HTTP 401") as caught:
            run_experiment(exp, items=items, progress=False)
        assert "sk-wrong-key-000000" not in str(caught.value)


def test_rescore_with_a_judge_reads_stored_replies_as_a_new_run(tmp_path, monkeypatch, capsys):
    rows = [row for _, row in (_row(i, Reply(r)) for i, r in enumerate(["12", "12 or 17", "banana"]))]
    write_part(rows_to_table(rows), tmp_path / f"{RUN}-part.parquet")
    monkeypatch.setenv("PLATES_TEST_JUDGE_KEY", KEY)
    with ChatServer(answer=table_answer(TABLE), models=(JUDGE_MODEL,), api_key=KEY,
                    faults_by_text={"banana": [Fault.http(500)] * 3}) as server:
        flags = ["--judge", JUDGE_MODEL, "--judge-base-url", server.url, "--judge-api-key-env", "PLATES_TEST_JUDGE_KEY"]
        assert main(["rescore", str(tmp_path), *flags]) == 0
        assert server.count == 4  # "12 or 17" once, "banana" 3 times (500, retried: the default max_attempts)
        printed = capsys.readouterr().out
        spec = JudgeSpec(JUDGE_MODEL, base_url=server.url)
        new_id = rescored_run_id(RUN, spec)
        assert f"-> {new_id} " in printed and f"the judge {JUDGE_MODEL} decided 1 verdicts" in printed
        assert new_id != rescored_run_id(RUN) and new_id != rescored_run_id(RUN, dataclasses.replace(spec, judge_all=True))
        frame = load_results(tmp_path).frame.set_index("reply")
        new = frame[frame["run_id"] == new_id]
        assert (new.loc["12 or 17", "decided_by"], new.loc["12 or 17", "parsed"]) == ("judge", "12")
        assert (new.loc["banana", "judge_status"], new.loc["banana", "decided_by"]) == ("error", "rules")
        assert pd.isna(new.loc["12", "judge_status"]) and new.loc["12", "decided_by"] == "rules"
        # again: the rescored run is there and the new run is this judge's: nothing asked
        assert main(["rescore", str(tmp_path), *flags]) == 0
        assert server.count == 4 and "0 run(s) rescored" in capsys.readouterr().out
    # rescored without a judge, the judge's reading is gone and the rules decide again
    again = rescore_run(new.reset_index().to_dict("records"))
    assert {r["decided_by"] for r in again.rows} == {"rules"} and {r["judge_status"] for r in again.rows} == {None}


def test_the_judge_table_of_an_experiment_and_its_errors():
    from plates.runs.experiment import parse_experiment

    base = {"dataset": "colorblindnesseval", "prompts": ["cbe-open"], "models": [{"backend": "baseline"}]}
    exp = parse_experiment({**base, "judge": {"model": "gpt-4o-mini", "all": True}})
    assert exp.judge == JudgeSpec("gpt-4o-mini", judge_all=True)
    assert exp.run_id == parse_experiment(base).run_id  # how replies are read is not what is asked
    with pytest.raises(ValueError, match=r"judge: unknown keys \['modle'\]"):
        parse_experiment({**base, "judge": {"modle": "m"}})
    spec = parse_judge({"model": "gpt-4o-mini", "api_key_env": False, "all": True, "timeout": 5})
    assert (spec.key_env, spec.judge_all, spec.timeout, spec.key_variable()) == ((), True, 5.0, None)
    assert parse_judge({"model": "m"}).key_env == ("PLATES_JUDGE_API_KEY", "OPENAI_API_KEY")
    for table, message in [({"model": "m", "temperature": 0}, "unknown keys ['temperature']; allowed: model"),
                           ({}, "judge.model: missing"),
                           ({"model": "m", "base_url": "ftp://x"}, "allowed: a URL starting with http://"),
                           ({"model": "m", "all": "yes"}, "allowed: true or false"),
                           ({"model": "m", "api_key_env": 3}, "allowed: the NAME of an environment variable"),
                           ({"model": "m", "max_attempts": 0}, "judge max_attempts=0 is not valid; allowed: an "
                                                                "integer in [1, 20]")]:
        with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
            parse_judge(table)


def test_the_judge_reply_a_row_keeps_is_bounded():
    from plates.runs.judge import judged

    q = render_prompt("cbe-open", "12", seed=0, label_space="cbe")
    out = judged(q, Reply("x" * 10_000), JUDGE_MODEL)
    assert len(out["judge_reply"]) == JUDGE_REPLY_CHARS and out["judge_status"] == "off-format"


def test_the_documented_prompt_is_the_prompt_sent():
    from pathlib import Path

    from plates.runs.judge import JUDGE_PROMPT

    page = (Path(__file__).parents[2] / "docs" / "judge.md").read_text(encoding="utf-8")
    block = page.split(f"## The prompt (version {JUDGE_PROMPT_VERSION})", 1)[1].split("```text\n", 1)[1]
    assert block.split("```", 1)[0] == JUDGE_PROMPT
