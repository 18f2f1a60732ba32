"""What a visitor may ask the explorer for (plates/explorer/policy.py): public mode by default, always on a
hosted Space, and the allow lists and caps read from the environment."""

from __future__ import annotations

import pytest

from plates.explorer.policy import DEFAULT_KEY_ENDPOINT, PROVIDERS, Policy


def test_policy_from_env_reads_public_mode_and_allow_lists():
    p = Policy.from_env({"PLATES_PUBLIC": "1", "PLATES_ALLOWED_BASE_URLS": " https://a.example/v1/ ,https://b/v1",
                         "PLATES_ALLOWED_HF_MODELS": "org/m"})
    assert p.public and p.allowed_base_urls == ("https://a.example/v1", "https://b/v1")
    assert p.allowed_hf_models == ("org/m",) and p.max_plate_size == 1024 and p.max_sweep_points == 12
    assert Policy.from_env({"GRADIO_SERVER_NAME": "0.0.0.0"}).public  # reachable from other machines: public
    assert not Policy.from_env({"GRADIO_SERVER_NAME": "0.0.0.0", "PLATES_PUBLIC": "0"}).public
    with pytest.raises(ValueError, match="PLATES_PUBLIC='maybe'.*allowed"):
        Policy.from_env({"PLATES_PUBLIC": "maybe"})


@pytest.mark.parametrize("env, private, public", [
    ({}, False, False),  # nothing said, bound to 127.0.0.1 (the default): private, its one user is here
    ({"GRADIO_SERVER_NAME": "localhost"}, False, False),
    ({"GRADIO_SERVER_NAME": "::1"}, False, False),
    ({"GRADIO_SERVER_NAME": "0.0.0.0"}, False, True),  # every interface: public
    ({"GRADIO_SERVER_NAME": "192.168.1.20"}, False, True),
    ({"GRADIO_SERVER_NAME": "plates.example.org"}, False, True),
    ({"PLATES_PUBLIC": "1"}, False, True),  # the operator asks for public on loopback
    ({"PLATES_PUBLIC": "0", "GRADIO_SERVER_NAME": "0.0.0.0"}, False, False),
    ({"GRADIO_SERVER_NAME": "0.0.0.0"}, True, False),  # python app.py --private
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


@pytest.mark.parametrize("env, private, words", [
    ({}, False, ["**Private mode**", "bound to 127.0.0.1", "any OpenAI-compatible URL"]),
    ({"GRADIO_SERVER_NAME": "0.0.0.0"}, False, ["**Public mode**", "bound to 0.0.0.0", "your own API key",
                                                "OpenRouter", "never used for you"]),
    ({"SPACE_ID": "someone/plates"}, False, ["**Public mode**", "on a Hugging Face Space"]),
    ({"GRADIO_SERVER_NAME": "0.0.0.0"}, True, ["**Private mode**", "--private"]),
])
def test_the_header_says_which_mode_why_and_what_it_allows(env, private, words):
    line = Policy.from_env(env, private=private).mode_markdown()
    for word in words:
        assert word in line


def test_public_mode_allows_the_fixed_providers_and_the_operators_urls_only():
    policy = Policy.from_env({"GRADIO_SERVER_NAME": "0.0.0.0", "PLATES_ALLOWED_BASE_URLS": "https://own.example/v1"})
    urls = policy.public_base_urls()
    assert urls[-1] == "https://own.example/v1" and len(urls) == len(PROVIDERS) + 1
    assert "https://openrouter.ai/api/v1" in urls and "https://router.huggingface.co/v1" in urls
    assert all(url.startswith("https://") and not url.endswith("/") for _, url in PROVIDERS)
    assert policy.provider_name("https://api.groq.com/openai/v1/") == "Groq"
    assert policy.provider_name("https://own.example/v1") == "https://own.example/v1"
    # the providers come from code only: no environment variable adds one
    assert Policy.from_env({"GRADIO_SERVER_NAME": "0.0.0.0", "PLATES_PROVIDERS": "x"}).providers == PROVIDERS
