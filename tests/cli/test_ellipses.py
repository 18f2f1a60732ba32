"""`plates ellipses` end to end with a Python observer; bad input exits 2 before any trial."""

from __future__ import annotations

import pandas as pd

from plates.cli import main


def test_the_command_writes_rows_thresholds_and_ellipses(tmp_path, capsys):
    argv = ["ellipses", "--backend", "python", "--model", "plates.models.simulated:ideal", "--centres",
            "0.3,0.32", "--directions", "5", "--trials", "10", "--size", "256", "--out", str(tmp_path)]
    code = main(argv)
    assert code == 0
    out = capsys.readouterr().out
    assert "quantisation-limited" in out and "ellipses.parquet" in out and ": 50 queries this time" in out
    assert len(pd.read_parquet(tmp_path / "ellipses.parquet")) == 1
    assert len(pd.read_parquet(tmp_path / "thresholds.parquet")) == 5
    assert main(argv) == 0  # the same command again: the run is done, nothing is asked, the summaries stay
    assert ": 0 queries this time" in capsys.readouterr().out
    assert len(pd.read_parquet(tmp_path / "thresholds.parquet")) == 5


def test_bad_input_exits_2_naming_what_is_allowed(tmp_path, capsys):
    for argv, says in ((["--centres", "0.16,0.057"], "outside the sRGB gamut"),
                       (["--directions", "0"], "allowed: an integer in [3, 72] but 4"),
                       (["--trials", "2"], "allowed: an integer in [10, 2000] per direction"),
                       (["--backend", "python"], "needs --model")):
        base = ["ellipses", "--out", str(tmp_path / "x"), "--centres", "0.3,0.32"]
        if argv[0] != "--backend":
            base += ["--backend", "python", "--model", "plates.models.simulated:ideal"]
        assert main(base + argv) == 2
        assert says in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
