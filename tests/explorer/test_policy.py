"""What a visitor may ask the explorer for (plates/explorer/policy.py): public mode by default, always on a
hosted Space, and the allow lists and caps read from the environment."""

from __future__ import annotations

import pytest

from plates.explorer.policy import DEFAULT_KEY_ENDPOINT, Policy


def test_policy_from_env_reads_public_mode_and_allow_lists():
    p = Policy.from_env({"PLATES_PUBLIC": "1", "PLATES_ALLOWED_BASE_URLS": " https://a.example/v1/ ,https://b/v1",
                         "PLATES_ALLOWED_HF_MODELS": "org/m"})
    assert p.public and p.allowed_base_urls == ("https://a.example/v1", "https://b/v1")
    assert p.allowed_hf_models == ("org/m",) and p.max_plate_size == 1024 and p.max_sweep_points == 12
    assert Policy.from_env({}).public and not Policy.from_env({"PLATES_PUBLIC": "0"}).public  # safe by default
    with pytest.raises(ValueError, match="PLATES_PUBLIC='maybe'.*allowed"):
        Policy.from_env({"PLATES_PUBLIC": "maybe"})


@pytest.mark.parametrize("env, private, public", [
    ({}, False, True),  # nothing said: public
    ({"PLATES_PUBLIC": "0"}, False, False),
    ({}, True, False),  # python app.py --private
    ({"PLATES_PUBLIC": "false", "SPACE_ID": "someone/plates"}, False, True),  # a hosted Space: always public
    ({"SYSTEM": "spaces"}, True, True),
    ({"SPACE_ID": " "}, True, False),  # blank is not a Space
])
def test_public_unless_the_operator_says_private_and_always_on_a_space(env, private, public):
    policy = Policy.from_env(env, private=private)
    assert policy.public is public
    assert policy.max_plate_size == (1024 if public else 2048)
    assert policy.key_endpoint == ("" if public else DEFAULT_KEY_ENDPOINT)


def test_contradicting_or_unknown_flags_are_refused():
    with pytest.raises(ValueError, match=r"--private contradicts PLATES_PUBLIC='1'"):
        Policy.from_env({"PLATES_PUBLIC": "1"}, private=True)
    with pytest.raises(ValueError, match="PLATES_PUBLIC='maybe'.*allowed"):
        Policy.from_env({"PLATES_PUBLIC": "maybe"})
