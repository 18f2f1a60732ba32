"""Synthetic results at any size in the results schema (`plates.results.SCHEMA`), every family present.

`write_synthetic(folder, rows)` writes about ``rows`` rows as `plates run` and the quiz would: 8 models, each
its own run, asked plates (the bulk: ColorBlindnessEval prompts in colour, grayscale, 300 px and yes/no, and
HueManity's numeric prompt, as a sweep writes them), illusions (RCID comparisons in both framings with a signed
ΔE2000 grid for the PSE, IllusionBench+ true/false and multiple choice: `ILLUSION_SHARE` of the rows), scenes
(ColorBench's tasks with their question parameters, grayscale and chain-of-thought twins, the robustness
seeds and their nine recoloured variants: `SCENE_SHARE`) and human rows from the quiz (backend "human", one
participant per model name, plates at ΔE2000 levels and illusion comparisons: `HUMAN_SHARE`). Verdicts at
random with an accuracy that rises with ΔE2000; 1% failed requests. String columns are dictionary-encoded and
the JSON columns (``spec_json``, ``truth_json``) are real JSON, one per item, so 10M rows take well under a
minute. The benches (bench/bench_dashboard.py) and the dashboard's page tests use it.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from plates.results import SCHEMA

MODELS = 8
PLATE_COMBOS = (  # (prompt, grayscale, size)
    ("cbe-open", False, 900),
    ("cbe-open", True, 900),
    ("cbe-open", False, 300),
    ("cbe-yn-correct", False, 900),
    ("cbe-yn-incorrect", False, 900),
    ("huemanity-numeric", False, 512),
)
COLOUR_SETS = tuple(f"colorblindnesseval-{i}" for i in range(1, 6))
LEVELS = 20  # nominal ΔE2000 levels per colour set (5-40), as a palette sweep has
ILLUSION_SHARE, SCENE_SHARE, HUMAN_SHARE = 0.05, 0.03, 0.004
ILLUSION_PROMPTS = ("rcid-compare-pixel", "rcid-compare-human", "illusionbench-tf", "illusionbench-mc")
KINDS = ("rcid-contrast", "rcid-stripe", "simultaneous-contrast")
STRENGTHS = (0.0, 0.5, 1.0)
SIGNED = tuple(np.round(np.linspace(-10.0, 10.0, 21), 4))
SCENE_TASKS = ("colour-recognition", "colour-counting", "colour-comparison", "colour-proportion")
RECOLOURS = ("seed", "image-90", "image-180", "image-270", "target-90", "target-180", "target-270",
             "largest-90", "largest-180", "largest-270")


def _dict(indices, values) -> pa.DictionaryArray:
    return pa.DictionaryArray.from_arrays(pa.array(np.asarray(indices, dtype=np.int32)),
                                          pa.array(list(values), type=pa.string()))


def _const(n: int, value: str) -> pa.DictionaryArray:
    return _dict(np.zeros(n), [value])


def _table(columns: dict, n: int) -> pa.Table:
    """``columns`` conformed to the schema (absent columns null; dictionary columns kept encoded)."""
    arrays, fields = [], []
    for field in SCHEMA:
        value = columns.get(field.name)
        if value is None:
            arrays.append(pa.nulls(n, field.type))
            fields.append(field)
        elif isinstance(value, pa.DictionaryArray):
            arrays.append(value)
            fields.append(pa.field(field.name, value.type))
        else:
            arrays.append(pa.array(value, type=field.type, from_pandas=True))
            fields.append(field)
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def _common(rng, n: int, model: str, run: str, backend: str, start: int, failed_share: float = 0.01) -> dict:
    failed = rng.random(n) < failed_share
    return {
        "run_id": _const(n, run), "model": _const(n, model), "backend": _const(n, backend),
        "variant": _const(n, "standard"), "hue_shift": np.zeros(n), "cvd": _const(n, "none"),
        "cvd_severity": np.zeros(n), "shots": np.zeros(n, dtype=np.int32), "text_only": np.zeros(n, dtype=bool),
        "latency_s": rng.uniform(0.2, 3.0, n), "attempts": np.ones(n, dtype=np.int32),
        "timestamp": np.full(n, np.datetime64("2026-01-01T00:00:00", "us")),
        "plates_version": _const(n, "0.1.0"), "rules_version": np.ones(n, dtype=np.int32),
        "row_key": np.char.add(f"{run}-", np.arange(start, start + n).astype(str)).astype(object),
        "error": pa.array(np.where(failed, "HTTP 500", None), type=pa.string()), "_failed": failed,
    }


def _verdict(rng, p: np.ndarray, failed: np.ndarray) -> pa.Array:
    return pa.array(np.where(failed, None, rng.random(p.size) < p), type=pa.bool_())


def plate_rows(model: int, start: int, stop: int, *, human: bool = False, seed: int = 0) -> pa.Table:
    """Rows ``start:stop`` of a plate run (items x `PLATE_COMBOS`; a person: HueManity's numeric prompt only)."""
    rng = np.random.default_rng([seed, model, start, int(human)])
    idx = np.arange(start, stop)
    n = idx.size
    combos = PLATE_COMBOS[-1:] if human else PLATE_COMBOS
    item, combo = idx // len(combos), idx % len(combos)
    prompts = sorted({c[0] for c in combos})
    prompt = np.array([prompts.index(c[0]) for c in combos])[combo]
    gray = np.array([c[1] for c in combos])[combo]
    colour_set = item % len(COLOUR_SETS)
    level = (item // len(COLOUR_SETS)) % LEVELS
    delta_e = 5.0 + 35.0 * level / (LEVELS - 1)
    run, name = (f"quiz-{model}", f"participant-{model:04d}") if human else (f"run-model-{model}", f"model-{model}")
    c = _common(rng, n, name, run, "human" if human else "openai", start, 0.0 if human else 0.01)
    threshold = 8.0 + 2.0 * (model % 8)
    correct = _verdict(rng, 0.5 + 0.45 / (1.0 + np.exp(-(delta_e - threshold) / 2.0)) - 0.1 * gray, c["_failed"])
    label = item % 100
    first, last = int(item.min()), int(item.max())
    specs = [json.dumps({"text": str(i % 100), "seed": i, "palette": COLOUR_SETS[i % 5], "size": 900})
             for i in range(first, last + 1)]
    right = np.asarray(correct.fill_null(False))
    c.update({
        "item_id": _dict(item - first, [f"plate-{i}" for i in range(first, last + 1)]),
        "dataset": _const(n, "colorblindnesseval"), "task": _dict(prompt, prompts), "prompt_name": _dict(prompt, prompts),
        "target": _dict(label, [str(v) for v in range(100)]), "expected": _dict(label, [str(v) for v in range(100)]),
        "prompt_text": _dict(prompt, [f"prompt text of {p}" for p in prompts]),
        "group": _dict(colour_set, COLOUR_SETS), "colour_set": _dict(colour_set, COLOUR_SETS), "delta_e": delta_e,
        "delta_e_target": delta_e,
        "delta_e_drawn_median": delta_e, "delta_e_drawn_min": delta_e * 0.8,
        "font": _const(n, "liberation-sans-bold"), "size": np.array([c[2] for c in combos], dtype=np.int32)[combo],
        "grayscale": gray, "spec_json": _dict(item - first, specs), "family": _const(n, "ishihara"),
        "reply": _dict(np.where(right, label, 100), [*map(str, range(100)), "I cannot see a number"]),
        "parsed": pa.array(np.where(right, label.astype(str), None), type=pa.string()), "correct": correct,
        "parse_status": _dict(np.where(c["_failed"], 2, np.where(right, 0, 1)), ["ok", "refusal", "error"]),
        "failure_mode": pa.array(np.where(right | c["_failed"], None, "evasion"), type=pa.string()),
    })
    return _table(c, n)


_MEANINGS = {"I": "A darker", "II": "B darker", "III": "same"}


def illusion_rows(model: int, start: int, stop: int, *, human: bool = False, seed: int = 0) -> pa.Table:
    """Rows ``start:stop`` of an illusion run: items (kind x strength x class x signed ΔE2000) x
    `ILLUSION_PROMPTS` (a person: comparisons under the human framing only, as the quiz asks them)."""
    rng = np.random.default_rng([seed, model, start, 7, int(human)])
    idx = np.arange(start, stop)
    n = idx.size
    prompts = ILLUSION_PROMPTS[1:2] if human else ILLUSION_PROMPTS
    item, which = idx // len(prompts), idx % len(prompts)
    kind, strength = item % len(KINDS), (item // 3) % len(STRENGTHS)
    signed = np.asarray(SIGNED)[(item // 9) % len(SIGNED)]
    induced = np.where((item // 189) % 2 == 0, "A", "B")
    # class: same pixels and an inducer: illusion; no inducer: control; different pixels: trap
    cls = np.where(signed != 0.0, "trap", np.where(strength > 0, "illusion", "control"))
    pixel = np.where(signed > 0, "B darker", np.where(signed < 0, "A darker", "same"))
    human_answer = np.where(cls == "illusion", np.where(induced == "A", "B darker", "A darker"), pixel)
    human_answer = np.where(cls == "trap", None, human_answer)
    facts = {}
    truth_index = np.empty(n, dtype=np.int64)
    for r in range(n):
        p = prompts[which[r]]
        key = (p, int(kind[r]), int(strength[r]), float(signed[r]), str(induced[r]))
        if key not in facts:
            fact = {"kind": KINDS[kind[r]], "illusion": KINDS[kind[r]], "item_class": str(cls[r]),
                    "strength": STRENGTHS[strength[r]], "signed_delta_e": float(signed[r]),
                    "induced_lighter": str(induced[r]), "pixel_answer": str(pixel[r]),
                    "human_answer": None if human_answer[r] is None else str(human_answer[r]), "human_key": "literature"}
            if p.startswith("rcid"):
                fact.update(framing=p.rsplit("-", 1)[1], meanings=_MEANINGS)
            facts[key] = (len(facts), json.dumps(fact, sort_keys=True))
        truth_index[r] = facts[key][0]
    run, name = (f"quiz-ill-{model}", f"participant-{model:04d}") if human else (f"ill-model-{model}", f"model-{model}")
    c = _common(rng, n, name, run, "human" if human else "openai", start, 0.0 if human else 0.01)
    tasks = np.array(["rcid-compare", "rcid-compare", "illusionbench-tf", "illusionbench-mc"])[
        [ILLUSION_PROMPTS.index(p) for p in prompts]][which]
    answers = rng.choice(np.array(["I", "II", "III"]), n)
    tf = rng.choice(np.array(["True", "False"]), n)
    mc = rng.choice(np.array(["I", "II", "III", "IV"]), n)
    parsed = np.where(tasks == "rcid-compare", answers, np.where(tasks == "illusionbench-tf", tf, mc)).astype(object)
    parsed[c["_failed"]] = None
    expected = np.where(tasks == "illusionbench-tf", np.where(pixel == "same", "True", "False"),
                        np.where(tasks == "illusionbench-mc", "IV", "III"))
    prompt_names = np.array(prompts)[which]
    c.update({
        "item_id": pa.array(np.char.add("ill-", item.astype(str)).astype(object), type=pa.string()),
        "dataset": _const(n, "illusions"), "task": pa.array(tasks.astype(object), type=pa.string()),
        "prompt_name": pa.array(prompt_names.astype(object), type=pa.string()),
        "expected": pa.array(expected.astype(object), type=pa.string()),
        "group": _dict(kind, KINDS), "delta_e": signed, "size": np.full(n, 512, dtype=np.int32),
        "grayscale": np.zeros(n, dtype=bool), "family": _const(n, "illusion"),
        "truth_json": _dict(truth_index, [t for _, t in sorted(facts.values())]),
        "parsed": pa.array(parsed, type=pa.string()),
        "correct": pa.array(np.where(c["_failed"], None, parsed == expected), type=pa.bool_()),
    })
    return _table(c, n)


def scene_rows(model: int, start: int, stop: int, *, seed: int = 0) -> pa.Table:
    """Rows ``start:stop`` of a ColorBench run: per item (task, a continuous question parameter) its plain
    prompt, its "-cot" twin and, for colour recognition, a grayscale view; per ten items one robustness seed
    asked on the seed scene and its nine recoloured variants (shape counting)."""
    rng = np.random.default_rng([seed, model, start, 11])
    idx = np.arange(start, stop)
    n = idx.size
    # a block: 10 items x (plain, cot, grayscale or another plain), then one robustness seed x 10 recolourings
    block, slot = idx // (30 + len(RECOLOURS)), idx % (30 + len(RECOLOURS))
    robust = slot >= 30
    item = np.where(robust, block, block * 10 + np.minimum(slot, 29) // 3)
    task = item % len(SCENE_TASKS)
    variant = np.where(robust, slot - 30, 0)
    gray = ~robust & (slot % 3 == 2) & (task == 0)
    cot = ~robust & (slot % 3 == 1)
    names = [f"colorbench-{t}" for t in SCENE_TASKS]
    prompt = np.where(robust, "colorbench-shape-counting",
                      np.char.add(np.array(names)[task], np.where(cot, "-cot", "")))
    tasks = np.where(robust, "shape-counting", np.array(SCENE_TASKS)[task])
    truth = {}
    truth_index = np.empty(n, dtype=np.int64)
    value = 5.0 + 30.0 * ((item * 7919) % 997) / 997.0  # one continuous parameter per item
    for r in range(n):
        key = ("robust", int(item[r]), int(variant[r])) if robust[r] else ("task", int(item[r]))
        if key not in truth:
            params = {"shape": "square"} if robust[r] else (
                {"min_delta_e": float(value[r]), "mode": "name"} if task[r] % 2 == 0 else
                {"lead": float(value[r]), "criterion": "darker"})
            fact = {"params": params, "recolour": RECOLOURS[variant[r]] if robust[r] else "seed",
                    "paper_task": str(tasks[r]), "wording": "colorbench"}
            truth[key] = (len(truth), json.dumps(fact, sort_keys=True))
        truth_index[r] = truth[key][0]
    c = _common(rng, n, f"model-{model}", f"scene-model-{model}", "openai", start)
    p = 0.3 + 0.5 * (value - 5.0) / 30.0 + 0.05 * cot - 0.1 * gray
    family = np.where(robust & (variant > 0), 1, 0)
    c.update({
        "item_id": pa.array(np.where(robust, np.char.add(np.char.add("seed-", item.astype(str)), np.char.add(
            "-", variant.astype(str))), np.char.add("scene-", item.astype(str))).astype(object), type=pa.string()),
        "dataset": _const(n, "colorbench"), "task": pa.array(tasks.astype(object), type=pa.string()),
        "prompt_name": pa.array(prompt.astype(object), type=pa.string()),
        "group": pa.array(np.where(robust, np.char.add("robustness-", item.astype(str)),
                                   tasks).astype(object), type=pa.string()),
        "expected": _const(n, "A"), "size": np.full(n, 512, dtype=np.int32), "grayscale": gray,
        "family": _dict(family, ["scene", "scene-recolour"]),
        "truth_json": _dict(truth_index, [t for _, t in sorted(truth.values())]),
        "correct": _verdict(rng, p, c["_failed"]),
    })
    return _table(c, n)


def _write(table: pa.Table, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, compression="zstd", row_group_size=1 << 20)


def write_synthetic(folder: Path, rows: int, parts: int = 24, seed: int = 0, models: int = MODELS,
                    people: int | None = None) -> dict[str, int]:
    """About ``rows`` rows under ``folder`` (module docstring) from ``models`` models and ``people`` quiz
    sessions (default: `HUMAN_SHARE` of the rows, 60 answers each), plate rows in at least ``parts`` parts; the
    rows written per family ("plates", "illusions", "scenes", "human")."""
    sizes = {"illusions": int(rows * ILLUSION_SHARE), "scenes": int(rows * SCENE_SHARE),
             "human": max(2, int(rows * HUMAN_SHARE))}
    sizes["plates"] = rows - sum(sizes.values())
    chunks = max(1, -(-parts // models))
    for m in range(models):
        total = sizes["plates"] // models + (1 if m < sizes["plates"] % models else 0)
        bounds = [total * c // chunks for c in range(chunks + 1)]
        for c, (a, b) in enumerate(zip(bounds, bounds[1:])):
            if b > a:
                _write(plate_rows(m, a, b, seed=seed), folder / f"run-model-{m}" / f"part-{c:03d}.parquet")
        for name, make in (("illusions", illusion_rows), ("scenes", scene_rows)):
            share = sizes[name] // models
            if share:
                _write(make(m, 0, share, seed=seed), folder / f"{name}-model-{m}" / "part-000.parquet")
    people = people or max(2, sizes["human"] // 60)  # quiz sessions of 40 plates and 20 illusion comparisons
    for first in range(0, people, 100):  # the quiz's parts, compacted: 100 sessions a part
        group = range(first, min(people, first + 100))
        for name, make, count in (("plates", plate_rows, 40), ("illusions", illusion_rows, 20)):
            _write(pa.concat_tables([make(p, 0, count, human=True, seed=seed) for p in group]),
                   folder / "human" / f"quiz-{first:05d}-{name}.parquet")
    sizes["human"] = people * 60
    return sizes
