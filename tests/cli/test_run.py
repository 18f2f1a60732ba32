"""`plates run` and `plates prompts` against the loopback chat server (tests/support/chat_server.py): as real
subprocesses where the process matters (kill -9 mid-run then resume, API-key secrecy in everything a process
prints, exit statuses), in this process through the same `plates.cli.main` where only the clear errors of bad
input are checked (a subprocess there cost about a second of start-up each and checked nothing more)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from plates.cli import main
from plates.results import load_results
from tests.support import ROOT
from tests.support.chat_server import ChatServer, Fault, image_urls

SECRET = "sk-plates-test-5ecret-9f8e7d6c5b4a"


def _plates(*args, env=None, timeout=120):
    """Run `plates ...` in a subprocess; returns the CompletedProcess (text)."""
    full_env = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
    return subprocess.run([sys.executable, "-m", "plates.cli", *map(str, args)], capture_output=True, text=True,
                          check=False, env=full_env, cwd=ROOT, timeout=timeout)


def _main(capsys, *args) -> tuple[int, str, str]:
    """`plates ...` in this process, through the `main` that `python -m plates.cli` exits with (argparse's own
    exits caught): exit status, stdout, stderr."""
    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def _quick(url, out, *extra):
    return ["run", "--dataset", "huemanity-numeric", "--prompt", "huemanity-numeric", "--model", "test-model",
            "--base-url", url, "--size", "64", "--out", out, *extra]


def _dead_url() -> str:
    with socket.socket() as s:  # a port nobody listens on any more
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_prompts_lists_every_prompt(capsys):
    from plates.tasks.prompts import PROMPTS

    code, out, err = _main(capsys, "prompts")
    assert code == 0, err
    for name, template in PROMPTS.items():
        line = next(line for line in out.splitlines() if line.startswith(name + " "))
        assert template.kind in line and template.label_space in line and template.variant in line


@pytest.mark.slow
def test_quick_run_then_rerun_asks_nothing_new(tmp_path):
    with ChatServer(answer=lambda body: "12") as server:
        first = _plates(*_quick(server.url, tmp_path, "--no-api-key", "--limit", "3"))
        assert first.returncode == 0, first.stderr
        assert "3 rows written" in first.stdout and server.count == 3
        assert "3/3" in first.stderr  # the progress bar: done/total
        again = _plates(*_quick(server.url, tmp_path, "--no-api-key", "--limit", "3"))
        assert again.returncode == 0 and "0 rows written" in again.stdout and "3 already there" in again.stdout
        assert server.count == 3
    assert len(load_results(tmp_path).frame) == 3


_KILL_TOML = """
seed = 0
prompts = ["huemanity-numeric", "colorbench-mc"]
out = "{out}"
[dataset]
source = "huemanity-numeric"
limit = 8
[conditions]
sizes = [64]
grayscale = [false, true]
[[models]]
backend = "openai"
model = "test-model"
base_url = "{url}"
api_key_env = false
concurrency = {concurrency}
"""


@pytest.mark.slow
def test_kill_9_mid_run_then_rerun_loses_only_in_flight_and_never_duplicates(tmp_path):
    concurrency, planned = 2, 8 * 2 * 2
    out = tmp_path / "out"
    with ChatServer(answer=lambda body: "12", delay=0.15) as server:
        exp = tmp_path / "kill.toml"
        exp.write_text(_KILL_TOML.format(out=out, url=server.url, concurrency=concurrency))
        cmd = [sys.executable, "-m", "plates.cli", "run", str(exp), "--no-progress"]
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and not (server.count >= 10 and list(out.glob("*.parquet"))):
                time.sleep(0.02)
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        asked_before_kill = server.count
        assert 0 < asked_before_kill < planned, "the kill must land mid-run"
        survived = load_results(out)
        assert survived.skipped == [] and survived.frame["row_key"].is_unique
        assert len(survived.frame) >= asked_before_kill - 3 * concurrency  # lost at most what was in flight
        server.delay = 0.0
        rerun = _plates("run", exp, "--no-progress")
        assert rerun.returncode == 0, rerun.stderr
    frame = load_results(out).frame
    assert len(frame) == planned and frame["row_key"].is_unique
    assert frame[["item_id", "prompt_name", "grayscale"]].drop_duplicates().shape[0] == planned
    assert server.count - planned <= 3 * concurrency  # asked twice: only what was in flight at the kill
    assert not list(out.glob(".*.tmp"))  # no temporaries left behind


@pytest.mark.slow
def test_api_key_never_appears_in_output_or_files(tmp_path):
    env = {"PLATES_TEST_SECRET": SECRET}
    seen = []

    def faults(n, body):
        seen.append(n)
        if n % 5 == 1:
            return Fault.http(429, retry_after=0.05)
        if int.from_bytes(image_urls(body)[0].encode()[-40:], "big") % 3 == 0:
            return Fault.http(500, message=f"server error; your key was {SECRET}")  # a careless server echoes it
        return None

    outputs = []
    with ChatServer(answer=lambda body: "12", api_key=SECRET, faults=faults) as server:
        ok = _plates(*_quick(server.url, tmp_path, "--api-key-env", "PLATES_TEST_SECRET", "--limit", "4",
                             "--timeout", "2", "--max-attempts", "2"), env=env)
        outputs += [ok.stdout, ok.stderr]
        assert ok.returncode == 0, ok.stderr
        wrong = _plates(*_quick(server.url, tmp_path, "--api-key-env", "PLATES_TEST_SECRET", "--limit", "6"),
                        env={"PLATES_TEST_SECRET": SECRET[::-1]})  # the server refuses it: 401
        outputs += [wrong.stdout, wrong.stderr]
        assert wrong.returncode == 3 and "keeps failing" in wrong.stderr
    dead = _plates(*_quick(_dead_url(), tmp_path, "--api-key-env", "PLATES_TEST_SECRET", "--limit", "6",
                           "--max-attempts", "1"), env=env)
    outputs += [dead.stdout, dead.stderr]
    assert dead.returncode == 3
    frame = load_results(tmp_path).frame
    assert len(frame) == 4 and len(seen) > 4  # every item recorded, some requests failed first
    errors = frame[frame["parse_status"] == "error"]
    assert errors["error"].str.contains("your key was ***", regex=False).any()  # the server's echo, redacted
    for text in outputs:
        assert SECRET not in text and SECRET[::-1] not in text
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert files
    for path in files:
        data = path.read_bytes()
        assert SECRET.encode() not in data and SECRET[::-1].encode() not in data, path


@pytest.mark.slow
def test_unreachable_server_exits_non_zero_and_keeps_written_parts(tmp_path):
    with ChatServer(answer=lambda body: "12") as server:
        assert _plates(*_quick(server.url, tmp_path, "--no-api-key", "--limit", "2")).returncode == 0
    before = sorted(p.name for p in tmp_path.glob("*.parquet"))
    done = _plates(*_quick(_dead_url(), tmp_path, "--no-api-key", "--limit", "4", "--max-attempts", "1"))
    assert done.returncode == 3
    assert "keeps failing" in done.stderr and "rerun the same command" in done.stderr
    assert "Traceback" not in done.stderr and "stopped: stopping" not in done.stderr
    assert sorted(p.name for p in tmp_path.glob("*.parquet")) == before
    assert len(load_results(tmp_path).frame) == 2


def test_missing_key_names_the_variable(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("PLATES_NOT_SET_KEY", raising=False)
    code, _, err = _main(capsys, *_quick("http://127.0.0.1:9/v1", tmp_path, "--api-key-env", "PLATES_NOT_SET_KEY",
                                         "--limit", "1"))
    assert code == 2 and "PLATES_NOT_SET_KEY" in err and "Traceback" not in err
    assert not list(tmp_path.glob("*.parquet"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--backend", "opneai"], "--backend 'opneai' is not known; allowed: openai, hf, baseline, reference-pixels, python; did you mean "
                                  "'openai'?"),
        (["--prompt", "cbe-opn"], "'cbe-opn' is not known; allowed: cbe-open"),
        (["--dataset", "no-such-preset"], "is neither a preset"),
    ],
)
def test_unknown_backend_prompt_or_dataset_is_a_clear_error(tmp_path, capsys, args, message):
    base = {"--backend": "openai", "--prompt": "cbe-open", "--dataset": "colorblindnesseval"}
    base.update(dict(zip(args[::2], args[1::2])))
    cmd = ["run", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--no-api-key", "--out", tmp_path,
           *[x for pair in base.items() for x in pair]]
    code, _, err = _main(capsys, *cmd)
    assert code == 2 and message in err and "Traceback" not in err


@pytest.mark.slow
def test_malformed_toml_and_bad_fields_are_named(tmp_path, capsys):
    broken = tmp_path / "broken.toml"
    broken.write_text('prompts = ["cbe-open"\n')
    code, _, err = _main(capsys, "run", broken)
    assert code == 2 and "broken.toml" in err and "not valid TOML" in err
    bad = tmp_path / "bad.toml"
    bad.write_text('prompts = ["cbe-open"]\ndataset = "colorblindnesseval"\n[[models]]\nbackend = "openai"\n'
                   'model = "a"\n[[models]]\nbackend = "opneai"\nmodel = "b"\n')
    code, _, err = _main(capsys, "run", bad)
    assert code == 2 and "models[1].backend 'opneai' is not known; allowed: openai, hf, baseline, reference-pixels, python; did you mean 'openai'?" in err
    code, _, err = _main(capsys, "run", bad, "--model", "x")
    assert code == 2 and "cannot be combined" in err
    code, _, err = _main(capsys, "run", "--dataset", "colorblindnesseval")
    assert code == 2 and "missing: --prompt, --model, --out" in err


@pytest.mark.slow
def test_a_generated_folder_runs_from_a_toml_with_a_relative_path(tmp_path):
    from plates.datasets import generate, load_dataset

    generate("huemanity-numeric", tmp_path / "data", limit=3, size=64, workers=1, progress=False)
    items = load_dataset(tmp_path / "data")
    (tmp_path / "exp.toml").write_text(
        'prompts = ["huemanity-numeric"]\nout = "results"\n[dataset]\nsource = "data"\n'
        '[[models]]\nbackend = "openai"\nmodel = "test-model"\nbase_url = "{url}"\napi_key_env = false\n'
    )
    with ChatServer(answer=lambda body: "Answer: 12") as server:
        text = (tmp_path / "exp.toml").read_text().replace("{url}", server.url)
        (tmp_path / "exp.toml").write_text(text)
        done = _plates("run", tmp_path / "exp.toml", "--no-progress")
        assert done.returncode == 0, done.stderr
    frame = load_results(tmp_path / "results").frame
    assert sorted(frame["item_id"]) == sorted(item.item_id for item in items)
    assert set(frame["size"]) == {64} and (frame["parsed"] == "12").all()


def test_quick_run_with_a_users_prompt_file(tmp_path, capsys):

    if True:
        (tmp_path / "mine.toml").write_text('[[prompt]]\nname = "my-open"\nkind = "open"\n'
                                            'label_space = "cbe"\ntemplate = "Which number do you see?"\n')
        code = main(["run", "--dataset", "colorblindnesseval", "--prompt", "my-open", "--prompt-file",
                     str(tmp_path / "mine.toml"), "--backend", "baseline", "--model", "baseline-cnn",
                     "--limit", "2", "--size", "128", "--no-progress", "--out", str(tmp_path / "out")])
        assert code == 0, capsys.readouterr().err
        frame = load_results(tmp_path / "out").frame
        assert list(frame["prompt_name"]) == ["my-open"]
        assert list(frame["prompt_text"]) == ["Which number do you see?"]
        assert list(frame["task"]) == ["plate-open"] and list(frame["family"]) == ["ishihara"]


def test_the_baseline_backend_needs_no_model_name(tmp_path, capsys):
    """Regression: `plates run --backend baseline` insisted on --model although the backend has one model."""

    code = main(["run", "--dataset", "colorblindnesseval", "--prompt", "cbe-open", "--backend", "baseline",
                 "--limit", "2", "--size", "128", "--no-progress", "--out", str(tmp_path / "out")])
    assert code == 0, capsys.readouterr().err
    frame = load_results(tmp_path / "out").frame
    # CBE's first two items are one plate's standard and clear images: cbe-open asks the standard one
    assert set(frame["model"]) == {"baseline-cnn"} and len(frame) == 1
    assert main(["run", "--dataset", "colorblindnesseval", "--prompt", "cbe-open", "--backend", "openai",
                 "--out", str(tmp_path / "x")]) == 2  # an API backend still needs its model's name
    assert "missing: --model" in capsys.readouterr().err


def test_out_help_names_no_default_that_does_not_exist(capsys):
    """Regression: --out's help promised a default (results/runs) that a quick run does not have."""
    from plates.cli import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "required for a quick run" in text and "else results/runs" not in text


