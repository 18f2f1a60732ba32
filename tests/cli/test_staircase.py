"""``plates staircase`` (`plates.cli.staircase`): the flags make the staircase (plates or illusion stimulus,
jitter, trials, range), each trial is reported as it is answered, the estimate is printed with what it
measures, and a missing prompt is refused. The observers are Python callables (the ``python`` backend) in
this file and `plates.models.simulated`, so nothing leaves the machine."""

from __future__ import annotations

import json

import pytest

from plates.cli import main
from plates.results import load_results


def same(image, question: str) -> str:
    """An observer of RCID comparisons that always sees the two targets equal (option III)."""
    assert "III. They are exactly same" in question
    return "III"


def _run(capsys, *argv: str) -> tuple[str, str]:
    assert main(["staircase", *argv]) == 0
    out = capsys.readouterr()
    return out.out, out.err


def test_a_plate_staircase_from_flags_reports_each_trial_and_the_threshold(tmp_path, capsys):
    out, err = _run(capsys, "--prompt", "huemanity-numeric", "--backend", "python",
                    "--model", "plates.models.simulated:ideal", "--palette", "huemanity-02", "--trials", "3",
                    "--size", "96", "--low", "1", "--high", "30", "--seed", "4", "--out", str(tmp_path))
    trials = [line for line in err.splitlines() if line.startswith("trial")]
    assert len(trials) == 3 and all(line.endswith(("-> correct", "-> wrong")) for line in trials)
    assert "threshold ΔE2000" in out and "after 3 answers, 3 queries (0 failed)" in out
    assert "stopped: max_trials (3) reached" in out and str(tmp_path) in out
    frame = load_results(tmp_path).frame
    assert len(frame) == 3 and set(frame["prompt_name"]) == {"huemanity-numeric"}
    assert set(frame["backend"]) == {"python"} and set(frame["model"]) == {"plates.models.simulated:ideal"}
    assert set(frame["colour_set"]) == {"huemanity-02"} and set(frame["size"]) == {96}
    levels = [float(line.split("ΔE2000")[1].split("->")[0]) for line in trials]
    assert all(1.0 <= level <= 30.0 for level in levels)


def test_jitter_reaches_the_plates_and_an_illusion_prompt_measures_a_pse(tmp_path, capsys):
    _run(capsys, "--prompt", "huemanity-numeric", "--backend", "python", "--model",
         "plates.models.simulated:ideal", "--jitter", "0.5", "--trials", "1", "--size", "96",
         "--out", str(tmp_path / "jitter"))
    spec = json.loads(load_results(tmp_path / "jitter").frame["spec_json"].iloc[0])
    plain_out = tmp_path / "plain"
    _run(capsys, "--prompt", "huemanity-numeric", "--backend", "python", "--model",
         "plates.models.simulated:ideal", "--trials", "1", "--size", "96", "--out", str(plain_out))
    plain = json.loads(load_results(plain_out).frame["spec_json"].iloc[0])
    assert {k: v for k, v in spec.items() if plain.get(k) != v}  # the jitter changed the plate's spec

    out, err = _run(capsys, "--prompt", "rcid-compare-human", "--backend", "python",
                    "--model", "tests.cli.test_staircase:same", "--kind", "whites", "--strength", "0.5",
                    "--trials", "2", "--size", "96", "--out", str(tmp_path / "illusion"))
    assert [line.split("-> ")[1] for line in err.splitlines() if line.startswith("trial")] == ["same", "same"]
    assert "PSE (signed ΔE2000, + = A lighter)" in out and "after 2 answers" in out
    frame = load_results(tmp_path / "illusion").frame
    stimulus = json.loads(frame["spec_json"].iloc[0])
    assert stimulus["kind"] == "whites" and stimulus["strength"] == 0.5 and stimulus["size"] == 96


def test_a_staircase_file_is_read_and_no_file_nor_prompt_is_refused(tmp_path, capsys):
    toml = tmp_path / "stair.toml"
    toml.write_text(f'prompt = "huemanity-numeric"\ntrials = 2\nout = "{tmp_path / "out"}"\n'
                    '[stimulus]\npalette = "huemanity-01"\nsize = 96\n'
                    '[[models]]\nbackend = "python"\nmodel = "plates.models.simulated:ideal"\n')
    out, _ = _run(capsys, str(toml))
    assert "after 2 answers" in out and len(load_results(tmp_path / "out").frame) == 2
    assert main(["staircase"]) == 2
    assert "give a staircase TOML file, or --prompt" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["staircase", "--trials", "many"])  # argparse refuses a non-integer
