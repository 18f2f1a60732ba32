"""``plates reference`` (plates/cli/reference.py): build, list and show the papers' tables from the console."""

from __future__ import annotations

import io

import pandas as pd

from plates.cli import main
from plates.results.reference import SRC_DIR, TABLES
from tests.support import ROOT


def test_list_names_every_table_with_its_rows(capsys):
    assert main(["reference", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(TABLES)
    assert "ColorBench Table 1\t417" in lines and "RCID Table 1\t24" in lines


def test_show_prints_one_table_as_csv(capsys):
    assert main(["reference", "show", "--paper", "HueManity", "--table", "Table 5"]) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert len(frame) == 24 and set(frame["size"]) == {300, 500, 700, 900, 1100, 1300}


def test_bad_paper_is_a_clear_error(capsys):
    assert main(["reference", "show", "--paper", "Ishihara"]) == 2
    assert "paper 'Ishihara' is not known; allowed: ColorBlindnessEval" in capsys.readouterr().err


def test_build_writes_every_table(tmp_path, capsys):
    assert main(["reference", "build", "--src", str(SRC_DIR), "--out", str(tmp_path)]) == 0
    assert sorted(p.stem for p in tmp_path.glob("*.parquet")) == sorted(TABLES)


def test_paper_and_table_names_are_taken_in_any_case(capsys):
    """Regression: `--paper huemanity` was refused (only `HueManity`)."""
    assert main(["reference", "show", "--paper", "huemanity", "--table", "table 5"]) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert len(frame) == 24 and set(frame["paper"]) == {"HueManity"}


def test_a_closed_pipe_ends_quietly(tmp_path):
    """Regression: `plates reference show | head` read as a file error. A real pipe whose reader stops after one
    line (the whole output is larger than a pipe's buffer, so the writer does meet the closed end)."""
    import os
    import subprocess
    import sys

    root = ROOT
    proc = subprocess.Popen([sys.executable, "-m", "plates.cli", "reference", "show"], cwd=root,
                            env={**os.environ, "PYTHONPATH": str(root)}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout.readline().startswith(b"source,paper,table")
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=120) == 141  # 128 + SIGPIPE, as `yes | head` leaves
    assert err == ""
