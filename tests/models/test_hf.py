"""The Hugging Face backend on a tiny random LLaVA built offline in the test (tests/support/tiny_vlm.py; never the hub).

Greedy batched answers must equal one-at-a-time answers: left padding and decoding only the new tokens are
what make that true. These tests load on the CPU in float32 (``device="cpu"``) wherever they run: on a GPU the
default dtype is bfloat16, where a padded batch rounds differently from one query alone and a tiny random
model's greedy reply can change (seen on an H200); tests/models/test_hf_gpu.py covers the GPU.
"""

from __future__ import annotations

import pytest
from PIL import Image

from plates.models import BackendFailing, Query, Turn, make_backend
from plates.models.hf import HFBackend, to_conversation
from tests.support.tiny_vlm import build_tiny_vlm

pytestmark = pytest.mark.slow  # imports torch + transformers and builds a model (a few seconds)


@pytest.fixture(scope="module")
def tiny_path(tmp_path_factory):
    return build_tiny_vlm(tmp_path_factory.mktemp("tiny-llava"), arch="llava", seed=0)


@pytest.fixture(scope="module")
def idefics3_backend(tmp_path_factory) -> HFBackend:
    path = build_tiny_vlm(tmp_path_factory.mktemp("tiny-idefics3"), arch="idefics3", seed=0)
    return make_backend("hf", model_id_or_path=str(path), batch_size=4, device="cpu")


@pytest.fixture(scope="module")
def backend(tiny_path) -> HFBackend:
    return make_backend("hf", model_id_or_path=str(tiny_path), batch_size=4, device="cpu")


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


#: generation_config.json settings a model's authors may ship: sampling, a narrow top-k, penalties, an n-gram ban
NOISY_FILE = {"do_sample": True, "temperature": 1.7, "top_k": 3, "top_p": 0.8, "repetition_penalty": 4.0,
              "no_repeat_ngram_size": 1}


@pytest.mark.parametrize("arch", ["llava", "idefics3"])
def test_a_model_files_sampling_and_penalties_do_not_change_a_greedy_answer(arch, tmp_path):
    import json
    import shutil

    import torch
    import transformers

    clean = build_tiny_vlm(tmp_path / "clean", arch=arch, seed=0)
    noisy = tmp_path / "noisy"
    shutil.copytree(clean, noisy)
    config = json.loads((noisy / "generation_config.json").read_text())
    (noisy / "generation_config.json").write_text(json.dumps({**config, **NOISY_FILE}))
    queries = [q for q in _queries() if q.max_tokens >= 10]
    plain, loud = (dict(make_backend("hf", model=str(path), batch_size=4, device="cpu").ask(queries)) for path in (clean, noisy))
    for i in range(len(queries)):
        assert plain[i].ok and plain[i].text == loud[i].text and plain[i].completion_tokens == 10, i
    # the file does decide answers when a call leaves settings to it (a greedy call as transformers users write it)
    reference = make_backend("hf", model=str(noisy), device="cpu")
    network = transformers.AutoModelForImageTextToText.from_pretrained(str(noisy))
    inputs = reference.processor.apply_chat_template(
        [to_conversation(queries[3])], add_generation_prompt=True, tokenize=True, return_dict=True,
        return_tensors="pt")
    torch.manual_seed(0)
    inherited = network.generate(**inputs, max_new_tokens=10, do_sample=False)[0, inputs["input_ids"].shape[1]:]
    assert queries[3].turns[-1].text == "Say a number."
    assert reference.processor.decode(inherited, skip_special_tokens=True).strip() != plain[3].text
    settings = loud[0].settings  # what decided the answer, and what of the file it overrode
    assert (settings["do_sample"], settings["num_beams"], settings["repetition_penalty"]) == (False, 1, 1.0)
    assert settings["no_repeat_ngram_size"] == 0 and settings["max_new_tokens"] == queries[0].max_tokens
    assert settings["model_file_overridden"] == NOISY_FILE and settings["prompt_format"] == "chat-template"
    assert settings["dtype"] == "float32" and settings["eos_token_id"] and "top_k" not in settings
    assert dict(plain[0].settings) == {**settings, "model_file_overridden": {}}


def test_sampling_is_plain_sampling_at_the_query_temperature(backend):
    query = Query((Turn("user", "Say a number."),), max_tokens=4, temperature=0.8)
    settings = backend.ask_one(query).settings
    assert (settings["do_sample"], settings["temperature"], settings["top_k"], settings["top_p"]) == (True, 0.8, 0,
                                                                                                      1.0)
    assert settings["min_p"] is None and settings["repetition_penalty"] == 1.0 and settings["seed"] is None


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


def test_bad_options(tiny_path):
    with pytest.raises(ValueError, match="batch_size=0 is not valid; allowed: an integer >= 1"):
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
    with pytest.raises(ValueError, match=r"no chat template and its family \(llava\) has no prompt format"):
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


def test_a_hub_models_revision_is_the_commit_of_its_snapshot(tiny_path, backend, tmp_path):
    """A hub id loads from the local cache's snapshot of one commit: rows record that commit (run in a fresh
    interpreter, since huggingface_hub reads HF_HUB_CACHE when imported)."""
    import os
    import shutil
    import subprocess
    import sys

    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = tmp_path / "hub" / "models--plates-test--tiny-llava"
    shutil.copytree(tiny_path, repo / "snapshots" / commit)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    code = ("from plates.models import Query, Turn, make_backend\n"
            "b = make_backend('hf', model='plates-test/tiny-llava')\n"
            "print(b.ask_one(Query((Turn('user', 'Say a number.'),), max_tokens=2)).revision)")
    env = {**os.environ, "HF_HUB_CACHE": str(tmp_path / "hub"), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == commit
    assert backend.ask_one(Query((Turn("user", "Say a number."),), max_tokens=2)).revision is None  # a folder

