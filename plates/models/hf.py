"""Local Hugging Face vision-language models through transformers.

Any image-text-to-text model: ``AutoModelForImageTextToText`` + ``AutoProcessor`` + the processor's chat
template (SmolVLM, Qwen2-VL/2.5-VL, LLaVA, Idefics3, Gemma 3, ...), from the hub or a local folder, and
PaliGemma and Florence-2 through their own prompt formats. Placement (one device, or an accelerate device map
over several GPUs, CPU and disk), the dtype default, remote code and prompt formats: plates.models.hf_loading.
Queries are answered in batches with left padding, greedily unless a query asks for a temperature; only the
new tokens are decoded. Images are PIL RGB (sRGB 0-255); the processor resizes
and normalises them as the model expects. In float32 a batched greedy answer equals the one-at-a-time answer;
in bfloat16 (the GPU default) padding changes the rounding, and a greedy reply near a tie can change with the
batch it was asked in (seen on an H200 with a tiny random model): for answers that must not depend on the
batch, use ``dtype="float32"`` or ``batch_size=1``. Every row records the dtype.

Decoding is stated, never inherited (plates.models.decoding): the loaded model's generation config is
replaced by one holding only its special-token ids, and every call passes the full settings of
:func:`plates.models.decoding.hf_settings`. Each reply carries those settings, the model file's values they
override, the prompt format and the dtype (``Reply.settings``), and the commit hash of the loaded snapshot
where the hub gave one (``Reply.revision``).

A batch that raises is retried one query at a time, so one bad query costs one error reply, not a batch.
When every query keeps failing the same way, :class:`BackendFailing` stops the run (as for the API backend).
"""

from __future__ import annotations

import importlib.util
import inspect
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from plates.install import extra_hint
from plates.models.base import Backend, BackendFailing, Query, Reply
from plates.models.decoding import NOT_DECODING, TOKEN_SETTINGS, hf_settings, json_value
from plates.models.hf_loading import (
    DEVICES,
    DTYPES,
    REMOTE_CODE_CLASSES,
    declined,
    format_prompt,
    model_types,
    plan_placement,
    prompt_format_for,
)
from plates.validation import check_int

__all__ = ["DEVICES", "DTYPES", "HFBackend", "to_conversation"]
_EXTRA = extra_hint("hf")


def _import_torch_transformers() -> tuple[Any, Any]:
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise ImportError(f"the hf backend needs torch and transformers ({exc.name} is missing): {_EXTRA}") from exc
    return torch, transformers


def snapshot_commit(model: str, revision: str | None, config: Any) -> str | None:
    """The commit of the hub snapshot ``model`` was loaded from, or None for a local folder.

    transformers 4 kept it on the config (``_commit_hash``); transformers 5 does not, so it is read from the
    hub cache's layout (``models--org--name/snapshots/<commit>/config.json``), which every hub load fills.

    Parameters
    ----------
    model : str
        The hub id or local folder.
    revision : str or None
        The revision asked for.
    config : transformers.PretrainedConfig
        The loaded config.

    Returns
    -------
    str or None
        A 40-hex commit, or None.
    """
    commit = getattr(config, "_commit_hash", None)
    if commit or Path(model).expanduser().is_dir():
        return commit or None
    from huggingface_hub import try_to_load_from_cache  # transformers' own dependency

    found = try_to_load_from_cache(model, "config.json", revision=revision)
    if not isinstance(found, str) or Path(found).parent.parent.name != "snapshots":
        return None
    return Path(found).parent.name


def to_conversation(query: Query) -> list[dict[str, Any]]:
    """A Query as the chat-template message list transformers processors take (images before the text).

    Parameters
    ----------
    query : Query
        The question (its turns, images and sampling).

    Returns
    -------
    list of dict
        Chat messages.
    """
    messages = []
    for turn in query.turns:
        content: list[dict[str, Any]] = [{"type": "image", "image": image.convert("RGB")} for image in turn.images]
        content.append({"type": "text", "text": turn.text})
        messages.append({"role": turn.role, "content": content})
    return messages


