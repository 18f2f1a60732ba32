"""How a local transformers model is loaded and prompted: placement, dtype, remote code, prompt formats.

Placement. ``device`` puts the whole model on one device ("auto": cuda > mps > cpu). ``device_map`` hands
placement to accelerate instead, as ``from_pretrained(device_map=...)`` takes it: "auto" / "balanced" /
"balanced_low_0" / "sequential" spread the layers over every visible GPU, then CPU memory, then disk
(``model_kwargs={"max_memory": {...}, "offload_folder": ...}`` bound each); a dict names a device (or "cpu",
"disk") per module. A model placed by a device map is never moved afterwards (``.to(device)`` would undo the
map and fail on offloaded weights); its inputs go to the device of its first layers.

dtype "auto" (:func:`auto_dtype`): bfloat16 on a CUDA GPU that has it; float32 on CPU (bfloat16 matmuls are
slow there and float16 ones unsupported); float16 on Apple MPS and on CUDA GPUs without bfloat16, except for
the families in :data:`FP16_UNSAFE`, which get float32 there. Gemma 2 and Gemma 3 (and PaliGemma 2, Gemma 3n,
built on them) are trained in bfloat16 and their activations exceed float16's range (65504): in float16 they
produce inf/NaN and empty or garbage replies, so "auto" never picks float16 for them. An explicit
``dtype="float16"`` is honoured.

Remote code. ``trust_remote_code=True`` runs Python files from the model's repository on this machine
(moondream2, Phi-3.5-vision, MiniCPM-V need it). It is never on by default, the explorer refuses it in public
mode, and a model that needs it fails with a ValueError saying so. With it, the model class is the one the
repository registers (its config's ``auto_map``) for image-text-to-text, vision-to-text or causal LM.

Prompt formats (:data:`PROMPT_FORMATS`). A processor with a chat template gets the conversation through it.
Two families without one have a documented format instead: PaliGemma, the task prefix ``answer en
{question}`` after the image tokens (PaliGemma, Beyer et al. 2024: every task is a text prefix, "answer en"
the question-answering one; section numbers not checked here), and Florence-2, a task token (Florence-2, Xiao
et al. 2024: one prompt per task, no free-form question); plates asks its ``<OCR>`` task, which reads the text
of a plate, so a Florence-2 model answers plate-reading questions only and declines every other kind. Both answer one image and
one question (no few-shot turns). Any other model without a chat template is refused, naming its family.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from plates.models.base import Query
from plates.validation import is_number

DEVICES = ("auto", "cuda", "mps", "cpu")
DTYPES = ("auto", "bfloat16", "float16", "float32")
#: accelerate's named strategies for ``device_map`` (a single device or a dict per module is also allowed)
DEVICE_MAPS = ("auto", "balanced", "balanced_low_0", "sequential")
#: model types (config.model_type, or its text model's) that overflow in float16: "auto" gives them float32
#: where bfloat16 is missing (see the module doc)
FP16_UNSAFE = frozenset({"gemma2", "gemma3", "gemma3_text", "gemma3n", "gemma3n_text", "paligemma"})
#: how a question reaches the model: its chat template, or a family's documented format (see the module doc)
PROMPT_FORMATS = ("chat-template", "paligemma", "florence2")
#: family (config.model_type) -> its prompt format, for processors without a chat template
FAMILY_FORMATS: Mapping[str, str] = {"paligemma": "paligemma", "florence2": "florence2"}
#: the auto classes a remote-code repository may register, in the order they are looked for
REMOTE_CODE_CLASSES = ("AutoModelForImageTextToText", "AutoModelForVision2Seq", "AutoModelForCausalLM")


@dataclass(frozen=True)
class Placement:
    """Where the weights go: ``device_map`` for accelerate (None: one device), else ``device``; ``dtype`` by
    name ("bfloat16" | "float16" | "float32"); ``compute`` the kind of device that computes ("cuda" | "mps" |
    "cpu"), which chose the dtype.

    Attributes
    ----------
    device : str or None
        One device, or None with a device map.
    device_map : str or dict or None
        accelerate's device map.
    dtype : str
        "bfloat16", "float16" or "float32".
    compute : str
        "cuda", "mps" or "cpu".
    """

    device: str | None
    device_map: str | dict[str, Any] | None
    dtype: str
    compute: str


def _check_device(device: str) -> str:
    base = device.split(":", 1)[0] if isinstance(device, str) else device
    if base not in DEVICES or (":" in str(device) and base != "cuda"):
        raise ValueError(f"device {device!r} is not allowed; allowed: {', '.join(DEVICES)} (optionally 'cuda:N')")
    return base


def _check_device_map(device_map: Any) -> None:
    if isinstance(device_map, str):
        if device_map in DEVICE_MAPS or device_map in ("cpu", "mps", "disk"):
            return
        if device_map.startswith("cuda") and _check_device(device_map) == "cuda":
            return
    elif isinstance(device_map, dict) and device_map and all(isinstance(k, str) for k in device_map):
        if all(is_number(v, integer=True) or isinstance(v, str) for v in device_map.values()):
            return
    raise ValueError(f"device_map {device_map!r} is not allowed; allowed: {', '.join(DEVICE_MAPS)}, a device "
                     "('cpu', 'cuda:N'), or a dict from module name to a device, a GPU index, 'cpu' or 'disk'")


def auto_dtype(compute: str, *, bf16: bool, model_types: frozenset[str] | set[str] = frozenset()) -> str:
    """The dtype "auto" picks for a model of ``model_types`` computing on ``compute`` (see the module doc).

    Parameters
    ----------
    compute : str
        "cuda", "mps" or "cpu".
    bf16 : bool
        Whether the device supports bfloat16.
    model_types : set of str, optional
        The model's types (`model_types`).

    Returns
    -------
    str
        A dtype name.

    Examples
    --------
    >>> auto_dtype("cuda", bf16=True), auto_dtype("cpu", bf16=False), auto_dtype("mps", bf16=False)
    ('bfloat16', 'float32', 'float16')
    >>> auto_dtype("cuda", bf16=False, model_types={"gemma3"})
    'float32'
    """
    if compute == "cpu":
        return "float32"
    if compute == "cuda" and bf16:
        return "bfloat16"
    return "float32" if set(model_types) & FP16_UNSAFE else "float16"


def plan_placement(device: str = "auto", device_map: str | dict[str, Any] | None = None, dtype: str = "auto",
                   model_types: frozenset[str] | set[str] = frozenset(), *, cuda: bool, bf16: bool,
                   mps: bool) -> Placement:
    """Where and in which dtype to load, from the options and what the machine has (``cuda``: torch sees a
    CUDA GPU; ``bf16``: it supports bfloat16; ``mps``: Apple's GPU is usable). Pure, so it is tested on CPU.

    Raises ValueError for an unknown device, device map or dtype, for ``device`` and ``device_map`` both
    given, and for a CUDA device asked of a machine without one.

    Parameters
    ----------
    device : str, optional
        "auto", "cuda", "cuda:N", "mps" or "cpu".
    device_map : str or dict, optional
        accelerate's device map.
    dtype : str, optional
        "auto" or a dtype name.
    model_types : set of str, optional
        The model's types.
    cuda, bf16, mps : bool
        What the machine has.

    Returns
    -------
    Placement
        Where and in which dtype.
    """
    base = _check_device(device)
    if dtype not in DTYPES:
        raise ValueError(f"dtype {dtype!r} is not allowed; allowed: {', '.join(DTYPES)}")
    if device_map is not None:
        _check_device_map(device_map)
        if device != "auto":
            raise ValueError(f"give device ({device!r}) or device_map ({device_map!r}), not both; allowed: "
                             "device_map alone places the model (accelerate)")
        named = device_map if isinstance(device_map, str) else ""
        compute = ("cpu" if named in ("cpu", "disk") else "mps" if named == "mps" else
                   "cuda" if cuda else "cpu")
        if isinstance(device_map, dict):
            places = {str(v).split(":", 1)[0] for v in device_map.values()}
            compute = "cuda" if cuda and (places - {"cpu", "disk", "mps"}) else "mps" if "mps" in places else "cpu"
    else:
        if base == "cuda" and not cuda:
            raise ValueError(f"device {device!r} was asked for but torch sees no CUDA GPU; use device='auto' or "
                             "'cpu'")
        if base == "mps" and not mps:
            raise ValueError(f"device {device!r} was asked for but torch sees no usable MPS device; use "
                             "device='auto' or 'cpu'")
        if device == "auto":
            device = "cuda" if cuda else "mps" if mps else "cpu"
        compute = device.split(":", 1)[0]
    chosen = dtype if dtype != "auto" else auto_dtype(compute, bf16=bf16, model_types=model_types)
    return Placement(None if device_map is not None else device, device_map, chosen, compute)


def model_types(config: Any) -> frozenset[str]:
    """The ``model_type`` of a transformers config and of its text model (PaliGemma 2 -> paligemma, gemma2).

    Parameters
    ----------
    config : transformers.PretrainedConfig
        A model's config.

    Returns
    -------
    frozenset of str
        Its types.
    """
    types = {getattr(config, "model_type", None)}
    text = getattr(config, "text_config", None)
    types.add(getattr(text, "model_type", None))
    return frozenset(t for t in types if t)


def prompt_format_for(model: str, model_type: str, chat_template: str | None) -> str:
    """The prompt format of a model (:data:`PROMPT_FORMATS`): its chat template when it has one, else its
    family's documented format, else ValueError naming the family.

    Parameters
    ----------
    model : str
        The model's name, for the message.
    model_type : str
        Its type.
    chat_template : str or None
        Its processor's chat template.

    Returns
    -------
    str
        A name in `PROMPT_FORMATS`.

    Raises
    ------
    ValueError
        When the model has no chat template and its family no documented format.
    """
    if chat_template:
        return "chat-template"
    if model_type in FAMILY_FORMATS:
        return FAMILY_FORMATS[model_type]
    raise ValueError(f"{model}: its processor has no chat template and its family ({model_type or 'unknown'}) "
                     "has no prompt format known here; allowed: an instruction-tuned (chat) model, a processor "
                     f"saved with a chat_template, or a family with a documented format ({', '.join(FAMILY_FORMATS)})")


def declined(prompt_format: str, query: Query) -> str | None:
    """Why a model of ``prompt_format`` cannot answer ``query`` (it is then declined as unsupported), or None.

    Parameters
    ----------
    prompt_format : str
        A name in `PROMPT_FORMATS`.
    query : Query
        The question (its turns, images and sampling).

    Returns
    -------
    str or None
        The reason, or None.
    """
    if prompt_format == "chat-template":
        return None
    family = {"paligemma": "PaliGemma", "florence2": "Florence-2"}[prompt_format]
    n_images = len(query.images)
    if len(query.turns) != 1 or n_images != 1:
        return (f"{family} answers one image and one question; this query has {len(query.turns)} turns and "
                f"{n_images} images (few-shot examples and text-only questions are unsupported)")
    if prompt_format == "florence2" and (query.kind != "open" or query.answer_kind not in (None, "label")):
        return (f"Florence-2 has no free-form questions: plates asks its <OCR> task, which reads text, so only "
                f"plate-reading questions are answered (this one: kind {query.kind!r}, answer kind "
                f"{query.answer_kind!r})")
    return None


def format_prompt(prompt_format: str, query: Query) -> str:
    """The text a prompt-format family receives for ``query`` (check :func:`declined` first).

    Parameters
    ----------
    prompt_format : str
        "paligemma" or "florence2".
    query : Query
        The question (its turns, images and sampling).

    Returns
    -------
    str
        The text prompt.

    Raises
    ------
    ValueError
        For a format that takes no text prompt.

    Examples
    --------
    >>> from PIL import Image
    >>> from plates.models.base import Turn
    >>> q = Query((Turn("user", "What number do you see?\\nAnswer briefly.", (Image.new("RGB", (8, 8)),)),))
    >>> format_prompt("paligemma", q), format_prompt("florence2", q)
    ('<image>answer en What number do you see? Answer briefly.', '<OCR>')
    """
    if prompt_format == "paligemma":  # the processor adds <bos> after the image and "\n" closing the prefix
        return "<image>answer en " + " ".join(query.turns[-1].text.split())
    if prompt_format == "florence2":
        return "<OCR>"
    raise ValueError(f"prompt format {prompt_format!r} takes no text prompt; allowed: paligemma, florence2")
