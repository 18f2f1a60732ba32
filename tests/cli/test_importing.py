"""``plates import`` (`plates.cli.importing`): a harness log named any way is one run, the summary line says
what was written, kept and skipped, and the flags each harness needs are required. The log is the real
inspect_ai ``.eval`` file in tests/integrations/data (what the importer reads of it: tests/integrations)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from plates.cli import main
from plates.results import load_results

LOG = Path(__file__).resolve().parents[1] / "integrations" / "data" / "inspect-0.3.285-plates.eval"
_SUMMARY = re.compile(r"^run (\S+): (\d+) rows written \((\d+) correct by our rules, (\d+) agreeing with the "
                      r"harness\), (\d+) already there, skipped: (.+); results in (.+)$")


def _summary(capsys) -> tuple[str, ...]:
    line = capsys.readouterr().out.strip().splitlines()[-1]
    match = _SUMMARY.match(line)
    assert match, line
    return match.groups()


def test_the_same_log_named_by_a_relative_or_an_absolute_path_imports_once(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(LOG.parent)
    assert main(["import", "inspect", LOG.name, "--out", str(tmp_path / "r")]) == 0
    assert "2 rows written" in capsys.readouterr().out
    assert main(["import", "inspect", str(LOG), "--out", str(tmp_path / "r")]) == 0
    assert "0 rows written" in capsys.readouterr().out and len(load_results([tmp_path / "r"]).frame) == 2


def test_the_summary_counts_what_was_written_and_what_was_there(tmp_path, capsys):
    assert main(["import", "inspect", str(LOG), "--out", str(tmp_path / "r")]) == 0
    run_id, written, correct, agree, existing, skipped, out = _summary(capsys)
    frame = load_results([tmp_path / "r"]).frame
    assert (int(written), int(existing), skipped, out) == (2, 0, "none", str(tmp_path / "r"))
    assert int(correct) == int(frame["correct"].sum())
    assert int(agree) == int((frame["correct"] == frame["harness_correct"]).sum())
    assert set(frame["run_id"]) == {run_id}
    assert main(["import", "inspect", str(LOG), "--out", str(tmp_path / "r")]) == 0
    again = _summary(capsys)
    assert again[0] == run_id and (again[1], again[4]) == ("0", "2")


def test_logs_given_in_any_order_are_one_run_and_another_log_is_another(tmp_path, capsys):
    a, b = tmp_path / "a.eval", tmp_path / "b.eval"
    shutil.copy(LOG, a)
    shutil.copy(LOG, b)
    assert main(["import", "inspect", str(a), str(b), "--out", str(tmp_path / "r1")]) == 0
    first = _summary(capsys)[0]
    assert main(["import", "inspect", str(b), str(a), "--out", str(tmp_path / "r2")]) == 0
    assert _summary(capsys)[0] == first
    assert main(["import", "inspect", str(a), "--out", str(tmp_path / "r3")]) == 0
    assert _summary(capsys)[0] != first  # a different set of logs: a different run


def test_each_harness_needs_its_flags(tmp_path, capsys):
    assert main(["import"]) == 2  # no harness: the help, and the usage error status
    assert "inspect" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:  # lmms-eval names rows by index: --data is required
        main(["import", "lmms-eval", str(tmp_path), "--out", str(tmp_path / "r")])
    assert exc.value.code == 2 and "--data" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["import", "inspect", str(LOG)])  # --out is required
    assert not (tmp_path / "r").exists()
