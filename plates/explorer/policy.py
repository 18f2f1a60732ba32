"""What a visitor may ask the live plate explorer for: public mode's :class:`Policy` and its caps.

Read from the environment (:meth:`Policy.from_env`); every tab validates against it (the plate's controls,
`plates.explorer.plate`; pasted specs and share codes, `plates.explorer.specs`; models, `plates.explorer.backends`;
illusions and scenes, `plates.explorer.families`). Sizes are pixels.
"""

from __future__ import annotations

import ipaddress
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

#: Well-known public OpenAI-compatible endpoints a visitor may use with their own key in public mode
#: (name -> base URL, fixed here: a visitor never types a URL there). Each is the provider's documented base
#: URL for the OpenAI SDK: OpenAI (the SDK's default), OpenRouter (openrouter.ai/docs/quickstart), Anthropic's
#: OpenAI SDK compatibility layer (platform.claude.com/docs/en/api/openai-sdk), Google's Gemini OpenAI
#: compatibility (ai.google.dev/gemini-api/docs/openai), Groq (console.groq.com/docs/openai), Together
#: (docs.together.ai/docs/inference/openai-compatibility) and the Hugging Face Inference Providers router
#: (huggingface.co/docs/inference-providers).
PROVIDERS: tuple[tuple[str, str], ...] = (
    ("OpenAI", "https://api.openai.com/v1"),
    ("OpenRouter", "https://openrouter.ai/api/v1"),
    ("Anthropic (OpenAI-compatible)", "https://api.anthropic.com/v1"),
    ("Google Gemini (OpenAI-compatible)", "https://generativelanguage.googleapis.com/v1beta/openai"),
    ("Groq", "https://api.groq.com/openai/v1"),
    ("Together", "https://api.together.ai/v1"),
    ("Hugging Face inference router", "https://router.huggingface.co/v1"),
)


