"""The rows an exporter writes: the runner's plan for an experiment, one row per (item, condition, prompt, shots),
with the image as the PNG bytes a model is sent and the question exactly as `plates run` asks it.

The plan is `plates.runs.plan.plan` (of the experiment's first model: every model is asked the same rows) and
each row's request is `plates.runs.builder.prepared`, so an export can never ask a different benchmark than a run
(a naive export of the CBE preset asks one prompt of all 40 plates; `plates run` asks the 20 of the prompt's
own variant). Images: a stored PNG that no condition changes travels as its bytes; any other image is encoded
by `plates.images.image_to_png_bytes`, the encoder the OpenAI-compatible backend sends (PNG, lossless: the
colours under test arrive unchanged).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from plates.conditions import Condition
from plates.datasets.items import DRAWN_COLUMNS, MANIFEST_COLUMNS
from plates.datasets.parquet_set import ShardImage
from plates.images import image_to_png_bytes
from plates.results.schema import colour_set_of
from plates.runs.builder import prepared
from plates.runs.experiment import ConditionSpec, Experiment
from plates.runs.plan import load_items, plan, row_key
from plates.tasks import question_to_json

__all__ = ["COLUMNS", "SCHEMA", "ExportRow", "config_name", "export_rows"]

#: What identifies and asks one row (every column but the image and the manifest's), in order.
QUESTION_FIELDS: tuple[tuple[str, pa.DataType], ...] = (
    ("sample_id", pa.string()), ("config", pa.string()), ("prompt_name", pa.string()), ("task", pa.string()),
    ("question", pa.string()), ("kind", pa.string()), ("options_json", pa.string()), ("expected", pa.string()),
    ("target", pa.string()), ("answer_kind", pa.string()), ("label_space", pa.string()),
    ("answer_format", pa.string()), ("question_json", pa.string()),
    # the viewing condition (plates.runs.experiment.ConditionSpec) and the variant asked about
    ("image_size", pa.int32()), ("grayscale", pa.bool_()), ("hue_shift", pa.float64()), ("cvd", pa.string()),
    ("cvd_severity", pa.float64()), ("text_only", pa.bool_()), ("asked_variant", pa.string()), ("shots", pa.int32()),
    ("max_tokens", pa.int32()), ("temperature", pa.float64()),
)


def _manifest_type(column: str) -> pa.DataType:
    if column == "size":
        return pa.int32()
    if column == "seed":
        return pa.int64()
    if column.startswith("delta_e") and column != "delta_e_target_kind":
        return pa.float64()
    return pa.string()


#: The image column: the `datasets` Image feature's storage (PNG bytes, and a file name).
IMAGE_TYPE = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
SCHEMA = pa.schema([("image", IMAGE_TYPE), *QUESTION_FIELDS,
                    # the family's grouping (the results column `group`); colour_set below: plates only
                    ("group", pa.string()),
                    *((c, _manifest_type(c)) for c in MANIFEST_COLUMNS)])
COLUMNS: tuple[str, ...] = tuple(SCHEMA.names)


@dataclass(frozen=True)
class ExportRow:
    """One exported row: ``values`` by column name (`COLUMNS`; ``image`` holds ``{"bytes", "path"}``), and the
    PIL image (sRGB 0-255) the runner prepared, for exporters that write pixels another way.

    Attributes
    ----------
    values : dict
        By column name (`COLUMNS`; ``image`` holds ``{"bytes", "path"}``).
    image : PIL.Image.Image
        The image the runner prepared, sRGB 0-255.
    """

    values: dict[str, Any]
    image: Any


_SLUG = re.compile(r"[^A-Za-z0-9.]+")


def config_name(prompt: str, condition: ConditionSpec) -> str:
    """The name of the config (one per prompt x condition) a row belongs to.

    Parameters
    ----------
    prompt : str
        The prompt's name.
    condition : ConditionSpec
        The viewing condition.

    Returns
    -------
    str
        The prompt's name, then the condition's non-default settings.

    Examples
    --------
    >>> from plates.runs.experiment import ConditionSpec
    >>> config_name("cbe-open", ConditionSpec())
    'cbe-open'
    >>> config_name("cbe-open", ConditionSpec(size=512, grayscale=True, hue_shift=90, cvd="deutan",
    ...                                       cvd_severity=0.5, variant="clear"))
    'cbe-open-size512-gray-hue90-deutan0.5-clear'
    """
    c = condition
    parts = [prompt]
    if c.size is not None:
        parts.append(f"size{c.size}")
    if c.grayscale:
        parts.append("gray")
    if c.hue_shift:
        parts.append(f"hue{c.hue_shift:g}")
    if c.cvd != "none":
        parts.append(f"{c.cvd}{c.cvd_severity:g}")
    if c.variant is not None:
        parts.append(c.variant)
    if c.text_only:
        parts.append("text-only")
    return "-".join(_SLUG.sub("-", p).strip("-") for p in parts)


def _sent_png(item: Any, variant: str, condition: ConditionSpec, image: Any) -> bytes:
    """The PNG of the image a model receives: the stored file's bytes when no condition changes it, else the
    backend's encoding of the prepared image."""
    unchanged = item.path is not None and variant == item.variant and condition.to_condition() == Condition()
    if not unchanged:
        return image_to_png_bytes(image)
    return item.path.read() if isinstance(item.path, ShardImage) else Path(item.path).read_bytes()


