"""An experiment: items x models x conditions x prompts x shots, from a TOML file or quick-run flags.

A TOML experiment (see ``examples/cbe-smoke.toml``)::

    name = "cbe-smoke"            # optional: starts the run id and part names; the run's name in charts
    protocol = "huemanity"        # optional: a paper's sampling settings per model (plates.runs.protocols)
    seed = 0                      # prompt rendering (wrong yes/no candidates, mc options) and few-shot choice
    shots = [0, 1]                # few-shot examples of the same colour set (CBE B.2, HueManity Table 3)
    prompts = ["cbe-open", "cbe-yn-correct"]
    prompt_files = ["my_prompts.toml"]  # optional: your own [[prompt]] templates (plates.tasks.prompts.load_prompt_file)
    out = "results/runs/cbe-smoke"

    [dataset]
    source = "colorblindnesseval" # a preset name, or a folder with manifest.parquet
    limit = 20                    # the first N items (a budget: not part of the run's identity)
    sample = 1000                 # optional: a seeded random subset of N plates, balanced across colour sets
    sample_seed = 0               #   (HueManity §4; plates.datasets.sample): both part of the run's identity

    [conditions]                  # crossed: every size x grayscale x hue shift x CVD view x variant
    sizes = [128, 512]            # side in pixels the model receives; omit for the dataset's own size
    grayscale = [false, true]
    hue_shifts = [0, 90]          # degrees
    cvd = ["none", "deutan", { view = "protan", severity = 0.5 }]
    variants = ["standard"]       # omit: each prompt's own variant (cbe-open-clear asks about the clear plate)
    text_only = [false, true]     # ColorBench App. J control: the image replaced by a black one of its size

    [judge]                       # optional: a judge model where the rules abstain (plates.runs.judge)
    model = "gpt-4o-mini"
    base_url = "https://api.openai.com/v1"
    api_key_env = "PLATES_JUDGE_API_KEY"  # default: PLATES_JUDGE_API_KEY, else OPENAI_API_KEY; false: no key
    all = false                   # true: ask about every reply, not only where the rules abstain

    [[models]]
    backend = "openai"            # openai | hf | baseline | reference-pixels
    model = "gpt-4o-mini"
    base_url = "https://api.openai.com/v1"
    api_key_env = "OPENAI_API_KEY"  # the NAME of the variable holding the key; false for keyless local servers
    concurrency = 8
    timeout = 60
    view = "openai-high"          # optional: rows record the image as this family sees it (plates.models.views)

A local (hf) model whose id `plates.models.views.family_of_model` knows records its family's view unless
``view`` names another. Any other key of a ``[[models]]`` table is passed to the backend's constructor (``plates.models``). A
``protocol`` fills each model's sampling keys as that paper reports them (`plates.runs.protocols`); keys the
table writes itself win. The protocol's name joins the run id.

The run's name in charts (``display_name``, recorded per row as ``run_name``) is ``plates run --name``, else
the file's ``name``, else the ``out`` folder's name. ``--name`` is operational: it never enters the run id, so a
run resumed under another name continues (its new rows carry the new name).

The run id is ``<name>-<12 hex>``: a hash of the normalised experiment WITHOUT the operational settings (out
folder, limit, base_url, api_key_env, concurrency, timeout, max_attempts, batch_size, device, dtype), so
rerunning the same command, or the same experiment with a larger limit or against another server of the same
model, continues the same run. Everything that changes an answer (dataset, models, prompts, conditions,
shots, seed, max_tokens, temperature) makes a new run id.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Any

from plates.colour import CVD_VIEWS
from plates.conditions import Condition
from plates.datasets import PRESETS
from plates.datasets.family_presets import FAMILY_PRESETS, unknown_preset
from plates.models import BACKENDS, DEFAULT_MODELS, backend_class
from plates.models.views import FAMILIES
from plates.runs.judge import JudgeSpec, parse_judge
from plates.runs.protocols import get_protocol, model_settings
from plates.stimuli import ENGINE_VERSION, STIMULI
from plates.storage import is_url
from plates.tasks.prompts import PROMPTS, PromptTemplate, get_prompt, load_prompt_file
from plates.toml_files import read_toml
from plates.validation import (
    check_choice,
    check_int,
    check_keys,
    check_list,
    check_number,
    check_size,
    lookup,
)

BACKEND_KINDS = tuple(BACKENDS)
#: Every variant some stimulus family offers (a condition may ask for one; items of a family without it fail
#: with a clear error when planned).
VARIANTS = tuple(dict.fromkeys(v for f in STIMULI.values() for v in f.variants))
TOP_KEYS = ("name", "seed", "shots", "prompts", "prompt_files", "out", "dataset", "conditions", "models", "protocol",
            "judge")
DATASET_KEYS = ("source", "limit", "sample", "sample_seed")
CONDITION_KEYS = ("sizes", "grayscale", "hue_shifts", "cvd", "variants", "text_only")
#: Keys every [[models]] table takes; the rest are the backend constructor's own options.
MODEL_KEYS = ("backend", "model", "max_tokens", "temperature", "view")
#: Model options that change how a run goes, not what it answers: left out of the run id.
OPERATIONAL_MODEL_KEYS = ("base_url", "api_key_env", "concurrency", "timeout", "max_attempts", "batch_size",
                          "device", "dtype", "fail_after", "backoff_base", "backoff_max", "max_retry_after",
                          "device_map", "trust_remote_code")
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


@dataclass(frozen=True)
class ConditionSpec:
    """One viewing condition (mirrors ``plates.conditions.Condition``, plus the plate variant).

    Attributes
    ----------
    size : int or None
        Side in px of the image the model receives (None: the dataset's own).
    grayscale : bool
        The image in grey.
    hue_shift : float
        Hue rotation, degrees, applied to the sRGB 0-255 image.
    cvd : str
        none / protan / deutan / tritan.
    cvd_severity : float
        0-1 (Machado, Oliveira and Fernandes 2009).
    variant : str or None
        standard / clear / mask, or None for the prompt's own variant.
    text_only : bool
        The image replaced by a black image of the same size (ColorBench App. J), so the other transforms
        are moot (they stay at their defaults).
    """

    size: int | None = None
    grayscale: bool = False
    hue_shift: float = 0.0
    cvd: str = "none"
    cvd_severity: float = 0.0
    variant: str | None = None
    text_only: bool = False

    def to_condition(self) -> Condition:
        """The viewing condition (`plates.conditions.Condition`, without the variant)."""
        return Condition(size=self.size, grayscale=self.grayscale, hue_shift=self.hue_shift, cvd=self.cvd,
                         cvd_severity=self.cvd_severity if self.cvd != "none" else 1.0, text_only=self.text_only)

    def key(self) -> dict[str, Any]:
        """The condition as it enters the run id: `asdict`, without ``text_only`` when False (so run ids from
        before the text-only control are unchanged)."""
        d = asdict(self)
        if not self.text_only:
            del d["text_only"]
        return d


@dataclass(frozen=True)
class ModelSpec:
    """One model: backend kind, model name, generation settings, and the backend's other options.

    Attributes
    ----------
    backend : str
        A backend kind (`plates.models.BACKENDS`).
    model : str
        The model's name or path.
    max_tokens : int
        The most tokens a reply may have.
    temperature : float
        Sampling temperature (0: greedy).
    options : dict
        The backend's constructor options (``base_url``, ``concurrency``, ``api_key_env``, ...); never a key.
    view : str or None
        A `plates.models.views` family whose view of each image the rows record.
    """

    backend: str
    model: str
    max_tokens: int = 512
    temperature: float = 0.0
    options: dict[str, Any] = field(default_factory=dict)  # constructor options (base_url, concurrency, ...)
    view: str | None = None  # a plates.models.views family whose view of each image the rows record

    @property
    def concurrency(self) -> int:
        """Requests in flight (openai) or batch size (hf): the runner's batch and flush size."""
        return int(self.options.get("concurrency", self.options.get("batch_size", 8)))


@dataclass(frozen=True)
class Experiment:
    """A validated experiment. Build with :func:`parse_experiment`, :func:`load_experiment` or
    :func:`quick_experiment`; ``run_id`` is deterministic (see the module doc).

    Attributes
    ----------
    dataset : str
        A preset's name or a set's folder / URL.
    models : tuple of ModelSpec
        The models asked.
    prompts : tuple of str
        The prompts asked.
    conditions : tuple of ConditionSpec
        The viewing conditions, crossed with the rest.
    shots : tuple of int
        Few-shot counts.
    seed : int
        Seeds the few-shot examples' choice and the questions' own draws (option order, distractors).
    limit : int or None
        The first N items read from the dataset (a budget: not part of the run id).
    out : str
        The results folder or object-store URL.
    name : str or None
        The run's name in its id.
    user_prompts : tuple of (str, str)
        (name, template as JSON) of each prompt that is not built in.
    protocol : str or None
        The paper protocol (`plates.runs.protocols.PROTOCOLS`) that set the models' sampling; None: ours.
    sample : int or None
        A seeded random subset of this many plates; None: all.
    sample_seed : int
        Its seed.
    judge : JudgeSpec or None
        The judge model asked where the rules abstain (outside the run id).
    run_name : str or None
        The name charts show (outside the run id).
    """

    dataset: str
    models: tuple[ModelSpec, ...]
    prompts: tuple[str, ...]
    conditions: tuple[ConditionSpec, ...] = (ConditionSpec(),)
    shots: tuple[int, ...] = (0,)
    seed: int = 0
    limit: int | None = None
    out: str = "results/runs"
    name: str | None = None
    #: (name, template as JSON) of each prompt that is not built in, captured when the experiment was parsed
    user_prompts: tuple[tuple[str, str], ...] = ()
    #: the paper protocol (`plates.runs.protocols.PROTOCOLS`) that set the models' sampling, or None (ours)
    protocol: str | None = None
    #: a seeded random subset of this many plates (`plates.datasets.sample.Sample`), or None for all
    sample: int | None = None
    sample_seed: int = 0
    #: the judge model asked where the rules abstain (`plates.runs.judge`), or None: how replies are read, not
    #: what is asked, so outside the run id (each row records its judge)
    judge: JudgeSpec | None = None
    #: the name charts show for the run (`plates run --name`): operational, outside the run id
    run_name: str | None = None

    @property
    def display_name(self) -> str:
        """The run's name as charts show it: ``run_name`` (``--name``), else ``name``, else the ``out``
        folder's name (``results/runs/quick`` -> "quick"; an object-store URL's last segment)."""
        return self.run_name or self.name or Path(self.out).name or self.out

    def identity(self) -> dict[str, Any]:
        """The normalised spec that defines the run (operational settings left out)."""
        models = []
        for m in self.models:
            opts = {k: v for k, v in sorted(m.options.items()) if k not in OPERATIONAL_MODEL_KEYS}
            models.append({"backend": m.backend, "model": m.model, "max_tokens": m.max_tokens,
                           "temperature": m.temperature, "options": opts})
            if m.view is not None:  # only then: runs without a view keep their ids
                models[-1]["view"] = m.view
        identity = {"dataset": self.dataset, "models": models, "prompts": list(self.prompts),
                    "conditions": [c.key() for c in self.conditions], "shots": list(self.shots),
                    "seed": self.seed, "engine": ENGINE_VERSION}
        if self.sample is not None:  # only then: runs without a sample keep their ids
            identity["sample"] = {"n": self.sample, "seed": self.sample_seed}
        if self.user_prompts:  # a user's template is identified by its text too (built-ins never change)
            identity["user_prompts"] = {name: json.loads(t) for name, t in self.user_prompts}
        if self.protocol is not None:  # absent otherwise: run ids from before protocols stay the same
            identity["protocol"] = self.protocol
        return identity

    @cached_property
    def templates(self) -> Mapping[str, PromptTemplate]:
        """The user's own templates this experiment asks with, by name (rebuilt from the JSON captured when it
        was parsed, so the run asks exactly the text its id was computed from)."""
        return {name: PromptTemplate(**json.loads(t)) for name, t in self.user_prompts}

    def template(self, name: str) -> PromptTemplate:
        """The template of prompt ``name``: a built-in or one of this experiment's own.

        Parameters
        ----------
        name : str
            A prompt name.

        Returns
        -------
        PromptTemplate
            The template.

        Raises
        ------
        ValueError
            When no built-in or user prompt has that name.
        """
        return get_prompt(name, self.templates)

    @property
    def run_id(self) -> str:
        """``<name or dataset>-<12 hex>``: deterministic, from the fields that decide the rows."""
        digest = hashlib.sha256(json.dumps(self.identity(), sort_keys=True).encode()).hexdigest()[:12]
        slug = self.name or re.sub(r"[^A-Za-z0-9._-]+", "-", Path(self.dataset).name).strip("-._") or "run"
        return f"{slug[:48]}-{digest}"

    def to_json(self) -> str:
        """The whole experiment as JSON (for logs); holds the NAME of the key variable, never a key."""
        return json.dumps({**self.identity(), "limit": self.limit, "out": self.out, "name": self.name,
                           "run_name": self.run_name}, sort_keys=True)


def run_name(value: object, said: str = "--name") -> str:
    """A run's name as charts show it (``plates run --name``), validated: 1-64 letters, digits, '.', '_' or
    '-', starting with a letter or digit (the rule of the file's ``name``).

    Parameters
    ----------
    value : object
        The name given.
    said : str, optional
        How the user gave it, for the message (default ``--name``).

    Returns
    -------
    str
        The name.

    Raises
    ------
    ValueError
        Any other value; the message names ``said`` and what is allowed.
    """
    if not isinstance(value, str) or not _NAME_RE.match(value):
        raise ValueError(f"{said}: {value!r} is not allowed; use 1-64 letters, digits, '.', '_' or '-' "
                         "(starting with a letter or digit)")
    return value


# ---- validation helpers: every error names the field and what is allowed ------------------------------------

def _str(where: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where}: {value!r} is not allowed; expected a non-empty string")
    return value


def _cvd(where: str, value: Any) -> tuple[str, float]:
    if isinstance(value, str):
        view, severity = check_choice(where, value, CVD_VIEWS), 1.0
    elif isinstance(value, dict):
        check_keys(where, value, ("view", "severity"))
        view = check_choice(f"{where}.view", value.get("view"), CVD_VIEWS)
        severity = check_number(f"{where}.severity", value.get("severity", 1.0), 0.0, 1.0)
    else:
        raise ValueError(f"{where}: {value!r} is not allowed; expected one of {', '.join(CVD_VIEWS)} "
                         "or a table {{ view = ..., severity = 0-1 }}")
    return view, (0.0 if view == "none" else severity)


def _conditions(table: dict[str, Any]) -> tuple[ConditionSpec, ...]:
    check_keys("conditions", table, CONDITION_KEYS)
    sizes = [None] if "sizes" not in table else [
        check_size(f"conditions.sizes[{i}]", v)
        for i, v in enumerate(check_list("conditions.sizes", table["sizes"], wrap=True))]
    grays = check_list("conditions.grayscale", table.get("grayscale", [False]), wrap=True)
    for i, g in enumerate(grays):
        if not isinstance(g, bool):
            raise ValueError(f"conditions.grayscale[{i}]: {g!r} is not allowed; expected true or false")
    hues = [check_number(f"conditions.hue_shifts[{i}]", v, -360.0, 360.0)
            for i, v in enumerate(check_list("conditions.hue_shifts", table.get("hue_shifts", [0.0]), wrap=True))]
    cvds = [_cvd(f"conditions.cvd[{i}]", v)
            for i, v in enumerate(check_list("conditions.cvd", table.get("cvd", ["none"]), wrap=True))]
    variants = [None] if "variants" not in table else [
        check_choice(f"conditions.variants[{i}]", v, VARIANTS)
        for i, v in enumerate(check_list("conditions.variants", table["variants"], wrap=True))]
    blanks = check_list("conditions.text_only", table.get("text_only", [False]), wrap=True)
    for i, t in enumerate(blanks):
        if not isinstance(t, bool):
            raise ValueError(f"conditions.text_only[{i}]: {t!r} is not allowed; expected true or false")
    out: list[ConditionSpec] = []
    for size in sizes:
        for gray in grays:
            for hue in hues:
                for view, severity in cvds:
                    for variant in variants:
                        for blank in blanks:
                            c = (ConditionSpec(size, False, 0.0, "none", 0.0, variant, True) if blank
                                 else ConditionSpec(size, gray, hue, view, severity, variant))
                            if c not in out:  # a black image is the same under every colour transform
                                out.append(c)
    return tuple(out)


def parse_model(where: str, table: Any) -> ModelSpec:
    """Validate one ``[[models]]`` table of an experiment.

    Parameters
    ----------
    where : str
        Where the table is, for messages (``models[0]``).
    table : dict
        The ``[[models]]`` table.

    Returns
    -------
    ModelSpec
        The model.

    Raises
    ------
    ValueError
        For a missing or unknown backend, an API key in the file, an option the backend does not take, or a
        concurrency, timeout, base URL, key variable name, max_tokens, temperature or view out of range.
    """
    if not isinstance(table, dict):
        raise ValueError(f"{where}: expected a table with backend and model, got {table!r:.60}")
    backend = check_choice(f"{where}.backend", table.get("backend"), BACKEND_KINDS)
    model = _str(f"{where}.model", table.get("model", DEFAULT_MODELS.get(backend)))  # baseline: its one model
    opts = {k: v for k, v in table.items() if k not in MODEL_KEYS}
    if "api_key" in opts:
        raise ValueError(f"{where}.api_key: an API key never goes in an experiment file (it would be copied with "
                         "it); export it in an environment variable and give that variable's NAME as api_key_env")
    allowed = _backend_options(backend)
    if allowed is not None:
        check_keys(where, table, (k for k in dict.fromkeys((*MODEL_KEYS, *allowed)) if k != "api_key"),
                   extra=f" for backend {backend!r}")
    if "concurrency" in opts:
        check_int(f"{where}.concurrency", opts["concurrency"], 1, 1024)
    if "timeout" in opts:
        check_number(f"{where}.timeout", opts["timeout"], 0.001, 86400.0)
    if "base_url" in opts and not str(opts["base_url"]).startswith(("http://", "https://")):
        raise ValueError(f"{where}.base_url: {opts['base_url']!r} is not allowed; expected an http:// or https:// URL")
    if "api_key_env" in opts:
        key_env = opts["api_key_env"]
        if key_env is False:
            opts["api_key_env"] = None
        elif not isinstance(key_env, str) or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", key_env):
            raise ValueError(f"{where}.api_key_env: expected the NAME of an environment variable (e.g. "
                             "OPENAI_API_KEY) or false for a server that needs no key")
    max_tokens = check_int(f"{where}.max_tokens", table.get("max_tokens", 512), 1, 1_000_000)
    temperature = check_number(f"{where}.temperature", table.get("temperature", 0.0), 0.0, 2.0)
    view = table.get("view")
    if view is not None:
        lookup(FAMILIES, view, f"{where}.view")
    return ModelSpec(backend, model, max_tokens, temperature, opts, view)


def _backend_options(kind: str) -> tuple[str, ...] | None:
    """The keyword options of backend ``kind``'s constructor (None when they cannot be known: the backend's
    module needs a package that is not installed, or it takes ``**kwargs``)."""
    try:
        cls = backend_class(kind)
    except ImportError:
        return None
    params = inspect.signature(cls.__init__).parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None
    return tuple(p.name for p in params if p.name not in ("self", "model", "model_id_or_path"))


def parse_experiment(data: dict[str, Any], *, base_dir: str | Path | None = None,
                     said: Mapping[str, str] | None = None) -> Experiment:
    """Validate an experiment given as a dict (a parsed TOML document); relative paths resolve from ``base_dir``.
    ``said``: how the user named a field, where not in a TOML file (`QUICK_FLAGS`: ``--dataset`` for
    ``dataset.source``), so an error speaks their words.

    Parameters
    ----------
    data : dict
        The experiment's fields (a parsed TOML document).
    base_dir : str or pathlib.Path, optional
        Where relative paths resolve from (default: the working folder).
    said : mapping of str to str, optional
        Field to the flag the user gave it with.

    Returns
    -------
    Experiment
        The validated experiment.

    Raises
    ------
    ValueError
        Naming the bad field and what is allowed.
    """
    said = said or {}
    check_keys("experiment", data, TOP_KEYS)

    name = data.get("name")
    if name is not None:
        run_name(name, "name")
    ds = data.get("dataset")
    if ds is None:
        raise ValueError("dataset: missing; give [dataset] source = a preset name or a folder with manifest.parquet")
    if isinstance(ds, str):
        ds = {"source": ds}
    check_keys("dataset", ds, DATASET_KEYS)
    source = _str("dataset.source", ds.get("source"))
    limit = None if ds.get("limit") is None else check_int("dataset.limit", ds["limit"], 1)
    sample = None if ds.get("sample") is None else check_int("dataset.sample", ds["sample"], 1)
    if sample is None and ds.get("sample_seed") is not None:
        raise ValueError("dataset.sample_seed: given without dataset.sample; allowed: with sample = N")
    sample_seed = check_int("dataset.sample_seed", ds.get("sample_seed", 0), 0)
    source = _resolve_source(source, base_dir, said.get("dataset.source", "dataset.source"))
    models = data.get("models")
    if isinstance(models, dict):  # a single [models] table
        models = [models]
    if not isinstance(models, list) or not models:
        raise ValueError("models: missing; give at least one [[models]] table with backend and model")
    protocol = data.get("protocol")
    if protocol is not None:
        protocol = get_protocol(_str("protocol", protocol)).name
        models = [_with_protocol(f"models[{i}]", m, protocol) for i, m in enumerate(models)]
    model_specs = tuple(parse_model(f"models[{i}]", m) for i, m in enumerate(models))
    own: dict[str, PromptTemplate] = {}
    if data.get("prompt_files") is not None:
        for i, f in enumerate(check_list("prompt_files", data["prompt_files"], wrap=True)):
            path = Path(_str(f"prompt_files[{i}]", f))
            for t in load_prompt_file(path if base_dir is None or path.is_absolute() else Path(base_dir) / path):
                own[t.name] = t  # a later file's template of the same name wins, as the file order says
    prompts = tuple(check_list("prompts", data["prompts"], wrap=True)) if data.get("prompts") else ()
    if not prompts:
        raise ValueError(f"prompts: missing; give one or more of {', '.join([*PROMPTS, *own])}")
    for i, p in enumerate(prompts):
        check_choice(said.get("prompts", f"prompts[{i}]"), p, (*PROMPTS, *own))
    user_prompts = tuple((p, json.dumps(asdict(own[p]), sort_keys=True))
                         for p in dict.fromkeys(prompts) if p not in PROMPTS)
    shots = tuple(check_int(f"shots[{i}]", s, 0, 16)
                  for i, s in enumerate(check_list("shots", data.get("shots", [0]), wrap=True)))
    seed = check_int("seed", data.get("seed", 0), 0)
    out = data.get("out", "results/runs")
    _str("out", out)
    if base_dir is not None and not Path(out).is_absolute():
        out = str(Path(base_dir) / out)
    return Experiment(dataset=source, models=model_specs, prompts=tuple(dict.fromkeys(prompts)),
                      conditions=_conditions(data.get("conditions", {})), shots=tuple(dict.fromkeys(shots)),
                      seed=seed, limit=limit, out=out, name=name, user_prompts=user_prompts, protocol=protocol,
                      sample=sample, sample_seed=sample_seed,
                      judge=None if data.get("judge") is None else parse_judge(data["judge"]))


def _with_protocol(where: str, table: Any, protocol: str) -> Any:
    """A [[models]] table with the protocol's sampling keys filled in under its own (the table's keys win;
    ``extra_body`` dicts are merged the same way)."""
    if isinstance(table, dict) and "model" not in table and table.get("backend") in DEFAULT_MODELS:
        table = {**table, "model": DEFAULT_MODELS[table["backend"]]}
    if not isinstance(table, dict) or not isinstance(table.get("backend"), str) or not isinstance(
            table.get("model"), str):
        return table  # parse_model names what is wrong
    try:
        settings = model_settings(protocol, table["backend"], table["model"], given=tuple(table))
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    merged = {**settings, **table}
    if isinstance(settings.get("extra_body"), dict) and isinstance(table.get("extra_body"), dict):
        merged["extra_body"] = {**settings["extra_body"], **table["extra_body"]}
    return merged


def _resolve_source(source: str, base_dir: str | Path | None, said_as: str = "dataset.source") -> str:
    """A preset name stays as is, and an object-store URL (a Parquet set, `plates.storage`; its loader checks
    it); a folder becomes an absolute path (so the run id does not depend on cwd). A folder that holds no set
    yet is refused with the command that makes one (``plates generate --preset ... --out ...``); ``said_as``:
    how the user named the source."""
    presets = preset_names()
    if source in presets or is_url(source):
        return source
    path = Path(source)
    if base_dir is not None and not path.is_absolute():
        path = Path(base_dir) / path
    if not (path / "manifest.parquet").is_file():
        inner = sorted(m.parent.name for m in path.glob("*/manifest.parquet")) if path.is_dir() else []
        if inner:  # a family written whole (`plates generate --family`): one set per preset, a level down
            raise ValueError(f"{said_as}: {source!r} holds no set itself but {len(inner)} one level down "
                             f"(as `plates generate --family` writes them: {', '.join(inner)}); allowed: one of "
                             f"them, e.g. {str(Path(source) / inner[0])!r}")
        where = "there is no such folder" if not path.exists() else "the folder holds no manifest.parquet"
        raise ValueError(f"{said_as}: {source!r} is neither a preset nor a folder of plates ({where}); make one with "
                         f"`plates generate --preset PRESET --out {source}` (e.g. PRESET = colorblindnesseval) and "
                         f"run again, or give a preset's name to draw the plates as they are asked: "
                         f"{unknown_preset(source)}")
    return str(path.resolve())


def preset_names() -> tuple[str, ...]:
    """The preset names: plate presets (``plates.datasets.PRESETS``) and the other families'
    (``plates.datasets.family_presets.FAMILY_PRESETS``)."""
    return (*PRESETS, *FAMILY_PRESETS)


def load_experiment(path: str | Path, *, protocol: str | None = None) -> Experiment:
    """Read and validate a TOML experiment file; paths inside it resolve from the file's folder. ``protocol``
    (``plates run --protocol``) names a paper protocol for a file that names none (or the same one).

    Parameters
    ----------
    path : str or pathlib.Path
        A TOML experiment file.
    protocol : str, optional
        A paper protocol's name (`plates.runs.protocols`).

    Returns
    -------
    Experiment
        The validated experiment.

    Raises
    ------
    ValueError
        For an unreadable or invalid file, a field `parse_experiment` refuses, or a ``protocol`` that differs
        from the file's.
    """
    path = Path(path)
    data = read_toml(path, "experiment")
    if protocol is not None:
        held = data.get("protocol")
        if held is not None and str(held).lower() != str(protocol).lower():
            raise ValueError(f"--protocol {protocol!r} differs from the file's protocol = {held!r}; allowed: the "
                             "same protocol, or none on one side")
        data["protocol"] = protocol
    try:
        return parse_experiment(data, base_dir=path.parent)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


#: How `plates run`'s quick flags name the experiment's fields (`parse_experiment`'s ``said``).
QUICK_FLAGS: Mapping[str, str] = MappingProxyType({"dataset.source": "--dataset", "prompts": "--prompt"})


def quick_experiment(*, dataset: str, prompt: str, backend: str, model: str, out: str,
                     base_url: str | None = None, api_key_env: str | None = "OPENAI_API_KEY",
                     limit: int | None = None, concurrency: int | None = None,
                     size: int | tuple[int, ...] | None = None,
                     shots: int = 0, seed: int = 0, timeout: float | None = None,
                     max_attempts: int | None = None, prompt_files: tuple[str, ...] = (),
                     protocol: str | None = None, sample: int | None = None,
                     sample_seed: int | None = None, sampling_fields: str | None = None,
                     grayscale: tuple[bool, ...] = (), hue_shifts: tuple[float, ...] = (),
                     cvd: tuple[str, ...] = (), view: str | None = None) -> Experiment:
    """The experiment of ``plates run --dataset ... --prompt ... --backend ... --model ...`` (one model, one
    prompt). ``sampling_fields``: the openai backend's (plates.models.decoding). ``size`` (one or several px),
    ``grayscale`` (e.g. ``(False, True)``: ColorBench §3.2's pair), ``hue_shifts`` (degrees, ColorBench §2.2)
    and ``cvd`` (views at full severity) fill ``[conditions]`` as a TOML file would, crossed; empty means the
    dataset's own image.

    Parameters
    ----------
    dataset : str
        A preset's name or a set's folder / URL (``--dataset``).
    prompt : str
        A prompt name (``--prompt``).
    backend : str
        A backend kind (``--backend``).
    model : str
        The model (``--model``).
    out : str
        The results folder or URL (``--out``).
    base_url : str or None, optional
        The server (``--base-url``).
    api_key_env : str or None, optional
        The key's environment variable (openai); None or empty: no key.
    limit : int or None, optional
        The first N items.
    concurrency : int or None, optional
        Requests in flight or batch size.
    size : int or tuple of int or None, optional
        The side(s) in px the model receives.
    shots : int, optional
        Few-shot examples.
    seed : int, optional
        The experiment's seed.
    timeout : float or None, optional
        Seconds per attempt.
    max_attempts : int or None, optional
        Attempts per request.
    prompt_files : tuple of str, optional
        TOML files of the user's own prompts.
    protocol : str or None, optional
        A paper protocol's name.
    sample : int or None, optional
        A seeded random subset of this many plates.
    sample_seed : int or None, optional
        Its seed.
    sampling_fields : str or None, optional
        The openai backend's (`plates.models.decoding`).
    grayscale : tuple of bool, optional
        Grey conditions (``(False, True)``: ColorBench §3.2's pair).
    hue_shifts : tuple of float, optional
        Hue rotations, degrees (ColorBench §2.2).
    cvd : tuple of str, optional
        Colour-vision-deficiency views at full severity.
    view : str or None, optional
        A view family the rows record.

    Returns
    -------
    Experiment
        The validated experiment.

    Raises
    ------
    ValueError
        For ``sampling_fields`` with a backend other than openai, or any field `parse_experiment` refuses (named
        by its flag).
    """
    m: dict[str, Any] = {"backend": backend, "model": model}
    if view is not None:
        m["view"] = view
    if base_url is not None:
        m["base_url"] = base_url
    if sampling_fields is not None:
        if backend != "openai":
            raise ValueError(f"sampling_fields applies to the openai backend only, not {backend!r}; allowed: "
                             "--backend openai")
        m["sampling_fields"] = sampling_fields
    if backend == "openai":
        m["api_key_env"] = api_key_env if api_key_env else False
    if concurrency is not None:
        m["concurrency"] = concurrency
    if timeout is not None:
        m["timeout"] = timeout
    if max_attempts is not None:
        m["max_attempts"] = max_attempts
    data: dict[str, Any] = {"dataset": {"source": dataset}, "models": [m], "prompts": [prompt], "shots": [shots],
                            "seed": seed, "out": out}
    if prompt_files:
        data["prompt_files"] = list(prompt_files)
    if protocol is not None:
        data["protocol"] = protocol
    if limit is not None:
        data["dataset"]["limit"] = limit
    if sample is not None:
        data["dataset"]["sample"] = sample
    if sample_seed is not None:
        data["dataset"]["sample_seed"] = sample_seed
    conditions: dict[str, list] = {}
    if size is not None:
        conditions["sizes"] = list(size) if isinstance(size, tuple | list) else [size]
    for key, values in (("grayscale", grayscale), ("hue_shifts", hue_shifts), ("cvd", cvd)):
        if values:
            conditions[key] = list(values)
    if conditions:
        data["conditions"] = conditions
    return parse_experiment(data, said=QUICK_FLAGS)
