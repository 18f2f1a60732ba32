"""``plates export`` (`plates.cli.export`): each target's flags, the summary it prints, the command quoted in
the dataset card, and missing or bad flags refused by name. What the exported files hold is tested with
their writers (tests/integrations/test_hf_dataset.py, test_lmms_eval.py, test_vlmevalkit.py)."""

from __future__ import annotations

import re

import pyarrow.parquet as pq
import pytest

from plates.cli import main

_QUICK = ["--dataset", "colorblindnesseval", "--prompt", "cbe-open", "--limit", "2"]


def test_export_without_a_target_prints_its_help_and_the_usage_status(capsys):
    assert main(["export"]) == 2
    out = capsys.readouterr().out
    assert all(target in out for target in ("hf", "lmms-eval", "vlmevalkit"))


@pytest.mark.parametrize("target", ["hf", "vlmevalkit"])
def test_out_is_required(target, capsys):
    assert main(["export", target, *_QUICK]) == 2
    assert "--out is required" in capsys.readouterr().err


def test_shard_size_must_be_a_positive_integer(tmp_path, capsys):
    assert main(["export", "hf", *_QUICK, "--shard-mb", "0", "--out", str(tmp_path / "hf")]) == 2
    err = capsys.readouterr().err
    assert "--shard-mb" in err and "0" in err
    assert not (tmp_path / "hf").exists()


def test_hf_export_prints_its_summary_and_quotes_the_command_in_the_card(tmp_path, capsys):
    out = tmp_path / "hf"
    argv = ["export", "hf", *_QUICK, "--out", str(out)]
    assert main(argv) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    match = re.fullmatch(r"exported (\d+) rows in (\d+) config\(s\) \(([\d.]+) MB of PNG\) to (.+)", line)
    assert match and match.group(2) == "1" and match.group(4) == str(out)
    shards = sorted(out.glob("data/*/*.parquet"))
    assert int(match.group(1)) == sum(pq.read_metadata(s).num_rows for s in shards) >= 1
    card = (out / "README.md").read_text()
    assert "plates export hf --dataset colorblindnesseval --prompt cbe-open --limit 2 --out" in card

    tasks = tmp_path / "tasks"
    assert main(["export", "lmms-eval", "--from", str(out), "--out", str(tasks), "--name", "mine"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("wrote lmms-eval group 'mine' (1 task(s): mine_")
    assert f"--tasks mine --include_path {tasks}" in printed and (tasks / "mine.yaml").exists()


def test_vlmevalkit_export_names_the_tsv_and_the_class_file(tmp_path, capsys):
    assert main(["export", "vlmevalkit", *_QUICK, "--out", str(tmp_path), "--name", "cbe"]) == 0
    printed = capsys.readouterr().out
    assert re.match(rf"wrote [1-9]\d* rows to {re.escape(str(tmp_path))}/cbe.tsv and the dataset class to ", printed)
    assert (tmp_path / "cbe.tsv").exists() and (tmp_path / "plates_dataset.py").exists()