def export_rows(exp: Experiment, items: Sequence[Any] | None = None) -> Iterator[ExportRow]:
    """The runner's rows of ``exp`` (its first model's: every model is asked the same), in plan order.

    Parameters
    ----------
    exp : Experiment
        The experiment whose rows are exported (`plates.runs.experiment`).
    items : sequence or None
        Replaces the dataset loader (`plates.runs.plan.load_items`).

    Yields
    ------
    ExportRow

    Raises
    ------
    ValueError
        Few-shot rows (``shots`` > 0): a row holds one image, and a few-shot conversation holds several.
    """
    if any(k != 0 for k in exp.shots):
        raise ValueError(f"shots {list(exp.shots)} cannot be exported: an exported row holds one image and one "
                         "question; allowed: shots = 0")
    items = load_items(exp) if items is None else list(items)
    units = [u for u in plan(exp, items) if u.model == 0]
    root = Path(exp.dataset) if Path(exp.dataset).is_dir() else None
    m = exp.models[0]
    for unit, query, asked in prepared(exp, items, units):
        item, q, c = items[unit.item], asked.question, unit.condition
        image = query.turns[-1].images[0]
        sample_id = row_key("", item.dataset, item.item_id, "", "", c, unit.variant, unit.prompt, unit.shots)
        manifest = {
            "item_id": item.item_id, "dataset": item.dataset, "label": item.label, "group": item.group,
            "colour_set": colour_set_of(item.family, item.group),
            "delta_e": asked.delta_e, "variant": item.variant, "font": asked.font, "size": int(item.spec.size),
            "seed": int(item.spec.seed), "spec_json": asked.spec_json,
            "path": Path(item.path).relative_to(root).as_posix() if isinstance(item.path, Path) and root else None,
            **{col: asked.measured.get(col) for col in DRAWN_COLUMNS},
            "delta_e_target_kind": None,  # the manifest's own record; `load_dataset` does not carry it
        }
        values = {
            "image": {"bytes": _sent_png(item, unit.variant, c, image), "path": f"{sample_id}.png"},
            "sample_id": sample_id, "config": config_name(unit.prompt, c), "prompt_name": unit.prompt,
            "task": q.task, "question": q.text, "kind": q.kind, "options_json": _options(q.options),
            "expected": q.expected, "target": q.target, "answer_kind": q.answer_kind, "label_space": q.label_space,
            "answer_format": q.answer_format, "question_json": question_to_json(q),
            "image_size": int(image.size[0]), "grayscale": c.grayscale, "hue_shift": float(c.hue_shift),
            "cvd": c.cvd, "cvd_severity": float(c.cvd_severity) if c.cvd != "none" else 0.0,
            "text_only": c.text_only, "asked_variant": unit.variant, "shots": unit.shots,
            "max_tokens": m.max_tokens, "temperature": float(m.temperature), **manifest,
        }
        yield ExportRow(values, image)


def _options(options: dict[str, str] | None) -> str | None:
    return json.dumps(options, sort_keys=True) if options else None
