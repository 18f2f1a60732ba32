"""`plates serve-baseline`: the OpenAI chat-completions server answers the official `openai` SDK on 127.0.0.1."""

from __future__ import annotations

import base64
import io
import json
import threading
import urllib.error
import urllib.request

import openai
import pytest

from plates.reader.server import BaselineServer
from plates.tasks.prompts import get_prompt


@pytest.fixture(scope="module")
def server():
    srv = BaselineServer(port=0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.fixture(scope="module")
def client(server):
    with openai.OpenAI(base_url=server.base_url, api_key="unused", max_retries=0, timeout=30) as c:
        yield c


def _data_url(label: str, palette: str = "huemanity-05") -> str:
    from plates.stimuli.ishihara.plate import HUEMANITY_JITTER, PlateSpec, render

    image = render(PlateSpec(text=label, size=450, seed=4_200_000, palette=palette, **HUEMANITY_JITTER)).image
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def _messages(prompt: str, url: str) -> list[dict]:
    return [{"role": "user", "content": [{"type": "text", "text": prompt},
                                         {"type": "image_url", "image_url": {"url": url}}]}]


def test_reads_a_real_plate_through_the_openai_sdk(client):
    reply = client.chat.completions.create(
        model="baseline-cnn", messages=_messages(get_prompt("huemanity-numeric").template, _data_url("73")),
        max_tokens=10, temperature=0,
    )
    assert reply.choices[0].message.content == "Answer: 73"
    assert reply.choices[0].finish_reason == "stop" and reply.model == "baseline-cnn"
    assert reply.usage.completion_tokens == 2
    assert reply.usage.total_tokens == reply.usage.prompt_tokens + reply.usage.completion_tokens


def test_lists_its_model(client):
    assert [m.id for m in client.models.list()] == ["baseline-cnn"]


def test_unknown_model_is_a_404_naming_the_allowed_one(client):
    with pytest.raises(openai.NotFoundError, match="baseline-cnn"):
        client.chat.completions.create(model="gpt-4o", messages=_messages("What number?", _data_url("12")))


def test_a_message_without_an_image_is_a_400(client):
    with pytest.raises(openai.BadRequestError, match="no image"):
        client.chat.completions.create(model="baseline-cnn", messages=[{"role": "user", "content": "Hi"}])


def test_remote_image_urls_are_refused(client):
    with pytest.raises(openai.BadRequestError, match="data URL"):
        client.chat.completions.create(
            model="baseline-cnn", messages=_messages("What number?", "https://example.com/plate.png")
        )


def test_streaming_is_refused(client):
    with pytest.raises(openai.BadRequestError, match="stream"):
        client.chat.completions.create(model="baseline-cnn", messages=_messages("x", _data_url("12")), stream=True)


def test_malformed_json_gets_openai_error_json(server):
    request = urllib.request.Request(f"{server.base_url}/chat/completions", data=b"{not json",
                                     headers={"Content-Type": "application/json"}, method="POST")
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(request, timeout=10)
    assert info.value.code == 400
    error = json.loads(info.value.read())["error"]
    assert error["type"] == "invalid_request_error" and "JSON" in error["message"]


def test_bad_port_is_a_value_error():
    with pytest.raises(ValueError, match="0-65535"):
        BaselineServer(port=70000)
