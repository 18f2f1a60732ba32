"""Which model answers in the live plate explorer, apart from any widget: the visitor's choice (the offline
baseline reader, a Hugging Face id, or an OpenAI-compatible endpoint) validated under the public-mode
:class:`~plates.explorer.policy.Policy`, the cache of loaded models (a local model answers one ask at a time:
:class:`OneAtATime`), the hub check before a Hugging Face load, and an API backend opened per call.

API keys: a visitor's key is passed in per call, handed to the backend and never stored here; every message
that leaves the explorer's model side goes through :func:`redact` first.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from huggingface_hub import HfApi, try_to_load_from_cache
from huggingface_hub.utils import GatedRepoError, RepositoryNotFoundError

from plates.explorer.policy import Policy
from plates.models import BACKENDS, LOCAL_CODE_KINDS, REFERENCE_KINDS, Backend, Query, Reply, make_backend
from plates.secrets import redact as _redact

#: Model kinds a visitor can pick, in display order.
MODEL_KINDS = ("baseline", *sorted(kind for kind in BACKENDS
                                   if kind != "baseline" and kind not in REFERENCE_KINDS | LOCAL_CODE_KINDS))
#: The line under the model choice, per kind.
MODEL_KIND_INFO = {
    "baseline": "baseline: the bundled offline reader (no key, no network)",
    "hf": "hf: a Hugging Face vision-language model, loaded on this server (first use downloads or loads it)",
    "openai": "openai: an OpenAI-compatible chat-completions endpoint (a provider or a URL, model name, your key)",
}


def model_kinds(policy: Policy) -> tuple[str, ...]:
    """The model kinds a visitor can pick under ``policy``.

    Parameters
    ----------
    policy : Policy
        This server's limits.

    Returns
    -------
    tuple of str
        Every kind of :data:`MODEL_KINDS` in private mode; in public mode ``hf`` only where the operator
        allows
        some Hugging Face models (else it could only be refused).

    Examples
    --------
    >>> model_kinds(Policy(public=True))
    ('baseline', 'openai')
    """
    return tuple(k for k in MODEL_KINDS if not (k == "hf" and policy.public and not policy.allowed_hf_models))


def base_url_choices(policy: Policy) -> list[tuple[str, str]]:
    """The endpoints the base-URL box offers.

    Parameters
    ----------
    policy : Policy
        This server's limits.

    Returns
    -------
    list of (str, str)
        (label, base URL) pairs: the providers (`Policy.providers`) and, in public mode, the operator's
        allowed
        URLs; private mode also takes any typed URL.
    """
    urls = policy.public_base_urls() if policy.public else tuple(url for _, url in policy.providers)
    return [(f"{policy.provider_name(url)} · {url}" if policy.provider_name(url) != url else url, url)
            for url in urls]


#: Seconds a failed Hugging Face load is remembered in public mode, so a visitor retrying does not take the
#: model slot again for the same failure.
FAILED_LOAD_MEMORY_S = 600.0
#: Seconds the hub may take to say whether a model id exists (public mode's check before loading).
HUB_CHECK_TIMEOUT_S = 5.0
_HF_ID = re.compile(r"[A-Za-z0-9][\w.-]{0,95}/[\w.-]{1,96}")


def redact(text: str | None, secrets: Sequence[str | None]) -> str | None:
    """``text`` with every secret of 4 or more characters replaced by ``***`` in every spelling.

    Keys never leave in a message (`plates.secrets.redact`).

    Parameters
    ----------
    text : str or None
        A message.
    secrets : sequence of str or None
        The keys to hide (None and short ones skipped).

    Returns
    -------
    str or None
        The redacted text; None for None.
    """
    return _redact(text, secrets, min_length=4)


@dataclass(frozen=True)
class ModelChoice:
    """Which model answers, as the Model tab sets it.

    Attributes
    ----------
    kind : str
        A kind of :data:`MODEL_KINDS`.
    model : str
        A Hugging Face id (or, in private mode, a model folder) or an API model name; empty for the baseline.
    base_url : str
        The OpenAI-compatible endpoint's URL (``openai`` only).
    trust_remote_code : bool
        Load a Hugging Face model that ships its own Python code (private mode only: it would run a visitor's
        chosen repository's code on this server).
    """

    kind: str = "baseline"
    model: str = ""
    base_url: str = ""
    trust_remote_code: bool = False

    def validate(self, policy: Policy) -> ModelChoice:
        """The normalised choice (model and URL stripped, the URL's trailing ``/`` dropped).

        Parameters
        ----------
        policy : Policy
            This server's limits: field lengths, allowed Hugging Face models and base URLs in public mode.

        Returns
        -------
        ModelChoice
            The normalised choice.

        Raises
        ------
        ValueError
            Naming the bad value and what is allowed under ``policy`` (an unknown kind, a field too long,
            ``trust_remote_code`` where refused, a missing or disallowed model, a disallowed or non-http(s)
            URL).
        """
        if self.kind not in MODEL_KINDS:
            raise ValueError(f"model kind {self.kind!r} is unknown; allowed: {', '.join(MODEL_KINDS)}")
        model, base_url = (self.model or "").strip(), (self.base_url or "").strip().rstrip("/")  # empty box: None
        for what, value in (("model name", model), ("base URL", base_url)):
            if len(value) > policy.max_field_chars:
                raise ValueError(f"{what} {value[:40]!r}… has {len(value)} characters; allowed: at most "
                                 f"{policy.max_field_chars}")
        if self.trust_remote_code is not False:
            if self.trust_remote_code is not True or self.kind != "hf":
                raise ValueError(f"trust_remote_code={self.trust_remote_code!r} is not allowed for a {self.kind} "
                                 "model; allowed: True for a Hugging Face model, else False")
            if policy.public:
                raise ValueError("trust_remote_code is refused in public mode: it runs Python code from the "
                                 "model's repository on this server; allowed: models that load without it")
        if self.kind == "hf":
            if not model:
                raise ValueError("give a Hugging Face model id (e.g. 'HuggingFaceTB/SmolVLM-256M-Instruct')")
            if policy.public and model not in policy.allowed_hf_models:
                allowed = ", ".join(policy.allowed_hf_models) or "none on this server"
                raise ValueError(f"Hugging Face model {model!r} is not allowed here; allowed: {allowed}")
        if self.kind == "openai":
            if not model:
                raise ValueError("give the API's model name (e.g. 'gpt-4o-mini')")
            if policy.public:  # a fixed list: the providers' endpoints and the operator's, never a typed URL
                if base_url not in policy.public_base_urls():
                    allowed = "; ".join(label for label, _ in base_url_choices(policy))
                    raise ValueError(f"base URL {base_url!r} is not allowed here (a provider of the list only); "
                                     f"allowed: {allowed or 'none on this server'}")
            elif not base_url.startswith(("http://", "https://")):
                raise ValueError(f"base URL {base_url!r} is not an http(s) URL; allowed: a URL such as "
                                 "https://api.openai.com/v1 or http://127.0.0.1:8000/v1")
        return ModelChoice(self.kind, model, base_url, self.trust_remote_code)


def _zero_gpu() -> bool:
    """True on a Hugging Face ZeroGPU Space (it sets ``SPACES_ZERO_GPU``)."""
    return "SPACES_ZERO_GPU" in os.environ


def ask_all(backend: Backend, queries: Sequence[Query]) -> list:
    """Every reply of ``backend.ask(queries)`` as a list (what runs inside ``spaces.GPU``).

    Parameters
    ----------
    backend : Backend
        The model.
    queries : sequence of Query
        The questions and images.

    Returns
    -------
    list of (int, Reply)
        Each query's index and its reply, in the backend's order.
    """
    return list(backend.ask(queries))


def gpu_wrapped(fn: Callable) -> Callable:
    """``fn`` wrapped with ``spaces.GPU`` on a ZeroGPU Space; ``fn`` itself anywhere else (no import there).

    Parameters
    ----------
    fn : callable
        The function that uses the GPU.

    Returns
    -------
    callable
        ``spaces.GPU(fn)`` where ``SPACES_ZERO_GPU`` is set, else ``fn``.
    """
    if not _zero_gpu():
        return fn
    # lazy: the `spaces` SDK exists only on a ZeroGPU Space
    import spaces

    return spaces.GPU(fn)


class OneAtATime(Backend):
    """A Hugging Face model loaded in this process, answering one `ask` at a time, however many ask at once.

    It shares this process's memory and GPU with every other local model, so all of them hold one ``lock``
    (`ModelCache`'s). The ask takes the lock itself and reads the model's answers to a list under it, then
    hands
    them out: a caller that stops reading (a page closed mid-sweep, an abandoned generator) never keeps the
    lock
    held, and the plates asked about are drawn before the ask, outside it. `close` waits for an answer in
    progress: a model is never closed while it answers.

    Parameters
    ----------
    backend : Backend
        The loaded model.
    lock : threading.Lock
        The lock every local model shares.
    answer_all : callable
        (backend, queries) -> list of (index, Reply): `ask_all`, or on a ZeroGPU Space `gpu_wrapped`'s, so the
        GPU
        is held only while the model answers, never while it waits its turn.
    """

    def __init__(self, backend: Backend, lock: threading.Lock,
                 answer_all: Callable[[Backend, Sequence[Query]], list] = ask_all) -> None:
        self.backend, self._lock, self._answer_all = backend, lock, answer_all
        self.kind, self.model, self.sends_png = backend.kind, backend.model, backend.sends_png

    def ask(self, queries: Sequence[Query]) -> Iterator[tuple[int, Reply]]:
        """Ask the model the queries under the shared lock, then yield the answers.

        Parameters
        ----------
        queries : sequence of Query
            The questions and images.

        Yields
        ------
        tuple of (int, Reply)
            Each query's index and its reply.
        """
        with self._lock:
            answered = self._answer_all(self.backend, queries)
        yield from answered

    def close(self) -> None:
        """Close the model, once any answer in progress is done (it takes the shared lock)."""
        with self._lock:
            self.backend.close()


class ModelCache:
    """Loaded models, built once per (kind, model) and shared by every session (baseline and HF only).

    A Hugging Face model answers one ask at a time (`OneAtATime`), the bundled reader at once.
    OpenAI-compatible
    backends carry a visitor's key, so they are never cached: one is made per call and closed after it.

    Parameters
    ----------
    factory : callable
        (kind, **options) -> Backend; `plates.models.make_backend`, or the pool's
        (`plates.explorer.pool.ExplorerPool.make_backend`).
    max_models : int
        Loaded models kept; the least recently used is closed first.
    remember_failures_s : float
        Seconds a failed load is answered at once with its error (public mode: :data:`FAILED_LOAD_MEMORY_S`);
        0 remembers none.
    clock : callable
        Seconds, monotonic (tests pass their own).
    """

    def __init__(self, factory: Callable[..., Backend] = make_backend, max_models: int = 3, *,
                 remember_failures_s: float = 0.0, clock: Callable[[], float] = time.monotonic) -> None:
        self._factory = factory
        self.max_models = max_models  # loaded models kept; the least recently used is closed first
        self._models: dict[tuple[str, str], Backend] = {}
        self._lock = threading.Lock()
        # public mode: (kind, model) -> (when, why) of a load that failed, answered at once for a while
        self.remember_failures_s, self._clock = remember_failures_s, clock
        self._failed: dict[tuple[str, str], tuple[float, str]] = {}
        self._local = threading.Lock()  # held by a local (HF) model's answers (`OneAtATime`)
        # HF generation holds a GPU only while it runs on ZeroGPU; wrapped once, when the app is built
        self._ask_all = gpu_wrapped(ask_all)

    def get(self, choice: ModelChoice) -> Backend:
        """The cached backend for a baseline or Hugging Face choice, loading it on first use.

        Parameters
        ----------
        choice : ModelChoice
            A validated choice, not ``openai``.

        Returns
        -------
        Backend
            The model (a Hugging Face one wrapped in `OneAtATime`).

        Raises
        ------
        ValueError
            For an ``openai`` choice, or a load that failed within ``remember_failures_s``.
        Exception
            Whatever the factory raises on a failed load (remembered when ``remember_failures_s`` > 0).
        """
        if choice.kind == "openai":
            raise ValueError("OpenAI-compatible backends are not cached; use open_backend()")
        key = (choice.kind, choice.model)
        with self._lock:
            self.check_not_failed(choice)
            if key not in self._models:
                options = {} if choice.kind == "baseline" else {"model_id_or_path": choice.model}
                if choice.trust_remote_code:  # validated: private mode and an HF model only
                    options["trust_remote_code"] = True
                try:
                    backend = self._factory(choice.kind, **options)
                except Exception as exc:
                    if self.remember_failures_s > 0:
                        self._failed[key] = (self._clock(), f"{type(exc).__name__}: {exc}")
                    raise
                local = choice.kind == "hf"
                self._models[key] = OneAtATime(backend, self._local, self._ask_all) if local else backend
            self._models[key] = self._models.pop(key)  # most recently used last
            while len(self._models) > self.max_models:
                self._models.pop(next(iter(self._models))).close()
            return self._models[key]

    def has(self, choice: ModelChoice) -> bool:
        """Whether ``choice`` is loaded already.

        Parameters
        ----------
        choice : ModelChoice
            A validated choice.

        Returns
        -------
        bool
            True when its (kind, model) is in the cache.
        """
        with self._lock:
            return (choice.kind, choice.model) in self._models

    def check_not_failed(self, choice: ModelChoice) -> None:
        """Refuse at once a choice whose load failed within ``remember_failures_s`` seconds.

        Parameters
        ----------
        choice : ModelChoice
            A validated choice.

        Raises
        ------
        ValueError
            Naming the model, when it failed, why (shortened) and for how long it is not tried again.
        """
        failed = self._failed.get((choice.kind, choice.model))
        if failed is None:
            return
        ago = self._clock() - failed[0]
        if ago >= self.remember_failures_s:
            self._failed.pop((choice.kind, choice.model), None)
            return
        wait = self.remember_failures_s - ago
        raise ValueError(f"model {choice.model!r} failed to load {ago:.0f} s ago ({_short(failed[1])}); "
                         f"it is not tried again for {wait:.0f} s; allowed: another model")

    def close(self) -> None:
        """Close every loaded model and empty the cache."""
        with self._lock:
            for backend in self._models.values():
                backend.close()
            self._models.clear()


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def hub_offline(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the Hugging Face hub may not be reached, read when called.

    Parameters
    ----------
    environ : mapping of str to str or None
        The environment; None reads ``os.environ``.

    Returns
    -------
    bool
        True when ``HF_HUB_OFFLINE`` or ``TRANSFORMERS_OFFLINE`` is 1/true/yes/on.
    """
    env = os.environ if environ is None else environ
    return any(env.get(name, "").strip().lower() in ("1", "true", "yes", "on")
               for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


def check_hf_model(model: str, *, timeout: float = HUB_CHECK_TIMEOUT_S) -> None:
    """Refuse, within about ``timeout`` seconds, a Hugging Face model that cannot be loaded.

    Run before a load takes the model slot (an allowed id that could not be loaded once held it for 42 s): a
    folder must hold ``config.json``; an id in the local hub cache is fine; otherwise, with the hub offline,
    the id
    is not available, and online the hub must know it (one metadata request, time-boxed). A model that passes
    may
    still fail to load (memory, an architecture transformers lacks); public mode then remembers the failure
    (:class:`ModelCache`).

    Parameters
    ----------
    model : str
        A Hugging Face id (``org/name``) or a model folder.
    timeout : float
        Seconds the hub may take to answer.

    Raises
    ------
    ValueError
        Saying why: a folder without config.json, not an id, not downloaded with the hub offline, gated,
        unknown to the hub, or no answer in time.
    """
    path = Path(model).expanduser()
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise ValueError(f"folder {model!r} holds no config.json; allowed: a model folder saved by "
                             "save_pretrained, or a Hugging Face id")
        return
    if not _HF_ID.fullmatch(model):
        raise ValueError(f"Hugging Face model {model!r} is neither a folder here nor an id; allowed: "
                         "'org/name' (e.g. 'HuggingFaceTB/SmolVLM-256M-Instruct') or a model folder")
    if isinstance(try_to_load_from_cache(model, "config.json"), str):
        return
    if hub_offline():
        raise ValueError(f"Hugging Face model {model!r} is not downloaded on this server and the hub is "
                         "offline (HF_HUB_OFFLINE); allowed: a model in the local cache or a model folder")
    try:
        HfApi().model_info(model, timeout=timeout)
    except GatedRepoError:
        raise ValueError(f"Hugging Face model {model!r} is gated: this server has no access to it") from None
    except RepositoryNotFoundError:
        raise ValueError(f"Hugging Face model {model!r} does not exist on the hub (or is private)") from None
    except Exception as exc:  # noqa: BLE001 - timeouts and connection errors of whichever HTTP library
        raise ValueError(f"the Hugging Face hub did not confirm model {model!r} within {timeout:g} s "
                         f"({type(exc).__name__}); try again later") from None


#: Why an API model cannot be asked in public mode before the visitor pastes a key (said beside the Ask
#: buttons, which are disabled, and in the error of a call made without one through the API).
KEY_NEEDED = ("an API key is needed for this provider: paste yours in the Model tab (it stays in this browser "
              "session only), or choose the bundled reader, which answers without one")


def why_not_ready(kind: str, key: str | None, policy: Policy) -> str | None:
    """Why an Ask button cannot answer with the Model tab's model now, or None when it can.

    In public mode an API model needs the visitor's own key (:data:`KEY_NEEDED`); the server's is never used
    for a
    visitor. A private instance may ask a keyless local server, so it never waits for a key.

    Parameters
    ----------
    kind : str
        The Model tab's model kind.
    key : str or None
        The session's API key.
    policy : Policy
        This server's limits.

    Returns
    -------
    str or None
        :data:`KEY_NEEDED`, or None.

    Examples
    --------
    >>> why_not_ready("openai", "", Policy(public=True)) == KEY_NEEDED
    True
    >>> why_not_ready("openai", "sk-1", Policy(public=True)), why_not_ready("openai", "", Policy())
    (None, None)
    """
    if kind == "openai" and policy.public and not (key or "").strip():
        return KEY_NEEDED
    return None


def open_backend(choice: ModelChoice, api_key: str | None, policy: Policy, cache: ModelCache,
                 check_hf: Callable[[str], None] = check_hf_model) -> tuple[Backend, bool]:
    """The backend for ``choice`` and whether the caller must close it.

    In public mode an API call needs the visitor's own key: the server's environment key is never used for a
    visitor. In private mode a call without a key gets the server's ``OPENAI_API_KEY`` only when its base URL
    is the
    policy's ``key_endpoint`` (the key's own endpoint), and goes without a key anywhere else, so a typed URL
    never
    receives it. The key is handed to the backend directly, never through a process-wide environment variable.
    In public mode an API backend follows no redirect (an allowed endpoint could otherwise send the request,
    body
    and key, to any address its server can reach), and a Hugging Face model not loaded yet is checked first
    with
    ``check_hf`` (fast, before it takes the model slot).

    Parameters
    ----------
    choice : ModelChoice
        The Model tab's model (validated here).
    api_key : str or None
        The visitor's key; never stored.
    policy : Policy
        This server's limits.
    cache : ModelCache
        The app's loaded models.
    check_hf : callable
        Model id -> None or ValueError (:func:`check_hf_model`).

    Returns
    -------
    Backend
        The model.
    bool
        True for a per-call API backend (the caller closes it), False for a cached one.

    Raises
    ------
    ValueError
        A refused choice, a public API call without a key (:data:`KEY_NEEDED`), or a Hugging Face model that
        cannot be loaded or failed lately.
    """
    choice = choice.validate(policy)
    if choice.kind != "openai":
        if choice.kind == "hf" and policy.public and not cache.has(choice):
            cache.check_not_failed(choice)
            check_hf(choice.model)
        return cache.get(choice), False
    key = (api_key or "").strip()
    if policy.public and not key:
        raise ValueError(KEY_NEEDED)
    options: dict[str, object] = {"model": choice.model, "base_url": choice.base_url, "concurrency": 4,
                                  "timeout": 60, "max_attempts": 2}
    if policy.public:
        options["follow_redirects"] = False
    if not key:  # private mode only: the server's own key for its own endpoint, else a keyless local server
        bound = bool(policy.key_endpoint) and choice.base_url == policy.key_endpoint
        options["api_key_env"] = "OPENAI_API_KEY" if bound and os.environ.get("OPENAI_API_KEY") else None
        return make_backend("openai", **options), True
    return make_backend("openai", api_key=key, **options), True  # this instance only, never the environment
