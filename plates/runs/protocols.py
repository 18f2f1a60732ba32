"""The papers' sampling protocols by name: the generation settings each paper reports (per model where it
does).

Our own default (``plates``: temperature 0, at most 512 new tokens) is reproducible but is not what any seed
paper used. Choosing a protocol (``protocol = "huemanity"`` at the top of an experiment TOML, or
``plates run --protocol huemanity``) sets each model's sampling as the paper reports it; keys written in a
``[[models]]`` table still win (and then the run is no longer the paper's protocol for that key: say so).

* ``huemanity``: HueManity App. A, Table 6, per model (temperature / top-p / max tokens), "the model/provider
  defaults". A model Table 6 does not list gets the provider's defaults (nothing sent), as the paper's
  principle says.
* ``colorblindnesseval``: ColorBlindnessEval §3.1: "All models utilized default hyperparameters as specified
  in their official codebases or API documentation": nothing is sent, the provider decides.
* ``colorbench``: ColorBench App. E reports no sampling settings ("we standardize our experimental setup
  across models" only): nothing is sent, the provider decides (wording of this reading is ours).
* ``plates``: ours, temperature 0 (greedy) and 512 new tokens: the default when no protocol is named.

"Nothing sent" needs a backend that can leave a setting to the server: the OpenAI-compatible backend does
(its ``send_temperature=False`` and ``token_param=None`` options); a local transformers model has no provider
and decides nothing by itself, so a protocol that leaves a setting to the provider asks you to write it in the
``[[models]]`` table (a ValueError says which). The offline baseline reader does not sample: protocols do not
apply to it.
"""

from __future__ import annotations

import types
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from plates.models import BACKENDS
from plates.validation import check_int, check_number, lookup

__all__ = ["PROTOCOLS", "Protocol", "Sampling", "get_protocol", "model_settings"]


@dataclass(frozen=True)
class Sampling:
    """Generation settings as a paper reports them. ``None`` = not set by the paper: the provider's default
    (nothing is sent).

    Parameters
    ----------
    temperature : float or None
        0-2.
    top_p : float or None
        In (0, 1].
    max_tokens : int or None
        >= 1; None also covers "-1 (inf)" (Ollama's unlimited).
    printed : str
        The table cells as printed, e.g. "1.0 / 1.0, 1024".

    Raises
    ------
    ValueError
        A value out of its range; the message names it and what is allowed.

    References
    ----------
    HueManity App. A, Table 6 (and each protocol's ``citation``).
    """

    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    printed: str = ""  # the table cells as printed, e.g. "1.0 / 1.0, 1024"

    def __post_init__(self) -> None:
        check_number("temperature", self.temperature, 0, 2, none_ok=True)
        check_number("top_p", self.top_p, 0, 1, none_ok=True, open="lo")
        check_int("max_tokens", self.max_tokens, 1, none_ok=True)


@dataclass(frozen=True)
class Protocol:
    """A paper's sampling protocol.

    Parameters
    ----------
    name : str
        The key in `PROTOCOLS`.
    paper : str
        The paper's short name.
    citation : str
        Where the settings are printed (section and table).
    default : Sampling
        The settings of every model the paper does not list.
    per_model : mapping of str to Sampling
        Per model, keyed by the name the provider spells (with its common aliases); stored read-only.
    note : str
        What the paper leaves unsaid.
    """

    name: str
    paper: str
    citation: str
    default: Sampling
    per_model: Mapping[str, Sampling] = field(default_factory=dict)
    note: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "per_model", types.MappingProxyType(dict(self.per_model)))

    def sampling_for(self, model: str) -> tuple[Sampling, str]:
        """(the settings for ``model``, where they come from): the paper's row for it, else the default.

        Parameters
        ----------
        model : str
            The model's name.

        Returns
        -------
        (Sampling, str)
            The settings, and their source (the paper's citation and row).
        """
        if model in self.per_model:
            return self.per_model[model], f"{self.citation}, row {model}"
        return self.default, f"{self.citation} (default for models it does not list)"


_PROVIDER = Sampling(printed="provider defaults")


def _huemanity() -> dict[str, Sampling]:
    """HueManity App. A, Table 6: Temp / Top-p, Max Tokens, by model version (and its name without a date)."""
    api = Sampling(1.0, 1.0, 1024, "1.0 / 1.0, 1024")
    ollama = Sampling(0.8, 0.9, None, "0.8 / 0.9, -1 (inf)")
    mistral = Sampling(0.7, 1.0, 1024, "0.7 / 1.0, 1024")
    rows = {
        "gpt-4.1-mini-2025-04-14": api,
        "gpt-4.1-mini": api,
        "gpt-4.1-2025-04-14": api,
        "gpt-4.1": api,
        "claude-3-7-sonnet-20250219": api,
        "claude-3-7-sonnet": api,
        "claude-3-7-sonnet-latest": api,
        "llava:7b": ollama,
        "llava:13b": ollama,
        "llava:34b": ollama,
        "mistral-small-3.1-24b-instruct": mistral,
        "mistral-small-2503": mistral,
        "qwen/qwen-vl-max": api,
        "qwen-vl-max": api,
        "pixtral-large-2411": mistral,
        "pixtral-large-latest": mistral,
    }
    return rows


