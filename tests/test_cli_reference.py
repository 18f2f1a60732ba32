"""``plates reference`` (plates/cli/reference.py): build, list and show the papers' tables from the console."""

from __future__ import annotations

import io

import pandas as pd

from plates.cli import main
from plates.results.reference import SRC_DIR, TABLES


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
    assert "unknown paper 'Ishihara'; allowed: ColorBlindnessEval" in capsys.readouterr().err


def test_build_writes_every_table(tmp_path, capsys):
    assert main(["reference", "build", "--src", str(SRC_DIR), "--out", str(tmp_path)]) == 0
    assert sorted(p.stem for p in tmp_path.glob("*.parquet")) == sorted(TABLES)
