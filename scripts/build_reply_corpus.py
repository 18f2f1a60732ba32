"""Build the corpus of real VLM replies (tests/data/replies/replies.jsonl.gz) from fetched benchmark mirrors.

Usage::

    python3 scripts/build_reply_corpus.py --blink MIRROR --mathvista MIRROR --hallusionbench MIRROR \
        [--out tests/data/replies/replies.jsonl.gz] [--blink-per-model N] [--seed 20261206]

Each MIRROR is a bare git directory (``git clone --mirror``) of the benchmark's public repository; the files are
read at the mirror's HEAD with ``git show`` and the HEAD commit is recorded in every record. The output is
deterministic for the same mirrors and arguments: records are sorted by id, JSON keys sorted, and the gzip
header carries no file name and a fixed mtime. Each source's licence file is copied beside the output.

Sources (each reply verbatim, with the gold answer, the authors' extracted answer and the authors' verdict):

- BLINK (zeyofu/BLINK_Benchmark, ``eval/saved_outputs/<model>/<task>.json``, Apache-2.0): multiple choice,
  letters (A)-(D); the authors' extraction is a GPT-3.5 matcher (``eval/multiple_choice.py``; "(Z)" means it
  found no option) and their verdict is ``prediction == answer`` (``eval/evaluate.py``). Only the validation
  split has gold answers. The outputs do not carry the question or the option texts (they live in the BLINK
  dataset), so ``question`` is ``None`` (but for Relative_Depth) and the option texts are those the task shares
  across its items (``BLINK_TEMPLATES``). Counting's options are numbers that vary per item, and neither the
  outputs nor any public repository we searched carry them (the BLINK dataset on the Hugging Face Hub does): they
  are recovered per item from the replies that echo them (``counting_options``: "(D) 1" in any model's reply to
  the item; a key whose echoes disagree, or two keys echoing one number, stay ``None``). Every validation reply is
  kept (38,335 of 21 model folders, about 3 MB gzipped); ``--blink-per-model N`` keeps a seeded sample of N per
  model instead.
- MathVista testmini (lupantech/MathVista, ``results/<model>/output_<model>.json``, CC BY-SA 4.0): multiple
  choice with option texts (keys A, B, ... in the order of ``choices``, as the prompt lists them), yes/no (the
  multiple-choice questions whose two options are Yes/No) and integer answers; the authors' extraction is
  GPT-4's (``extraction``, normalised to ``prediction``) and their verdict ``true_false``; rows the authors
  did not judge (no ``true_false``) and free-form list answers are left out.
- HallusionBench (tianyi-lab/HallusionBench, ``HallusionBench_result_sample.json``, BSD-3-Clause): yes/no
  replies of GPT-4V; gold from ``HallusionBench.json`` (``gt_answer`` "1" yes, "0" no; "2" is not yes/no and is
  left out). The authors publish no extraction or verdict for these replies (``None``).
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import random
import re
import subprocess
from pathlib import Path

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "replies" / "replies.jsonl.gz"
SEED = 20261206
LETTERS = "ABCDEFGHIJ"

# BLINK's question and option texts where every item of a task shares them. The question of Relative_Depth is
# the BLINK dataset's wording; the option texts are the dataset's, as the models' own replies echo them: in this
# corpus every reply of the form "(X) text" uses these texts (tests/tasks/answers/test_reply_corpus.py checks it).
# Counting is left out: its options are numbers that change from item to item (see `counting_options`).
_IMAGES = ("the first image", "the second image", "the third image", "the fourth image")
BLINK_TEMPLATES = {
    "Relative_Depth": (
        "Two points are circled on the image, labeled by A and B beside each circle. Which point is closer to "
        "the camera?\nSelect from the following choices.",
        {"A": "A is closer", "B": "B is closer"},
    ),
    "Relative_Reflectance": (None, {"A": "A is darker", "B": "B is darker", "C": "About the same"}),
    "Jigsaw": (None, dict(zip("AB", _IMAGES[1:3]))),
    "Art_Style": (None, dict(zip("AB", _IMAGES[1:3]))),
    "Visual_Similarity": (None, dict(zip("AB", _IMAGES[1:3]))),
    "Forensic_Detection": (None, dict(zip("ABCD", _IMAGES))),
    "Multi-view_Reasoning": (None, {"A": "left", "B": "right"}),
    "Object_Localization": (None, {"A": "Box A", "B": "Box B"}),
    "Spatial_Relation": (None, {"A": "yes", "B": "no"}),
    "IQ_Test": (None, {k: f"picture {k}" for k in "ABCD"}),
    **{
        task: (None, {k: f"Point {k}" for k in "ABCD"})
        for task in ("Semantic_Correspondence", "Visual_Correspondence", "Functional_Correspondence")
    },
}

MATHVISTA_MODELS = {  # file under results/ -> model name as the MathVista paper names it
    "bard/output_bard.json": "Bard",
    "chatgpt/output_chatgpt.json": "ChatGPT (text only)",
    "claude/output_claude.json": "Claude-2 (text only)",
    "gpt4/output_gpt4.json": "GPT-4 (text only)",
    "idefics/output_idefics_9b_instruct.json": "IDEFICS-9B-Instruct",
    "instruct_blip2/output_instruct_blip2_vicuna_13b.json": "InstructBLIP-Vicuna-13B",
    "llama_adapter_v2/output_llama_adapter_v2.json": "LLaMA-Adapter-V2",
    "llava/output_llava_llama_2_13b.json": "LLaVA-LLaMA-2-13B",
    "llavar/output_llavar.json": "LLaVAR",
    "minigpt4/output_minigpt4_llama2.json": "MiniGPT-4-LLaMA-2",
    "mplugowl/output_mplugowl_7b_ft.json": "mPLUG-Owl-7B",
}


def _git(mirror: Path, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={mirror}", *args], check=True, capture_output=True).stdout


def _show_json(mirror: Path, commit: str, path: str):
    return json.loads(_git(mirror, "show", f"{commit}:{path}"))


def _head(mirror: Path) -> str:
    commit = _git(mirror, "rev-parse", "HEAD").decode().strip()
    if not re.fullmatch(r"[0-9a-f]{40}", commit):
        raise ValueError(f"mirror {mirror} has no 40-hex HEAD commit (got {commit!r})")
    return commit


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9.+-]+", "-", name).strip("-")


def _record(**fields) -> dict:
    fields["id"] = f"{fields['benchmark']}/{_slug(fields['model'])}/{fields['item']}"
    return fields


def _letter(text: str | None) -> str | None:
    """'(B)' or '(B) Point B' -> 'B'; '(Z)' (the BLINK matcher's 'failed') or anything else -> None."""
    m = re.match(r"\s*\(([A-J])\)", text or "")
    return m.group(1) if m else None


# An echoed numeric option: "(D) 1", "(A) 6 bananas"; not "(B) 3.5" or "(C) 1,000" (no count option is either).
_ECHO = re.compile(r"\(([A-D])\) ?([0-9]{1,3})(?![0-9]|[.,][0-9])")


def counting_options(rows: list[dict]) -> dict[str, dict[str, str | None]]:
    """BLINK Counting's option texts per item, recovered from every reply to the item that echoes "(X) n".

    Parameters
    ----------
    rows : list of dict
        Records of one task, every model's (``item``, ``gold``, ``reply``).

    Returns
    -------
    dict
        {item: {key: number as written, or None}}: keys A up to the highest the task's gold answers use; a
        key's text is kept only when every echo of that key in the item's replies names the same number and no
        other key of the item echoes that number (else None: never a guess).
    """
    last = max(r["gold"] for r in rows)
    echoes: dict[str, dict[str, set[str]]] = {}
    for r in rows:
        seen = echoes.setdefault(r["item"], {})
        for m in _ECHO.finditer(r["reply"]):
            seen.setdefault(m.group(1), set()).add(m.group(2).lstrip("0") or "0")
    out = {}
    for item, seen in echoes.items():
        texts = {k: next(iter(v)) if len(v) == 1 else None for k, v in seen.items() if k <= last}
        repeated = {t for t in texts.values() if t is not None and list(texts.values()).count(t) > 1}
        out[item] = {k: None if texts.get(k) in repeated else texts.get(k) for k in LETTERS[: LETTERS.index(last) + 1]}
    return out


def blink(mirror: Path, per_model: int | None, seed: int) -> list[dict]:
    commit = _head(mirror)
    paths = [
        p
        for p in _git(mirror, "ls-tree", "-r", "--name-only", commit, "eval/saved_outputs")
        .decode()
        .splitlines()
        if p.endswith(".json")
    ]
    by_model: dict[str, list[dict]] = {}
    for path in sorted(paths):
        folder = path.split("/")[2]
        model = folder.replace("* concatenate images", " (images concatenated)")
        for row in _show_json(mirror, commit, path).get("val", []):
            task = re.sub(r"^val_(.*)_\d+$", r"\1", row["idx"])
            question, texts = BLINK_TEMPLATES.get(task, (None, None))
            gold = _letter(row["answer"])
            if gold is None:
                raise ValueError(f"{path}: gold {row['answer']!r} is not a letter in parentheses")
            by_model.setdefault(model, []).append(
                dict(
                    benchmark="blink",
                    source_repo="zeyofu/BLINK_Benchmark",
                    commit=commit,
                    path=path,
                    licence="Apache-2.0",
                    model=model,
                    item=row["idx"],
                    task=task,
                    question=question,
                    options=texts,
                    kind="choice",
                    gold=gold,
                    extracted=_letter(row["prediction"]),
                    extracted_raw=row["prediction"],
                    verdict=row["prediction"] == row["answer"],
                    reply=row["full_prediction"] if row["full_prediction"] is not None else "",
                )
            )
    counting = counting_options([r for rows in by_model.values() for r in rows if r["task"] == "Counting"])
    for rows in by_model.values():
        for r in rows:
            if r["task"] == "Counting":
                r["options"] = counting[r["item"]] if r["item"] in counting else None
    records = []
    for model in sorted(by_model):
        rows = sorted(by_model[model], key=lambda r: r["item"])
        rng = random.Random(f"{seed}/blink/{model}")
        keep = rows if per_model is None or len(rows) <= per_model else rng.sample(rows, per_model)
        records += [_record(**r) for r in keep]
    # Option keys where the texts are unknown: the letters the task's gold answers use (A-B, A-C or A-D).
    keys: dict[str, str] = {}
    for r in records:
        keys[r["task"]] = max(keys.get(r["task"], "A"), r["gold"])
    for r in records:
        if r["options"] is None:
            r["options"] = {k: None for k in LETTERS[: LETTERS.index(keys[r["task"]]) + 1]}
    return records


def _yesno(text: str) -> str | None:
    t = text.strip().lower()
    return t if t in ("yes", "no") else None


def mathvista(mirror: Path) -> list[dict]:
    commit = _head(mirror)
    records = []
    for file, model in MATHVISTA_MODELS.items():
        path = f"results/{file}"
        for pid, row in sorted(_show_json(mirror, commit, path).items(), key=lambda kv: int(kv[0])):
            if "true_false" not in row:  # not judged by the authors (2 ChatGPT rows): no verdict to keep
                continue
            base = dict(
                benchmark="mathvista",
                source_repo="lupantech/MathVista",
                commit=commit,
                path=path,
                licence="CC-BY-SA-4.0",
                model=model,
                item=f"testmini-{pid}",
                task=row["metadata"]["task"],
                question=row["question"],
                extracted_raw=row.get("extraction"),
                verdict=bool(row["true_false"]),
                reply=row.get("response") or "",
            )
            pred = row.get("prediction")
            if row["question_type"] == "multi_choice":
                choices = list(row["choices"])
                if len(choices) > len(LETTERS) or row["answer"] not in choices:
                    raise ValueError(
                        f"{path} pid {pid}: answer {row['answer']!r} not among choices {choices}"
                    )
                options = {LETTERS[i]: str(c) for i, c in enumerate(choices)}
                if sorted(c.lower() for c in choices) == ["no", "yes"]:
                    kind, gold = "yesno", row["answer"].lower()
                    extracted = _yesno(pred) if isinstance(pred, str) else None
                else:
                    kind, gold = "choice", LETTERS[choices.index(row["answer"])]
                    extracted = LETTERS[choices.index(pred)] if pred in choices else None
                records.append(_record(**base, options=options, kind=kind, gold=gold, extracted=extracted))
            elif row["answer_type"] in ("integer", "float"):
                extracted = None if pred in (None, "") else str(pred)
                records.append(
                    _record(**base, options=None, kind="number", gold=str(row["answer"]), extracted=extracted)
                )
    return records


def hallusionbench(mirror: Path) -> list[dict]:
    commit = _head(mirror)
    key = ("category", "subcategory", "set_id", "figure_id", "question_id")
    gold = {
        tuple(q[k] for k in key): q["gt_answer"] for q in _show_json(mirror, commit, "HallusionBench.json")
    }
    path = "HallusionBench_result_sample.json"
    records = []
    for row in _show_json(mirror, commit, path):
        g = {"1": "yes", "0": "no"}.get(gold[tuple(row[k] for k in key)])
        if g is None:
            continue
        item = "-".join(str(row[k]) for k in key)
        records.append(
            _record(
                benchmark="hallusionbench",
                source_repo="tianyi-lab/HallusionBench",
                commit=commit,
                path=path,
                licence="BSD-3-Clause",
                model="GPT-4V",
                item=item,
                task=row["subcategory"],
                question=row["question"],
                options=None,
                kind="yesno",
                gold=g,
                extracted=None,
                extracted_raw=None,
                verdict=None,
                reply=row["model_prediction"],
            )
        )
    return records


def write(records: list[dict], out: Path) -> None:
    ids = [r["id"] for r in records]
    if len(set(ids)) != len(ids):
        raise ValueError(
            "duplicate record ids: " + ", ".join(sorted({i for i in ids if ids.count(i) > 1})[:5])
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as gz:
        for r in sorted(records, key=lambda r: r["id"]):
            gz.write((json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n").encode())
    out.write_bytes(buf.getvalue())


LICENCE_FILES = {  # source licence file -> its copy beside the corpus (the licences ask redistributions to carry them)
    "blink": ("LICENSE", "LICENSE-BLINK_Benchmark.txt"),
    "mathvista": ("LICENSE", "LICENSE-MathVista.txt"),
    "hallusionbench": ("LICENSE.md", "LICENSE-HallusionBench.md"),
}


def copy_licences(mirrors: dict[str, Path], folder: Path) -> None:
    """Copy each source repository's licence file, as it stands at the mirror's HEAD, into ``folder``."""
    for name, mirror in mirrors.items():
        source, target = LICENCE_FILES[name]
        (folder / target).write_bytes(_git(mirror, "show", f"{_head(mirror)}:{source}"))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--blink", type=Path, required=True, help="bare git mirror of zeyofu/BLINK_Benchmark")
    ap.add_argument("--mathvista", type=Path, required=True, help="bare git mirror of lupantech/MathVista")
    ap.add_argument(
        "--hallusionbench", type=Path, required=True, help="bare git mirror of tianyi-lab/HallusionBench"
    )
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument(
        "--blink-per-model", type=int, default=None, help="seeded sample per model (default: all)"
    )
    ap.add_argument("--seed", type=int, default=SEED)
    args = ap.parse_args(argv)
    records = blink(args.blink, args.blink_per_model, args.seed) + mathvista(args.mathvista)
    records += hallusionbench(args.hallusionbench)
    write(records, args.out)
    copy_licences(
        {"blink": args.blink, "mathvista": args.mathvista, "hallusionbench": args.hallusionbench},
        args.out.parent,
    )
    print(f"{len(records)} records -> {args.out} ({args.out.stat().st_size / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
