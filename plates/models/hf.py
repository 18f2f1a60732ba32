"""Local Hugging Face vision-language models through transformers.

Any image-text-to-text model: ``AutoModelForImageTextToText`` + ``AutoProcessor`` + the processor's chat
template (SmolVLM, Qwen2-VL/2.5-VL, LLaVA, Idefics3, Gemma 3, ...), from the hub or a local folder. Device
chosen automatically (cuda > mps > cpu) and dtype too (bfloat16 on GPUs that support it, else float16 on
cuda/mps, float32 on cpu). Queries are answered in batches with left padding, greedily unless a query asks
for a temperature; only the new tokens are decoded. Images are PIL RGB (sRGB 0-255); the processor resizes
and normalises them as the model expects.

A batch that raises is retried one query at a time, so one bad query costs one error reply, not a batch.
When every query keeps failing the same way, :class:`BackendFailing` stops the run (as for the API backend).
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Iterator, Sequence
from typing import Any

from plates.install import extra_hint
from plates.models.base import Backend, BackendFailing, Query, Reply

DEVICES = ("auto", "cuda", "mps", "cpu")
DTYPES = ("auto", "bfloat16", "float16", "float32")
_EXTRA = extra_hint("hf")


def _import_torch_transformers() -> tuple[Any, Any]:
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise ImportError(f"the hf backend needs torch and transformers ({exc.name} is missing): {_EXTRA}") from exc
    return torch, transformers


def resolve_device(device: str) -> str:
    """"auto" -> "cuda" if available, else "mps" if available, else "cpu"; other values checked and returned.

    A device may carry an index ("cuda:1").
    """
    torch, _ = _import_torch_transformers()
    base = device.split(":", 1)[0] if isinstance(device, str) else device
    if base not in DEVICES:
        raise ValueError(f"device {device!r} is not allowed; allowed: {', '.join(DEVICES)} (optionally 'cuda:N')")
    if device == "auto":
        if torch.cuda.is_available():
            return "cuda"
        mps = getattr(torch.backends, "mps", None)
        return "mps" if mps is not None and mps.is_available() else "cpu"
    if base == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {device!r} was asked for but torch sees no CUDA GPU; use device='auto' or 'cpu'")
    return device


def resolve_dtype(dtype: str, device: str) -> Any:
    """"auto" -> bfloat16 on a GPU that supports it, float16 on other cuda/mps, float32 on cpu."""
    torch, _ = _import_torch_transformers()
    if dtype not in DTYPES:
        raise ValueError(f"dtype {dtype!r} is not allowed; allowed: {', '.join(DTYPES)}")
    if dtype != "auto":
        return getattr(torch, dtype)
    if device.startswith("cuda"):
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    if device == "mps":
        return torch.float16
    return torch.float32


def to_conversation(query: Query) -> list[dict[str, Any]]:
    """A Query as the chat-template message list transformers processors take (images before the text)."""
    messages = []
    for turn in query.turns:
        content: list[dict[str, Any]] = [{"type": "image", "image": image.convert("RGB")} for image in turn.images]
        content.append({"type": "text", "text": turn.text})
        messages.append({"role": turn.role, "content": content})
    return messages


class HFBackend(Backend):
    """A transformers image-text-to-text model, loaded once per backend instance.

    Options: ``model_id_or_path`` (hub id such as "HuggingFaceTB/SmolVLM-256M-Instruct" or a local folder),
    ``device`` ("auto", "cuda", "cuda:N", "mps", "cpu"), ``dtype`` ("auto", "bfloat16", "float16",
    "float32"), ``batch_size`` (queries per generate call), ``revision``, ``trust_remote_code``,
    ``processor_kwargs`` / ``model_kwargs`` (passed to ``from_pretrained``, e.g. Qwen2-VL's ``max_pixels``),
    ``fail_after`` (queries failing the same way in a row before :class:`BackendFailing`; 0 disables).
    ``model=`` is accepted as another name for ``model_id_or_path``.
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
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
        torch, transformers = _import_torch_transformers()
        self.model = str(model_id_or_path)
        self.device = resolve_device(device)
        self.dtype = resolve_dtype(dtype, self.device)
        self.batch_size, self.fail_after = batch_size, fail_after
        common = {"revision": revision, "trust_remote_code": trust_remote_code}
        try:
            self.processor = transformers.AutoProcessor.from_pretrained(self.model, **common,
                                                                        **(processor_kwargs or {}))
        except OSError as exc:  # no such folder, not a hub id, not cached while offline, ...
            raise ValueError(f"hf model {self.model!r} cannot be loaded ({exc}); allowed: a local folder with the "
                             "model's config and processor files, or a hub id (cached, or reachable)") from exc
        self.tokenizer = getattr(self.processor, "tokenizer", None)
        if self.tokenizer is None:
            raise ValueError(f"{self.model}: its processor ({type(self.processor).__name__}) has no tokenizer; "
                             "the hf backend needs an image-text-to-text processor")
        if not getattr(self.processor, "chat_template", None):
            raise ValueError(f"{self.model}: its processor has no chat template, so its prompt format is unknown; "
                             "use an instruction-tuned (chat) model, or save a processor with a chat_template")
        self.tokenizer.padding_side = "left"  # generation continues from the right end of every row
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        dtype_key = "dtype" if int(transformers.__version__.split(".")[0]) >= 5 else "torch_dtype"
        self.network = transformers.AutoModelForImageTextToText.from_pretrained(
            self.model, **common, **{dtype_key: self.dtype}, **(model_kwargs or {}))
        self.network.to(self.device).eval()
        parameters = inspect.signature(self.processor.apply_chat_template).parameters
        self._kwargs_dict = "processor_kwargs" in parameters  # transformers >= 5 wants processor kwargs apart

    def __repr__(self) -> str:
        return f"HFBackend(model={self.model!r}, device={self.device!r}, dtype={str(self.dtype)!r})"

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

        Queries are grouped by temperature (greedy ones together) into batches of ``batch_size``.
        ``latency_s`` is the wall-clock time of the generate call that produced the reply.
        """
        queries = list(queries)
        for i, query in enumerate(queries):
            if not isinstance(query, Query):
                raise ValueError(f"queries[{i}] must be a Query, got {type(query).__name__}")
        if self.network is None:
            raise ValueError(f"{self!r} is closed; make a new backend")
        groups: dict[float, list[int]] = {}
        for i, query in enumerate(queries):
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
        """One left-padded generate call for queries that share a temperature; replies in batch order."""
        torch, _ = _import_torch_transformers()
        conversations = [to_conversation(q) for q in batch]
        padding = {"padding": True}
        options = {"processor_kwargs": padding} if self._kwargs_dict else padding
        inputs = self.processor.apply_chat_template(
            conversations, add_generation_prompt=True, tokenize=True, return_dict=True, return_tensors="pt",
            **options)
        inputs = inputs.to(self.device)
        for key, value in inputs.items():  # images in the model's dtype; token ids stay integers
            if torch.is_floating_point(value):
                inputs[key] = value.to(self.dtype)
        temperature = float(batch[0].temperature)
        sampling = {"do_sample": True, "temperature": temperature} if temperature > 0 else {"do_sample": False}
        max_new = max(q.max_tokens for q in batch)
        started = time.monotonic()
        with torch.inference_mode():
            output = self.network.generate(**inputs, max_new_tokens=max_new, pad_token_id=self.tokenizer.pad_token_id,
                                           **sampling)
        latency = time.monotonic() - started
        prompt_length = inputs["input_ids"].shape[1]
        new_tokens = output[:, prompt_length:].tolist()
        prompt_tokens = inputs["attention_mask"].sum(dim=1).tolist()
        replies = []
        for query, tokens, n_prompt in zip(batch, new_tokens, prompt_tokens, strict=True):
            tokens = _until_stop(tokens[: query.max_tokens], self._stop_ids())
            text = self.processor.decode(tokens, skip_special_tokens=True).strip()
            replies.append(Reply(text, latency_s=latency, prompt_tokens=int(n_prompt), completion_tokens=len(tokens)))
        return replies

    def _stop_ids(self) -> set[int]:
        ids = self.network.generation_config.eos_token_id
        ids = set(ids if isinstance(ids, list) else [ids] if ids is not None else [])
        if self.tokenizer.eos_token_id is not None:
            ids.add(self.tokenizer.eos_token_id)
        if self.tokenizer.pad_token_id is not None:
            ids.add(self.tokenizer.pad_token_id)
        return ids


def _until_stop(tokens: list[int], stop_ids: set[int]) -> list[int]:
    """The generated tokens up to (not including) the first stop token (eos or the padding after it)."""
    for position, token in enumerate(tokens):
        if token in stop_ids:
            return tokens[:position]
    return tokens
