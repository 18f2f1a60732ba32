"""A plate's spec as text and as a share code (plates/explorer/specs.py): JSON in and out, the caps a pasted,
uploaded or linked spec meets before it is built, and compact URL-safe codes."""

from __future__ import annotations

import base64
import json
import zlib

import pytest

from plates.explorer import plate as ex
from plates.explorer.policy import Policy
from plates.explorer.specs import (
    decode_spec,
    encode_spec,
    share_link,
    spec_from_text,
    spec_to_json,
)
from plates.stimuli.ishihara.plate import PlateSpec

PUBLIC = Policy.from_env({"PLATES_PUBLIC": "1"})


def controls(**changes) -> ex.Controls:
    base = ex.spec_to_controls(ex.default_spec())
    return ex.Controls(**{**base.__dict__, **changes})


def test_share_code_round_trips_compactly_and_url_safely():
    spec = ex.controls_to_spec(controls(text="A7", delta_e=3.25, colour_pair="huemanity-03", seed=99))
    code = encode_spec(spec)
    assert set(code) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert len(code) < len(spec.to_json())
    assert decode_spec(code) == spec
    assert share_link(spec) == f"?spec={code}"  # no page URL: the bare query string
    assert share_link(spec, "https://x.hf.space/?__theme=dark#top") == f"https://x.hf.space/?spec={code}"
    assert share_link(spec, "http://127.0.0.1:7860") == f"http://127.0.0.1:7860/?spec={code}"
    assert share_link(spec, None) == share_link(spec, "javascript:alert(1)") == f"?spec={code}"


@pytest.mark.parametrize("code, message", [
    ("", "share code of 0 characters"),
    ("!!!!", "not one the explorer made"),
    ("x" * 9000, "share code of 9000 characters"),
    (base64.urlsafe_b64encode(zlib.compress(b"{}" + b" " * 200000)).decode(), "expands past"),
    (base64.urlsafe_b64encode(zlib.compress(b"[1,2]")).decode(), "not an object"),
])
def test_bad_share_codes_get_a_clear_message(code, message):
    with pytest.raises(ValueError, match=message):
        decode_spec(code)


def test_spec_from_text_takes_bytes_and_explains_bad_input():
    spec = ex.default_spec()
    assert spec_from_text(spec_to_json(spec).encode()) == spec
    assert json.loads(spec_to_json(spec))["text"] == "12"
    with pytest.raises(ValueError, match="not valid JSON"):
        spec_from_text("{text: 12")
    with pytest.raises(ValueError, match="not UTF-8"):
        spec_from_text(b"\xff\xfe\x00")
    with pytest.raises(ValueError, match="spec is empty"):
        spec_from_text("  ")
    with pytest.raises(ValueError, match=r"PlateSpec: unknown key\(s\) colour; allowed: "):
        spec_from_text('{"text": "1", "colour": 3}')


def test_pasted_specs_are_capped_before_they_are_built():
    """Regression: a pasted spec had no size cap; 2,200 x 2,200 colours took 11.7 s (the pairs grow with the
    square). The text, and each colour list, are capped before any PlateSpec is made."""
    huge = json.dumps({"text": "12", "palette": None, "foreground": ["#102030"] * 2200,
                       "background": ["#a0b0c0"] * 2200})
    with pytest.raises(ValueError, match=r"spec is \d+ characters; allowed: at most 8192 characters"):
        spec_from_text(huge, PUBLIC)
    with pytest.raises(ValueError, match=r"spec is \d+ characters; allowed: at most 65536"):
        spec_from_text(json.dumps({"text": "12", "palette": None, "foreground": ["#102030"] * 6000,
                                   "background": ["#a0b0c0"]}))
    many = json.dumps({"text": "12", "palette": None, "foreground": ["#102030"] * 40,
                       "background": ["#a0b0c0"]})
    with pytest.raises(ValueError, match="foreground has 40 colours; allowed: 1-16 colours a list here"):
        spec_from_text(many, PUBLIC)
    assert len(spec_from_text(many).foreground) == 40  # private mode allows up to 64
    with pytest.raises(ValueError, match="background has 65 colours; allowed: 1-64"):
        spec_from_text(many.replace('["#a0b0c0"]', json.dumps(["#a0b0c0"] * 65)))
    with pytest.raises(ValueError, match="spec file is 9000 bytes; allowed: at most 8192 bytes"):
        spec_from_text(b" " * 9000, PUBLIC)
    code = encode_spec(PlateSpec(text="1", size=96, palette=None, foreground=["#102030"] * 20,
                                 background=["#a0b0c0"]))
    with pytest.raises(ValueError, match="foreground has 20 colours"):  # a share link meets the same caps
        decode_spec(code, PUBLIC)
    base = PlateSpec(text="1", size=96, palette=None, foreground=["#102030"] * 20, background=["#a0b0c0"])
    with pytest.raises(ValueError, match="foreground has 20 colours"):
        ex.controls_to_spec(ex.spec_to_controls(base), PUBLIC, base=base)
    p = Policy.from_env({"PLATES_PUBLIC": "1"})
    assert (p.max_spec_chars, p.max_colours, p.max_prompt_chars) == (8192, 16, 1000)