def test_limit_0_is_refused_alike_by_run_and_generate(tmp_path, capsys):
    """Regression: `plates generate --limit 0` succeeded (an empty set) while `plates run --limit 0` failed."""

    assert main(["run", "--dataset", "colorblindnesseval", "--prompt", "cbe-open", "--backend", "baseline",
                 "--limit", "0", "--out", str(tmp_path / "r")]) == 2
    run_err = capsys.readouterr().err
    assert main(["generate", "--preset", "colorblindnesseval", "--limit", "0",
                 "--out", str(tmp_path / "g")]) == 2
    generate_err = capsys.readouterr().err
    assert "--limit 0 is not allowed; expected an integer >= 1" in run_err
    assert generate_err.replace("generate", "run") == run_err
    assert not (tmp_path / "g").exists()


def test_local_model_flags_reach_hf_models_only_and_keep_the_run_id(tmp_path, capsys):
    """--device, --dtype and --batch-size (README: running a local model from the CLI) are operational options
    of hf models: they reach the backend's options and leave the run id alone."""
    from plates.cli import build_parser, main
    from plates.cli.run import build_experiment

    quick = ["run", "--dataset", "huemanity-numeric", "--prompt", "huemanity-numeric", "--backend", "hf",
             "--model", "org/m", "--out", str(tmp_path)]
    plain = build_experiment(build_parser().parse_args(quick))
    local = build_experiment(build_parser().parse_args(
        [*quick, "--device", "cuda:1", "--dtype", "bfloat16", "--batch-size", "16"]))
    assert local.models[0].options == {"device": "cuda:1", "dtype": "bfloat16", "batch_size": 16}
    assert local.run_id == plain.run_id
    toml = tmp_path / "exp.toml"
    toml.write_text('prompts = ["cbe-open"]\ndataset = "colorblindnesseval"\n[[models]]\nbackend = "hf"\n'
                    'model = "org/a"\n[[models]]\nbackend = "baseline"\nmodel = "baseline-cnn"\n')
    from_file = build_experiment(build_parser().parse_args(["run", str(toml), "--device", "cpu"]))
    assert [m.options for m in from_file.models] == [{"device": "cpu"}, {}]
    assert main(["run", "--dataset", "colorblindnesseval", "--prompt", "cbe-open", "--backend", "baseline",
                 "--device", "cpu", "--out", str(tmp_path)]) == 2
    assert "--device apply to local Hugging Face models only" in capsys.readouterr().err
    assert main([*quick, "--dtype", "int4"]) == 2
    assert "--dtype 'int4' is not allowed; allowed: auto, bfloat16" in capsys.readouterr().err
    spread = build_experiment(build_parser().parse_args([*quick, "--device-map", "auto", "--trust-remote-code"]))
    assert spread.models[0].options == {"device_map": "auto", "trust_remote_code": True}
    assert spread.run_id == plain.run_id and plain.models[0].options == {}  # remote code: never by default
    assert main([*quick, "--device-map", "auto", "--device", "cpu"]) == 2
    assert "give --device or --device-map, not both" in capsys.readouterr().err
    assert main([*quick, "--device-map", "everywhere"]) == 2
    assert "--device-map 'everywhere' is not allowed; allowed: auto, balanced" in capsys.readouterr().err


