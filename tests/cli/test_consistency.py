"""`plates consistency` on real Parquet runs written by the results writer's part function."""

from __future__ import annotations

import json

from plates.analysis.consistency import TRIAL_KEY
from plates.cli import main
from plates.models.base import Reply
from plates.results import rows_to_table, write_part
from plates.runs.rows import Asked, build_row
from plates.tasks.prompts import render_prompt


def _run(folder, model, answers):
    rows = []
    for i, answer in enumerate(answers):
        q = render_prompt("cbe-open", "12", seed=i, label_space="cbe")
        asked = Asked(run_id=f"run-{model}", row_key=f"{model}-{i}", item_id=f"item-{i}", dataset="d", model=model,
                      backend="python", question=q, spec_json=json.dumps({"seed": i}), family="ishihara")
        rows.append(build_row(asked, Reply(answer)))
    folder.mkdir()
    write_part(rows_to_table(rows), folder / f"run-{model}-part.parquet")
    return folder


def test_two_runs(tmp_path, capsys):
    a = _run(tmp_path / "a", "obs-a", ["12", "12", "7", "7", "12"])
    b = _run(tmp_path / "b", "obs-b", ["12", "7", "7", "7", "12"])
    assert main(["consistency", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    # right/wrong: A 1 1 0 0 1, B 1 0 0 0 1: c_obs 0.8, p 0.6 and 0.4, c_exp 0.48, kappa 0.615
    assert "shared trials 5" in out and "c_obs 0.800" in out and "c_exp 0.480" in out and "kappa 0.615" in out
    assert "spec_json" in TRIAL_KEY


def test_errors_exit_2(tmp_path, capsys):
    a = _run(tmp_path / "a", "obs-a", ["12"])
    assert main(["consistency", str(a), str(tmp_path / "missing")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["consistency", str(a), str(a), "--model-b", "nobody"]) == 2
    assert "allowed: obs-a" in capsys.readouterr().err