class HFBackend(Backend):
    """A transformers image-text-to-text model, loaded once per backend instance.

    Parameters
    ----------
    model_id_or_path : str
        A hub id such as "HuggingFaceTB/SmolVLM-256M-Instruct", or a local folder.
    device : str, optional
        "auto", "cuda", "cuda:N", "mps" or "cpu".
    dtype : str, optional
        "auto", "bfloat16", "float16" or "float32" ("auto" as `plates.models.hf_loading.auto_dtype` says).
    batch_size : int, optional
        Queries per generate call (>= 1).
    revision : str or None, optional
        The hub revision.
    device_map : str or dict or None, optional
        accelerate's ("auto", "balanced", "sequential", a device, or a dict per module: several GPUs, CPU and
        disk offload); instead of ``device``.
    trust_remote_code : bool, optional
        Run the repository's own code: an explicit opt-in, off by default.
    processor_kwargs, model_kwargs : dict, optional
        Passed to ``from_pretrained`` (e.g. Qwen2-VL's ``max_pixels``, or ``max_memory`` / ``offload_folder``
        with a device map).
    fail_after : int, optional
        Queries failing the same way in a row before `BackendFailing` (0 disables).
    model : str, optional
        Another name for ``model_id_or_path``.

    Raises
    ------
    ValueError
        For the model named twice differently or not at all, a ``batch_size`` or ``fail_after`` out of range,
        a non-bool ``trust_remote_code``, or a placement `plates.models.hf_loading.plan_placement` refuses.
    """

    kind = "hf"

    def __init__(
        self,
        model_id_or_path: str | None = None,
        device: str = "auto",
        dtype: str = "auto",
        batch_size: int = 8,
        *,
        revision: str | None = None,
        device_map: str | dict[str, Any] | None = None,
        trust_remote_code: bool = False,
        processor_kwargs: dict[str, Any] | None = None,
        model_kwargs: dict[str, Any] | None = None,
        fail_after: int = 10,
        model: str | None = None,
    ) -> None:
        if model is not None:  # `model=` as every backend takes it (the runner passes model=...)
            if model_id_or_path is not None and model_id_or_path != model:
                raise ValueError(f"give the model once: model_id_or_path={model_id_or_path!r} and model={model!r}")
            model_id_or_path = model
        if not isinstance(model_id_or_path, str) or not model_id_or_path.strip():
            raise ValueError(f"model_id_or_path must be a hub id or a folder, got {model_id_or_path!r}")
        for name, value, low in (("batch_size", batch_size, 1), ("fail_after", fail_after, 0)):
            check_int(name, value, low)
        if not isinstance(trust_remote_code, bool):
            raise ValueError(f"trust_remote_code must be True or False, got {trust_remote_code!r}")
        torch, transformers = _import_torch_transformers()
        self.model = str(model_id_or_path)
        self.batch_size, self.fail_after = batch_size, fail_after
        common = {"revision": revision, "trust_remote_code": trust_remote_code}
        config = self._config(transformers, common)
        mps = getattr(torch.backends, "mps", None)
        cuda = torch.cuda.is_available()
        self.placement = plan_placement(device, device_map, dtype, model_types(config), cuda=cuda,
                                        bf16=cuda and torch.cuda.is_bf16_supported(),
                                        mps=mps is not None and mps.is_available())
        self.dtype = getattr(torch, self.placement.dtype)
        try:
            self.processor = transformers.AutoProcessor.from_pretrained(self.model, **common,
                                                                        **(processor_kwargs or {}))
        except OSError as exc:  # no processor files
            raise ValueError(f"hf model {self.model!r}: its processor cannot be loaded ({exc}); allowed: a model "
                             "folder or hub id with processor files") from exc
        self.tokenizer = getattr(self.processor, "tokenizer", None)
        if self.tokenizer is None:
            raise ValueError(f"{self.model}: its processor ({type(self.processor).__name__}, family "
                             f"{getattr(config, 'model_type', None) or 'unknown'}) has no tokenizer; allowed: a "
                             "model with an image-text-to-text processor (a model driven only through its own "
                             "Python API, such as moondream2's query(), is not supported)")
        self.prompt_format = prompt_format_for(self.model, getattr(config, "model_type", ""),
                                               getattr(self.processor, "chat_template", None))
        self.tokenizer.padding_side = "left"  # generation continues from the right end of every row
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        dtype_key = "dtype" if int(transformers.__version__.split(".")[0]) >= 5 else "torch_dtype"
        placing = {} if device_map is None else {"device_map": device_map}
        if placing and importlib.util.find_spec("accelerate") is None:
            raise ImportError(f"device_map needs the package 'accelerate': {_EXTRA}")
        self.network = self._model_class(transformers, config, trust_remote_code).from_pretrained(
            self.model, **common, **{dtype_key: self.dtype}, **placing, **(model_kwargs or {}))
        if device_map is None:  # a device map placed the weights already: moving them would undo it
            self.network.to(self.placement.device)
        self.network.eval()
        self.device = str(self.network.device)  # where inputs go: the one device, or the map's first layers
        self.encoder_decoder = bool(getattr(self.network.config, "is_encoder_decoder", False))
        self.revision = snapshot_commit(self.model, revision, config)
        self._take_over_generation_config(transformers)
        parameters = inspect.signature(self.processor.apply_chat_template).parameters
        self._kwargs_dict = "processor_kwargs" in parameters  # transformers >= 5 wants processor kwargs apart

    def __repr__(self) -> str:
        where = (f"device_map={self.placement.device_map!r}" if self.placement.device_map is not None
                 else f"device={self.device!r}")
        return f"HFBackend(model={self.model!r}, {where}, dtype={str(self.dtype)!r})"

    def _config(self, transformers: Any, common: dict[str, Any]) -> Any:
        """The model's config (its family, its auto_map); ValueError when it cannot be read or needs remote code
        that was not allowed."""
        try:
            return transformers.AutoConfig.from_pretrained(self.model, **common)
        except OSError as exc:  # no such folder, not a hub id, not cached while offline, ...
            raise ValueError(f"hf model {self.model!r} cannot be loaded ({exc}); allowed: a local folder with the "
                             "model's config and processor files, or a hub id (cached, or reachable)") from exc
        except ValueError as exc:
            if "trust_remote_code" in str(exc) and not common["trust_remote_code"]:
                raise ValueError(f"hf model {self.model!r} ships its own Python code, which runs only with "
                                 "trust_remote_code=True (`plates run --trust-remote-code`): allow it only for "
                                 "a repository you trust; never offered in the explorer's public mode") from exc
            raise

    def _model_class(self, transformers: Any, config: Any, trust_remote_code: bool) -> Any:
        """AutoModelForImageTextToText; with remote code allowed, the auto class the repository registers for
        image-text-to-text, vision-to-text or causal LM (in that order). Without it, a repository's code is
        ignored and transformers' own class for the family is used (as transformers itself does)."""
        auto_map = (getattr(config, "auto_map", None) or {}) if trust_remote_code else {}
        for name in REMOTE_CODE_CLASSES if auto_map else ():
            if name in auto_map:
                return getattr(transformers, name)
        if auto_map:
            raise ValueError(f"hf model {self.model!r}: its code registers none of {', '.join(REMOTE_CODE_CLASSES)} "
                             f"(only {', '.join(sorted(auto_map))}); allowed: an image-text-to-text model")
        return transformers.AutoModelForImageTextToText

    def _take_over_generation_config(self, transformers: Any) -> None:
        """Replace the model's generation config by one holding only its special-token ids (see the module doc);
        remember which of the file's other settings this overrides (they go into every reply's settings)."""
        loaded = self.network.generation_config
        tokens = {k: json_value(getattr(loaded, k, None)) for k in TOKEN_SETTINGS}
        stop = tokens["eos_token_id"]
        stop = set(stop if isinstance(stop, list) else [stop] if stop is not None else [])
        if self.tokenizer.eos_token_id is not None:
            stop.add(self.tokenizer.eos_token_id)
        tokens["eos_token_id"] = sorted(stop) or None
        if tokens["pad_token_id"] is None:
            tokens["pad_token_id"] = self.tokenizer.pad_token_id
        self._tokens = {k: v for k, v in tokens.items() if v is not None}
        clean = transformers.GenerationConfig(**self._tokens)
        # what the file set beyond the token ids and transformers' own defaults: overridden by every call
        self.overridden = {k: json_value(v) for k, v in sorted(loaded.to_diff_dict().items())
                           if k not in TOKEN_SETTINGS and k not in NOT_DECODING and not k.startswith("_")}
        self.network.generation_config = clean

    def settings_for(self, query: Query) -> dict[str, Any]:
        """Every setting that decides ``query``'s answer here (stored per row as ``generation_json``).

        Parameters
        ----------
        query : Query
            The question (its turns, images and sampling).

        Returns
        -------
        dict
            The generation settings.
        """
        settings = {**hf_settings(query.temperature, query.max_tokens), **self._tokens,
                    "prompt_format": self.prompt_format, "dtype": self.placement.dtype,
                    "model_file_overridden": self.overridden}
        if settings["do_sample"]:
            settings["seed"] = None  # sampling draws from torch's global generator, unseeded: not reproducible
        if self.prompt_format != "chat-template":
            settings["prompt_sent"] = format_prompt(self.prompt_format, query)
        if self.prompt_format == "florence2":
            settings["answer_format"] = query.answer_format
        return settings

    def close(self) -> None:
        """Drop the weights (and free GPU memory)."""
        if getattr(self, "network", None) is not None:
            self.network = None
            torch, _ = _import_torch_transformers()
            if torch.cuda.is_available():
                torch.cuda.empty_cache()

    # ---- answering -----------------------------------------------------------------------------------------
    def ask(self, queries: Sequence[Query]) -> Iterator[tuple[int, Reply]]:
        """Yield ``(index, Reply)`` batch by batch (in order); raises :class:`BackendFailing` (see module doc).

        Queries are grouped by temperature (greedy ones together) into batches of ``batch_size``. A query the
        model's prompt format cannot carry is declined (``unsupported``, the reason in ``error``; see
        plates.models.hf_loading.declined).
        ``latency_s`` is the wall-clock time of the generate call that produced the reply.

        Parameters
        ----------
        queries : sequence of Query
            The questions.

        Yields
        ------
        (int, Reply)
            Index into ``queries`` and its reply, in order.
        """
        queries = list(queries)
        for i, query in enumerate(queries):
            if not isinstance(query, Query):
                raise ValueError(f"queries[{i}] must be a Query, got {type(query).__name__}")
        if self.network is None:
            raise ValueError(f"{self!r} is closed; make a new backend")
        groups: dict[float, list[int]] = {}
        for i, query in enumerate(queries):
            reason = declined(self.prompt_format, query)  # a prompt-format family cannot ask this question
            if reason is not None:
                yield i, Reply(None, error=reason, unsupported=True)
                continue
            groups.setdefault(float(query.temperature), []).append(i)
        streak: list[tuple[int, Reply]] = []
        signature: str | None = None
        for indices in groups.values():
            for start in range(0, len(indices), self.batch_size):
                batch = indices[start:start + self.batch_size]
                for index, reply, failure in self._answer(batch, [queries[i] for i in batch]):
                    if failure is None or self.fail_after == 0:
                        yield from streak
                        streak, signature = [], None
                        yield index, reply
                        continue
                    if failure != signature:
                        yield from streak
                        streak, signature = [], failure
                    streak.append((index, reply))
                    if len(streak) >= self.fail_after:
                        raise BackendFailing(f"stopping: the last {len(streak)} queries to {self.model} all failed "
                                             f"the same way: {reply.error}")
        yield from streak

    def _answer(self, indices: list[int], batch: list[Query]) -> list[tuple[int, Reply, str | None]]:
        """Replies for one batch; on an exception, each query alone (an error reply for those that still fail)."""
        try:
            return [(i, reply, None) for i, reply in zip(indices, self.generate(batch), strict=True)]
        except Exception as exc:  # noqa: BLE001 - isolated below, then reported per query
            if len(batch) == 1:
                message = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
                return [(indices[0], Reply(None, error=message), type(exc).__name__)]
        out = []
        for i, query in zip(indices, batch, strict=True):
            out += self._answer([i], [query])
        return out

    def generate(self, batch: Sequence[Query]) -> list[Reply]:
        """One left-padded generate call for queries that share a temperature; replies in batch order.

        Parameters
        ----------
        batch : sequence of Query
            Queries of one temperature.

        Returns
        -------
        list of Reply
            In batch order.
        """
        torch, transformers = _import_torch_transformers()
        inputs = self._inputs(batch).to(self.device)
        for key, value in inputs.items():  # images in the model's dtype; token ids stay integers
            if torch.is_floating_point(value):
                inputs[key] = value.to(self.dtype)
        max_new = max(q.max_tokens for q in batch)
        config = transformers.GenerationConfig(**hf_settings(batch[0].temperature, max_new), **self._tokens)
        started = time.monotonic()
        with torch.inference_mode():
            output = self.network.generate(**inputs, generation_config=config)
        latency = time.monotonic() - started
        # a decoder-only model returns prompt + answer; an encoder-decoder (Florence-2) the decoder start + answer
        skip = 1 if self.encoder_decoder else inputs["input_ids"].shape[1]
        new_tokens = output[:, skip:].tolist()
        prompt_tokens = inputs["attention_mask"].sum(dim=1).tolist()
        replies = []
        for query, tokens, n_prompt in zip(batch, new_tokens, prompt_tokens, strict=True):
            tokens = _until_stop(tokens[: query.max_tokens], self._stop_ids())
            text = self.processor.decode(tokens, skip_special_tokens=True).strip()
            if self.prompt_format == "florence2" and query.answer_format is not None:
                text = query.answer_format.format(answer=text)  # <OCR> reads; the question's format is ours
            replies.append(Reply(text, latency_s=latency, prompt_tokens=int(n_prompt), completion_tokens=len(tokens),
                                 settings=self.settings_for(query), revision=self.revision))
        return replies

    def _inputs(self, batch: Sequence[Query]) -> Any:
        """The processor's batch (token ids, attention mask, pixels) for ``batch``, left padded."""
        if self.prompt_format == "chat-template":
            padding = {"padding": True}
            options = {"processor_kwargs": padding} if self._kwargs_dict else padding
            return self.processor.apply_chat_template(
                [to_conversation(q) for q in batch], add_generation_prompt=True, tokenize=True, return_dict=True,
                return_tensors="pt", **options)
        inputs = self.processor(text=[format_prompt(self.prompt_format, q) for q in batch],
                                images=[q.images[0].convert("RGB") for q in batch], padding=True, return_tensors="pt")
        inputs.pop("labels", None)  # PaliGemma's processor adds training labels; generation needs none
        return inputs

    def _stop_ids(self) -> set[int]:
        ids = set(self._tokens.get("eos_token_id") or ())
        if self.tokenizer.pad_token_id is not None:
            ids.add(self.tokenizer.pad_token_id)
        return ids


def _until_stop(tokens: list[int], stop_ids: set[int]) -> list[int]:
    """The generated tokens up to (not including) the first stop token (eos or the padding after it)."""
    for position, token in enumerate(tokens):
        if token in stop_ids:
            return tokens[:position]
    return tokens