@pytest.mark.slow  # imports torch + transformers and builds a tiny LLaVA offline (tests/support/tiny_vlm.py)
def test_a_local_model_runs_from_the_command_line(tmp_path, capsys):
    pytest.importorskip("transformers")
    from tests.support.tiny_vlm import build_tiny_vlm

    path = build_tiny_vlm(tmp_path / "tiny-llava", arch="llava", seed=0)
    code = main(["run", "--dataset", "colorblindnesseval", "--prompt", "cbe-open", "--backend", "hf",
                 "--model", str(path), "--device", "cpu", "--dtype", "float32", "--batch-size", "2",
                 "--limit", "4", "--size", "64", "--no-progress", "--out", str(tmp_path / "out")])
    assert code == 0, capsys.readouterr().err
    frame = load_results(tmp_path / "out").frame
    assert len(frame) == 2 and set(frame["backend"]) == {"hf"} and frame["error"].isna().all()


def test_a_failed_start_leaves_no_empty_folder_or_lock(tmp_path):
    """The README's OpenAI tour without a key stopped before asking anything but left the --out folder (and
    its parents) behind with a stale .lock inside."""
    env = {k: v for k, v in os.environ.items() if k != "PLATES_NOT_SET_KEY"}
    out = tmp_path / "new" / "run"
    done = subprocess.run([sys.executable, "-m", "plates.cli", *_quick("http://127.0.0.1:9/v1", out,
                           "--api-key-env", "PLATES_NOT_SET_KEY", "--limit", "1")],
                          capture_output=True, text=True, check=False, env=env, cwd=ROOT, timeout=120)
    assert done.returncode == 2 and "PLATES_NOT_SET_KEY" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_failed_start_keeps_a_folder_that_holds_results(tmp_path, capsys):

    base = ["run", "--dataset", "colorblindnesseval", "--prompt", "cbe-open", "--size", "64", "--limit", "2",
            "--no-progress", "--out", str(tmp_path / "out")]
    assert main([*base, "--backend", "baseline"]) == 0
    kept = sorted(p.name for p in (tmp_path / "out").iterdir())
    env_key = "PLATES_NOT_SET_KEY"
    os.environ.pop(env_key, None)
    assert main([*base, "--model", "m", "--api-key-env", env_key]) == 2
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == kept


