"""`plates run --executor ray` on a real local Ray cluster (2 CPUs, no dashboard, usage statistics off): the
rows equal a single-process run's (keys, replies, verdicts, error rows), a rerun asks only what is missing, and a
backend that keeps failing stops the run with what was answered kept."""

from __future__ import annotations

import hashlib
import os

import pytest

from plates.models.base import BackendFailing
from plates.results import load_results
from plates.runs.experiment import parse_experiment
from plates.runs.runner import run_experiment
from plates.shards import Shard
from tests.support.chat_server import ChatServer, Fault, image_urls
from tests.support.s3_server import SECRET, S3Server

ray = pytest.importorskip("ray")

from plates.runs.ray_executor import RayExecutor, parse_address  # noqa: E402 - after the optional import

#: The columns that must agree row for row between executors (timestamps and latencies differ).
SAME = ["row_key", "item_id", "model", "prompt_name", "size", "reply", "parsed", "parse_status", "correct",
        "expected", "error", "spec_json"]


@pytest.fixture(scope="module")
def cluster():
    """A local cluster, started after the S3 server so its workers inherit the AWS variables (as a real
    cluster's nodes carry their own credentials); yields the server."""
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    with S3Server() as s3:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        try:
            yield s3
        finally:
            ray.shutdown()


@pytest.fixture(scope="module")
def items():
    from plates.datasets import load_dataset

    return [i for i in load_dataset("colorblindnesseval", limit=24) if i.variant == "standard"]


def _exp(out, model, prompts=("cbe-open",), sizes=(64,)):
    return parse_experiment({"dataset": "colorblindnesseval", "models": [model], "prompts": list(prompts),
                             "conditions": {"sizes": list(sizes)}, "out": str(out)})


def _rows(out):
    frame = load_results(out).frame
    return frame[SAME].sort_values("row_key").reset_index(drop=True)


def test_baseline_rows_equal_single_process(tmp_path, items, cluster):
    model = {"backend": "baseline", "model": "baseline-cnn"}
    exp_local = _exp(tmp_path / "local", model, prompts=("cbe-open", "plain-yn"), sizes=(64, 128))
    exp_ray = _exp(tmp_path / "ray", model, prompts=("cbe-open", "plain-yn"), sizes=(64, 128))
    assert exp_local.run_id == exp_ray.run_id
    local = run_experiment(exp_local, items=items, progress=False)
    distributed = run_experiment(exp_ray, items=items, progress=False, executor=RayExecutor(actors=2, batch=5))
    assert distributed.planned == local.planned == len(items) * 2 * 2
    assert (distributed.written, distributed.correct, distributed.unsupported) == \
        (local.written, local.correct, local.unsupported)
    assert distributed.unsupported == len(items) * 2  # the baseline declines yes/no: kept as unsupported rows
    a, b = _rows(tmp_path / "local"), _rows(tmp_path / "ray")
    assert b["row_key"].is_unique
    assert a.equals(b)
    # both actors wrote parts side by side; the driver compacted them into one afterwards
    assert len(list((tmp_path / "ray").glob(f"{exp_ray.run_id}-*.parquet"))) == 1


def test_actors_write_to_object_storage(tmp_path, items, cluster):
    model = {"backend": "baseline", "model": "baseline-cnn"}
    url = cluster.url("ray-runs")
    run_experiment(_exp(tmp_path, model), items=items, progress=False)
    summary = run_experiment(_exp(url, model), items=items, progress=False, executor=RayExecutor(actors=2, batch=3))
    assert summary.written == len(items)
    assert _rows(tmp_path).equals(_rows(url))
    parts = [k for k in cluster.keys("ray-runs/") if "/_commits/" not in k]
    assert len(parts) == 1 and parts[0].endswith("-merged.parquet")  # the actors' parts, compacted on the store
    assert all(SECRET.encode() not in cluster.read(k) for k in cluster.keys())


def _bucket(body) -> int:
    return int(hashlib.sha256(image_urls(body)[0].encode()).hexdigest(), 16) % 3


