"""What the runner's tests share (tests/runs/test_runner.py, test_plan.py, test_builder.py): an experiment over
ColorBlindnessEval asking an OpenAI-compatible server at ``url``, with fast retries."""

from __future__ import annotations

from plates.runs.experiment import parse_experiment


def cbe_experiment(url, out, **changes):
    model = {"backend": "openai", "model": "test-model", "base_url": url, "api_key_env": False, "concurrency": 4,
             "timeout": 5, "max_attempts": 3, "backoff_base": 0.01, "backoff_max": 0.05, "fail_after": 0}
    model.update(changes.pop("model", {}))
    data = {"dataset": "colorblindnesseval", "models": [model], "prompts": ["cbe-open"],
            "conditions": {"sizes": [64]}, "out": str(out), **changes}
    return parse_experiment(data)