def test_the_backend_is_named_before_the_missing_model(capsys):

    assert main(["run", "--dataset", "colorblindnesseval", "--prompt", "cbe-open", "--backend", "hf2",
                 "--out", "unused"]) == 2
    err = capsys.readouterr().err
    assert "--backend 'hf2' is not known; allowed: openai, hf, baseline, reference-pixels, python; did you mean 'hf'?" in err
    assert "--model" not in err


@pytest.mark.parametrize("command", ["run", "generate"])
def test_help_and_errors_list_every_familys_presets_with_a_suggestion(command, tmp_path, capsys):
    from plates.datasets.family_presets import presets_by_family

    with pytest.raises(SystemExit):
        main([command, "--help"])
    helptext = " ".join(capsys.readouterr().out.split())
    families = presets_by_family()
    assert set(families) == {"plate", "illusion", "scene"}
    for family, names in families.items():
        assert f"{family}: " in helptext
        for name in names:  # argparse may wrap at a hyphen: compare without line breaks
            assert name in helptext.replace("- ", "-"), name
    args = (["run", "--dataset", "rcid-filtr", "--prompt", "cbe-open", "--backend", "baseline"]
            if command == "run" else ["generate", "--preset", "rcid-filtr"])
    assert main([*args, "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "illusion: rcid-contrast" in err and "scene: colorbench-" in err and "did you mean 'rcid-filter'?" in err


def test_quick_run_condition_flags_cross_like_a_toml(tmp_path, capsys):
    """--grayscale both / --hue-shift / --cvd / several --size fill [conditions] without a TOML file
    (ColorBench §3.2's grayscale pair, §2.2's hue rotations, CVD views)."""
    from plates.cli import build_parser, main
    from plates.cli.run import build_experiment

    exp = build_experiment(build_parser().parse_args([
        "run", "--dataset", "colorblindnesseval", "--prompt", "cbe-open", "--backend", "baseline", "--out",
        str(tmp_path), "--grayscale", "both", "--hue-shift", "0", "90", "--cvd", "none", "deutan", "--size", "64",
        "128"]))
    keys = {(c.size, c.grayscale, c.hue_shift, c.cvd) for c in exp.conditions}
    assert len(keys) == 16 and {k[1] for k in keys} == {False, True} and {k[3] for k in keys} == {"none", "deutan"}
    assert main(["run", "--dataset", "colorblindnesseval", "--prompt", "cbe-open", "--backend", "baseline",
                 "--limit", "2", "--size", "64", "--grayscale", "--no-progress", "--out", str(tmp_path)]) == 0
    frame = load_results(tmp_path).frame
    assert frame["grayscale"].tolist() == [True]
    with pytest.raises(SystemExit):
        main(["run", "--grayscale", "half"])
    assert "invalid choice: 'half'" in capsys.readouterr().err


def test_progress_counts_rows_already_there_on_resume(tmp_path, capsys):

    base = ["run", "--dataset", "huemanity-numeric", "--prompt", "huemanity-numeric", "--backend", "baseline",
            "--size", "64", "--out", str(tmp_path)]
    assert main([*base, "--limit", "2"]) == 0
    capsys.readouterr()
    assert main([*base, "--limit", "4"]) == 0
    err = capsys.readouterr().err
    assert " 2/4 " in err and " 4/4 " in err and " 0/4 " not in err


@pytest.mark.slow
def test_a_4400_digit_reply_is_an_unparsed_row_and_the_run_completes(tmp_path):
    # Before one bounded number reader, int() of the reply hit Python's 4,300-digit conversion limit: plates
    # run exited 2 with nothing written, and the resume asked the same item and stopped again.
    with ChatServer(answer=lambda body: "7" * 4400) as server:
        done = _plates("run", "--dataset", "colorblindnesseval", "--prompt", "cbe-open", "--model", "test-model",
                       "--base-url", server.url, "--size", "64", "--out", tmp_path, "--no-api-key", "--limit", "2")
    assert done.returncode == 0, done.stderr
    frame = load_results(tmp_path).frame
    assert len(frame) >= 1 and (frame["reply"].str.len() == 4400).all()
    assert set(frame["parse_status"]) == {"unparsed"} and set(frame["failure_mode"]) == {"erratic"}
    assert not frame["correct"].any() and not frame["reply_truncated"].any()
    from plates.tasks.answers import RULES_VERSION

    assert set(frame["rules_version"]) == {RULES_VERSION}


@pytest.mark.slow
def test_a_megabyte_reply_is_read_as_head_and_tail_and_the_row_says_so(tmp_path):
    reply = "Answer: 12. " + "The dots are orange and green. " * 33_000
    with ChatServer(answer=lambda body: reply) as server:
        done = _plates("run", "--dataset", "colorblindnesseval", "--prompt", "cbe-open", "--model", "test-model",
                       "--base-url", server.url, "--size", "64", "--out", tmp_path, "--no-api-key", "--limit", "1")
    assert done.returncode == 0, done.stderr
    row = load_results(tmp_path).frame.iloc[0]
    assert row["reply"] == reply and bool(row["reply_truncated"]) and row["parsed"] == "12"


def test_view_flag_names_the_view_every_row_records(tmp_path, capsys):
    from plates.datasets import generate

    generate("huemanity-numeric", tmp_path / "data", limit=2, size=96, workers=1, progress=False)
    toml = tmp_path / "exp.toml"
    toml.write_text(f'dataset = {{ source = "{tmp_path / "data"}" }}\nprompts = ["huemanity-numeric"]\n'
                    f'out = "{tmp_path / "out"}"\n[[models]]\nbackend = "baseline"\nview = "gemma-3"\n')
    assert main(["run", str(toml), "--no-progress"]) == 0
    assert set(load_results(tmp_path / "out").frame["view_family"]) == {"gemma-3"}
    assert main(["run", str(toml), "--view", "openai-low", "--out", str(tmp_path / "o2"), "--no-progress"]) == 0
    rows = load_results(tmp_path / "o2").frame
    assert set(rows["view_family"]) == {"openai-low"} and set(rows["view_seen_width"]) == {96}
    assert main(["run", str(toml), "--view", "gpt-9", "--no-progress"]) == 2
    assert "--view 'gpt-9' is not known; allowed: llava-1.5" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--judge-all"], "--judge-all need --judge MODEL; allowed: --judge MODEL --judge-all"),
        (["--judge-base-url", "http://127.0.0.1:9/v1", "--judge-timeout", "3"],
         "--judge-base-url, --judge-timeout need --judge MODEL"),
        (["--judge", "j", "--judge-api-key-env", "K", "--judge-no-api-key"],
         "give --judge-api-key-env or --judge-no-api-key, not both"),
        (["--judge", "j", "--judge-base-url", "ftp://judge"], "judge base_url='ftp://judge' is not valid; allowed: "
                                                               "a URL starting with http:// or https://"),
        (["--judge", "j", "--judge-timeout", "0"], "judge timeout=0.0 is not valid; allowed: a number in"),
        (["--judge", "j", "--judge-api-key-env", "PLATES_NOT_SET_JUDGE_KEY"],
         "none of the environment variables PLATES_NOT_SET_JUDGE_KEY is set"),
        (["--judge", "j", "--judge-api-key-env", "BAD-NAME"], "judge key_env=('BAD-NAME',) is not valid; allowed: "
                                                               "names of environment variables"),
    ],
)
def test_judge_flags_are_checked_before_anything_is_asked(tmp_path, capsys, monkeypatch, extra, message):
    monkeypatch.delenv("PLATES_NOT_SET_JUDGE_KEY", raising=False)
    with ChatServer(answer=lambda body: "12") as server:
        code, _, err = _main(capsys, *_quick(server.url, tmp_path / "out", "--no-api-key", "--limit", "1", *extra))
        assert server.count == 0
    assert code == 2 and message in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_the_judges_key_falls_back_to_openai_api_key_and_is_named_when_missing(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("PLATES_JUDGE_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code, _, err = _main(capsys, *_quick("http://127.0.0.1:9/v1", tmp_path, "--no-api-key", "--limit", "1",
                                         "--judge", "j"))
    assert code == 2 and "none of the environment variables PLATES_JUDGE_API_KEY, OPENAI_API_KEY is set" in err


