"""inspect_ai, for real: the exported set's tasks run by `inspect eval` (its own venv, its own command line,
its default ``.eval`` log format) against `plates serve-baseline`'s server on 127.0.0.1 agree with `plates run`
item by item, and `plates import inspect` brings the log back as rows the dashboard shows."""

import json
import subprocess
import zipfile

import pytest

from plates.cli import main
from plates.integrations.inspect_log import read_inspect_log
from plates.results import load_results
from tests.support.harness_venv import CHECKOUT, HARNESS_TEST_TIMEOUT_S, INSPECT, harness_env, venv

pytestmark = [pytest.mark.slow, pytest.mark.timeout(HARNESS_TEST_TIMEOUT_S)]


def _inspect(task, data, logs, server):
    bin_dir = venv("inspect-venv", INSPECT)
    proc = subprocess.run(
        [str(bin_dir / "inspect"), "eval", f"{CHECKOUT}/plates/integrations/inspect_tasks.py@{task}",
         "-T", f"data={data}", "--model", "openai-api/plates/baseline-cnn", "--log-dir", str(logs)],
        env=harness_env(PLATES_BASE_URL=server.base_url, PLATES_API_KEY="unused"), capture_output=True, text=True,
        timeout=600)
    return proc


def test_inspect_agrees_with_plates_run_and_its_log_comes_back_as_a_run(tmp_path, server, capsys):
    data, runs, logs = tmp_path / "cbe", tmp_path / "results", tmp_path / "logs"
    args = ["--dataset", "colorblindnesseval", "--prompt", "cbe-open", "--limit", "24"]
    assert main(["export", "hf", *args, "--out", str(data)]) == 0
    assert main(["run", *args, "--backend", "openai", "--model", "baseline-cnn", "--base-url", server.base_url,
                 "--no-api-key", "--out", str(runs), "--no-progress"]) == 0
    ours = load_results([runs]).frame.set_index("item_id")
    assert len(ours) == 12

    proc = _inspect("colorblindnesseval", data, logs, server)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (log_file,) = logs.glob("*.eval")  # inspect's default format: a zip of Zstandard entries (method 93)
    with zipfile.ZipFile(log_file) as z:
        assert {i.compress_type for i in z.infolist() if i.filename.startswith("samples/")} == {93}
        with pytest.raises(NotImplementedError):  # the trap: Python's zipfile alone cannot read it
            z.read(next(n for n in z.namelist() if n.startswith("samples/")))
    log, samples = read_inspect_log(log_file, via="zip")
    assert log["status"] == "success" and len(samples) == 12
    verdicts = {s["metadata"]["item_id"]: s["scores"]["plates_scorer"] for s in samples}
    assert set(verdicts) == set(ours.index)
    for item, score in verdicts.items():  # item by item: the same reply, the same verdict, the same rule
        assert (score["value"] == "C") == bool(ours.loc[item, "correct"]), item
        assert score["answer"] == ours.loc[item, "parsed"]
        assert score["metadata"]["parse_status"] == ours.loc[item, "parse_status"]
        assert score["metadata"]["rule"]
    metrics = log["results"]["scores"][0]["metrics"]
    assert metrics["accuracy"]["value"] == pytest.approx(ours["correct"].mean())
    assert metrics["stderr"]["value"] > 0 or ours["correct"].mean() in (0, 1)
    # each sample carries the exported PNG, not a re-encoded or JPEG copy
    first = samples[0]["input"][0]["content"]
    assert first[0]["type"] == "image" and first[0]["image"].startswith(("data:image/png;base64,", "attachment:"))
    # inspect_ai's own reader (its venv: the one read_inspect_log picks where inspect_ai is importable) reads
    # the same samples as the zip reader here
    theirs = subprocess.run(
        [str(venv("inspect-venv", INSPECT) / "python"), "-c", _READ_WITH_INSPECT_AI, str(log_file)],
        env=harness_env(), capture_output=True, text=True, timeout=300)
    assert theirs.returncode == 0, theirs.stderr[-3000:]
    assert _digest(*json.loads(theirs.stdout)) == _digest(log, samples)

    # back in: one new run, our verdict and the harness's beside it, nothing stored touched
    before = sorted(p.name for p in runs.glob("*.parquet"))
    assert main(["import", "inspect", str(log_file), "--data", str(data), "--out", str(runs)]) == 0
    assert "12 rows written" in capsys.readouterr().out
    assert set(before) <= {p.name for p in runs.glob("*.parquet")}
    frame = load_results([runs]).frame
    imported = frame[frame["backend"] == "inspect_ai"].set_index("item_id")
    assert len(imported) == 12 and (imported["model"] == "openai-api/plates/baseline-cnn").all()
    for item in ours.index:
        assert imported.loc[item, "reply"] == ours.loc[item, "reply"]
        assert imported.loc[item, "correct"] == ours.loc[item, "correct"] == imported.loc[item, "harness_correct"]
        assert imported.loc[item, "prompt_name"] == "cbe-open" and imported.loc[item, "size"] == 900
    assert main(["import", "inspect", str(log_file), "--data", str(data), "--out", str(runs)]) == 0
    assert "0 rows written" in capsys.readouterr().out and len(load_results([runs]).frame) == 24

    # the dashboard's overview lists the harness run beside plates run's, at the same accuracy
    from plates.dashboard.pages import overview
    from plates.dashboard.views import View, open_results

    table = overview(View(open_results(runs))).table
    assert {"openai-api/plates/baseline-cnn", "baseline-cnn"} <= {str(m) for m in table["model"]}
    # both runs sit in one folder: their series read its name and the model, never a hash
    assert {"results · openai-api/plates/baseline-cnn", "results · baseline-cnn"} <= set(table["series"])

    # a task of another protocol refuses the set; items of another set are skipped and counted
    other = _inspect("huemanity", data, tmp_path / "logs2", server)
    assert "prompts of another protocol than HueManity: cbe-open" in other.stdout + other.stderr
    assert main(["export", "hf", "--dataset", "huemanity-numeric", "--prompt", "huemanity-numeric", "--limit", "2",
                 "--out", str(tmp_path / "hm")]) == 0
    assert main(["import", "inspect", str(log_file), "--data", str(tmp_path / "hm"),
                 "--out", str(tmp_path / "r2")]) == 0
    assert "skipped: 12 item not in the exported set" in capsys.readouterr().out


