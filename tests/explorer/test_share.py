"""The Model tab's share link (plates.explorer.share): plate, model, compared models, prompt and condition
round-trip; no key and no URL credentials in it; a link is validated like typed input."""

from __future__ import annotations

import base64
import json
import zlib
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from plates.explorer import codes, share
from plates.explorer import models as em
from plates.explorer import plate as ex
from plates.explorer.policy import Policy
from plates.explorer.share import ModelView
from plates.explorer.specs import decode_spec

KEY = "sk-share-9Xq3Wm7Tz2Kp"
WIDGETS = ("openai", "", "qwen2.5-vl-7b", "http://127.0.0.1:8000/v1", "cbe-yn-correct", "Is it {candidate}?",
           256, True, 90, "deutan", 0.6, "clear", "baseline\nopenai other http://127.0.0.1:8001/v1")


def test_the_widgets_round_trip_through_a_link():
    view = ModelView.from_widgets(*WIDGETS)
    assert view.model == "qwen2.5-vl-7b" and view.compare.endswith("8001/v1") and view.prompt_text
    link = share.share_link(ex.default_spec().replace(text="47", seed=3), view, "http://127.0.0.1:7860/?x=1#y")
    parts = urlsplit(link)
    assert (parts.scheme, parts.netloc, parts.path, parts.fragment) == ("http", "127.0.0.1:7860", "/", "")
    query = parse_qs(parts.query)
    assert sorted(query) == ["ask", "spec"]
    assert decode_spec(query["spec"][0]) == ex.default_spec().replace(text="47", seed=3)
    back = share.decode_view(query["ask"][0], Policy())
    assert back == view and back.widgets() == WIDGETS
    assert back.condition().cvd_severity == 0.6 and back.ask(Policy()).variant == "clear"


def test_the_prompt_text_travels_only_when_edited():
    template = em.prompt_template_text("cbe-open")
    plain = ModelView.from_widgets("baseline", "", "", "", "cbe-open", template, 0, False, 0, "none", 1, "standard")
    assert plain.prompt_text is None and plain.widgets()[5] == template
    assert plain.model == "" and plain.base_url == ""  # a baseline view carries no model fields


def test_a_key_and_url_credentials_never_reach_the_link():
    """The key typed in the key box is not a field of the view at all; any text that spells it (an edited
    prompt, a URL) is cut out, and a base URL loses its user:password, query and fragment."""
    view = ModelView(kind="openai", model="m", base_url=f"https://me:{KEY}@api.example/v1?api_key={KEY}#t",
                     compare=f"openai m2 https://u:{KEY}@other.example/v1?token={KEY}\nbaseline",
                     prompt_text=f"Read it. {KEY}")
    link = share.share_link(ex.default_spec(), view, "https://x.hf.space/", secrets=(KEY,))
    code = parse_qs(urlsplit(link).query)["ask"][0]
    carried = json.dumps(codes.unpack_json(code, share.MAX_VIEW_BYTES))
    for text in (link, unquote(link), carried):
        assert KEY not in text and "me:" not in text and "api_key" not in text and "token" not in text
    back = share.decode_view(code, Policy())
    assert back.base_url == "https://api.example/v1"
    assert back.compare == "openai m2 https://other.example/v1\nbaseline"
    assert back.prompt_text == "Read it. ***"


@pytest.mark.parametrize("url, want", [
    ("http://127.0.0.1:8000/v1/", "http://127.0.0.1:8000/v1"),
    ("https://user:pw@[::1]:8443/v1?k=v#f", "https://[::1]:8443/v1"),
    ("", ""),
])
def test_shareable_url_keeps_scheme_host_port_and_path(url, want):
    assert share.shareable_url(url) == want


def test_public_mode_refuses_a_link_to_a_model_it_does_not_allow():
    public = Policy.from_env({"PLATES_PUBLIC": "1", "PLATES_ALLOWED_BASE_URLS": "https://ok.example/v1"})
    allowed = share.encode_view(ModelView(kind="openai", model="m", base_url="https://ok.example/v1"))
    assert share.decode_view(allowed, public).base_url == "https://ok.example/v1"
    for view, message in [
        (ModelView(kind="openai", model="m", base_url="http://10.0.0.5/v1"), "base URL 'http://10.0.0.5/v1' is "
                                                                               "not allowed here"),
        (ModelView(compare="openai m http://169.254.169.254/v1"), "line 1 of the models to compare: base URL"),
        (ModelView(kind="hf", model="org/huge"), "Hugging Face model 'org/huge' is not allowed here"),
        (ModelView(size=4000), r"image size \(px\)=4000 is not valid"),
        (ModelView(prompt_name="nope"), "prompt 'nope' is unknown"),
    ]:
        with pytest.raises(ValueError, match=message):
            share.decode_view(share.encode_view(view), public)


def _code(value) -> str:
    return base64.urlsafe_b64encode(zlib.compress(json.dumps(value).encode())).decode().rstrip("=")


@pytest.mark.parametrize("code, message", [
    ("", "model code of 0 characters"),
    ("%%%", "not one the explorer made"),
    (_code([1]), "not an object"),
    (_code({"kind": "baseline", "api_key": "x"}), r"unknown fields \['api_key'\]"),
    (_code({"size": "256"}), "size '256' is not allowed; allowed: a int"),
    (_code({"grayscale": 1}), "grayscale 1 is not allowed; allowed: a bool"),
    (_code({"hue_shift": True}), "hue_shift True is not allowed"),
    (_code({"cvd": "blue"}), "CVD view 'blue' is unknown"),
    (base64.urlsafe_b64encode(zlib.compress(b"{}" + b" " * 100_000)).decode(), "expands past"),
])
def test_bad_model_codes_get_a_clear_message(code, message):
    with pytest.raises(ValueError, match=message):
        share.decode_view(code, Policy())
