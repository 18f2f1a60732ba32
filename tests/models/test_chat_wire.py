"""The chat-completions wire format (plates.models.chat_wire): bodies with images spliced in, replies read."""

from __future__ import annotations

import base64
import json

import pytest

from plates.models.chat_wire import (
    HTTPStatusError,
    Malformed,
    encode_body,
    new_slot,
    parse_completion,
    png_base64,
)


def test_images_are_spliced_in_order_and_options_merge_like_the_sdk():
    slot = new_slot()
    messages = [
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": slot}}, {"type": "text", "text":
                                     f"not a slot: plates-image-{'0' * 32}"}]},
        {"role": "assistant", "content": "12"},
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": slot, "detail": "high"}}]},
    ]
    options = {"model": "m", "temperature": 0.0, "extra_body": {"top_k": 1}, "extra_headers": {"X-A": "b"}}
    body = json.loads(encode_body(messages, options, [png_base64(b"first"), png_base64(b"second")], slot))
    urls = [part["image_url"]["url"] for m in body["messages"] if isinstance(m["content"], list)
            for part in m["content"] if part["type"] == "image_url"]
    assert [base64.b64decode(u.split(",", 1)[1]) for u in urls] == [b"first", b"second"]
    assert all(u.startswith("data:image/png;base64,") for u in urls)
    assert body["model"] == "m" and body["temperature"] == 0.0 and body["top_k"] == 1
    assert "extra_body" not in body and "extra_headers" not in body
    assert body["messages"][0]["content"][1]["text"].startswith("not a slot")
    with pytest.raises(RuntimeError, match="2 image slots for 1 images"):
        encode_body(messages, options, [png_base64(b"x")], slot)


def test_replies_are_read_with_usage_and_revision():
    reply = {"model": "qwen", "system_fingerprint": "fp1", "usage": {"prompt_tokens": 7, "completion_tokens": 2},
             "choices": [{"message": {"role": "assistant", "content": "Answer: 12"}, "finish_reason": "stop"}]}
    assert parse_completion(200, {}, json.dumps(reply).encode()) == ("Answer: 12", 7, 2, "qwen@fp1")
    bare = {"choices": [{"message": {"content": "7"}}], "usage": {"prompt_tokens": True}}
    assert parse_completion(200, {}, json.dumps(bare).encode()) == ("7", None, None, None)
    for bad in (b"{", b'{"choices": []}', b'{"choices": [{"message": {"content": null}}]}'):
        with pytest.raises(Malformed):
            parse_completion(200, {}, bad)


def test_an_error_reply_carries_the_servers_message_bounded():
    with pytest.raises(HTTPStatusError, match="HTTP 503: overloaded") as info:
        parse_completion(503, {"retry-after": "2"}, b'{"error": {"message": "overloaded", "type": "x"}}')
    assert info.value.status == 503 and info.value.headers["retry-after"] == "2"
    with pytest.raises(HTTPStatusError) as info:
        parse_completion(500, {}, b"<html>" + b"x" * 10_000)
    assert info.value.detail.startswith("<html>") and len(info.value.detail) == 2000
