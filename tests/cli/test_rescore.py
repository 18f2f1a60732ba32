"""`plates rescore`: stored replies judged again under today's rules, on real Parquet parts written as a run
before rows recorded the rules' version (no rules_version, label_space, reply_truncated columns; the old
verdicts the plate scorer gave)."""

from __future__ import annotations

import pytest

from plates.cli import main
from plates.models.base import Reply
from plates.results import load_results, rows_to_table, write_part
from plates.runs.rescore import rescore_run, rescored_run_id
from plates.runs.rows import build_row
from plates.tasks.answers import RULES_VERSION
from plates.tasks.prompts import render_prompt
from tests.support.result_rows import plate_asked

RUN = "colorblindnesseval-0123456789ab"
NEW_COLUMNS = ["rules_version", "label_space", "reply_truncated", "rescored_from"]


def _row(i: int, prompt: str, reply: Reply, old: tuple | None) -> dict:
    row = build_row(plate_asked(i, prompt, run_id=RUN), reply)
    if old is not None:  # what the rules before version 1 said
        row.update(zip(("parsed", "parse_status", "correct", "failure_mode"), old, strict=True))
    return row


def _old_run(folder):
    """Five rows as the old plate scorer judged them, in a Parquet file without the new columns."""
    mc = render_prompt("colorbench-mc", "12", seed=0, label_space="cbe")
    right, wrong = mc.expected, next(k for k in mc.options if k != mc.expected)
    both = f"({wrong}) or ({right})"
    rows = [
        _row(0, "colorbench-mc", Reply(both), (right, "ok", True, None)),  # the old "(X)" rule: the last one
        _row(1, "cbe-open", Reply("12 or 17"), (None, "unparsed", False, "erratic")),
        _row(2, "cbe-open", Reply("12"), ("12", "ok", True, None)),
        _row(3, "cbe-open", Reply(None, error="HTTP 500"), None),
        _row(4, "cbe-open", Reply("7" * 4400), None),  # the old rules raised here: never stored; now stored
    ]
    rows[4].update(parsed="7" * 4400, parse_status="ok", correct=False, failure_mode="erratic")
    table = rows_to_table(rows).drop_columns(NEW_COLUMNS)
    write_part(table, folder / f"{RUN}-part.parquet")
    return rows


def test_old_files_without_the_column_read_as_unversioned(tmp_path):
    _old_run(tmp_path)
    frame = load_results(tmp_path).frame
    assert list(frame["rules_version"]) == [0] * 5
    assert frame["label_space"].isna().all()


