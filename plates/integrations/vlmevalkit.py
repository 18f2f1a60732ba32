"""VLMEvalKit: the TSV it reads and a dataset class that keeps the images PNG and scores with our rules.

    plates export vlmevalkit --dataset huemanity-numeric --prompt huemanity-numeric --out ~/LMUData
    # copy ~/LMUData/plates_dataset.py into vlmeval/dataset/ and list PlatesDataset in vlmeval/dataset/__init__.py
    python run.py --data plates --model <model> --mode all

The TSV (``<name>.tsv`` in ``$LMUData``) has VLMEvalKit's columns: ``index``, ``image`` (base64 of the PNG a
model is sent), ``question`` (the prompt text exactly as `plates run` sends it, options included), ``answer``
(the expected answer), option columns ``A``, ``B``, ... for multiple-choice rows and ``category`` (the config:
prompt x condition), then ``sample_id``, ``item_id``, ``prompt_name`` and ``question_json`` for our scorer.

Why the class matters: VLMEvalKit's ``ImageBaseDataset.dump_image`` writes every TSV image to ``{index}.jpg``
with PIL's defaults (JPEG quality 75). On a 512 px plate at CIEDE2000 2 that JPEG differs from the PNG by a
per-pixel CIEDE2000 of 5.75 on average (95th percentile 14.2, max 31.7): the noise is several times the
colour difference under test. ``PlatesDataset.dump_image`` writes the decoded bytes unchanged to
``{index}.png``; ``build_prompt`` sends the image and the question as exported (VLMEvalKit's MCQ classes would
append their own option text); ``evaluate`` judges each prediction with the row's task scorer
(`score_predictions`) and reports accuracy with its Wilson 95% interval per category.
"""

from __future__ import annotations

import base64
import csv
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from plates.analysis.metrics import wilson_interval
from plates.integrations.rows import export_rows
from plates.runs.experiment import Experiment
from plates.storage import temporary_name, write_atomic, written_in_place
from plates.tasks import get_task, question_from_json

__all__ = ["TSV_COLUMNS", "export_vlmevalkit", "score_predictions", "write_png"]

#: The TSV's leading columns (VLMEvalKit's), then the option letters a set uses, then `OUR_COLUMNS`.
TSV_COLUMNS = ("index", "image", "question", "answer")
OUR_COLUMNS = ("category", "sample_id", "item_id", "prompt_name", "question_json")
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")

CLASS_FILE = '''"""plates for VLMEvalKit: copy into vlmeval/dataset/ and add PlatesDataset to IMAGE_DATASET in
vlmeval/dataset/__init__.py. Needs the plates package importable (pip install -e . in a checkout of
its repository; the 'plates' package on PyPI is an unrelated project). Written by
`plates export vlmevalkit`; see plates.integrations.vlmevalkit for why the images stay PNG."""

import os

from plates.integrations.vlmevalkit import score_predictions, write_png
from vlmeval.dataset.image_base import ImageBaseDataset

DATASETS = {datasets!r}


class PlatesDataset(ImageBaseDataset):
    TYPE = "VQA"
    MODALITY = "IMAGE"
    DATASET_URL = {{name: "" for name in DATASETS}}
    DATASET_MD5 = {{name: None for name in DATASETS}}

    @classmethod
    def supported_datasets(cls):
        return list(DATASETS)

    def load_data(self, dataset):
        import pandas as pd

        root = os.environ.get("LMUData", os.path.join(os.path.expanduser("~"), "LMUData"))
        return pd.read_csv(os.path.join(root, f"{{dataset}}.tsv"), sep="\\t", dtype=str, keep_default_na=False)

    def dump_image(self, line):
        """The PNG bytes as exported, to {{index}}.png: never VLMEvalKit's default JPEG."""
        return [write_png(line["image"], os.path.join(self.img_root, f"{{line['index']}}.png"))]

    def build_prompt(self, line):
        if isinstance(line, int):
            line = self.data.iloc[line]
        return [*(dict(type="image", value=p) for p in self.dump_image(line)),
                dict(type="text", value=line["question"])]

    def evaluate(self, eval_file, **judge_kwargs):
        return score_predictions(eval_file)
'''


def write_png(b64: str, path: str | os.PathLike) -> str:
    """Write a base64 PNG byte for byte (no decode, no re-encode).

    Parameters
    ----------
    b64 : str
        The PNG's base64, as the TSV holds it.
    path : str or os.PathLike
        Where to write it.

    Returns
    -------
    str
        ``path``.

    Raises
    ------
    ValueError
        The data is not a PNG.
    """
    data = base64.b64decode(b64, validate=True)
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        raise ValueError(f"the image of {str(path)!r} is not a PNG; allowed: a TSV written by `plates export "
                         "vlmevalkit`")
    path = Path(path)
    if not (path.is_file() and path.read_bytes() == data):
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(data, path)  # whole or not at all, fsynced; no temporary left behind
    return str(path)


