"""Plan a run: every item x model x condition x prompt x shots of an experiment becomes one `Unit`, a row to ask.

Each unit carries its ``row_key``, a stable hash of the run id x item x model x condition x prompt x shots; a
rerun reads the keys already under ``out`` (`existing_keys`) and asks only the others, so it never duplicates a
row (`plates.runs.runner` explains resume and shards). ``eligible`` says which items a question about a variant
is asked on (each plate once per variant); ``load_items`` loads the items an experiment names. The exporters
(`plates.integrations`) read the same plan, so an export asks exactly the rows a run asks.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from plates.datasets import load_dataset
from plates.datasets.sample import Sample, load_sample
from plates.results import load_results
from plates.runs.experiment import ConditionSpec, Experiment
from plates.storage import is_url, open_store


@dataclass(frozen=True)
class Unit:
    """One planned row of a run.

    Parameters
    ----------
    item : int
        Index into the dataset's items.
    model : int
        Index into the experiment's models.
    condition : ConditionSpec
        The viewing condition.
    variant : str
        The image variant asked about.
    prompt : str
        The prompt's name.
    shots : int
        Few-shot examples.
    key : str
        Its `row_key`.
    """

    item: int
    model: int
    condition: ConditionSpec
    variant: str
    prompt: str
    shots: int
    key: str


def row_key(run_id: str, dataset: str, item_id: str, backend: str, model: str, condition: ConditionSpec,
            variant: str, prompt: str, shots: int) -> str:
    """A stable key of one row.

    The condition's size is as requested (None = the dataset's own). The text-only control joins the key only
    when set, so keys written before it existed stay the same.

    Parameters
    ----------
    run_id : str
        The run.
    dataset : str
        The dataset's name.
    item_id : str
        The item.
    backend : str
        The backend kind.
    model : str
        The model's name.
    condition : ConditionSpec
        The viewing condition as the experiment states it.
    variant : str
        The image variant asked about.
    prompt : str
        The prompt's name.
    shots : int
        Few-shot examples.

    Returns
    -------
    str
        20 hexadecimal characters.
    """
    parts = [run_id, dataset, item_id, backend, model, condition.size, condition.grayscale,
             round(condition.hue_shift, 6), condition.cvd, round(condition.cvd_severity, 6), variant, prompt, shots,
             *(["text-only"] if condition.text_only else [])]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:20]


def eligible(items: Sequence[Any], variant: str) -> list[int]:
    """Indices of the items a question about ``variant`` is asked on.

    A dataset that holds items of that variant (ColorBlindnessEval stores each plate as a standard and a clear
    image) gives those; otherwise each distinct plate once (first item per spec), its variant rendered from
    the spec. Either way no plate is asked twice for the same variant.

    Parameters
    ----------
    items : sequence
        The dataset's items.
    variant : str
        The image variant asked about.

    Returns
    -------
    list of int
        Item indices.
    """
    same = [i for i, item in enumerate(items) if getattr(item, "variant", "standard") == variant]
    if same:
        return same
    seen: set[str] = set()
    out = []
    for i, item in enumerate(items):
        key = item.spec.to_json()
        if key not in seen:
            seen.add(key)
            out.append(i)
    return out


def plan(exp: Experiment, items: Sequence[Any]) -> list[Unit]:
    """Every row of the experiment, model by model, then item by item (so each plate is prepared once).

    Parameters
    ----------
    exp : Experiment
        The experiment.
    items : sequence
        Its dataset items (`load_items`).

    Returns
    -------
    list of Unit
    """
    run_id = exp.run_id
    wanted = {(c, p): c.variant or exp.template(p).variant for c in exp.conditions for p in exp.prompts}
    usable = {v: set(eligible(items, v)) for v in set(wanted.values())}
    task_of_prompt = {p: exp.template(p).task for p in exp.prompts}
    for name, task in task_of_prompt.items():  # an item made for one question takes only its task's prompts
        if items and all(i.question_task not in (None, task) for i in items):
            raise ValueError(f"prompt {name!r} (task {task!r}) asks about none of the dataset's items: each was "
                             f"made for another task ({', '.join(sorted({i.question_task for i in items}))}); "
                             "allowed: prompts of those tasks")
    units = []
    for mi, m in enumerate(exp.models):
        for ii, item in enumerate(items):
            for cond in exp.conditions:
                for name in exp.prompts:
                    variant = wanted[(cond, name)]
                    if ii not in usable[variant] or item.question_task not in (None, task_of_prompt[name]):
                        continue
                    for k in exp.shots:
                        key = row_key(run_id, item.dataset, item.item_id, m.backend, m.model, cond, variant, name, k)
                        units.append(Unit(ii, mi, cond, variant, name, k, key))
    return units


def existing_keys(out: str | Path, run_id: str, *, retry_errors: bool = False) -> set[str]:
    """`row_key` values of this run already under ``out``.

    A part another shard merges away while this reads is skipped by the reader (its rows are in the merged
    part, and none of them is this shard's to ask).

    Parameters
    ----------
    out : str or pathlib.Path
        The results folder.
    run_id : str
        The run.
    retry_errors : bool
        Leave out the rows that ended in error (so they are asked again).

    Returns
    -------
    set of str
    """
    columns = ["run_id", "row_key", "parse_status"]
    if is_url(out):  # an object store: this run's committed parts directly under out
        root = open_store(out).root
        frame = load_results(out, columns=columns, exclude=lambda f: str(f.parent) != root
                             or not f.name.startswith(f"{run_id}-")).frame
    else:
        files = sorted(Path(out).glob(f"{run_id}-*.parquet")) if Path(out).is_dir() else []
        if not files:
            return set()
        frame = load_results(files, columns=columns).frame
    frame = frame[frame["run_id"] == run_id]
    if retry_errors:
        frame = frame[frame["parse_status"] != "error"]
    return set(frame["row_key"].dropna())


def load_items(exp: Experiment) -> list[Any]:
    """The dataset items ``exp`` asks about.

    Parameters
    ----------
    exp : Experiment
        Its dataset, ``limit`` and ``sample`` are read.

    Returns
    -------
    list
        The dataset's first ``limit`` items, or its seeded random subset (``sample``, balanced across colour
        sets).

    References
    ----------
    HueManity §4 (random subsets).
    """
    if exp.sample is None:
        return list(load_dataset(exp.dataset, limit=exp.limit))
    return list(load_sample(exp.dataset, Sample(exp.sample, exp.sample_seed), limit=exp.limit))
