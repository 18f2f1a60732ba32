"""plates.secrets: one redaction for backends, runner and explorer, covering escaped spellings of a key."""

import json

from plates.explorer.backends import redact as explorer_redact
from plates.secrets import redact

KEY = "sk-test-\u00e9\n"


def test_every_spelling_of_the_key_is_redacted():
    text = " | ".join([KEY, repr(KEY), json.dumps(KEY), repr(("Bearer " + KEY).encode())])
    out = redact(text, [KEY])
    assert "sk-test" not in out
    assert out.count("***") == 4


def test_none_and_empty_secrets():
    assert redact(None, ["abcd"]) is None
    assert redact("plain text", [None, ""]) == "plain text"


def test_min_length_keeps_short_secrets_from_garbling_messages():
    assert redact("a b c", ["a"]) == "*** b c"
    assert redact("a b c", ["a"], min_length=4) == "a b c"
    assert explorer_redact("key abc and abcd-key", ["abc", "abcd-key"]) == "key abc and ***"
