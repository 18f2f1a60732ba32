"""The Hugging Face backend on a tiny random LLaVA built offline in the test (tests/support/tiny_vlm.py; never the hub).

Greedy batched answers must equal one-at-a-time answers: left padding and decoding only the new tokens are
what make that true.
"""

from __future__ import annotations

import pytest
from PIL import Image

from plates.models import BackendFailing, Query, Turn, make_backend
from plates.models.hf import HFBackend, resolve_device, resolve_dtype
from tests.support.tiny_vlm import build_tiny_vlm

pytestmark = pytest.mark.slow  # imports torch + transformers and builds a model (a few seconds)


@pytest.fixture(scope="module")
def tiny_path(tmp_path_factory):
    return build_tiny_vlm(tmp_path_factory.mktemp("tiny-llava"), arch="llava", seed=0)


@pytest.fixture(scope="module")
def idefics3_backend(tmp_path_factory) -> HFBackend:
    path = build_tiny_vlm(tmp_path_factory.mktemp("tiny-idefics3"), arch="idefics3", seed=0)
    return make_backend("hf", model_id_or_path=str(path), batch_size=4)


@pytest.fixture(scope="module")
def backend(tiny_path) -> HFBackend:
    return make_backend("hf", model_id_or_path=str(tiny_path), batch_size=4)


def _image(i: int) -> Image.Image:
    """Test images of different sizes and colours (sRGB 0-255)."""
    image = Image.new("RGB", (40 + 9 * i, 30 + 5 * i), ((60 * i) % 256, 140, (255 - 30 * i) % 256))
    image.paste((255, 255, 0), (5, 5, 15 + i, 12))
    return image


def _queries() -> list[Query]:
    """Mixed lengths, kinds, image counts (none, one, few-shot two) and token budgets."""
    shot = (Turn("user", "What number do you see?", (_image(9),)), Turn("assistant", "12"))
    return [
        Query((Turn("user", "What number?", (_image(0),)),), max_tokens=10),
        Query((Turn("user", "Is the number 12 in the image? Answer yes or no." * 3, (_image(1),)),), kind="yesno",
              max_tokens=6),
        Query((Turn("user", "Which option? (A) 12 (B) 17", (_image(2),)),), kind="mc", max_tokens=10),
        Query((*shot, Turn("user", "And this one?", (_image(3),))), max_tokens=10),
        Query((Turn("user", "Say a number."),), max_tokens=10),
        Query((Turn("user", "What number do you see in the image?", (_image(5),)),), max_tokens=3),
    ]


@pytest.mark.parametrize("arch", ["llava", "idefics3"])
def test_batched_answers_equal_one_at_a_time(arch, request):
    backend = request.getfixturevalue("backend" if arch == "llava" else "idefics3_backend")
    queries = _queries()
    backend.batch_size = 4
    batched = dict(backend.ask(queries))
    backend.batch_size = 1
    single = dict(backend.ask(queries))
    backend.batch_size = 4
    assert sorted(batched) == sorted(single) == list(range(len(queries)))
    for i, query in enumerate(queries):
        assert batched[i].ok and batched[i].text == single[i].text, i
        assert batched[i].completion_tokens == single[i].completion_tokens <= query.max_tokens
        assert batched[i].prompt_tokens == single[i].prompt_tokens
    assert len({reply.text for reply in batched.values()}) > 1  # the answers depend on the input


def test_left_padding_is_used(backend, monkeypatch):
    seen = []
    original = backend.network.generate

    def spy(**inputs):
        seen.append(inputs["attention_mask"].clone())
        return original(**inputs)

    monkeypatch.setattr(backend.network, "generate", spy)
    short = Query((Turn("user", "Hi?", (_image(0),)),), max_tokens=2)
    long = Query((Turn("user", "What number do you see in the image? " * 4, (_image(1),)),), max_tokens=2)
    list(backend.ask([short, long]))
    (mask,) = seen
    assert backend.tokenizer.padding_side == "left"
    assert mask[0, 0] == 0 and mask[0, -1] == 1 and mask[1].all()  # padding on the left of the short row