def is_loopback(host: str) -> bool:
    """Whether the server address ``host`` is reachable from this machine only.

    Parameters
    ----------
    host : str
        A bind address or name (IPv6 brackets allowed).

    Returns
    -------
    bool
        True for ``localhost``, 127.0.0.0/8 and ``::1``; False for any other address or name (``0.0.0.0``
        listens
        on every interface).

    Examples
    --------
    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("::1"), is_loopback("0.0.0.0")
    (True, True, True, False)
    """
    host = host.strip().strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Policy:
    """What a visitor may ask for.

    Public mode is the safe-to-leave-running Space: :meth:`from_env` chooses it on a hosted Space
    (`plates.admission.hosted_space`, always) and on any address other than loopback unless the operator says
    ``--private`` / ``PLATES_PUBLIC=0``; a server bound to loopback is private (its one user is on this
    machine)
    unless ``PLATES_PUBLIC=1``. Public mode never sends the server's key at all. Caps on everything a visitor
    sends keep every input's cost bounded (a spec's foreground x background pairs cost the product of the two
    list lengths).

    Attributes
    ----------
    public : bool
        Public mode.
    providers : tuple of (str, str)
        (name, base URL) of the public endpoints a visitor may use with their own key (:data:`PROVIDERS`;
        tests
        inject a loopback server here, production never reads it from the environment).
    allowed_base_urls : tuple of str
        Further OpenAI-compatible endpoints the operator allows in public mode (env
        ``PLATES_ALLOWED_BASE_URLS``,
        comma-separated; empty = none).
    allowed_hf_models : tuple of str
        Hugging Face ids that may be loaded in public mode (env ``PLATES_ALLOWED_HF_MODELS``; empty = none).
    key_endpoint : str
        The one base URL the server's own ``OPENAI_API_KEY`` is sent to in private mode (env
        ``OPENAI_BASE_URL``,
        else :data:`DEFAULT_KEY_ENDPOINT`; empty = never): a key comes only with its configured endpoint,
        never
        with a URL a visitor typed.
    max_plate_size, min_plate_size : int
        Plate and image side range, px.
    max_sweep_points : int
        Most points of a ΔE2000 sweep.
    max_text_chars : int
        Longest plate text, characters.
    max_spec_chars : int
        Longest pasted, uploaded or linked spec JSON, characters.
    max_colours : int
        Most colours in each colour list of a spec.
    max_prompt_chars : int
        Longest edited prompt, characters.
    max_field_chars : int
        Longest model id, API model name or base URL, characters.
    max_compare_models : int
        Most models asked side by side (`plates.explorer.compare`).
    reason : str
        Why this mode was chosen, in words.
    """

    public: bool = False
    providers: tuple[tuple[str, str], ...] = PROVIDERS
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
    reason: str = ""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, *, private: bool = False,
                 host: str | None = None) -> Policy:
        """Read the policy from environment variables (``os.environ`` by default).

        Parameters
        ----------
        environ
            The environment: ``PLATES_PUBLIC`` (1/0, true/false, yes/no), ``SPACE_ID`` / ``SYSTEM``,
            ``GRADIO_SERVER_NAME`` (the bind address when ``host`` is None; default 127.0.0.1), the allow lists.
        private
            The operator's ``--private``.
        host
            The address the server binds.

        Returns
        -------
        Policy
            Always public on a hosted Space, whatever was said; else ``PLATES_PUBLIC`` or ``--private`` decide;
            else public on any address but loopback, private on loopback.

        Raises
        ------
        ValueError
            For a flag that is none of the allowed spellings, or ``PLATES_PUBLIC=1`` together with ``private``.
        """
        env = os.environ if environ is None else environ
        flag = env.get("PLATES_PUBLIC", "").strip().lower()
        if flag not in ("", *_YES, *_NO):
            raise ValueError(f"PLATES_PUBLIC={flag!r} is not allowed; allowed: 1/0, true/false, yes/no")
        if private and flag in _YES:
            raise ValueError(f"--private contradicts PLATES_PUBLIC={flag!r}; allowed: one of them")
        bind = (host if host is not None else env.get("GRADIO_SERVER_NAME", "")).strip() or "127.0.0.1"
        if hosted_space(env):
            public, reason = True, "on a Hugging Face Space"
        elif flag in _YES:
            public, reason = True, f"PLATES_PUBLIC={flag}"
        elif private or flag in _NO:
            public, reason = False, "--private" if private else f"PLATES_PUBLIC={flag}"
        elif is_loopback(bind):
            public, reason = False, f"bound to {bind}, this machine only"
        else:
            public, reason = True, f"bound to {bind}, reachable from other machines"

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
            reason=reason,
        )

    def public_base_urls(self) -> tuple[str, ...]:
        """The base URLs a visitor may use in public mode: the providers', then the operator's."""
        return tuple(dict.fromkeys([url for _, url in self.providers] + list(self.allowed_base_urls)))

    def provider_name(self, base_url: str) -> str:
        """The provider's name for ``base_url``, or the URL itself.

        Parameters
        ----------
        base_url : str
            An endpoint (trailing ``/`` ignored).

        Returns
        -------
        str
            The name in ``providers``, else the stripped URL.
        """
        url = base_url.strip().rstrip("/")
        return next((name for name, known in self.providers if known == url), url)

    def mode_markdown(self) -> str:
        """The header's line: which mode, why (when `reason` says), and what it allows (Markdown)."""
        why = f" ({self.reason})" if self.reason else ""
        if self.public:
            names = ", ".join(name for name, _ in self.providers) or "none"
            hf = ", ".join(self.allowed_hf_models)
            return (f"**Public mode**{why}: the bundled reader answers for free; to ask a model of "
                    f"your own, pick a provider ({names}) in the Model tab and paste your own API key: it is held "
                    "for this browser session only, never logged, stored or put in a link, and the server's keys are "
                    "never used for you." + (f" Hugging Face models on this server: {hf}." if hf else "")
                    + " Answers are rationed per address; run `python app.py` on "
                    "your own machine for any model and URL.")
        return (f"**Private mode**{why}: your own models: any Hugging Face id or folder, any "
                "OpenAI-compatible URL (the providers are listed), and your keys; `OPENAI_API_KEY` goes only to "
                "its own endpoint (`OPENAI_BASE_URL`). Serve it on a trusted network only.")
