"""GPU pinning of `plates run --executor ray` for a local transformers model. This machine has no GPU, so the
cluster declares two (``ray.init(num_gpus=2)``: Ray schedules and sets ``CUDA_VISIBLE_DEVICES`` for them as for
real ones); each actor must ask for one, see exactly its own, and load the model on the device that follows
from it. torch sees no CUDA device here, so the model itself loads on the CPU (and the driver warns); the
"cuda:0" a real GPU gives is checked through `actor_device`."""

from __future__ import annotations

import os

import pytest

from plates.runs.ray_executor import actor_device, gpus_per_actor


def test_each_hf_actor_asks_one_gpu_unless_placed_elsewhere():
    assert gpus_per_actor("hf", {}, 2) == 1
    assert gpus_per_actor("hf", {"device": "cuda"}, 4) == 1
    assert gpus_per_actor("hf", {"device": "cpu"}, 2) == 0  # asked for the CPU: holds no GPU
    assert gpus_per_actor("hf", {}, 0) == 0  # a cluster without GPUs
    assert gpus_per_actor("openai", {}, 2) == 0 and gpus_per_actor("baseline", {}, 2) == 0
    for options in ({"device": "cuda:1"}, {"device_map": "auto"}):
        with pytest.raises(ValueError, match=r"each actor holds one GPU and sees only it.*allowed: device 'auto'"):
            gpus_per_actor("hf", options, 2)


def test_an_actor_computes_on_the_one_gpu_it_sees():
    assert actor_device(["3"], "3", cuda=True) == "cuda:0"  # GPU 3 of the node is the actor's cuda:0
    assert actor_device([3], "3", cuda=False) == "cpu"
    with pytest.raises(RuntimeError, match=r"given GPU\(s\) 3 but sees CUDA_VISIBLE_DEVICES='0,1,2,3'"):
        actor_device(["3"], "0,1,2,3", cuda=True)
    with pytest.raises(RuntimeError, match=r"sees CUDA_VISIBLE_DEVICES=None"):
        actor_device(["0"], None, cuda=True)


@pytest.mark.slow  # a Ray cluster, torch + transformers in two actors, a tiny LLaVA built offline
def test_two_fake_gpus_two_actors_each_pinned_to_its_own(tmp_path):
    ray = pytest.importorskip("ray")
    pytest.importorskip("transformers")
    from plates.datasets import load_dataset
    from plates.results import load_results
    from plates.runs.experiment import parse_experiment
    from plates.runs.ray_executor import RayExecutor
    from plates.runs.runner import run_experiment
    from tests.support.tiny_vlm import build_tiny_vlm

    items = [i for i in load_dataset("colorblindnesseval", limit=16) if i.variant == "standard"][:4]
    path = build_tiny_vlm(tmp_path / "tiny-llava", arch="llava", seed=0)
    model = {"backend": "hf", "model": str(path), "dtype": "float32", "batch_size": 1}  # device: auto

    def exp(out):
        return parse_experiment({"dataset": "colorblindnesseval", "models": [model], "prompts": ["cbe-open"],
                                 "conditions": {"sizes": [64]}, "out": str(out)})

    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    ray.init(num_cpus=2, num_gpus=2, include_dashboard=False, log_to_driver=False)
    try:
        assert ray.cluster_resources().get("GPU") == 2
        with pytest.warns(RuntimeWarning, match=r"torch in the actors sees no CUDA device; the model runs on the CPU"):
            summary = run_experiment(exp(tmp_path / "ray"), items=items, progress=False,
                                     executor=RayExecutor(batch=1))
    finally:
        ray.shutdown()
    assert summary.written == 4
    places = summary.placements
    assert len(places) == 2  # one actor per GPU
    assert sorted(p["gpu_ids"][0] for p in places) == ["0", "1"]  # one GPU each, never the same
    for p in places:
        assert len(p["gpu_ids"]) == 1 and p["cuda_visible_devices"] == p["gpu_ids"][0]  # sees only its own
        assert p["device"] == "cpu" and p["model"] == str(path)  # no CUDA in torch here: the CPU
    local = run_experiment(exp(tmp_path / "local"), items=items, progress=False)
    assert local.written == 4
    cols = ["row_key", "reply", "parsed", "correct"]
    a = load_results(tmp_path / "local").frame[cols].sort_values("row_key").reset_index(drop=True)
    b = load_results(tmp_path / "ray").frame[cols].sort_values("row_key").reset_index(drop=True)
    assert a.equals(b)  # the same rows as in this process
