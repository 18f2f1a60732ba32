"""`plates.models.decoding`: every generation setting stated (transformers) or sent (OpenAI-compatible servers),
and what a request leaves to the server named; generation-config values as JSON holds them."""

from __future__ import annotations

import numpy as np
import pytest

from plates.models.decoding import SAMPLING_FIELDS, VLLM_NEUTRAL, api_sampling, hf_settings, json_value

ALL = sorted(("temperature", "max_tokens", *VLLM_NEUTRAL))


def test_hf_greedy_states_every_setting_and_no_sampling_ones():
    s = hf_settings(0.0, 16)
    assert s["do_sample"] is False and s["num_beams"] == 1 and s["max_new_tokens"] == 16
    assert s["repetition_penalty"] == 1.0 and s["no_repeat_ngram_size"] == 0 and s["length_penalty"] == 1.0
    assert not {"temperature", "top_k", "top_p", "min_p"} & set(s)  # only applied when sampling


def test_hf_sampling_is_plain_sampling_over_the_whole_vocabulary():
    s = hf_settings(0.7, "8")
    assert s["do_sample"] is True and s["temperature"] == 0.7 and s["max_new_tokens"] == 8
    assert (s["top_k"], s["top_p"], s["typical_p"], s["min_p"]) == (0, 1.0, 1.0, None)
    assert set(hf_settings(0.0, 8)) < set(s)


def test_openai_mode_sends_temperature_and_the_budget_and_names_the_rest_as_the_servers():
    top, extra, left = api_sampling("openai", temperature=0.0, token_param="max_completion_tokens", max_tokens=32,
                                    seed=5)
    assert top == {"max_completion_tokens": 32, "temperature": 0.0, "seed": 5} and extra == {}
    assert left == sorted(VLLM_NEUTRAL)


def test_vllm_mode_sends_every_neutral_value_schema_fields_on_top():
    top, extra, left = api_sampling("vllm", temperature=0.2, token_param="max_tokens", max_tokens=8)
    assert top == {"max_tokens": 8, "temperature": 0.2, "top_p": 1.0, "presence_penalty": 0.0,
                   "frequency_penalty": 0.0}
    assert extra == {"top_k": -1, "min_p": 0.0, "repetition_penalty": 1.0} and left == []


def test_no_temperature_leaves_all_sampling_to_the_server_and_no_budget_is_named():
    top, extra, left = api_sampling("vllm", temperature=None, token_param=None, max_tokens=8)
    assert top == {} and extra == {} and left == ALL


def test_the_callers_extra_body_wins_over_the_modes_value():
    top, extra, left = api_sampling("vllm", temperature=0.0, token_param="max_tokens", max_tokens=8,
                                    extra_body={"top_p": 0.9, "top_k": 20, "chat_template_kwargs": {"x": 1}})
    assert "top_p" not in top and extra["top_p"] == 0.9 and extra["top_k"] == 20
    assert extra["chat_template_kwargs"] == {"x": 1} and left == []


@pytest.mark.parametrize("mode", ["OpenAI", "", "hf"])
def test_an_unknown_mode_names_the_allowed_ones(mode):
    with pytest.raises(ValueError, match=f"sampling_fields {mode!r} is not allowed; allowed: openai, vllm"):
        api_sampling(mode, temperature=0.0, token_param="max_tokens", max_tokens=8)
    assert SAMPLING_FIELDS == ("openai", "vllm")


def test_json_value_makes_containers_lists_and_other_objects_text():
    assert json_value(None) is None and json_value(True) is True and json_value(1.5) == 1.5
    assert json_value((1, (2, 3))) == [1, [2, 3]] and json_value({3}) == [3]
    assert json_value({1: (np.int64(2),)}) == {"1": [2]}
    assert json_value(np.array([[1, 2]])) == [[1, 2]]
    assert json_value(object) == "<class 'object'>"
