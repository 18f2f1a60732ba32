"""`plates export hf`: the runner's own rows, the PNG a model is sent, reloaded by the real `datasets`."""

import hashlib
import json

import numpy as np
import pyarrow.parquet as pq
import pytest
import yaml

from plates.cli import build_parser, main
from plates.cli.run import build_experiment
from plates.conditions import apply_condition
from plates.datasets import load_dataset as plates_load
from plates.datasets.generate import generate
from plates.runs.builder import prepared
from plates.runs.experiment import ConditionSpec
from plates.runs.plan import load_items, plan
from plates.tasks import get_task, question_from_json

datasets = pytest.importorskip("datasets")


def _run_rows(argv):
    """What `plates run` plans for the same arguments: (unit, query, asked) of its first model."""
    exp = build_experiment(build_parser().parse_args(["run", *argv, "--backend", "baseline", "--out", "unused"]))
    items = load_items(exp)
    units = [u for u in plan(exp, items) if u.model == 0]
    return items, list(prepared(exp, items, units))


def _load(folder, config):
    return datasets.load_dataset("parquet", data_files={"test": str(folder / "data" / config / "*.parquet")},
                                 split="test", cache_dir=str(folder.parent / "hf-cache"))


def _sha(data):
    return hashlib.sha256(data).hexdigest()


def test_export_is_the_runners_plan_with_the_png_sent(tmp_path, capsys):
    args = ["--dataset", "colorblindnesseval", "--prompt", "cbe-open", "--limit", "12"]
    assert main(["export", "hf", *args, "--out", str(tmp_path / "cbe")]) == 0
    items, runner = _run_rows(args)
    # CBE stores each plate twice (standard and clear): the open prompt asks the 6 standard ones, not all 12
    assert len(items) == 12 and len(runner) == 6

    ds = _load(tmp_path / "cbe", "cbe-open")
    assert len(ds) == len(runner)
    raw = ds.cast_column("image", datasets.Image(decode=False))
    written = pq.read_table(next((tmp_path / "cbe" / "data" / "cbe-open").glob("*.parquet")))
    for row, decoded, (_unit, query, asked), stored in zip(raw, ds, runner, written.column("image").to_pylist()):
        assert row["item_id"] == asked.item_id and row["question"] == asked.question.text
        assert row["expected"] == asked.question.expected and row["prompt_name"] == "cbe-open"
        assert _sha(row["image"]["bytes"]) == _sha(stored["bytes"])  # `datasets` hands back the bytes written
        sent = np.asarray(query.turns[-1].images[0])
        assert np.array_equal(np.asarray(decoded["image"].convert("RGB")), sent)
        assert question_from_json(row["question_json"]) == asked.question
        assert json.loads(row["spec_json"]) == json.loads(asked.spec_json)
    # every manifest column is there, and each row regenerates and scores with our rules
    task = get_task("cbe-open")
    first = raw[0]
    assert task.score(question_from_json(first["question_json"]), f"The number is {first['expected']}.").correct
    assert "rows in 1 config" in capsys.readouterr().out