def test_a_quick_run_with_a_judge_reads_what_the_rules_leave(tmp_path, capsys):
    from tests.support.judge_table import JUDGE_MODEL

    with ChatServer(answer=lambda body: "hmm, zzz") as model, \
            ChatServer(answer=lambda body: "Answer: 17", models=(JUDGE_MODEL,)) as judge:
        code, out, err = _main(capsys, *_quick(model.url, tmp_path, "--no-api-key", "--limit", "2", "--no-progress",
                                               "--judge", JUDGE_MODEL, "--judge-base-url", judge.url,
                                               "--judge-no-api-key", "--judge-timeout", "5"))
        assert code == 0, err
        assert judge.count == model.count == 2
    assert f"the judge {JUDGE_MODEL} decided 2 verdicts" in out
    frame = load_results(tmp_path).frame
    assert set(frame["decided_by"]) == {"judge"} and set(frame["parsed"]) == {"17"}
    assert set(frame["rules_parse_status"]) == {"unparsed"} and set(frame["judge_status"]) == {"read"}


def test_a_missing_dataset_folder_says_how_to_make_one_in_the_users_words(tmp_path, capsys):
    """A quick run over a folder not generated yet: the error names the flag the user typed (--dataset, not the
    TOML's dataset.source), says the folder is missing and gives the `plates generate` command that makes it."""
    missing = tmp_path / "my-plates"
    code, _, err = _main(capsys, "run", "--dataset", str(missing), "--prompt", "cbe-open", "--backend", "baseline",
                         "--out", str(tmp_path / "out"))
    assert code == 2 and "Traceback" not in err
    assert f"--dataset: '{missing}' is neither a preset nor a folder of plates (there is no such folder)" in err
    assert f"`plates generate --preset PRESET --out {missing}`" in err
    assert "dataset.source" not in err and "prompts[0]" not in err
    code, _, err = _main(capsys, "run", "--dataset", "colorblindnesseval", "--prompt", "cbe-opn", "--backend",
                         "baseline", "--out", str(tmp_path / "out"))
    assert code == 2 and "--prompt 'cbe-opn' is not known" in err and "prompts[0]" not in err


def test_a_run_is_named_by_name_else_its_out_folder_and_resumes_under_another_name(tmp_path, capsys):
    """--name (else the --out folder's name) is recorded per row as run_name; it is not part of the run id, so
    the same run resumed under another name asks nothing again and keeps one run id."""
    quick = ["run", "--dataset", "colorblindnesseval", "--prompt", "cbe-open", "--backend", "baseline",
             "--size", "128", "--no-progress", "--out", str(tmp_path / "reader-quick")]
    assert main([*quick, "--limit", "2"]) == 0, capsys.readouterr().err
    first = load_results(tmp_path / "reader-quick").frame
    assert set(first["run_name"]) == {"reader-quick"}  # the --out folder's name
    assert main([*quick, "--limit", "4", "--name", "my-reader"]) == 0, capsys.readouterr().err
    both = load_results(tmp_path / "reader-quick").frame
    assert both["run_id"].nunique() == 1 and len(both) == 2  # resumed: the first row is not asked again
    assert sorted(both["run_name"]) == ["my-reader", "reader-quick"]
    assert main([*quick, "--name", "no spaces"]) == 2
    assert "--name: 'no spaces' is not allowed" in capsys.readouterr().err
