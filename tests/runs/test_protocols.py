"""plates.runs.protocols and the text-only control: the papers' sampling settings reach the server
as each paper reports them (checked on the request bodies a real server on 127.0.0.1 receives), and the
ColorBench App. J text-only control sends a black image of the same size and enters the run id and row key."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from plates.conditions import Condition, apply_condition
from plates.images import data_url_to_image
from plates.results import load_results
from plates.runs.experiment import ConditionSpec, parse_experiment, quick_experiment
from plates.runs.plan import row_key
from plates.runs.protocols import PROTOCOLS, get_protocol, model_settings
from plates.runs.runner import run_experiment
from tests.support.chat_server import ChatServer, image_urls


# ------------------------------------------------------------------------------------------------ protocols
def test_huemanity_table_6_per_model():
    assert model_settings("huemanity", "openai", "gpt-4.1-2025-04-14") == {
        "temperature": 1.0,
        "max_tokens": 1024,
        "extra_body": {"top_p": 1.0},
    }
    assert model_settings("huemanity", "openai", "gpt-4.1") == model_settings(
        "huemanity", "openai", "gpt-4.1-mini"
    )
    assert model_settings("huemanity", "openai", "llava:13b") == {  # Ollama: 0.8 / 0.9, -1 (inf)
        "temperature": 0.8,
        "token_param": None,
        "extra_body": {"top_p": 0.9},
    }
    assert model_settings("huemanity", "openai", "pixtral-large-2411") == {
        "temperature": 0.7,
        "max_tokens": 1024,
        "extra_body": {"top_p": 1.0},
    }
    # a model Table 6 does not list: the provider's defaults, as the paper's principle says
    assert model_settings("huemanity", "openai", "gpt-4o-mini") == {
        "send_temperature": False,
        "token_param": None,
    }


@pytest.mark.parametrize("name", ["colorblindnesseval", "colorbench"])
def test_papers_that_used_defaults_send_nothing(name):
    assert model_settings(name, "openai", "gpt-4o") == {"send_temperature": False, "token_param": None}
    assert "§" in PROTOCOLS[name].citation or "App." in PROTOCOLS[name].citation


def test_our_default_is_a_protocol_too_and_names_are_case_insensitive():
    assert model_settings("plates", "openai", "anything") == {"temperature": 0.0, "max_tokens": 512}
    assert get_protocol("HueManity").name == "huemanity"
    with pytest.raises(ValueError, match="allowed: huemanity, colorblindnesseval, colorbench, plates"):
        get_protocol("huemanty")


def test_a_local_model_cannot_take_provider_defaults_and_the_error_says_what_to_write():
    with pytest.raises(ValueError, match=r"temperature and max_tokens .* allowed: write"):
        model_settings("colorblindnesseval", "hf", "Qwen/Qwen2-VL-2B-Instruct")
    assert model_settings("huemanity", "hf", "gpt-4.1") == {"temperature": 1.0, "max_tokens": 1024}
    with pytest.raises(ValueError, match="without top-p"):
        model_settings("huemanity", "hf", "llava:7b", given=("max_tokens",))
    assert model_settings("colorbench", "hf", "m", given=("temperature", "max_tokens")) == {}
    assert model_settings("huemanity", "baseline", "baseline-cnn") == {}
    # a Python observer samples nothing either: no protocol setting reaches it, and none is refused
    assert model_settings("huemanity", "python", "tests.support.pixel_observer:answer") == {}
    with pytest.raises(ValueError, match="allowed: openai, hf, baseline, reference-pixels, python"):
        model_settings("huemanity", "ray", "m")


def _exp(url, out, model="gpt-4.1", **top):
    table = {
        "backend": "openai",
        "model": model,
        "base_url": url,
        "api_key_env": False,
        "concurrency": 2,
        "timeout": 5,
        "max_attempts": 1,
        "fail_after": 0,
    }
    table.update(top.pop("model_keys", {}))
    data = {
        "dataset": "colorblindnesseval",
        "models": [table],
        "prompts": ["cbe-open"],
        "conditions": top.pop("conditions", {"sizes": [64]}),
        "out": str(out),
        **top,
    }
    return parse_experiment(data)


def _items():
    from plates.datasets import load_dataset

    return [i for i in load_dataset("colorblindnesseval", limit=4) if i.variant == "standard"]


@pytest.mark.parametrize(
    ("protocol", "model", "expected", "absent"),
    [
        ("huemanity", "gpt-4.1", {"temperature": 1.0, "max_tokens": 1024, "top_p": 1.0}, ()),
        ("huemanity", "llava:7b", {"temperature": 0.8, "top_p": 0.9}, ("max_tokens",)),
        ("colorblindnesseval", "gpt-4o", {}, ("temperature", "max_tokens", "top_p")),
        (None, "gpt-4o", {"temperature": 0.0, "max_tokens": 512}, ("top_p",)),
    ],
)
def test_the_server_receives_the_protocols_settings(tmp_path, protocol, model, expected, absent):
    extra = {} if protocol is None else {"protocol": protocol}
    with ChatServer(answer=lambda body: "12", models=(model,)) as server:
        exp = _exp(server.url, tmp_path, model=model, **extra)
        run_experiment(exp, items=_items(), progress=False)
        bodies = [r.body for r in server.records]
    assert bodies
    for body in bodies:
        for key, value in expected.items():
            assert body[key] == value, (key, body.get(key))
        for key in absent:
            assert key not in body
    frame = load_results(tmp_path).frame
    # every row says which protocol it ran under (null: ours)
    assert (
        frame["protocol"].tolist() == [protocol] * len(frame) if protocol else frame["protocol"].isna().all()
    )


def test_the_table_s_own_keys_win_and_the_protocol_joins_the_run_id(tmp_path):
    plain = _exp("http://127.0.0.1:9/v1", tmp_path)
    paper = _exp("http://127.0.0.1:9/v1", tmp_path, protocol="huemanity")
    mine = _exp(
        "http://127.0.0.1:9/v1",
        tmp_path,
        protocol="huemanity",
        model_keys={"temperature": 0.0, "extra_body": {"seed_hint": 1}},
    )
    assert paper.models[0].temperature == 1.0 and paper.models[0].max_tokens == 1024
    assert mine.models[0].temperature == 0.0 and mine.models[0].options["extra_body"] == {
        "top_p": 1.0,
        "seed_hint": 1,
    }
    assert len({plain.run_id, paper.run_id, mine.run_id}) == 3
    assert "protocol" not in plain.identity() and paper.identity()["protocol"] == "huemanity"
    with pytest.raises(ValueError, match="protocol 'nope' is not known"):
        _exp("http://127.0.0.1:9/v1", tmp_path, protocol="nope")


def test_the_cli_and_a_toml_file_select_a_protocol(tmp_path):
    from plates.cli import build_parser
    from plates.cli.run import build_experiment

    args = build_parser().parse_args(
        [
            "run",
            "--dataset",
            "colorblindnesseval",
            "--prompt",
            "cbe-open",
            "--model",
            "gpt-4.1",
            "--no-api-key",
            "--out",
            str(tmp_path),
            "--protocol",
            "huemanity",
        ]
    )
    exp = build_experiment(args)
    assert exp.protocol == "huemanity" and exp.models[0].temperature == 1.0
    toml = tmp_path / "e.toml"
    toml.write_text(
        'protocol = "colorbench"\nprompts = ["cbe-open"]\n[dataset]\nsource = "colorblindnesseval"\n'
        '[[models]]\nbackend = "openai"\nmodel = "gpt-4o"\napi_key_env = false\n',
        encoding="utf-8",
    )
    exp = build_experiment(build_parser().parse_args(["run", str(toml)]))
    assert exp.protocol == "colorbench" and exp.models[0].options["send_temperature"] is False
    with pytest.raises(ValueError, match="differs from the file's protocol"):
        build_experiment(build_parser().parse_args(["run", str(toml), "--protocol", "huemanity"]))
    assert (
        quick_experiment(
            dataset="colorblindnesseval",
            prompt="cbe-open",
            backend="openai",
            model="m",
            out=str(tmp_path),
            api_key_env=None,
            protocol="plates",
        ).protocol
        == "plates"
    )


# ------------------------------------------------------------------------------------------------ text only
def test_text_only_is_a_black_image_of_the_size_the_model_would_get():
    image = Image.new("RGB", (300, 200), (200, 40, 40))
    black = apply_condition(image, Condition(text_only=True))
    assert black.size == (300, 200) and not np.asarray(black).any()
    resized = apply_condition(image, Condition(size=150, text_only=True, grayscale=True))
    assert resized.size == (150, 100) and not np.asarray(resized).any()
    assert not Condition(text_only=True).is_identity
    with pytest.raises(ValueError, match="text_only=1 is not valid; allowed: True or False"):
        Condition(text_only=1)


def test_text_only_enters_the_run_id_and_row_key_but_leaves_old_ones_alone(tmp_path):
    plain, blank = ConditionSpec(size=64), ConditionSpec(size=64, text_only=True)
    assert "text_only" not in plain.key() and blank.key()["text_only"] is True
    args = ("run", "cbe", "item-1", "openai", "m")
    assert row_key(*args, plain, "standard", "cbe-open", 0) != row_key(
        *args, blank, "standard", "cbe-open", 0
    )
    # the key of a condition without text-only is the one written before the control existed
    import hashlib
    import json

    old = hashlib.sha256(json.dumps([*args, 64, False, 0.0, "none", 0.0, "standard", "cbe-open", 0]).encode())
    assert row_key(*args, plain, "standard", "cbe-open", 0) == old.hexdigest()[:20]
    exp = _exp(
        "http://127.0.0.1:9/v1",
        tmp_path,
        conditions={"sizes": [64], "grayscale": [False, True], "text_only": [False, True]},
    )
    # grayscale x text-only: a black image is black in grayscale too, so three conditions, not four
    assert [(c.grayscale, c.text_only) for c in exp.conditions] == [
        (False, False),
        (False, True),
        (True, False),
    ]
    with pytest.raises(ValueError, match=r"conditions.text_only\[0\]: 'yes' is not allowed"):
        _exp("http://127.0.0.1:9/v1", tmp_path, conditions={"text_only": ["yes"]})


def test_a_text_only_run_sends_black_images_and_says_so_in_its_rows(tmp_path):
    seen = []

    def answer(body):
        seen.append(np.asarray(data_url_to_image(image_urls(body)[0])))
        return "12"

    with ChatServer(answer=answer, models=("gpt-4o",)) as server:
        exp = _exp(
            server.url, tmp_path, model="gpt-4o", conditions={"sizes": [64], "text_only": [False, True]}
        )
        run_experiment(exp, items=_items(), progress=False)
    frame = load_results(tmp_path).frame
    assert sorted(frame["text_only"].tolist()) == [False, False, True, True] and frame["row_key"].is_unique
    black = [a for a in seen if not a.any()]
    assert len(black) == 2 and all(a.shape == (64, 64, 3) for a in seen)
