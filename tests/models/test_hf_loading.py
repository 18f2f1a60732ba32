"""Local models as researchers load them (plates.models.hf_loading): placement and dtype decided on CPU from the
machine's stated capabilities, accelerate device maps with disk offload, remote code as an explicit opt-in,
and the prompt formats of PaliGemma and Florence-2, each on a tiny model built offline
(tests/support/tiny_vlm.py)."""

from __future__ import annotations

import json
import shutil

import pytest
from PIL import Image

from plates.models import Query, Turn, make_backend
from plates.models.hf_loading import (
    Placement,
    auto_dtype,
    declined,
    format_prompt,
    model_types,
    plan_placement,
)
from tests.support.tiny_vlm import build_tiny_vlm

GPU_BF16 = {"cuda": True, "bf16": True, "mps": False}
GPU_OLD = {"cuda": True, "bf16": False, "mps": False}  # e.g. a T4 or V100: no bfloat16
APPLE = {"cuda": False, "bf16": False, "mps": True}
CPU = {"cuda": False, "bf16": False, "mps": False}


@pytest.mark.parametrize(("machine", "types", "expected"), [
    (GPU_BF16, {"llava"}, Placement("cuda", None, "bfloat16", "cuda")),
    (GPU_BF16, {"gemma3"}, Placement("cuda", None, "bfloat16", "cuda")),
    (GPU_OLD, {"llava"}, Placement("cuda", None, "float16", "cuda")),
    (GPU_OLD, {"gemma3"}, Placement("cuda", None, "float32", "cuda")),
    (GPU_OLD, {"paligemma", "gemma2"}, Placement("cuda", None, "float32", "cuda")),
    (APPLE, {"idefics3"}, Placement("mps", None, "float16", "mps")),
    (APPLE, {"gemma3"}, Placement("mps", None, "float32", "mps")),
    (CPU, {"llava"}, Placement("cpu", None, "float32", "cpu")),
])
def test_auto_device_and_dtype(machine, types, expected):
    assert plan_placement(model_types=types, **machine) == expected


def test_a_device_map_places_the_model_and_decides_the_compute_dtype():
    assert plan_placement(device_map="auto", **GPU_BF16) == Placement(None, "auto", "bfloat16", "cuda")
    assert plan_placement(device_map="balanced", model_types={"gemma3"}, **GPU_OLD).dtype == "float32"
    assert plan_placement(device_map="auto", **CPU) == Placement(None, "auto", "float32", "cpu")
    layers = {"model.vision_tower": 0, "model.language_model": 1, "lm_head": "cpu", "model.rest": "disk"}
    assert plan_placement(device_map=layers, **GPU_BF16) == Placement(None, layers, "bfloat16", "cuda")
    assert plan_placement(device_map={"model": "cpu", "lm_head": "disk"}, **GPU_BF16).compute == "cpu"
    assert plan_placement(device="cuda:1", dtype="float16", model_types={"gemma3"}, **GPU_OLD) == Placement(
        "cuda:1", None, "float16", "cuda")  # an explicit dtype is honoured


@pytest.mark.parametrize(("options", "machine", "message"), [
    ({"device": "tpu"}, CPU, "device 'tpu' is not allowed; allowed: auto, cuda, mps, cpu"),
    ({"device": "cpu:0"}, CPU, "device 'cpu:0' is not allowed"),
    ({"dtype": "int8"}, CPU, "dtype 'int8' is not allowed; allowed: auto, bfloat16, float16, float32"),
    ({"device": "cuda"}, CPU, "torch sees no CUDA GPU"),
    ({"device": "mps"}, CPU, "no usable MPS device"),
    ({"device": "cpu", "device_map": "auto"}, GPU_BF16, "give device .* or device_map .*, not both"),
    ({"device_map": "everywhere"}, GPU_BF16, "device_map 'everywhere' is not allowed; allowed: auto, balanced"),
    ({"device_map": {"lm_head": 1.5}}, GPU_BF16, "device_map .* is not allowed"),
    ({"device_map": {}}, GPU_BF16, "device_map {} is not allowed"),
])
def test_bad_placements_are_named(options, machine, message):
    with pytest.raises(ValueError, match=message):
        plan_placement(**options, **machine)


def test_fp16_unsafe_families_are_found_in_nested_configs():
    from transformers import GemmaConfig, PaliGemmaConfig

    config = PaliGemmaConfig(text_config=GemmaConfig(hidden_size=32, num_hidden_layers=1).to_dict())
    config.text_config.model_type = "gemma2"  # PaliGemma 2 is PaliGemma on Gemma 2
    assert model_types(config) == {"paligemma", "gemma2"}
    assert auto_dtype("cuda", bf16=False, model_types=model_types(config)) == "float32"


def _image(i: int) -> Image.Image:
    """Test images of different sizes and colours (sRGB 0-255)."""
    return Image.new("RGB", (40 + 9 * i, 30 + 5 * i), ((60 * i) % 256, 140, (255 - 30 * i) % 256))