def test_conditions_reencode_to_the_pixels_the_model_gets(tmp_path):
    toml = tmp_path / "exp.toml"
    toml.write_text('prompts = ["huemanity-numeric"]\nout = "x"\n[dataset]\nsource = "DATA"\nlimit = 3\n'
                    '[conditions]\nsizes = [48]\ngrayscale = [false, true]\n[[models]]\nbackend = "baseline"\n'
                    'model = "baseline-cnn"\n'.replace("DATA", str(tmp_path / "data")))
    generate("huemanity-numeric", tmp_path / "data", limit=3, size=64, workers=1, progress=False)
    assert main(["export", "hf", str(toml), "--out", str(tmp_path / "hf")]) == 0
    card = (tmp_path / "hf" / "README.md").read_text()
    meta = yaml.safe_load(card.split("---")[1])
    names = [c["config_name"] for c in meta["configs"]]
    assert names == ["huemanity-numeric-size48", "huemanity-numeric-size48-gray"]
    items = plates_load(tmp_path / "data", limit=3)
    for config, gray in zip(names, (False, True)):
        ds = _load(tmp_path / "hf", config)
        assert len(ds) == 3 and ds[0]["image"].size == (48, 48) and ds[0]["grayscale"] is gray
        for row, item in zip(ds, items):
            assert row["item_id"] == item.item_id
            want = apply_condition(item.image(), ConditionSpec(size=48, grayscale=gray).to_condition())
            assert np.array_equal(np.asarray(row["image"]), np.asarray(want))
    # the card: licence, task categories, features, the paper and the command that regenerates the folder
    assert meta["license"] == "mit" and "visual-question-answering" in meta["task_categories"]
    assert {"name": "image", "dtype": "image"} in meta["dataset_info"][0]["features"]
    assert "HueManity: Probing Fine-Grained Visual Perception in MLLMs" in card
    assert f"plates export hf {toml} --out {tmp_path / 'hf'}" in card
    # without a condition, a stored plate travels as its file's bytes
    assert main(["export", "hf", "--dataset", str(tmp_path / "data"), "--prompt", "huemanity-numeric",
                 "--out", str(tmp_path / "plain")]) == 0
    raw = _load(tmp_path / "plain", "huemanity-numeric").cast_column("image", datasets.Image(decode=False))
    assert [_sha(r["image"]["bytes"]) for r in raw] == [_sha(i.path.read_bytes()) for i in items]
    # the folder as a whole loads by its card's configs
    whole = datasets.load_dataset(str(tmp_path / "hf"), "huemanity-numeric-size48-gray", split="test",
                                  cache_dir=str(tmp_path / "hf-cache2"))
    assert len(whole) == 3


def test_regenerating_writes_the_same_bytes_and_small_shards(tmp_path):
    args = ["export", "hf", "--dataset", "huemanity-numeric", "--prompt", "huemanity-numeric", "--limit", "5",
            "--size", "64", "--shard-mb", "1"]
    assert main([*args, "--out", str(tmp_path / "a")]) == 0
    assert main([*args, "--out", str(tmp_path / "b")]) == 0
    files_a = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*.parquet"))
    assert files_a == sorted(p.relative_to(tmp_path / "b") for p in (tmp_path / "b").rglob("*.parquet"))
    for rel in files_a:
        assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes()
    from plates.integrations.hf_dataset import write_rows
    from plates.integrations.rows import export_rows

    exp = build_experiment(build_parser().parse_args(["run", *args[2:-2], "--backend", "baseline", "--out", "x"]))
    summary = write_rows(export_rows(exp), tmp_path / "c", shard_bytes=1)  # every image past the bound: 1 per shard
    assert summary.shards["huemanity-numeric-size64"] == [
        f"data/huemanity-numeric-size64/test-{i:05d}-of-00005.parquet" for i in range(5)]
    assert len(_load(tmp_path / "c", "huemanity-numeric-size64")) == 5


def test_bad_input_is_refused(tmp_path, capsys):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("")
    assert main(["export", "hf", "--dataset", "colorblindnesseval", "--prompt", "cbe-open", "--limit", "2",
                 "--out", str(tmp_path / "full")]) == 2
    assert "not an empty folder" in capsys.readouterr().err
    assert main(["export", "hf", "--dataset", "colorblindnesseval", "--prompt", "cbe-open", "--limit", "2",
                 "--shots", "1", "--out", str(tmp_path / "s")]) == 2
    assert "allowed: shots = 0" in capsys.readouterr().err


