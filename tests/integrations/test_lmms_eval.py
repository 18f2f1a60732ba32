"""lmms-eval, for real: `plates export lmms-eval`'s task folder run by lmms-eval's own command line (its own
cached venv) against the baseline server on 127.0.0.1 agrees with `plates run` item by item, through
lmms-eval's aggregation; `plates import lmms-eval` brings its per-sample log back as a run."""

import importlib.util
import json
import subprocess

import pytest
import yaml

from plates.analysis.metrics import wilson_interval
from plates.cli import main
from plates.integrations.exported import read_export
from plates.results import load_results
from tests.support.harness_venv import HARNESS_TEST_TIMEOUT_S, LMMS_EVAL, LMMS_EVAL_NO_DEPS, harness_env, venv


class _Loader(yaml.SafeLoader):
    pass


_Loader.add_constructor("!function", lambda loader, node: ("function", loader.construct_scalar(node)))


def test_the_task_folder_names_our_functions_and_they_score_the_exported_rows(tmp_path):
    data, tasks = tmp_path / "cbe", tmp_path / "tasks"
    assert main(["export", "hf", "--dataset", "colorblindnesseval", "--prompt", "cbe-yn-correct", "--limit", "6",
                 "--out", str(data)]) == 0
    assert main(["export", "lmms-eval", "--from", str(data), "--out", str(tasks), "--name", "plates_cbe"]) == 0
    group = yaml.load((tasks / "plates_cbe.yaml").read_text(), Loader=_Loader)
    assert group["task"] == ["plates_cbe_cbe_yn_correct"]
    task = yaml.load((tasks / "plates_cbe_cbe_yn_correct.yaml").read_text(), Loader=_Loader)
    base = yaml.load((tasks / "_default_template_yaml").read_text(), Loader=_Loader)
    assert task["dataset_name"] == "cbe-yn-correct" and base["dataset_path"] == str(data.resolve())
    assert base["generation_kwargs"]["temperature"] == 0 and base["generation_kwargs"]["do_sample"] is False
    assert "yes_rate" in [m["metric"] for m in task["metric_list"]]
    spec = importlib.util.spec_from_file_location("plates_lmms_utils", tasks / "utils.py")
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    import datasets

    docs = datasets.load_dataset(str(data), "cbe-yn-correct", split="test", cache_dir=str(tmp_path / "c"))
    rows = read_export(data)["cbe-yn-correct"]
    assert len(docs) == len(rows) == 3
    results = [utils.process_results(doc, ["Yes" if i % 2 == 0 else "No."]) for i, doc in enumerate(docs)]
    for doc, res in zip(docs, results):
        assert utils.doc_to_text(doc) == doc["question"] and utils.doc_to_visual(doc)[0].size == (900, 900)
        assert res["plates"]["sample_id"] == doc["sample_id"]
    assert utils.mean([r["yes_rate"] for r in results]) == pytest.approx(2 / 3)  # the CBE yes/no balance
    acc = [r["accuracy"] for r in results]
    assert (utils.ci_low(acc), utils.ci_high(acc)) == wilson_interval(int(sum(acc)), 3)


@pytest.mark.slow
@pytest.mark.timeout(HARNESS_TEST_TIMEOUT_S)
def test_lmms_eval_agrees_with_plates_run_and_its_log_comes_back(tmp_path, server, capsys):
    data, tasks, runs, out = tmp_path / "hm", tmp_path / "tasks", tmp_path / "results", tmp_path / "lmms"
    args = ["--dataset", "huemanity-numeric", "--prompt", "huemanity-numeric", "--limit", "8", "--size", "256"]
    assert main(["export", "hf", *args, "--out", str(data)]) == 0
    assert main(["export", "lmms-eval", "--from", str(data), "--out", str(tasks)]) == 0
    assert main(["run", *args, "--backend", "openai", "--model", "baseline-cnn", "--base-url", server.base_url,
                 "--no-api-key", "--out", str(runs), "--no-progress"]) == 0
    ours = load_results([runs]).frame.set_index("item_id")
    assert len(ours) == 8

    bin_dir = venv("lmms-venv", LMMS_EVAL, no_deps=LMMS_EVAL_NO_DEPS, constrained=True)
    proc = subprocess.run(
        [str(bin_dir / "python"), "-m", "lmms_eval", "--model", "openai", "--model_args",
         f"model_version=baseline-cnn,base_url={server.base_url},api_key=unused", "--tasks", "plates",
         "--include_path", str(tasks), "--output_path", str(out), "--log_samples", "--batch_size", "1"],
        env=harness_env(HF_DATASETS_CACHE=str(tmp_path / "hf-cache")), capture_output=True, text=True,
        timeout=600, cwd=tmp_path)
    # lmms-eval may exit 0 after an import error: judge the run by its results JSON
    found = list(out.rglob("*_results.json"))
    assert len(found) == 1, f"lmms-eval wrote {len(found)} results files (exit {proc.returncode}): {proc.stderr[-3000:]}"
    (results_file,) = found
    results = json.loads(results_file.read_text())["results"]["plates_huemanity_numeric_size256"]
    assert results["accuracy,none"] == pytest.approx(ours["correct"].mean()), proc.stderr[-2000:]
    assert (results["accuracy_ci_low,none"], results["accuracy_ci_high,none"]) == pytest.approx(
        wilson_interval(int(ours["correct"].sum()), 8))
    assert results["evasion_rate,none"] == pytest.approx((ours["failure_mode"] == "evasion").mean())
    (samples_file,) = out.rglob("*_samples_*.jsonl")
    samples = [json.loads(line) for line in samples_file.read_text().splitlines()]
    assert len(samples) == 8
    for s in samples:  # item by item: the same verdict as plates run's
        assert s["plates"]["correct"] == bool(ours.loc[s["plates"]["item_id"], "correct"])
        assert s["plates"]["parse_status"] == ours.loc[s["plates"]["item_id"], "parse_status"]

    assert main(["import", "lmms-eval", str(out), "--data", str(data), "--out", str(runs)]) == 0
    assert "8 rows written" in capsys.readouterr().out
    frame = load_results([runs]).frame
    imported = frame[frame["backend"] == "lmms-eval"].set_index("item_id")
    assert len(imported) == 8 and (imported["model"] == "baseline-cnn").all()
    for item in ours.index:
        assert imported.loc[item, "reply"] == ours.loc[item, "reply"]
        assert imported.loc[item, "correct"] == ours.loc[item, "correct"] == imported.loc[item, "harness_correct"]
    # a log of another task is refused
    (out / "x_samples_mmmu.jsonl").write_text(json.dumps({"doc_id": 0, "exact_match": 1}) + "\n")
    assert main(["import", "lmms-eval", str(out), "--data", str(data), "--out", str(tmp_path / "r2")]) == 2
    assert "without the plates metric" in capsys.readouterr().err