def _single(n: int = 3, **fields) -> list[Query]:
    """Open plate-reading questions with one image each (what every supported family can answer)."""
    return [Query((Turn("user", f"What number do you see? ({i})", (_image(i),)),), max_tokens=8,
                  answer_kind="label", **fields) for i in range(n)]


@pytest.fixture(scope="module")
def llava(tmp_path_factory):
    return build_tiny_vlm(tmp_path_factory.mktemp("llava"), arch="llava", seed=0)


def _texts(backend, queries) -> list[str | None]:
    return [reply.text for _, reply in sorted(backend.ask(queries), key=lambda pair: pair[0])]


@pytest.mark.slow
def test_an_offloading_device_map_answers_as_one_device_and_is_never_moved(llava, tmp_path):
    layers = {"model.vision_tower": "cpu", "model.multi_modal_projector": "cpu", "model.language_model": "disk",
              "lm_head": "disk"}
    placed = make_backend("hf", model=str(llava), device_map=layers,
                          model_kwargs={"offload_folder": str(tmp_path / "offload")})
    assert placed.network.hf_device_map == layers and placed.placement.device is None
    assert any(p.device.type == "meta" for p in placed.network.model.language_model.parameters())  # on disk
    assert "device_map=" in repr(placed) and placed.device == "cpu"
    queries = _single()
    assert _texts(placed, queries) == _texts(make_backend("hf", model=str(llava)), queries)


@pytest.mark.slow
def test_remote_code_loads_only_when_allowed(tmp_path, llava):
    path = build_tiny_vlm(tmp_path / "own-code", arch="remote-code", seed=0)
    with pytest.raises(ValueError, match="ships its own Python code, which runs only with trust_remote_code=True"):
        make_backend("hf", model=str(path))
    allowed = make_backend("hf", model=str(path), trust_remote_code=True)
    assert type(allowed.network).__name__ == "PlatesTinyForCausalLM"  # the repository's own class
    queries = _single()
    assert _texts(allowed, queries) == _texts(make_backend("hf", model=str(llava)), queries)  # same weights
    with pytest.raises(ValueError, match="trust_remote_code must be True or False"):
        make_backend("hf", model=str(llava), trust_remote_code="yes")


def test_prompt_formats_and_what_they_decline():
    one = _single(1)[0]
    assert format_prompt("paligemma", one) == "<image>answer en What number do you see? (0)"
    assert format_prompt("florence2", one) == "<OCR>" and declined("florence2", one) is None
    shot = Query((Turn("user", "What number?", (_image(1),)), Turn("assistant", "12"),
                  Turn("user", "And this?", (_image(2),))))
    yesno = Query((Turn("user", "Is it 12?", (_image(1),)),), kind="yesno", answer_kind="yesno")
    assert "PaliGemma answers one image and one question; this query has 3 turns" in declined("paligemma", shot)
    assert declined("paligemma", yesno) is None  # PaliGemma answers any question about one image
    assert "Florence-2 has no free-form questions" in declined("florence2", yesno)
    assert declined("chat-template", shot) is None


@pytest.mark.slow
@pytest.mark.parametrize("arch", ["paligemma", "florence2"])
def test_families_without_a_chat_template_answer_in_their_own_format(arch, tmp_path):
    path = build_tiny_vlm(tmp_path / arch, arch=arch, seed=0)
    backend = make_backend("hf", model=str(path), batch_size=3)
    queries = [*_single(3, answer_format="Answer: {answer}"),
               Query((Turn("user", "Is the number 12 in the image?", (_image(4),)),), kind="yesno",
                     answer_kind="yesno", max_tokens=8),
               Query((Turn("user", "Say a number."),), max_tokens=8)]
    batched = dict(backend.ask(queries))
    backend.batch_size = 1
    single = dict(backend.ask(queries))
    assert [batched[i].text for i in range(5)] == [single[i].text for i in range(5)]
    assert all(batched[i].ok and batched[i].completion_tokens <= 8 for i in range(3))
    assert batched[4].unsupported and "one image and one question" in batched[4].error
    settings = batched[0].settings
    assert settings["prompt_format"] == arch and settings["prompt_sent"] == format_prompt(arch, queries[0])
    if arch == "florence2":  # reads text only; the question's answer format is applied to what it read
        assert batched[3].unsupported and "no free-form questions" in batched[3].error
        assert batched[0].text.startswith("Answer: ") and settings["answer_format"] == "Answer: {answer}"
        # its file asks for beam search and an n-gram ban, as Florence-2's published checkpoints do: overridden
        assert settings["model_file_overridden"]["num_beams"] == 3 and settings["num_beams"] == 1
    else:
        assert batched[3].ok
    clean = tmp_path / f"{arch}-clean"  # the same weights with no decoding settings in the file
    shutil.copytree(path, clean)
    config = json.loads((clean / "generation_config.json").read_text())
    (clean / "generation_config.json").write_text(json.dumps(
        {k: v for k, v in config.items() if k.endswith("token_id") or k.startswith("_")}))
    assert [r.text for _, r in sorted(make_backend("hf", model=str(clean)).ask(queries))] == [
        single[i].text for i in range(5)]