def _read(path: str | os.PathLike) -> pd.DataFrame:
    suffix = Path(path).suffix.lower()
    if suffix == ".xlsx":
        return pd.read_excel(path, dtype=str, keep_default_na=False)
    if suffix in (".tsv", ".csv"):
        return pd.read_csv(path, sep="\t" if suffix == ".tsv" else ",", dtype=str, keep_default_na=False)
    if suffix == ".jsonl":
        return pd.read_json(path, lines=True, dtype=str)
    raise ValueError(f"prediction file {str(path)!r}: allowed: .xlsx, .tsv, .csv or .jsonl (VLMEvalKit's outputs)")


def score_predictions(eval_file: str | os.PathLike) -> pd.DataFrame:
    """Judge VLMEvalKit's predictions with each row's task scorer.

    Writes ``<eval_file stem>_plates_scored.tsv`` (verdict, parsed answer, parse status, failure mode, rule
    per row) beside ``eval_file``.

    Parameters
    ----------
    eval_file : str or os.PathLike
        VLMEvalKit's output (.xlsx, .tsv, .csv or .jsonl): our TSV's columns plus ``prediction``.

    Returns
    -------
    pandas.DataFrame
        ``category, n, accuracy, ci_low, ci_high`` per category and "Overall" (Wilson 95%).

    Raises
    ------
    ValueError
        Another file type, or a file without ``question_json``, ``prediction`` or ``category``.

    References
    ----------
    Wilson (1927), *J. Am. Stat. Assoc.* 22(158): 209-212.
    """
    frame = _read(eval_file)
    missing = [c for c in ("question_json", "prediction", "category") if c not in frame.columns]
    if missing:
        raise ValueError(f"{str(eval_file)!r} lacks column(s) {', '.join(missing)}; allowed: VLMEvalKit's "
                         "predictions on a TSV written by `plates export vlmevalkit`")
    verdicts = []
    for qjson, reply in zip(frame["question_json"], frame["prediction"]):
        q = question_from_json(qjson)
        verdicts.append(get_task(q.task).score(q, str(reply)))
    scored = frame.drop(columns=[c for c in ("image",) if c in frame.columns]).assign(
        correct=[v.correct for v in verdicts], parsed=[v.parsed for v in verdicts],
        parse_status=[v.parse_status for v in verdicts], failure_mode=[v.failure_mode for v in verdicts],
        rule=[v.rule for v in verdicts])
    out = Path(eval_file)
    scored.to_csv(out.with_name(f"{out.stem}_plates_scored.tsv"), sep="\t", index=False)
    rows = []
    for category, group in [*scored.groupby("category", sort=True), ("Overall", scored)]:
        k, n = int(group["correct"].sum()), len(group)
        low, high = wilson_interval(k, n)
        rows.append({"category": category, "n": n, "accuracy": k / n, "ci_low": low, "ci_high": high})
    return pd.DataFrame(rows)


def export_vlmevalkit(exp: Experiment, out: str | os.PathLike, *, name: str = "plates",
                      items: Sequence[Any] | None = None) -> int:
    """Write ``out/<name>.tsv`` (the runner's rows of ``exp``) and ``out/plates_dataset.py`` (the class). An
    existing TSV of that name is replaced atomically.

    Parameters
    ----------
    exp : Experiment
        The experiment whose rows are exported.
    out : str or os.PathLike
        The folder.
    name : str
        The dataset's name in VLMEvalKit.
    items : sequence or None
        Replaces the dataset loader (`plates.runs.plan.load_items`).

    Returns
    -------
    int
        Rows written.

    Raises
    ------
    ValueError
        Few-shot rows (`plates.integrations.rows.export_rows`).
    """
    if not _NAME.match(name):
        raise ValueError(f"--name {name!r} is not allowed; allowed: a letter, then letters, digits or '_' "
                         "(a VLMEvalKit dataset name)")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    letters: list[str] = []
    tmp_images = temporary_name(out / f"{name}.images")
    # two passes over the rows would render every image twice: keep the base64 on disk, one line per row
    with open(tmp_images, "w", encoding="ascii") as images:
        for row in export_rows(exp, items):
            v = row.values
            options = json.loads(v["options_json"]) if v["options_json"] else {}
            letters += [k for k in options if k not in letters]
            rows.append({"question": v["question"], "answer": v["expected"], **options, "category": v["config"],
                         "sample_id": v["sample_id"], "item_id": v["item_id"], "prompt_name": v["prompt_name"],
                         "question_json": v["question_json"]})
            images.write(base64.b64encode(v["image"]["bytes"]).decode("ascii") + "\n")
    if not rows:
        tmp_images.unlink()
        raise ValueError(f"the experiment plans no rows for dataset {exp.dataset!r}; allowed: a dataset, prompts "
                         "and limit that ask at least one item")
    columns = [*TSV_COLUMNS, *sorted(letters), *OUR_COLUMNS]
    with written_in_place(out / f"{name}.tsv") as tmp, open(tmp, "w", newline="", encoding="utf-8") as fh, \
            open(tmp_images, encoding="ascii") as images:
        writer = csv.DictWriter(fh, columns, delimiter="\t", lineterminator="\n")
        writer.writeheader()
        for index, (r, image) in enumerate(zip(rows, images)):
            writer.writerow({**r, "index": index, "image": image.rstrip("\n")})
    tmp_images.unlink()
    (out / "plates_dataset.py").write_text(CLASS_FILE.format(datasets=(name,)), encoding="utf-8")
    return len(rows)
