"""`plates serve-baseline` stops cleanly on Ctrl-C (exit 0, says it stopped), unlike an interrupted job."""

from __future__ import annotations

import pytest

from plates.cli import main
from plates.reader.server import BaselineServer


def test_ctrl_c_stops_the_server_with_exit_0(monkeypatch, capsys):
    def interrupted(self, poll_interval=0.5):
        raise KeyboardInterrupt

    monkeypatch.setattr(BaselineServer, "serve_forever", interrupted)
    assert main(["serve-baseline", "--port", "0"]) == 0
    out, err = capsys.readouterr()
    assert "stopped serving baseline-cnn at http://127.0.0.1:" in out
    assert "interrupted" not in err and "resume" not in err


def test_train_baseline_does_not_overwrite_the_shipped_weights_by_default(capsys, tmp_path):
    """Regression: `plates train-baseline` wrote into plates/assets/baseline/ by default."""
    from pathlib import Path

    from plates.cli import build_parser
    from plates.cli.baseline import ASSET_DIR

    args = build_parser().parse_args(["train-baseline"])
    assert Path(args.out).resolve() != ASSET_DIR
    before = {p.name: p.stat().st_mtime_ns for p in ASSET_DIR.iterdir()}
    assert main(["train-baseline", "--out", str(ASSET_DIR), "--n-train", "1", "--n-val", "1",
                 "--steps", "1"]) == 2
    err = capsys.readouterr().err
    assert "is the folder of the shipped weights" in err and "--replace-bundled" in err
    assert {p.name: p.stat().st_mtime_ns for p in ASSET_DIR.iterdir()} == before


def test_missing_extras_are_named_with_an_install_from_this_repository(monkeypatch):
    """Regression: the hint said `pip install "plates[hf]"`, but `plates` on PyPI is an unrelated package."""
    import sys

    from plates.install import extra_hint
    from plates.models import make_backend

    monkeypatch.setitem(sys.modules, "torch", None)  # as if torch were not installed
    with pytest.raises(ImportError) as info:
        make_backend("hf", model_id_or_path="x")
    message = str(info.value)
    assert 'pip install -e ".[hf]" from the root of a checkout of this repository' in message
    assert "plates[hf]" not in message and "unrelated" in message
    assert extra_hint("train").startswith('pip install -e ".[train]"')
    with pytest.raises(ValueError, match="extra 'gpu' is not known; allowed: hf, train, hub, inspect, export, space, ray, s3, dev"):
        extra_hint("gpu")


def test_train_baseline_help_states_the_recipe_s_defaults():
    """The CLI's stated defaults are TrainConfig's (the recipe's one home): they once disagreed with the README."""
    import dataclasses
    import re

    from plates.cli import build_parser
    from plates.reader.train import TrainConfig

    parser = build_parser()
    sub = next(a for a in parser._subparsers._group_actions if a.choices and "train-baseline" in a.choices)
    helps = {a.dest: a.help for a in sub.choices["train-baseline"]._actions}
    for f in dataclasses.fields(TrainConfig):
        if f.name in helps and helps[f.name] and "(default: " in helps[f.name]:
            stated = re.search(r"\(default: ([^;)]+)", helps[f.name]).group(1)
            if stated.split()[0].replace(".", "").isdigit() or f.name == "mode":
                assert stated.split()[0] == str(f.default), f.name
    assert "(default: " + ",".join(map(str, TrainConfig.render_sizes)) + ")" in helps["render_sizes"]


def test_train_baseline_refuses_render_sizes_that_are_not_a_list_of_sizes(capsys):
    from plates.cli import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["train-baseline", "--render-sizes", "192,big"])
    assert "'192,big' is not a comma-separated list of whole px sizes; allowed: e.g. 192,256,384,512" in \
        capsys.readouterr().err
