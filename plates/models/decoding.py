"""Decoding stated, never inherited: the generation settings each backend sends, and how a reply records them.

A model's answer depends on every setting of its decoder, and each place that can fill a setting in behind
the caller's back does so:

* transformers fills every setting a ``generate`` call leaves unset (None) from the model's own
  ``generation_config.json`` (``GenerationMixin._prepare_generation_config``: "user-defined kwargs or
  `generation_config` > `self.generation_config` > global default values"). A "greedy" call on Qwen2-VL then
  decodes with its file's repetition penalty 1.05, and a file's ``do_sample``, ``top_k``, ``suppress_tokens``
  or ``no_repeat_ngram_size`` would apply too. The hf backend therefore replaces the loaded model's generation
  config by one holding only the file's special-token ids (:data:`TOKEN_SETTINGS`) and passes every call the
  full settings of :func:`hf_settings`.
* An OpenAI-compatible server fills every sampling field a request leaves out with its own default, and vLLM's
  default (``--generation-config auto``) is the model's ``generation_config.json`` again. What the openai
  backend sends is chosen by ``sampling_fields`` (:data:`SAMPLING_FIELDS`, :func:`api_sampling`):

  - ``"openai"`` (the default): ``temperature`` only, the one field every OpenAI-compatible provider takes.
    Strict providers (OpenAI itself, the Anthropic and Gemini compatibility layers) reject or ignore fields
    outside their schema, and some refuse ``temperature`` and ``top_p`` together. Top-p, top-k, min-p and the
    penalties are the server's: each row names them under ``left_to_server``.
  - ``"vllm"``: also every field vLLM (and SGLang) would take from the model's file, at its neutral value
    (:data:`VLLM_NEUTRAL`): ``top_p`` 1.0, ``top_k`` -1 (off in every vLLM version), ``min_p`` 0,
    ``repetition_penalty`` 1.0 (vLLM's own fields, sent in ``extra_body``), ``presence_penalty`` and
    ``frequency_penalty`` 0. Start the server with ``--generation-config vllm`` as well, so that a field a
    client forgets is vLLM's neutral default rather than the model file's.

Every reply carries what decided it (``plates.models.base.Reply.settings``, stored per row as
``generation_json``) and what identifies the weights (``Reply.revision``, the row's ``model_revision``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["NOT_DECODING", "SAMPLING_FIELDS", "TOKEN_SETTINGS", "VLLM_NEUTRAL", "api_sampling", "hf_settings",
           "json_value"]

#: Special-token ids kept from a model's generation_config.json: they say what the vocabulary's tokens mean
#: (where a sequence starts and ends), not how the next token is chosen.
TOKEN_SETTINGS = ("bos_token_id", "eos_token_id", "pad_token_id", "decoder_start_token_id", "forced_bos_token_id",
                  "forced_eos_token_id")
#: generation_config.json keys that do not choose tokens (what generate returns, caching, bookkeeping).
NOT_DECODING = frozenset({"output_attentions", "output_hidden_states", "output_scores", "output_logits",
                          "return_dict_in_generate", "use_cache", "cache_implementation", "transformers_version"})

#: Which sampling fields an OpenAI-compatible request carries (see the module doc).
SAMPLING_FIELDS = ("openai", "vllm")
#: The neutral value of each field vLLM honours beyond temperature and the token budget.
VLLM_NEUTRAL: Mapping[str, float | int] = {"top_p": 1.0, "top_k": -1, "min_p": 0.0, "repetition_penalty": 1.0,
                                           "presence_penalty": 0.0, "frequency_penalty": 0.0}
#: Of those, the fields the OpenAI schema itself has (top level of the request; the rest go in extra_body).
OPENAI_SCHEMA_FIELDS = frozenset({"top_p", "presence_penalty", "frequency_penalty"})


def hf_settings(temperature: float, max_new_tokens: int) -> dict[str, Any]:
    """Every transformers generation setting that chooses among tokens, explicit (nothing left to a model file).

    ``temperature`` 0 is greedy decoding: ``do_sample`` False, the most likely token at every step (transformers
    applies temperature, top-k, top-p, min-p, typical-p and the epsilon/eta cutoffs only when sampling, so none
    is set). Above 0: plain sampling at that temperature over the whole vocabulary (top-k 0 = off, top-p and
    typical-p 1.0, min-p off, cutoffs 0). Either way: one beam, repetition penalties 1.0, no n-gram bans,
    length penalty 1.0, no minimum length.

    Parameters
    ----------
    temperature : float
        0 (greedy) or the sampling temperature.
    max_new_tokens : int
        The token budget.

    Returns
    -------
    dict
        ``generate`` keyword arguments.

    Examples
    --------
    >>> hf_settings(0.0, 8)["do_sample"], hf_settings(0.0, 8)["repetition_penalty"], hf_settings(0.7, 8)["top_k"]
    (False, 1.0, 0)
    """
    settings: dict[str, Any] = {
        "do_sample": False, "num_beams": 1, "repetition_penalty": 1.0, "encoder_repetition_penalty": 1.0,
        "no_repeat_ngram_size": 0, "encoder_no_repeat_ngram_size": 0, "length_penalty": 1.0, "min_new_tokens": 0,
        "renormalize_logits": False, "max_new_tokens": int(max_new_tokens),
    }
    if float(temperature) > 0:
        settings.update(do_sample=True, temperature=float(temperature), top_k=0, top_p=1.0, typical_p=1.0,
                        min_p=None, epsilon_cutoff=0.0, eta_cutoff=0.0)
    return settings


def api_sampling(mode: str, *, temperature: float | None, token_param: str | None, max_tokens: int,
                 seed: int | None = None, extra_body: Mapping[str, Any] | None = None
                 ) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """(top-level request fields, ``extra_body``, the decisive fields left to the server) for one request.

    ``mode``: one of :data:`SAMPLING_FIELDS`. ``temperature`` None: not sent (a paper protocol that leaves it
    to the provider; then the other sampling fields are left to it too). ``token_param`` None: no token budget
    sent. ``extra_body``: the caller's provider options, which win over this mode's values for the same field.

    Parameters
    ----------
    mode : str
        One of `SAMPLING_FIELDS`.
    temperature : float or None
        None: not sent.
    token_param : str or None
        The token budget's field name; None: not sent.
    max_tokens : int
        The token budget.
    seed : int or None, optional
        A seed to send.
    extra_body : mapping, optional
        The caller's provider options (they win).

    Returns
    -------
    (dict, dict, list of str)
        Top-level fields, ``extra_body``, the decisive fields left to the server.

    Examples
    --------
    >>> top, extra, left = api_sampling("vllm", temperature=0.0, token_param="max_tokens", max_tokens=8)
    >>> top["top_p"], extra["top_k"], extra["repetition_penalty"], left
    (1.0, -1, 1.0, [])
    >>> api_sampling("openai", temperature=0.0, token_param="max_tokens", max_tokens=8)[2][:3]
    ['frequency_penalty', 'min_p', 'presence_penalty']
    """
    if mode not in SAMPLING_FIELDS:
        raise ValueError(f"sampling_fields {mode!r} is not allowed; allowed: {', '.join(SAMPLING_FIELDS)}")
    top: dict[str, Any] = {}
    if token_param:
        top[token_param] = int(max_tokens)
    if temperature is not None:
        top["temperature"] = temperature
    if seed is not None:
        top["seed"] = seed
    extra: dict[str, Any] = {}
    if mode == "vllm" and temperature is not None:
        for name, value in VLLM_NEUTRAL.items():
            (top if name in OPENAI_SCHEMA_FIELDS else extra)[name] = value
    given = dict(extra_body or {})
    for name in given:  # the caller's option wins wherever this mode placed its own value
        top.pop(name, None)
    extra.update(given)
    sent = {**top, **extra}
    decisive = ("temperature", "max_tokens" if token_param is None else token_param, *VLLM_NEUTRAL)
    return top, extra, sorted(name for name in decisive if name not in sent)


def json_value(value: Any) -> Any:
    """A generation-config value as JSON holds it (tuples, tensors and arrays as lists; other objects as text).

    Parameters
    ----------
    value : object
        A generation-config value.

    Returns
    -------
    object
        JSON-ready.

    Examples
    --------
    >>> json_value((1, 2)), json_value({"a": None})
    ([1, 2], {'a': None})
    """
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple | set | frozenset):
        return [json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    if hasattr(value, "tolist"):
        return value.tolist()
    return str(value)