def test_rescore_judges_old_rows_under_todays_rules_as_a_new_run(tmp_path, capsys):
    _old_run(tmp_path)
    assert main(["rescore", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    frame = load_results(tmp_path).frame
    new = frame[frame["run_id"] == rescored_run_id(RUN)].sort_values("item_id")
    old = frame[frame["run_id"] == RUN].sort_values("item_id")
    assert len(new) == len(old) == 5 and set(new["row_key"]).isdisjoint(old["row_key"])
    assert set(new["rules_version"]) == {RULES_VERSION} and set(new["rescored_from"]) == {RUN}
    assert list(new["parse_status"]) == ["ambiguous", "ambiguous", "ok", "error", "unparsed"]
    assert list(new["correct"].astype(object)) == [False, False, True, None, False]
    assert list(new["reply"]) == list(old["reply"])  # the stored replies, no model asked
    assert set(new["label_space"].dropna()) == {"cbe"}
    assert f"{RUN} (rules 0) -> {rescored_run_id(RUN)} (rules {RULES_VERSION}): 5 rows, 3 verdicts changed" in printed
    assert "label space inferred for 4 rows" in printed
    assert "colorbench-mc: 1 of 1 verdicts changed; correct 1 -> 0" in printed
    assert "cbe-open: 2 of 4 verdicts changed; correct 1 -> 1" in printed
    assert "parse status ok -> ambiguous: 1" in printed and "parse status unparsed -> ambiguous: 1" in printed
    assert "parse status ok -> unparsed: 1" in printed
    # Again: the source run is already rescored, the new run is already under today's rules.
    assert main(["rescore", str(tmp_path)]) == 0
    again = capsys.readouterr().out
    assert "0 run(s) rescored" in again and "already" in again
    assert len(load_results(tmp_path).frame) == 10


def test_rescore_writes_under_out_and_never_mixes_versions_in_a_run(tmp_path, capsys):
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    rows = _old_run(src)
    # one row of the same run already judged under today's rules (a resumed run): the run is rescored whole
    table = rows_to_table([{**rows[2], "row_key": "key-new"}])
    write_part(table, src / f"{RUN}-later.parquet")
    assert main(["rescore", str(src), "--out", str(out)]) == 0
    written = load_results(out).frame
    assert set(written["run_id"]) == {rescored_run_id(RUN)} and len(written) == 6
    assert set(written["rules_version"]) == {RULES_VERSION}
    assert f"(rules 0, {RULES_VERSION})" in capsys.readouterr().out
    assert len(load_results(src).frame) == 6  # the source is left as it was


def test_rescore_refuses_what_it_cannot_read(tmp_path, capsys):
    assert main(["rescore", str(tmp_path / "missing")]) == 2
    assert "does not exist" in capsys.readouterr().err
    with pytest.raises(ValueError, match="one run's rows"):
        rescore_run([{"run_id": "a"}, {"run_id": "b"}])


def test_the_versions_present_are_reported_from_a_frame_and_from_duckdb(tmp_path, capsys):
    from plates.results.query import open_results
    from plates.results.versions import mixed_rules_note, rules_versions

    _old_run(tmp_path)
    assert rules_versions(load_results(tmp_path).frame) == {0: 5}
    assert mixed_rules_note(rules_versions(load_results(tmp_path).frame)) is None
    assert main(["rescore", str(tmp_path)]) == 0
    both = {0: 5, RULES_VERSION: 5}
    assert rules_versions(load_results(tmp_path).frame) == both
    assert rules_versions(open_results(tmp_path)) == both
    note = mixed_rules_note(both)
    assert "2 versions" in note and "unversioned" in note and f"v{RULES_VERSION}: 5 rows" in note
    with pytest.raises(ValueError, match="results DataFrame or opened Results"):
        rules_versions([1, 2])


def test_rescore_checks_the_judge_flags(tmp_path, capsys):
    _old_run(tmp_path)
    code = main(["rescore", str(tmp_path), "--judge-all"])
    assert code == 2 and "--judge-all need --judge MODEL" in capsys.readouterr().err
    code = main(["rescore", str(tmp_path), "--judge", "j", "--judge-api-key-env", "PLATES_NOT_SET_JUDGE_KEY"])
    assert code == 2 and "PLATES_NOT_SET_JUDGE_KEY" in capsys.readouterr().err
    assert set(load_results(tmp_path).frame["run_id"]) == {RUN}  # nothing written


def test_old_files_without_the_judge_columns_read_as_decided_by_the_rules(tmp_path):
    from plates.results.query import open_results

    rows = _old_run(tmp_path / "new")
    judge_columns = [c for c in rows[0] if c.startswith(("rules_parse", "rules_correct", "judge_"))]
    table = rows_to_table(rows).drop_columns([*NEW_COLUMNS, *judge_columns, "decided_by"])
    write_part(table, tmp_path / f"{RUN}-part.parquet")
    frame = load_results(tmp_path / f"{RUN}-part.parquet").frame
    assert list(frame["decided_by"]) == ["rules"] * 5 and frame["judge_status"].isna().all()
    results = open_results(tmp_path / f"{RUN}-part.parquet")  # DuckDB reads the default as load_results does
    try:
        shown = results.query("SELECT decided_by, count(judge_model) AS judged, count(*) AS n FROM results GROUP BY ALL")
    finally:
        results.close()
    assert shown.to_dict("records") == [{"decided_by": "rules", "judged": 0, "n": 5}]


def test_rescore_changes_the_verdict_of_an_a_read_as_an_article(tmp_path, capsys):
    # Rules 1 skipped a sentence-initial "A" as an article and took the last other capital (B); today's rules
    # read "A is ..." as the key, the way BLINK's released replies write it ("A is closer. Point A is closer to
    # the camera than point B.</s>", blink/cogvlm-chat/val_Relative_Depth_1).
    q = render_prompt("colorbench-mc", "12", seed=1, label_space="cbe")
    assert q.expected == "A"
    asked = plate_asked(1, "colorbench-mc", run_id=RUN, row_key="key-a", item_id="item-a")
    assert asked.question == q
    row = build_row(asked, Reply("A is the number in the plate. B is a distractor.</s>"))
    row.update(parsed="B", parse_status="ok", correct=False, failure_mode=None, rules_version=1)  # as rules 1 read it
    write_part(rows_to_table([row]), tmp_path / f"{RUN}-part.parquet")
    assert main(["rescore", str(tmp_path)]) == 0
    assert f"{RUN} (rules 1) -> {rescored_run_id(RUN)} (rules {RULES_VERSION}): 1 rows, 1 verdicts changed" in (
        capsys.readouterr().out)
    frame = load_results(tmp_path).frame
    new = frame[frame["run_id"] == rescored_run_id(RUN)].iloc[0]
    assert (new["parsed"], new["parse_status"], bool(new["correct"]), int(new["rules_version"])) == (
        "A", "ok", True, RULES_VERSION)
