"""`plates export vlmevalkit`: the TSV VLMEvalKit reads, and its dataset class's logic.

VLMEvalKit is not installable from the package registry, so its dataset base class is replaced here by a
stand-in that does what the real ``ImageBaseDataset.__init__`` does for a TSV of ours (name, image folder under
``$LMUData/images``, ``load_data``); a run of VLMEvalKit itself (its model loop, its registration of the class)
is not tested.
"""

import base64
import hashlib
import importlib.util
import io
import sys

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from plates.cli import build_parser, main
from plates.cli.run import build_experiment
from plates.integrations.rows import export_rows
from plates.runs.builder import prepared
from plates.runs.plan import load_items, plan
from plates.tasks import get_task, question_from_json

BASE = '''
import os


class ImageBaseDataset:
    MODALITY = "IMAGE"

    def __init__(self, dataset="MMBench", skip_noimg=True):
        self.dataset_name = dataset
        self.img_root = os.path.join(os.environ["LMUData"], "images", dataset)
        self.data = self.load_data(dataset)
'''


@pytest.fixture
def vlmeval(tmp_path, monkeypatch):
    root = tmp_path / "fake"
    (root / "vlmeval" / "dataset").mkdir(parents=True)
    (root / "vlmeval" / "__init__.py").write_text("")
    (root / "vlmeval" / "dataset" / "__init__.py").write_text("")
    (root / "vlmeval" / "dataset" / "image_base.py").write_text(BASE)
    monkeypatch.syspath_prepend(str(root))
    yield
    for name in [m for m in sys.modules if m == "vlmeval" or m.startswith("vlmeval.")]:
        del sys.modules[name]


def test_the_tsv_holds_the_runners_rows_as_png(tmp_path):
    args = ["--dataset", "colorblindnesseval", "--prompt", "colorbench-mc", "--limit", "8", "--size", "200"]
    assert main(["export", "vlmevalkit", *args, "--out", str(tmp_path), "--name", "plates_cb"]) == 0
    tsv = pd.read_csv(tmp_path / "plates_cb.tsv", sep="\t", dtype=str, keep_default_na=False)
    exp = build_experiment(build_parser().parse_args(["run", *args, "--backend", "baseline", "--out", "x"]))
    items = load_items(exp)
    runner = list(prepared(exp, items, [u for u in plan(exp, items) if u.model == 0]))
    assert len(tsv) == len(runner) == 4
    assert list(tsv.columns[:4]) == ["index", "image", "question", "answer"]
    assert {"A", "B", "C", "D", "category"} <= set(tsv.columns)
    exported = list(export_rows(exp))
    for (_, row), (_u, query, asked), ex in zip(tsv.iterrows(), runner, exported):
        png = base64.b64decode(row["image"])
        assert png.startswith(b"\x89PNG") and png == ex.values["image"]["bytes"]
        assert np.array_equal(np.asarray(Image.open(io.BytesIO(png)).convert("RGB")),
                              np.asarray(query.turns[-1].images[0]))
        q = asked.question
        assert row["question"] == q.text and row["answer"] == q.expected
        assert {k: row[k] for k in q.options} == q.options and row["category"] == "colorbench-mc-size200"


def test_the_dataset_class_dumps_png_and_scores_with_our_rules(tmp_path, monkeypatch, vlmeval):
    monkeypatch.setenv("LMUData", str(tmp_path / "lmu"))
    assert main(["export", "vlmevalkit", "--dataset", "colorblindnesseval", "--prompt", "cbe-open", "--limit", "8",
                 "--out", str(tmp_path / "lmu")]) == 0
    spec = importlib.util.spec_from_file_location("plates_dataset", tmp_path / "lmu" / "plates_dataset.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.PlatesDataset.supported_datasets() == ["plates"]
    ds = module.PlatesDataset("plates")
    tsv = ds.data
    msgs = ds.build_prompt(0)
    assert [m["type"] for m in msgs] == ["image", "text"] and msgs[1]["value"] == tsv.iloc[0]["question"]
    assert msgs[0]["value"].endswith("0.png")  # PNG, never VLMEvalKit's default {index}.jpg
    with open(msgs[0]["value"], "rb") as fh:
        assert hashlib.sha256(fh.read()).digest() == hashlib.sha256(base64.b64decode(tsv.iloc[0]["image"])).digest()

    replies = [f"The number is {a}." if i % 2 == 0 else "I cannot see a number." for i, a in enumerate(tsv["answer"])]
    predictions = tsv.assign(prediction=replies)
    predictions.to_csv(tmp_path / "model_plates.tsv", sep="\t", index=False)
    summary = ds.evaluate(str(tmp_path / "model_plates.tsv")).set_index("category")
    ours = [get_task(question_from_json(q).task).score(question_from_json(q), r).correct
            for q, r in zip(tsv["question_json"], replies)]
    assert summary.loc["Overall", "n"] == 4 and summary.loc["Overall", "accuracy"] == pytest.approx(np.mean(ours))
    assert summary.loc["Overall", "accuracy"] == pytest.approx(0.5)
    scored = pd.read_csv(tmp_path / "model_plates_plates_scored.tsv", sep="\t")
    assert list(scored["correct"]) == ours and "image" not in scored.columns
    assert set(scored.loc[~scored["correct"], "failure_mode"]) == {"evasion"}
    with pytest.raises(ValueError, match="lacks column"):
        ds.evaluate(str(tmp_path / "lmu" / "plates.tsv"))  # no predictions in it