def test_push_to_hub_stops_at_the_upload_with_the_token_from_the_environment(tmp_path, monkeypatch, capsys):
    from huggingface_hub import HfApi

    calls = []
    monkeypatch.setattr(HfApi, "create_repo", lambda self, repo_id, **kw: calls.append(("create", repo_id, kw)))
    monkeypatch.setattr(HfApi, "upload_folder",
                        lambda self, **kw: calls.append(("upload", self.token, kw)) or "commit")
    args = ["export", "hf", "--dataset", "colorblindnesseval", "--prompt", "cbe-open", "--limit", "2",
            "--push-to-hub", "someone/plates-cbe", "--token-env", "PLATES_TEST_HF_TOKEN"]
    monkeypatch.delenv("PLATES_TEST_HF_TOKEN", raising=False)
    assert main([*args, "--out", str(tmp_path / "a")]) == 2
    assert "PLATES_TEST_HF_TOKEN is not set" in capsys.readouterr().err and not calls
    monkeypatch.setenv("PLATES_TEST_HF_TOKEN", "hf_secret_value_123")
    assert main([*args, "--out", str(tmp_path / "b")]) == 0
    assert calls[0] == ("create", "someone/plates-cbe", {"repo_type": "dataset", "private": False, "exist_ok": True})
    assert calls[1] == ("upload", "hf_secret_value_123", {"repo_id": "someone/plates-cbe",
                        "folder_path": str(tmp_path / "b"), "repo_type": "dataset",
                        "commit_message": "plates export hf"})
    for path in (tmp_path / "b").rglob("*"):  # the token is never written
        assert not path.is_file() or b"hf_secret_value_123" not in path.read_bytes()


def test_generated_folders_load_as_a_datasets_imagefolder_and_old_ones_still_load(tmp_path):
    from plates.datasets.family_presets import FAMILY_PRESETS
    from plates.datasets.write import Entry, write_items

    generate("colorblindnesseval", tmp_path / "cbe", limit=2, size=64, workers=1, progress=False)
    preset = FAMILY_PRESETS["rcid-contrast"]
    entries = [Entry(e.item_id, e.spec, e.variant, e.label, e.group, e.question)
               for e, _ in zip(preset.entries(size=64, seed=0), range(2))]
    write_items("rcid-contrast", entries, tmp_path / "ill")
    for folder, n in ((tmp_path / "cbe", 4), (tmp_path / "ill", 2)):
        ds = datasets.load_dataset("imagefolder", data_dir=str(folder), split="train",
                                   cache_dir=str(tmp_path / "cache"))
        items = plates_load(folder)
        assert len(ds) == len(items) == n
        by_id = {r["item_id"]: r for r in ds}
        for item in items:  # every manifest column rides along, and the pixels are the stored plate's
            row = by_id[item.item_id]
            assert row["spec_json"] == item.spec.to_json() and row["variant"] == item.variant
            assert np.array_equal(np.asarray(row["image"].convert("RGB")), np.asarray(item.image()))
    # a folder written before the ImageFolder names (no file_name, no metadata.parquet) keeps loading
    old = pq.read_table(tmp_path / "cbe" / "manifest.parquet").drop_columns(["file_name"])
    (tmp_path / "cbe" / "metadata.parquet").unlink()
    pq.write_table(old, tmp_path / "cbe" / "manifest.parquet")
    assert [i.item_id for i in plates_load(tmp_path / "cbe")] == old.column("item_id").to_pylist()


def test_the_scorers_and_exporters_import_without_the_ui_stack_or_torch():
    """Harness environments import our scorer: `plates.tasks` and the integrations pull neither gradio,
    streamlit nor torch (nor datasets or huggingface_hub until a Hub push asks for them)."""
    import subprocess
    import sys

    code = ("import sys, plates.tasks, plates.integrations.rows, plates.integrations.hf_dataset, "
            "plates.integrations.importing, plates.integrations.lmms_eval, plates.integrations.vlmevalkit, "
            "plates.cli.export, plates.cli.importing; "
            "print(sorted(m for m in ('torch', 'gradio', 'streamlit', 'datasets', 'huggingface_hub') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