#: Protocol name -> Protocol (read-only).
PROTOCOLS: Mapping[str, Protocol] = types.MappingProxyType(
    {
        p.name: p
        for p in (
            Protocol(
                "huemanity",
                "HueManity",
                "HueManity App. A, Table 6",
                _PROVIDER,
                _huemanity(),
                "the model/provider defaults of May 2025, per model",
            ),
            Protocol(
                "colorblindnesseval",
                "ColorBlindnessEval",
                "ColorBlindnessEval §3.1",
                _PROVIDER,
                {},
                '"default hyperparameters as specified in their official codebases or API documentation"',
            ),
            Protocol(
                "colorbench",
                "ColorBench",
                "ColorBench App. E",
                _PROVIDER,
                {},
                "the paper reports no sampling settings; the provider decides (our reading)",
            ),
            Protocol(
                "plates",
                "plates",
                "plates default (ours)",
                Sampling(0.0, None, 512, "0 (greedy), 512"),
                {},
                "greedy decoding, at most 512 new tokens: reproducible, not a paper's protocol",
            ),
        )
    }
)


def get_protocol(name: str) -> Protocol:
    """The protocol called ``name``.

    Parameters
    ----------
    name : str
        A key of `PROTOCOLS`, case-insensitive.

    Returns
    -------
    Protocol

    Raises
    ------
    ValueError
        ``name`` is not known; the message lists the names.

    Examples
    --------
    >>> get_protocol("HueManity").citation
    'HueManity App. A, Table 6'
    """
    return lookup(PROTOCOLS, name.lower() if isinstance(name, str) else name, "protocol")


def model_settings(protocol: str, backend: str, model: str, given: Collection[str] = ()) -> dict[str, Any]:
    """The ``[[models]]`` keys protocol ``protocol`` sets for ``model`` on ``backend`` (merge them under the
    table's own keys: the table wins). ``given``: the keys the table writes itself (``temperature``,
    ``max_tokens``): not set here, and not asked for.

    openai: ``temperature`` / ``max_tokens`` where the paper gives them, ``extra_body = {"top_p": ...}`` for a
    top-p, and ``send_temperature = False`` / ``token_param = None`` where it leaves them to the provider.
    hf: ``temperature`` / ``max_tokens``; a setting left to the provider raises ValueError (a local model has
    no provider). baseline, reference-pixels, python: nothing (none of them samples).

    Parameters
    ----------
    protocol : str
        A key of `PROTOCOLS`.
    backend : str
        "openai", "hf", "baseline", "reference-pixels" or "python".
    model : str
        The model's name as the provider spells it.
    given : collection of str
        The keys the table writes itself.

    Returns
    -------
    dict
        ``[[models]]`` keys and values.

    Raises
    ------
    ValueError
        A protocol or backend not known, or an ``hf`` model whose protocol leaves a setting to the provider
        and the table does not write it.

    References
    ----------
    Each protocol's ``citation`` (e.g. HueManity App. A, Table 6).
    """
    chosen = get_protocol(protocol)
    sampling, where = chosen.sampling_for(model)
    if backend in BACKENDS and backend not in ("openai", "hf"):  # the local readers and observers: none samples
        return {}
    out: dict[str, Any] = {}
    if backend == "openai":
        if sampling.temperature is None:
            out["send_temperature"] = False
        else:
            out["temperature"] = float(sampling.temperature)
        if sampling.max_tokens is None:
            out["token_param"] = None
        else:
            out["max_tokens"] = int(sampling.max_tokens)
        if sampling.top_p is not None:
            out["extra_body"] = {"top_p": float(sampling.top_p)}
        return out
    if backend == "hf":
        left = [k for k in ("temperature", "max_tokens") if getattr(sampling, k) is None and k not in given]
        if left:
            raise ValueError(
                f"protocol {chosen.name!r} leaves {' and '.join(left)} of model {model!r} to the "
                f"provider ({where}), and a local transformers model has none; allowed: write "
                f"{' and '.join(left)} in its [[models]] table, or another protocol "
                f"({', '.join(PROTOCOLS)})"
            )
        if sampling.top_p is not None and sampling.top_p != 1.0:
            raise ValueError(
                f"protocol {chosen.name!r} samples model {model!r} with top-p {sampling.top_p} "
                f"({where}); the hf backend samples without top-p; allowed: the openai backend "
                "(e.g. a vLLM server) or another protocol"
            )
        return {
            k: v
            for k, v in (("temperature", sampling.temperature), ("max_tokens", sampling.max_tokens))
            if k not in given and v is not None
        }
    raise ValueError(f"backend {backend!r} is not valid; allowed: {', '.join(BACKENDS)}")