def test_error_rows_and_resume_match_single_process(tmp_path, items, cluster):
    def faults(n, body):
        return Fault.http(503) if _bucket(body) == 0 else None  # always fails for a third of the plates

    with ChatServer(answer=lambda body: "12", faults=faults) as server:
        model = {"backend": "openai", "model": "test-model", "base_url": server.url, "api_key_env": False,
                 "concurrency": 4, "timeout": 5, "max_attempts": 2, "backoff_base": 0.01, "backoff_max": 0.02,
                 "fail_after": 0}
        local = run_experiment(_exp(tmp_path / "local", model), items=items, progress=False)
        exp = _exp(tmp_path / "ray", model)
        first = run_experiment(exp, items=items, progress=False, shard=Shard(1, 2))  # half, in this process
        asked_before = server.count
        rest = run_experiment(exp, items=items, progress=False, executor=RayExecutor(actors=2, batch=2))
        asked_by_ray = server.count - asked_before
    assert rest.existing == first.written > 0 and rest.written == local.written - first.written
    assert rest.errors + first.errors == local.errors > 0
    assert asked_by_ray == rest.errors * 2 + (rest.written - rest.errors)  # 2 attempts per error row, 1 per answer
    a, b = _rows(tmp_path / "local"), _rows(tmp_path / "ray")
    assert a.equals(b)
    errors = b[b["parse_status"] == "error"]
    assert errors["reply"].isna().all() and errors["error"].str.contains("503").all()


def test_backend_failing_stops_and_keeps_rows(tmp_path, items, cluster):
    def faults(n, body):
        return Fault.http(500) if n >= 6 else None

    with ChatServer(answer=lambda body: "12", faults=faults) as server:
        model = {"backend": "openai", "model": "test-model", "base_url": server.url, "api_key_env": False,
                 "concurrency": 1, "timeout": 5, "max_attempts": 1, "fail_after": 3}
        exp = _exp(tmp_path, model, sizes=(64, 96, 128))
        with pytest.raises(BackendFailing):
            run_experiment(exp, items=items, progress=False, executor=RayExecutor(actors=1, batch=4))
    frame = load_results(tmp_path).frame
    assert frame["row_key"].is_unique and (frame["parse_status"] != "error").sum() == 6


@pytest.mark.parametrize("text", ["auto", "10.0.0.5:6379", "ray://head:10001"])
def test_address_forms_allowed(text):
    assert parse_address(text) == text


@pytest.mark.parametrize("text", ["", "head", "http://head:1", "ray://head", "ray://:10001"])
def test_address_forms_refused(text):
    with pytest.raises(ValueError, match="allowed: auto, HOST:PORT or ray://HOST:PORT"):
        parse_address(text)


def test_bad_actor_count_refused():
    with pytest.raises(ValueError, match="actors=0 is not valid"):
        RayExecutor(actors=0)


def test_the_command_line_runs_on_ray_and_shows_progress(tmp_path, cluster, capsys):
    from plates.cli import main

    argv = ["run", "--dataset", "colorblindnesseval", "--prompt", "cbe-open", "--backend", "baseline", "--limit",
            "6", "--size", "64", "--out", str(tmp_path), "--executor", "ray", "--ray-actors", "2"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "3 rows written" in captured.out and "3/3" in captured.err  # the bar counts the actors' batches
    assert main(argv) == 0 and "0 rows written" in capsys.readouterr().out  # resumed: nothing left to ask


def test_ray_options_need_the_ray_executor(tmp_path, capsys):
    from plates.cli import main

    assert main(["run", "--dataset", "colorblindnesseval", "--prompt", "cbe-open", "--backend", "baseline",
                 "--out", str(tmp_path), "--ray-actors", "2"]) == 2
    assert "--ray-actors need --executor ray" in capsys.readouterr().err


@pytest.mark.slow  # imports torch + transformers in the actor and builds a tiny LLaVA offline
def test_a_local_transformers_model_in_an_actor_answers_as_in_this_process(tmp_path, items, cluster):
    pytest.importorskip("transformers")
    from tests.support.tiny_vlm import build_tiny_vlm

    path = build_tiny_vlm(tmp_path / "tiny-llava", arch="llava", seed=0)
    model = {"backend": "hf", "model": str(path), "device": "cpu", "dtype": "float32", "batch_size": 2}
    run_experiment(_exp(tmp_path / "local", model), items=items[:4], progress=False)
    summary = run_experiment(_exp(tmp_path / "ray", model), items=items[:4], progress=False,
                             executor=RayExecutor())  # no GPU in this cluster: one actor, on a CPU
    assert summary.written == 4
    a, b = _rows(tmp_path / "local"), _rows(tmp_path / "ray")
    assert a.equals(b) and b["error"].isna().all()


def test_more_actors_than_the_cluster_holds_are_refused(tmp_path, items, cluster):
    exp = _exp(tmp_path, {"backend": "baseline", "model": "baseline-cnn"})
    with pytest.raises(ValueError, match="--ray-actors 3 is more than the cluster's 2 CPUs"):
        run_experiment(exp, items=items, progress=False, executor=RayExecutor(actors=3))
