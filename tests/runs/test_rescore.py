"""Judging stored replies again (`plates.runs.rescore`): the question a row asked, today's verdict on an old row,
label spaces inferred for rows that never recorded one, the new run's identity, and what changed, counted."""

from __future__ import annotations

import pandas as pd
import pytest

from plates.models.base import Reply
from plates.runs.rescore import (
    inferred_label_space,
    question_of,
    rejudge,
    rescore_run,
    rescored_run_id,
    rescored_suffix,
)
from plates.runs.rows import build_row
from plates.tasks.answers import RULES_VERSION
from plates.tasks.prompts import render_prompt
from tests.support.result_rows import plate_asked

RUN = "colorblindnesseval-0123456789ab"


def _row(i: int, reply: Reply, prompt: str = "cbe-open", run: str = RUN) -> dict:
    return build_row(plate_asked(i, prompt, run_id=run), reply)


def test_question_of_rebuilds_a_multiple_choice_question():
    q = render_prompt("colorbench-mc", "12", seed=3, label_space="cbe")
    row = _row(3, Reply("(B)"), prompt="colorbench-mc")
    again = question_of(row)
    assert (again.kind, again.expected, again.options, again.label_space, again.task) == (
        q.kind,
        q.expected,
        q.options,
        q.label_space,
        q.task,
    )


@pytest.mark.parametrize(
    ("change", "match"),
    [({"task": "nope"}, "nope"), ({"options_json": "{bad"}, "JSON"), ({"label_space": "roman"}, "allowed")],
)
def test_question_of_names_what_it_cannot_read(change, match):
    with pytest.raises(ValueError, match=match):
        question_of({**_row(0, Reply("12")), **change})


def test_an_old_verdict_is_replaced_by_todays_rules():
    row = {
        **_row(1, Reply("It could be 12 or 17.")),
        "parsed": "17",
        "parse_status": "ok",
        "correct": False,
        "rules_version": None,
    }
    new = rejudge(row)
    assert new["rules_version"] == RULES_VERSION and new["parse_status"] != "ok" and new["parsed"] is None
    assert new["label_space"] == "cbe"


def test_a_row_without_a_reply_keeps_its_own_verdict():
    row = _row(2, Reply(None, error="HTTP 500"))
    new = rejudge(row)
    assert new["rules_version"] == RULES_VERSION
    assert not {"parsed", "parse_status", "correct", "failure_mode"} & set(new), "the row's own verdict stays"


@pytest.mark.parametrize(
    ("row", "space"),
    [
        ({"dataset": "colorblindnesseval"}, "cbe"),
        ({"dataset": "huemanity-alnum"}, "huemanity-alnum"),
        ({"prompt_name": "cbe-open", "target": "12"}, "cbe"),
        ({"prompt_name": "cbe-open", "target": "Ab"}, "any"),
        ({"prompt_name": "unknown"}, "any"),
        ({}, "any"),
    ],
)
def test_label_spaces_inferred_for_rows_that_never_recorded_one(row, space):
    assert inferred_label_space(row) == space


def test_the_new_run_id_is_the_source_plus_the_rules_and_stays_within_128_characters():
    assert rescored_run_id(RUN) == RUN + rescored_suffix() == f"{RUN}-rules{RULES_VERSION}"
    long = "r" * 127
    new = rescored_run_id(long)
    assert len(new) <= 128 and new.endswith(rescored_suffix()) and new != rescored_run_id("r" * 126)


def test_rescore_run_counts_what_changed_and_keeps_the_source_named():
    old = [
        _row(0, Reply("12")),
        {
            **_row(1, Reply("12 or 17")),
            "parsed": "17",
            "parse_status": "ok",
            "correct": False,
            "rules_version": 1,
        },
        _row(2, Reply(None, error="x")),
    ]
    frame = pd.DataFrame(old)  # as a results frame hands rows over: NaN/NaT for nulls
    out = rescore_run(frame.to_dict("records"))
    assert out.source == RUN and out.run_id == rescored_run_id(RUN) and len(out.rows) == 3
    assert {r["rescored_from"] for r in out.rows} == {RUN} and {r["run_id"] for r in out.rows} == {out.run_id}
    assert len({r["row_key"] for r in out.rows}) == 3 and all(r["run_name"] is None for r in out.rows)
    assert out.changed == 1 and out.old_versions == {1, RULES_VERSION}
    assert sum(out.transitions.values()) == 1


def test_rescore_run_takes_one_run_and_at_least_one_row():
    with pytest.raises(ValueError, match="one run"):
        rescore_run([_row(0, Reply("12")), _row(1, Reply("12"), run="colorblindnesseval-ffffffffffff")])
    with pytest.raises(ValueError, match="at least one row"):
        rescore_run([])