_READ_WITH_INSPECT_AI = """
import importlib.util, json, sys
from plates.integrations.inspect_log import read_inspect_log
assert importlib.util.find_spec("inspect_ai") is not None
print(json.dumps(read_inspect_log(sys.argv[1])))
"""


def _digest(log, samples):
    """What the importer takes from a log: model, task, and per sample its row, reply, verdict and error."""
    return {"model": log["eval"]["model"], "task": log["eval"]["task"], "samples": sorted(
        [s["metadata"]["sample_id"], s["metadata"]["question_json"], s["output"]["choices"][0]["message"]["content"],
         s["scores"]["plates_scorer"]["value"], s.get("error")] for s in samples)}


def test_a_log_of_another_task_is_refused(tmp_path, capsys):
    log = tmp_path / "other.json"
    log.write_text(json.dumps({"eval": {"task": "mmmu", "model": "m"},
                               "samples": [{"id": 1, "metadata": {"subject": "x"}, "scores": {}}]}))
    assert main(["import", "inspect", str(log), "--out", str(tmp_path / "r")]) == 2
    assert "not of a plates task" in capsys.readouterr().err
    (tmp_path / "junk.json").write_text("[1, 2]")
    assert main(["import", "inspect", str(tmp_path / "junk.json"), "--out", str(tmp_path / "r")]) == 2
    assert "not an inspect log" in capsys.readouterr().err
    assert not (tmp_path / "r").exists() or not any((tmp_path / "r").glob("*.parquet"))
