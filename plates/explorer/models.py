"""The live plate explorer's model side, apart from any widget.

Choosing a model (the offline baseline reader, a Hugging Face id, or an OpenAI-compatible endpoint) under the
public-mode :class:`~plates.explorer.plate.Policy`, a cache of loaded models, asking one plate (the prompt by name, the
condition the model receives, scoring with the task's readers, plates.tasks.answers), the ΔE2000 sweep as a generator of rows, and the
session history as rows of the results schema (plates.results.SCHEMA) written to Parquet.

API keys: a visitor's key is passed in per call, handed to the backend and never stored here; every message
that leaves this module goes through :func:`redact` first.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from huggingface_hub import HfApi, try_to_load_from_cache
from huggingface_hub.utils import GatedRepoError, RepositoryNotFoundError
from PIL import Image

from plates.colour import delta_e2000
from plates.conditions import Condition, apply_condition
from plates.explorer.plate import Policy
from plates.models import BACKENDS, REFERENCE_KINDS, Backend, BackendFailing, Query, Reply, make_backend
from plates.results import SCHEMA
from plates.runs.rows import Asked, build_row
from plates.secrets import redact as _redact
from plates.stimuli.ishihara.directions import DIRECTION_MODES, with_direction
from plates.stimuli.ishihara.labels import LABEL_SPACES
from plates.stimuli.ishihara.plate import VARIANTS, PlateSpec, render
from plates.tasks.prompts import PROMPTS, get_prompt, query_for, render_prompt

#: Model kinds a visitor can pick, in display order.
MODEL_KINDS = ("baseline", *sorted(kind for kind in BACKENDS if kind != "baseline" and kind not in REFERENCE_KINDS))
#: The line under the model choice, per kind.
MODEL_KIND_INFO = {
    "baseline": "baseline: the bundled offline reader (no key, no network)",
    "hf": "hf: a Hugging Face vision-language model, loaded on this server (first use downloads or loads it)",
    "openai": "openai: any OpenAI-compatible chat-completions endpoint (base URL, model name, your key)",
}
#: Most rows a session's history keeps (oldest dropped first): bounds server memory per visitor.
MAX_HISTORY = 500
#: Columns of the history table shown on the page (all SCHEMA columns go into the Parquet download).
HISTORY_COLUMNS = ("model", "prompt_name", "target", "delta_e", "variant", "cvd", "grayscale", "parsed",
                   "correct", "failure_mode", "latency_s", "error")
#: The page's header for each of :data:`HISTORY_COLUMNS` (the Parquet download keeps the schema's names).
HISTORY_HEADERS = {
    "model": "Model", "prompt_name": "Prompt", "target": "Text", "delta_e": "ΔE2000 drawn",
    "variant": "Variant", "cvd": "CVD view", "grayscale": "Grayscale", "parsed": "Answer read",
    "correct": "Correct",
    "failure_mode": "Failure mode", "latency_s": "Latency (s)", "error": "Error",
}
#: Seconds a failed Hugging Face load is remembered in public mode, so a visitor retrying does not take the
#: model slot again for the same failure.
FAILED_LOAD_MEMORY_S = 600.0
#: Seconds the hub may take to say whether a model id exists (public mode's check before loading).
HUB_CHECK_TIMEOUT_S = 5.0
_HF_ID = re.compile(r"[A-Za-z0-9][\w.-]{0,95}/[\w.-]{1,96}")


def redact(text: str | None, secrets: Sequence[str | None]) -> str | None:
    """``text`` with every secret of 4 or more characters replaced by ``***`` in every spelling
    (plates.secrets): keys never leave in a message."""
    return _redact(text, secrets, min_length=4)


@dataclass(frozen=True)
class ModelChoice:
    """Which model answers: ``kind`` in :data:`MODEL_KINDS`, ``model`` (HF id or API model name), ``base_url``;
    ``trust_remote_code``: load an HF model that ships its own Python code (private mode only: it would run a
    visitor's chosen repository's code on this server)."""

    kind: str = "baseline"
    model: str = ""
    base_url: str = ""
    trust_remote_code: bool = False

    def validate(self, policy: Policy) -> ModelChoice:
        """The normalised choice, or ValueError naming the bad value and what is allowed under ``policy``."""
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
            if not base_url.startswith(("http://", "https://")):
                raise ValueError(f"base URL {base_url!r} is not an http(s) URL; allowed: https://host/v1")
            if policy.public and base_url not in policy.allowed_base_urls:
                allowed = ", ".join(policy.allowed_base_urls) or "none on this server"
                raise ValueError(f"base URL {base_url!r} is not allowed here; allowed: {allowed}")
        return ModelChoice(self.kind, model, base_url, self.trust_remote_code)


def _zero_gpu() -> bool:
    """True on a Hugging Face ZeroGPU Space (it sets ``SPACES_ZERO_GPU``)."""
    return "SPACES_ZERO_GPU" in os.environ


def ask_all(backend: Backend, queries: Sequence[Query]) -> list:
    """Every ``(index, Reply)`` of ``backend.ask(queries)`` as a list (what runs inside ``spaces.GPU``)."""
    return list(backend.ask(queries))


def gpu_wrapped(fn: Callable) -> Callable:
    """``fn`` wrapped with ``spaces.GPU`` on a ZeroGPU Space; ``fn`` itself anywhere else (no import there)."""
    if not _zero_gpu():
        return fn
    # lazy: the `spaces` SDK exists only on a ZeroGPU Space
    import spaces

    return spaces.GPU(fn)


class OneAtATime(Backend):
    """A Hugging Face model loaded in this process (``backend``), answering one `ask` at a time however many
    events the page runs at once: it shares this process's memory and GPU with every other local model, so
    all of them hold one ``lock`` (`ModelCache`'s). The ask takes the lock itself and reads the model's
    answers to a list under it, then hands them out: a caller that stops reading (a page closed mid-sweep, an
    abandoned generator) never keeps the lock held, and the plates asked about are drawn before the ask,
    outside it. ``answer_all`` reads the answers (`ask_all`; on a ZeroGPU Space `gpu_wrapped`, so the GPU is
    held only while the model answers, never while it waits its turn). `close` waits for an answer in
    progress: a model is never closed while it answers."""

    def __init__(self, backend: Backend, lock: threading.Lock,
                 answer_all: Callable[[Backend, Sequence[Query]], list] = ask_all) -> None:
        self.backend, self._lock, self._answer_all = backend, lock, answer_all
        self.kind, self.model, self.sends_png = backend.kind, backend.model, backend.sends_png

    def ask(self, queries: Sequence[Query]) -> Iterator[tuple[int, Reply]]:
        with self._lock:
            answered = self._answer_all(self.backend, queries)
        yield from answered

    def close(self) -> None:
        with self._lock:
            self.backend.close()


class ModelCache:
    """Loaded models, built once per (kind, model) and shared by every session (baseline and HF only); a
    Hugging Face model answers one ask at a time (`OneAtATime`), the bundled reader at once.

    OpenAI-compatible backends carry a visitor's key, so they are never cached: one is made per call and
    closed after it.
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
        """The cached backend for a baseline or HF choice, loading it on first use."""
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
        """True when ``choice`` is loaded already."""
        with self._lock:
            return (choice.kind, choice.model) in self._models

    def check_not_failed(self, choice: ModelChoice) -> None:
        """ValueError at once when loading ``choice`` failed within ``remember_failures_s`` seconds."""
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
        with self._lock:
            for backend in self._models.values():
                backend.close()
            self._models.clear()


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def hub_offline(environ: Mapping[str, str] | None = None) -> bool:
    """True when the Hugging Face hub may not be reached (``HF_HUB_OFFLINE`` or ``TRANSFORMERS_OFFLINE`` set
    to 1/true/yes), read when called."""
    env = os.environ if environ is None else environ
    return any(env.get(name, "").strip().lower() in ("1", "true", "yes", "on")
               for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


def check_hf_model(model: str, *, timeout: float = HUB_CHECK_TIMEOUT_S) -> None:
    """ValueError within about ``timeout`` seconds when the Hugging Face model ``model`` cannot be loaded.

    Before a load takes the model slot (an allowed id that could not be loaded once held it for 42 s): a
    folder must hold ``config.json``; an id in the local hub cache is fine; otherwise, with the hub offline,
    the id is not available, and online the hub must know it (one metadata request, time-boxed). A model that
    passes may still fail to load (memory, an architecture transformers lacks); public mode then remembers
    the failure (:class:`ModelCache`).
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


def open_backend(choice: ModelChoice, api_key: str | None, policy: Policy, cache: ModelCache,
                 check_hf: Callable[[str], None] = check_hf_model) -> tuple[Backend, bool]:
    """The backend for ``choice`` and whether the caller must close it (True for per-call API backends).

    In public mode an API call needs the visitor's own key: the server's environment key is never used for a
    visitor. In private mode a call without a key gets the server's ``OPENAI_API_KEY`` only when its base URL
    is the policy's ``key_endpoint`` (the key's own endpoint), and goes without a key anywhere else, so a typed
    URL never receives it. The key is handed to the backend directly, never through a process-wide
    environment variable.
    In public mode an API backend follows no redirect (an allowed endpoint could otherwise send the request,
    body and key, to any address its server can reach), and a Hugging Face model not loaded yet is checked
    first with ``check_hf`` (:func:`check_hf_model`: fast, before it takes the model slot).
    """
    choice = choice.validate(policy)
    if choice.kind != "openai":
        if choice.kind == "hf" and policy.public and not cache.has(choice):
            cache.check_not_failed(choice)
            check_hf(choice.model)
        return cache.get(choice), False
    key = (api_key or "").strip()
    if policy.public and not key:
        raise ValueError("an API key is needed for this endpoint: paste yours (it stays in your session only)")
    options: dict[str, object] = {"model": choice.model, "base_url": choice.base_url, "concurrency": 4,
                                  "timeout": 60, "max_attempts": 2}
    if policy.public:
        options["follow_redirects"] = False
    if not key:  # private mode only: the server's own key for its own endpoint, else a keyless local server
        bound = bool(policy.key_endpoint) and choice.base_url == policy.key_endpoint
        options["api_key_env"] = "OPENAI_API_KEY" if bound and os.environ.get("OPENAI_API_KEY") else None
        return make_backend("openai", **options), True
    return make_backend("openai", api_key=key, **options), True  # this instance only, never the environment


def result_markdown(row: dict) -> str:
    """The verdict line for one scored row: parsed answer, verdict, failure mode, latency (ms)."""
    if row.get("error"):
        return f"**Request failed:** {row['error']}"
    if row.get("parse_status") == "unsupported":
        return f"**{row['model']} declines this kind of prompt** ({row['prompt_name']}); pick an open prompt."
    verdict = "✅ correct" if row.get("correct") else "❌ wrong"
    return (f"**Parsed answer:** `{row.get('parsed')}` · **expected** `{row.get('expected')}` · {verdict} · "
            f"**failure mode:** {row.get('failure_mode') or '—'} · **parse:** {row.get('parse_status')} · "
            f"**latency:** {1000 * float(row.get('latency_s') or 0):.0f} ms")


@dataclass(frozen=True)
class Ask:
    """One question to a model about a plate: the prompt (by name, optionally with edited template text) and
    the condition of the image it receives (size px, grayscale, hue shift degrees, CVD view, plate variant)."""

    prompt_name: str
    prompt_text: str | None = None
    condition: Condition = field(default_factory=Condition)
    variant: str = "standard"
    seed: int = 0

    def validate(self, policy: Policy) -> None:
        if self.prompt_name not in PROMPTS:
            raise ValueError(f"prompt {self.prompt_name!r} is unknown; allowed: {', '.join(PROMPTS)}")
        if self.variant not in VARIANTS:
            raise ValueError(f"variant {self.variant!r} is unknown; allowed: {', '.join(VARIANTS)}")
        if self.prompt_text is not None and len(self.prompt_text) > policy.max_prompt_chars:
            raise ValueError(f"prompt text has {len(self.prompt_text)} characters; allowed: at most "
                             f"{policy.max_prompt_chars}")
        size = self.condition.size
        if size is not None and not policy.min_plate_size <= size <= policy.max_plate_size:
            raise ValueError(f"image size {size} px is not allowed; allowed: "
                             f"{policy.min_plate_size}-{policy.max_plate_size} px, or none (as rendered)")


def prompt_template_text(name: str) -> str:
    """The template text of the named prompt (what the editable prompt box starts from)."""
    return get_prompt(name).template


def prompt_defaults(name: str) -> tuple[str, str]:
    """(template text, plate variant) of the named prompt: e.g. ``cbe-open-clear`` is meant for the clear plate."""
    template = get_prompt(name)
    return template.template, template.variant


def prompt_label_space(template, target: str) -> str | None:
    """The label space to render and score with: the template's own, except that an OPEN prompt about a text
    outside it (a visitor may type any text) uses "any" (parsing without a label space; plates.tasks.ishihara.score)."""
    space = template.label_space
    if template.kind == "open" and space in LABEL_SPACES and target not in LABEL_SPACES[space]:
        return "any"
    return None


def asked_template(ask: Ask):
    """The prompt template ``ask`` names, with its edited text when it has one that differs."""
    template = get_prompt(ask.prompt_name)
    if ask.prompt_text is not None and ask.prompt_text.strip() and ask.prompt_text != template.template:
        template = dataclasses.replace(template, template=ask.prompt_text)
    return template


def _prepare(spec: PlateSpec, ask: Ask, renderer: Callable = render):
    """Render ``spec``, apply the condition, render the prompt: (plate, template, RenderedPrompt, Query)."""
    template = asked_template(ask)
    prompt = render_prompt(template, spec.text, seed=ask.seed, label_space=prompt_label_space(template, spec.text))
    plate = renderer(spec)
    image = apply_condition(plate.variant(ask.variant), ask.condition)
    query = query_for(prompt, image)
    return plate, template, prompt, query


def _row(plate, template, prompt, ask: Ask, backend: Backend, reply, colour_set: str, run_id: str,
         secrets: Sequence[str | None]) -> dict:
    """One row of the results schema for a scored reply, through the one row builder (`plates.runs.rows`)."""
    spec = plate.spec
    cond = ask.condition
    spec_json = spec.to_json()
    item_id = hashlib.sha1(spec_json.encode()).hexdigest()[:16]
    asked = Asked(
        run_id=run_id, row_key=hashlib.sha1(f"{run_id}|{item_id}|{time.time_ns()}".encode()).hexdigest(),
        item_id=item_id, dataset="explorer", model=backend.model, backend=backend.kind, question=prompt,
        spec_json=spec_json, family="ishihara", variant=ask.variant, colour_set=colour_set,
        delta_e=float(plate.stats.delta_e), font=spec.font, size=int(cond.size or spec.size),
        grayscale=bool(cond.grayscale), hue_shift=float(cond.hue_shift), cvd=cond.cvd,
        cvd_severity=float(cond.cvd_severity) if cond.cvd != "none" else 0.0, shots=0,
    )
    return build_row(asked, reply, secrets)


def ask_plate(spec: PlateSpec, ask: Ask, backend: Backend, *, colour_set: str, run_id: str,
              secrets: Sequence[str | None] = ()) -> dict:
    """Ask ``backend`` about the plate of ``spec`` once; the scored row in the results schema."""
    return ask_one(spec, ask, backend, colour_set=colour_set, run_id=run_id, secrets=secrets)[0]


def ask_one(spec: PlateSpec, ask: Ask, backend: Backend, *, colour_set: str, run_id: str,
            secrets: Sequence[str | None] = (), renderer: Callable = render) -> tuple[dict, Image.Image]:
    """Like :func:`ask_plate`, also returning the image the model received (PIL RGB, sRGB 0-255).
    ``renderer`` (spec -> Plate, e.g. a plates.explorer.plate.PlateCache) reuses a plate already on screen."""
    prepared = [_prepare(spec, ask, renderer)]
    row = next(_answer(prepared, ask, backend, colour_set, run_id, secrets))
    return row, prepared[0][3].turns[-1].images[-1]


def sent(spec: PlateSpec, ask: Ask, renderer: Callable = render) -> tuple[Image.Image, str]:
    """What a model receives when asked ``ask`` about ``spec``: the image as sent (PIL RGB, sRGB 0-255, after
    the condition) and :func:`request_markdown` of the request (the same `_prepare` the asking uses)."""
    _, _, prompt, query = _prepare(spec, ask, renderer)
    image = query.turns[-1].images[-1]
    return image, request_markdown(prompt, query, image)


def request_markdown(prompt, query: Query, image: Image.Image) -> str:
    """The exact request as Markdown: the filled prompt text (``{candidate}`` / ``{options}`` replaced), the
    options with their letters, the expected answer and its text, temperature, max tokens and the image size
    as sent (px). ``prompt`` is the rendered `plates.tasks.base.Question`; visitor text sits in code spans."""
    def code(text: str) -> str:
        return "`` " + str(text).replace("`", "ˋ") + " ``"

    lines = ["**The exact request**", "```text\n" + prompt.text.replace("```", "ˋˋˋ") + "\n```"]
    if prompt.options:
        lines.append("Options: " + " · ".join(f"**{k}** {code(v)}" for k, v in prompt.options.items()))
    expected = prompt.expected
    meaning = prompt.options.get(expected) if prompt.options else None
    if meaning is None and prompt.kind == "yesno":
        meaning = "the label asked is the plate's text" if expected == "yes" else "the label asked is not the plate's text"
    lines.append(f"Expected answer: {code(expected)}" + (f" ({code(meaning)})" if meaning else "")
                 + f" · the plate's text: {code(prompt.target)}")
    lines.append(f"Temperature {query.temperature:g} · max tokens {query.max_tokens} · image {image.width}×"
                 f"{image.height} px as sent (PNG) · answer kind {query.answer_kind or 'unstated'}")
    return "\n\n".join(lines)


def ask_many(specs: Sequence[PlateSpec], ask: Ask, backend: Backend, *, colour_set: str, run_id: str,
             secrets: Sequence[str | None] = (), renderer: Callable = render) -> Iterator[dict]:
    """Ask about every spec (one batch, so API backends run them concurrently); yield rows as replies arrive
    (a local Hugging Face model's all at once: `OneAtATime`). Every plate is drawn before the batch is asked.

    A backend failing on every request raises ValueError with the (redacted) reason.
    """
    yield from _answer([_prepare(spec, ask, renderer) for spec in specs], ask, backend, colour_set, run_id, secrets)


def _answer(prepared, ask: Ask, backend: Backend, colour_set: str, run_id: str, secrets) -> Iterator[dict]:
    queries = [q for *_, q in prepared]
    try:
        for index, reply in backend.ask(queries):
            plate, template, prompt, _ = prepared[index]
            yield _row(plate, template, prompt, ask, backend, reply, colour_set, run_id, secrets)
    except BackendFailing as exc:
        raise ValueError(f"the model keeps failing: {redact(str(exc), secrets)}") from None


def sweep_values(low: float, high: float, points: int, policy: Policy) -> list[float]:
    """``points`` ΔE2000 values from ``low`` to ``high`` (CIELAB ΔE2000 units), within the policy's cap."""
    if not 2 <= int(points) <= policy.max_sweep_points:
        raise ValueError(f"sweep of {points} points is not allowed; allowed: 2-{policy.max_sweep_points}")
    if not 0 < low < high:
        raise ValueError(f"ΔE2000 range {low}-{high} is not allowed; allowed: 0 < low < high")
    return [round(float(v), 3) for v in np.linspace(low, high, int(points))]


@dataclass(frozen=True)
class SweepPlan:
    """The plates of a ΔE2000 sweep: ``specs`` (one per reachable requested value, in order) and ``skipped``,
    the requested values this colour set cannot reach in sRGB, each with PlateSpec's reason (which names the
    largest reachable ΔE2000)."""

    specs: tuple[PlateSpec, ...]
    skipped: tuple[tuple[float, str], ...] = ()


def sweep_plan(spec: PlateSpec, values: Sequence[float], directions: str = "distributed") -> SweepPlan:
    """``spec`` re-targeted at each ΔE2000 in ``values``; an unreachable value is skipped and named. With
    ``directions`` "distributed" (default) each point's background lies along its own CIELAB direction
    (`plates.stimuli.ishihara.directions.with_direction`, seeded by the spec's seed and the point's index), so
    the sweep's fit describes ΔE2000, not the palette line's 8-bit colours; "palette": the palette's line."""
    if directions not in DIRECTION_MODES:
        raise ValueError(f"directions {directions!r} is not known; allowed: {', '.join(DIRECTION_MODES)}")
    specs, skipped = [], []
    for i, v in enumerate(values):
        try:
            specs.append(with_direction(spec, float(v), spec.seed + i) if directions == "distributed"
                         else spec.replace(delta_e=float(v)))
        except ValueError as exc:
            skipped.append((float(v), str(exc)))
    return SweepPlan(tuple(specs), tuple(skipped))


def sweep(spec: PlateSpec, values: Sequence[float], ask: Ask, backend: Backend, *, colour_set: str,
          run_id: str, secrets: Sequence[str | None] = ()) -> Iterator[dict]:
    """The ΔE sweep: the same plate re-rendered at each ΔE2000 in ``values``, asked as one batch (an API
    backend runs the requests concurrently); yields scored rows as they come. Values this colour set cannot
    reach are left out (:func:`sweep_plan` names them); none reachable is a ValueError."""
    plan = sweep_plan(spec, values)
    if not plan.specs:
        raise ValueError(f"no ΔE2000 of the sweep can be drawn with these colours: {plan.skipped[0][1]}")
    yield from ask_many(plan.specs, ask, backend, colour_set=colour_set, run_id=run_id, secrets=secrets)


def in_batches(items: Iterable, every_s: float,
               clock: Callable[[], float] = time.monotonic) -> Iterator[list]:
    """``items`` gathered into lists, one list yielded once ``every_s`` seconds have passed since the previous
    one (or the start), and the rest at the end: a fast model's sweep updates the page once, a slow one's as
    each answer comes, and the page never redraws its chart more often than every ``every_s`` seconds."""
    batch: list = []
    last = clock()
    for item in items:
        batch.append(item)
        now = clock()
        if now - last >= every_s:
            yield batch
            batch, last = [], now
    if batch:
        yield batch


def requested_delta_e(row: Mapping) -> float | None:
    """The ΔE2000 a row's plate asked for (its spec's target; None = the colours as given). The row's
    ``delta_e`` is what was drawn: the mean CIEDE2000 over the colour set's foreground x background pairs."""
    target = json.loads(row["spec_json"]).get("delta_e") if row.get("spec_json") else None
    return None if target is None else float(target)


def pair_delta_e_range(spec: PlateSpec) -> tuple[float, float]:
    """(smallest, largest) CIEDE2000 over the foreground x background colour pairs ``spec`` draws (sRGB 0-255
    colours as resolved, before any jitter; plates.colour.delta_e2000)."""
    fg, bg = (np.asarray(c, dtype=np.float64) for c in spec.colours)
    grid = delta_e2000(np.repeat(fg, len(bg), axis=0), np.tile(bg, (len(fg), 1)))
    return float(np.min(grid)), float(np.max(grid))


#: How far (ΔE2000) the drawn mean may sit from the requested value before the sweep warns.
SWEEP_TOLERANCE = 0.5


def sweep_summary(rows: Sequence[dict], skipped: Sequence[tuple[float, str]] = ()) -> str:
    """The sweep's verdict panel (Markdown): correct count, then one line per point with the ΔE2000 requested
    and drawn (mean over the colour set's pairs, and the smallest pair), the answer and verdict, ordered by
    the request; a warning for each point drawn more than :data:`SWEEP_TOLERANCE` from its request (a
    multi-colour set's pairs spread around the target, which is measured from the foregrounds' CIELAB mean)
    and for each value the colours cannot reach."""
    answered = [r for r in rows if r.get("correct") is not None]
    lines = [f"**Sweep:** {sum(bool(r['correct']) for r in answered)} of {len(answered)} correct"
             + (f" · {len(rows) - len(answered)} without a verdict" if len(answered) < len(rows) else "")]
    lines += ["", "| ΔE2000 asked | drawn (mean of pairs) | smallest pair | answer | verdict |",
              "|---:|---:|---:|---|---|"]
    warnings = []
    for r in sorted(rows, key=lambda r: requested_delta_e(r) or 0.0):
        asked, drawn = requested_delta_e(r), float(r["delta_e"])
        smallest = pair_delta_e_range(PlateSpec.from_json(r["spec_json"]))[0]
        verdict = ("error" if r.get("error") else "—" if r.get("correct") is None
                   else "✅" if r["correct"] else "❌")
        answer = str(r.get("parsed") if r.get("parsed") is not None else "")[:20].replace("|", "/")
        lines.append(f"| {asked:.2f} | {drawn:.2f} | {smallest:.2f} | `{answer}` | {verdict} |")
        if asked is not None and abs(drawn - asked) > SWEEP_TOLERANCE:
            warnings.append(f"ΔE2000 {asked:.2f} was asked but {drawn:.2f} is drawn (mean over the colour "
                            f"set's foreground × background pairs, smallest {smallest:.2f}): this colour set "
                            "cannot reach it as asked")
    warnings += [f"ΔE2000 {v:.2f} cannot be reached: {why}" for v, why in skipped]
    if warnings:
        lines += ["", *(f"⚠️ {w}" for w in warnings)]
    return "\n".join(lines)


def sweep_replies(rows: Sequence[dict]) -> str:
    """The raw replies of a sweep, one line per point ordered by requested ΔE2000:
    ``ΔE2000 asked (drawn): reply``."""
    out = []
    for r in sorted(rows, key=lambda r: requested_delta_e(r) or 0.0):
        text = r.get("reply")
        if text is None:
            text = f"[{r.get('error') or r.get('parse_status')}]"
        out.append(f"ΔE2000 {requested_delta_e(r) or 0:.2f} (drawn {float(r['delta_e']):.2f}): {text}")
    return "\n".join(out)


def history_table(rows: Sequence[dict]) -> pa.Table:
    """Rows -> an Arrow table in the results schema (plates.results.SCHEMA)."""
    return pa.Table.from_pylist([{k: r.get(k) for k in SCHEMA.names} for r in rows], schema=SCHEMA)


def history_parquet(rows: Sequence[dict]) -> bytes:
    """The session history as Parquet bytes in the results schema (the dashboard opens it)."""
    sink = io.BytesIO()
    pq.write_table(history_table(rows), sink)
    return sink.getvalue()


def history_headers() -> list[str]:
    """The history table's headers on the page, in :data:`HISTORY_COLUMNS` order."""
    return [HISTORY_HEADERS[c] for c in HISTORY_COLUMNS]


def history_frame(rows: Sequence[dict]):
    """The history table shown on the page as a DataFrame with :func:`history_headers`, newest first."""
    return pd.DataFrame(history_display(rows), columns=history_headers())


def history_display(rows: Sequence[dict]) -> list[list]:
    """The history table shown on the page: :data:`HISTORY_COLUMNS` of each row, newest first."""
    out = []
    for r in reversed(rows):
        out.append([round(r[c], 3) if isinstance(r.get(c), float) else r.get(c) for c in HISTORY_COLUMNS])
    return out