def test_every_query_kind_is_answered(backend):
    queries = [q for q in _queries() if q.max_tokens > 3]
    assert {q.kind for q in queries} == {"open", "yesno", "mc"}
    replies = dict(backend.ask(queries))
    assert all(r.ok and not r.unsupported and r.latency_s > 0 for r in replies.values())


def test_one_bad_query_costs_one_error_reply(backend, monkeypatch):
    original = backend.generate

    def fragile(batch):
        if any(turn.text == "boom" for query in batch for turn in query.turns):
            raise RuntimeError("cannot process this query")
        return original(batch)

    monkeypatch.setattr(backend, "generate", fragile)
    queries = _queries()[:3] + [Query((Turn("user", "boom"),))]
    replies = dict(backend.ask(queries))
    assert [replies[i].ok for i in range(4)] == [True, True, True, False]
    assert replies[3].text is None and replies[3].error == "RuntimeError: cannot process this query"


def test_every_query_failing_the_same_way_stops(backend, monkeypatch):
    def broken(batch):
        raise RuntimeError("CUDA error: device-side assert")

    monkeypatch.setattr(backend, "generate", broken)
    monkeypatch.setattr(backend, "fail_after", 3)
    with pytest.raises(BackendFailing, match="last 3 queries .* RuntimeError: CUDA error"):
        list(backend.ask(_queries()))


def test_device_and_dtype_resolution():
    import torch

    auto = resolve_device("auto")
    assert auto in ("cuda", "mps", "cpu")
    assert resolve_dtype("auto", "cpu") == torch.float32
    assert resolve_dtype("float16", "cpu") == torch.float16
    with pytest.raises(ValueError, match="device 'tpu' is not allowed; allowed: auto, cuda, mps, cpu"):
        resolve_device("tpu")
    with pytest.raises(ValueError, match="dtype 'int8' is not allowed; allowed: auto, bfloat16, float16, float32"):
        resolve_dtype("int8", "cpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="no CUDA GPU"):
            resolve_device("cuda")


def test_bad_options(tiny_path):
    with pytest.raises(ValueError, match="batch_size must be an int >= 1"):
        HFBackend(str(tiny_path), batch_size=0)
    with pytest.raises(ValueError, match="model_id_or_path"):
        HFBackend("")
    with pytest.raises(ValueError, match="give the model once"):
        HFBackend(str(tiny_path), model="other")


def test_a_processor_without_chat_template_is_refused(tiny_path, tmp_path):
    import shutil

    copy = tmp_path / "no-template"
    shutil.copytree(tiny_path, copy)
    for template in copy.glob("chat_template.*"):
        template.unlink()
    with pytest.raises(ValueError, match="no chat template"):
        HFBackend(str(copy))


def test_model_is_another_name_for_the_path(tiny_path):
    backend = make_backend("hf", model=str(tiny_path))  # as the runner calls every backend
    assert backend.model == str(tiny_path)
    assert backend.ask_one(_queries()[0]).ok


def test_closed_backend_says_so(tiny_path):
    backend = HFBackend(str(tiny_path), dtype="float32")
    assert "device='cpu'" in repr(backend) or torch_has_gpu()
    backend.close()
    with pytest.raises(ValueError, match="closed"):
        list(backend.ask(_queries()[:1]))


def torch_has_gpu() -> bool:
    import torch

    return torch.cuda.is_available()


def test_a_missing_model_folder_is_a_value_error_naming_it(tmp_path):
    missing = tmp_path / "no-such-model"
    with pytest.raises(ValueError, match=r"'.*no-such-model' cannot be loaded .*allowed: a local folder"):
        make_backend("hf", model_id_or_path=str(missing))
