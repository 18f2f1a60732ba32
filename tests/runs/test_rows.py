"""The one results-row builder (`plates.runs.rows.build_row`): a scored reply, a failed request, a declined query,
secrets redacted from every text column, the one schema's columns, the family's grouping in ``group`` and
``colour_set``, and a row that Parquet takes as it is."""

from __future__ import annotations

import pyarrow as pa
import pytest

from plates.models.base import Reply
from plates.results.schema import SCHEMA
from plates.runs.rows import Asked, build_row
from plates.tasks.answers import RULES_VERSION
from tests.support.result_rows import plate_asked

KEY = "sk-rows-5ecret-0123456789abcdef"


def _asked(**kw) -> Asked:
    fields = {
        "run_id": "colorblindnesseval-00rows000000",
        "row_key": "key-1",
        "item_id": "item-1",
        "group": "protan-1",
        **kw,
    }
    return plate_asked(3, **fields)


def test_a_reply_is_scored_by_the_questions_task_and_every_column_is_there():
    asked = _asked()
    row = build_row(asked, Reply("The number is 12.", latency_s=0.5, prompt_tokens=40, completion_tokens=5))
    assert set(row) == set(SCHEMA.names)
    assert (row["parsed"], row["parse_status"], row["correct"]) == ("12", "ok", True)
    assert row["target"] == "12" and (row["task"], row["prompt_name"]) == (asked.question.task, "cbe-open")
    assert row["rules_version"] == RULES_VERSION and row["decided_by"] == "rules"
    assert row["reply_truncated"] is False and row["error"] is None
    assert (row["latency_s"], row["prompt_tokens"], row["completion_tokens"]) == (0.5, 40, 5)


def test_a_wrong_reply_is_scored_wrong_and_kept_whole():
    row = build_row(_asked(), Reply("I see 17 in the dots."))
    assert (row["parsed"], row["correct"]) == ("17", False)
    assert row["reply"] == "I see 17 in the dots."


def test_a_failed_request_keeps_its_error_and_scores_nothing():
    row = build_row(_asked(), Reply(None, error="HTTP 500 from the server", attempts=3))
    assert (row["reply"], row["parsed"], row["correct"], row["parse_status"]) == (None, None, None, "error")
    assert row["error"] == "HTTP 500 from the server" and row["attempts"] == 3
    assert build_row(_asked(), Reply(None, error=None))["error"] == "no reply text"


def test_a_declined_query_is_unsupported_not_wrong():
    row = build_row(_asked(), Reply(None, error="this backend reads no yes/no questions", unsupported=True))
    assert (row["parse_status"], row["correct"], row["parsed"]) == ("unsupported", None, None)


def test_secrets_are_redacted_from_reply_error_and_settings():
    reply = Reply(f"key {KEY} says 12", settings={"api_key_seen": KEY, "temperature": 0})
    row = build_row(_asked(), reply, secrets=[KEY, None])
    failed = build_row(_asked(), Reply(None, error=f"401 for key {KEY}"), secrets=[KEY])
    for text in (row["reply"], row["generation_json"], failed["error"]):
        assert KEY not in text
    assert row["parsed"] == "12"


@pytest.mark.parametrize(
    ("family", "group", "colour_set"),
    [("ishihara", "protan-1", "protan-1"), ("illusions", "simultaneous-contrast", None)],
)
def test_group_is_the_familys_grouping_and_colour_set_only_a_plates(family, group, colour_set):
    row = build_row(_asked(family=family, group=group), Reply("12"))
    assert (row["group"], row["colour_set"], row["family"]) == (group, colour_set, family)


def test_condition_columns_are_recorded_and_a_normal_view_has_no_severity():
    row = build_row(
        _asked(cvd="none", cvd_severity=0.7, grayscale=1, hue_shift=30, shots=2, size=512), Reply("12")
    )
    assert (
        row["cvd"],
        row["cvd_severity"],
        row["grayscale"],
        row["hue_shift"],
        row["shots"],
        row["size"],
    ) == ("none", 0.0, True, 30.0, 2, 512)
    assert build_row(_asked(cvd="protan", cvd_severity=0.7), Reply("12"))["cvd_severity"] == 0.7


def test_rows_make_a_table_of_the_one_schema():
    rows = [
        build_row(_asked(row_key=f"k{i}", item_id=f"i{i}"), Reply(text))
        for i, text in enumerate(["12", "17", None])
    ]
    table = pa.Table.from_pylist(rows, schema=SCHEMA)
    assert table.num_rows == 3 and table.column("correct").to_pylist() == [True, False, None]
