"""The local backend on a real CUDA GPU (skipped where torch sees none, as on CI): what plates.models.hf_loading
promises about placement and dtype, checked on tiny models of every supported family built offline
(tests/support/tiny_vlm.py). Run on a GPU machine with ``python3 -m pytest tests/models/test_hf_gpu.py -v``.

- ``dtype="auto"`` on a GPU with bfloat16 loads bfloat16 weights on the GPU for every family, PaliGemma (Gemma)
  included, and the rows say so;
- in float32 the GPU answers exactly as the CPU does (greedy, peaky tiny models), one at a time and batched;
- ``device_map="auto"`` leaves the weights where accelerate put them (never moved afterwards) and sends the inputs
  to the map's first device; a map that keeps part of the model in CPU memory (as a model too big for the card
  is offloaded) answers as the one-device model does;
- an explicit ``dtype="float16"`` is honoured.
"""

from __future__ import annotations

import pytest
from PIL import Image

from plates.models import Query, Turn, make_backend
from tests.support.tiny_vlm import build_tiny_vlm

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("accelerate")
pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")

FAMILIES = ("llava", "idefics3", "paligemma", "florence2")


def _image(i: int) -> Image.Image:
    """Test images of different sizes and colours (sRGB 0-255)."""
    return Image.new("RGB", (40 + 9 * i, 30 + 5 * i), ((60 * i) % 256, 140, (255 - 30 * i) % 256))


def _queries(n: int = 4) -> list[Query]:
    return [Query((Turn("user", f"What number do you see? ({i})", (_image(i),)),), max_tokens=8,
                  answer_kind="label") for i in range(n)]


def _texts(backend, queries) -> list[str | None]:
    replies = [reply for _, reply in sorted(backend.ask(queries), key=lambda pair: pair[0])]
    assert all(reply.error is None for reply in replies), [reply.error for reply in replies]
    return [reply.text for reply in replies]


def _devices(backend) -> set[str]:
    return {str(p.device) for p in backend.network.parameters()}


def _map(backend) -> dict:
    """accelerate's placement (transformers sets ``hf_device_map`` only when a map spreads the model)."""
    return dict(getattr(backend.network, "hf_device_map", None) or {})


def _dtypes(backend) -> set:
    return {p.dtype for p in backend.network.parameters() if p.is_floating_point()}


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    return {arch: build_tiny_vlm(tmp_path_factory.mktemp(arch), arch=arch, seed=0) for arch in FAMILIES}


@pytest.mark.parametrize("arch", FAMILIES)
def test_auto_loads_every_family_on_the_gpu_in_bfloat16(models, arch):
    backend = make_backend("hf", model=str(models[arch]))
    assert torch.cuda.is_bf16_supported()
    assert backend.placement.dtype == "bfloat16" and backend.placement.compute == "cuda"
    assert _devices(backend) == {"cuda:0"} and _dtypes(backend) == {torch.bfloat16}
    queries = _queries(2)
    texts = _texts(backend, queries)
    assert all(isinstance(text, str) for text in texts)
    assert backend.settings_for(queries[0])["dtype"] == "bfloat16"
    backend.close()


@pytest.mark.parametrize("arch", ("llava", "idefics3"))
def test_float32_on_the_gpu_answers_as_the_cpu_does_singly_and_batched(models, arch):
    queries = _queries()
    cpu = _texts(make_backend("hf", model=str(models[arch]), device="cpu", dtype="float32"), queries)
    gpu = make_backend("hf", model=str(models[arch]), device="cuda", dtype="float32", batch_size=4)
    assert _devices(gpu) == {"cuda:0"} and gpu.device == "cuda:0"
    assert _texts(gpu, queries) == cpu
    gpu.batch_size = 1
    assert _texts(gpu, queries) == cpu


def test_device_map_auto_is_left_where_accelerate_put_it(models):
    queries = _queries()
    one = _texts(make_backend("hf", model=str(models["llava"]), device="cuda", dtype="float32"), queries)
    mapped = make_backend("hf", model=str(models["llava"]), device_map="auto", dtype="float32")
    assert mapped.placement.device is None and set(_map(mapped).values()) <= {0, "cuda:0"}, _map(mapped)
    assert _devices(mapped) == {"cuda:0"} and mapped.device == "cuda:0", (_devices(mapped), mapped.device)
    assert _texts(mapped, queries) == one


def test_a_map_that_offloads_part_of_the_model_to_cpu_memory_answers_as_one_gpu(models):
    queries = _queries()
    one = _texts(make_backend("hf", model=str(models["llava"]), device="cuda", dtype="float32"), queries)
    layers = {"model.vision_tower": 0, "model.multi_modal_projector": 0, "model.language_model": "cpu",
              "lm_head": "cpu"}
    mapped = make_backend("hf", model=str(models["llava"]), device_map=layers, dtype="float32")
    assert _map(mapped) == layers, _map(mapped)
    assert mapped.placement.compute == "cuda" and mapped.device == "cuda:0", (_devices(mapped), mapped.device)
    assert _texts(mapped, queries) == one
    # accelerate's own split under GPU memory caps smaller than the model (275 kB in float32): a cap too small
    # for the first unsplittable block leaves it all in CPU memory; a larger one splits it between GPU and CPU.
    # Whatever accelerate chooses, the answers are the one-GPU answers.
    splits = []
    for cap in (60_000, 120_000, 180_000, 240_000):
        capped = make_backend("hf", model=str(models["llava"]), device_map="auto", dtype="float32",
                              model_kwargs={"max_memory": {0: cap, "cpu": 2_000_000_000}})
        where = set(_map(capped).values()) or {str(capped.device)}
        splits.append(len(where) > 1)
        assert _texts(capped, queries) == one, (cap, _map(capped))
    assert any(splits), splits


def test_an_explicit_float16_is_honoured(models):
    backend = make_backend("hf", model=str(models["llava"]), dtype="float16")
    assert backend.placement.dtype == "float16" and _dtypes(backend) == {torch.float16}
    assert all(isinstance(text, str) for text in _texts(backend, _queries(2)))
