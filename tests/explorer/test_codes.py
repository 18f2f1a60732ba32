"""The link codes (plates.explorer.codes); their doctests, and every other module's, run in
tests/test_doctests.py."""

from __future__ import annotations

import base64
import zlib

import pytest

from plates.explorer import codes


def test_a_code_round_trips_and_a_bomb_stops_at_the_cap():
    value = {"prompt_text": "Which number? " * 50, "size": 256}
    code = codes.pack_json(value)
    assert codes.unpack_json(code, 10_000) == value and len(code) < 200  # repetitive text packs small
    with pytest.raises(ValueError, match="the link's code is not one the explorer made \\(it expands past 100"):
        codes.unpack_json(code, 100, "the link's code")
    not_json = base64.urlsafe_b64encode(zlib.compress(b"{not json")).decode().rstrip("=")
    with pytest.raises(ValueError, match="code is not one the explorer made \\(not JSON"):
        codes.unpack_json(not_json, 100)
