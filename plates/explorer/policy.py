"""What a visitor may ask the live plate explorer for: public mode's :class:`Policy` and its caps.

Read from the environment (:meth:`Policy.from_env`); every tab validates against it (the plate's controls,
`plates.explorer.plate`; pasted specs and share codes, `plates.explorer.specs`; models, `plates.explorer.backends`;
illusions and scenes, `plates.explorer.families`). Sizes are pixels.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from plates.admission import hosted_space

#: Largest decompressed spec (bytes; a code is at most `plates.explorer.codes.MAX_CODE_CHARS` characters):
#: guards against zip bombs.
MAX_SPEC_BYTES = 65536
#: Public mode's caps (see :class:`Policy`): a spec of 16 + 16 colours is under 2 KB of JSON; the papers'
#: colour sets have at most 9 colours a list; the papers' prompts are under 500 characters.
PUBLIC_MAX_SPEC_CHARS, PUBLIC_MAX_COLOURS, PUBLIC_MAX_PROMPT_CHARS = 8192, 16, 1000
#: Public mode's models compared side by side at once (each asked the same request; a sweep asks each).
PUBLIC_MAX_COMPARE_MODELS = 3

#: The endpoint the server's ``OPENAI_API_KEY`` belongs to when ``OPENAI_BASE_URL`` names none (the openai SDK's).
DEFAULT_KEY_ENDPOINT = "https://api.openai.com/v1"
_YES, _NO = ("1", "true", "yes"), ("0", "false", "no")


@dataclass(frozen=True)
class Policy:
    """What a visitor may ask for. Public mode is the safe-to-leave-running Space and the default of
    :meth:`from_env`: an operator opts out with ``PLATES_PUBLIC=0`` (or ``python app.py --private``), and never
    on a hosted Space (`plates.admission.hosted_space`).

    ``allowed_base_urls``: OpenAI-compatible endpoints a visitor may use in public mode (env
    ``PLATES_ALLOWED_BASE_URLS``, comma-separated; empty = none). ``allowed_hf_models``: Hugging Face ids that
    may be loaded in public mode (env ``PLATES_ALLOWED_HF_MODELS``; empty = none). Sizes are pixels.
    ``key_endpoint``: the one base URL the server's own ``OPENAI_API_KEY`` is sent to in private mode (env
    ``OPENAI_BASE_URL``, else :data:`DEFAULT_KEY_ENDPOINT`; empty = never): a key comes only with its configured
    endpoint, never with a URL a visitor typed. Public mode never sends the server's key at all.

    Caps on everything a visitor sends, so no input's cost grows without bound (a spec's foreground x
    background pairs cost the product of the two list lengths): ``max_spec_chars`` (a pasted, uploaded or
    linked spec's JSON), ``max_colours`` (each colour list of a spec), ``max_prompt_chars`` (an edited
    prompt), ``max_field_chars`` (a model id, API model name or base URL), ``max_compare_models`` (models
    asked side by side, `plates.explorer.compare`).
    """

    public: bool = False
    allowed_base_urls: tuple[str, ...] = ()
    allowed_hf_models: tuple[str, ...] = ()
    key_endpoint: str = ""
    max_plate_size: int = 2048
    max_sweep_points: int = 41
    min_plate_size: int = 64
    max_text_chars: int = 12
    max_spec_chars: int = 65536
    max_colours: int = 64
    max_prompt_chars: int = 8000
    max_field_chars: int = 300
    max_compare_models: int = 8

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, *, private: bool = False) -> Policy:
        """Read the policy from environment variables (``os.environ`` by default). Public unless the operator
        says private (``PLATES_PUBLIC=0|false|no``, or ``private=True``: ``app.py --private``); always public
        on a hosted Space (`plates.admission.hosted_space`), whatever was said. ValueError for a flag that is neither,
        or for ``PLATES_PUBLIC=1`` together with ``private``."""
        env = os.environ if environ is None else environ
        flag = env.get("PLATES_PUBLIC", "").strip().lower()
        if flag not in ("", *_YES, *_NO):
            raise ValueError(f"PLATES_PUBLIC={flag!r} is not allowed; allowed: 1/0, true/false, yes/no")
        if private and flag in _YES:
            raise ValueError(f"--private contradicts PLATES_PUBLIC={flag!r}; allowed: one of them")
        public = hosted_space(env) or not (private or flag in _NO)

        def _list(name: str) -> tuple[str, ...]:
            return tuple(x.strip().rstrip("/") for x in env.get(name, "").split(",") if x.strip())

        return cls(
            public=public,
            allowed_base_urls=_list("PLATES_ALLOWED_BASE_URLS"),
            allowed_hf_models=_list("PLATES_ALLOWED_HF_MODELS"),
            key_endpoint="" if public else (env.get("OPENAI_BASE_URL", "").strip().rstrip("/")
                                            or DEFAULT_KEY_ENDPOINT),
            max_plate_size=1024 if public else 2048,
            max_sweep_points=12 if public else 41,
            max_text_chars=8 if public else 12,
            max_spec_chars=PUBLIC_MAX_SPEC_CHARS if public else MAX_SPEC_BYTES,
            max_colours=PUBLIC_MAX_COLOURS if public else 64,
            max_prompt_chars=PUBLIC_MAX_PROMPT_CHARS if public else 8000,
            max_compare_models=PUBLIC_MAX_COMPARE_MODELS if public else 8,
        )
