"""Illusions and scenes end to end: family presets through `plates run` against a real HTTP
server, rows in Parquet, and the papers' metrics computed from them."""

from __future__ import annotations

import base64
import hashlib
import io

import numpy as np
from PIL import Image

from plates.analysis.colorbench import robustness
from plates.analysis.illusions import rcid_table
from plates.analysis.truth import with_truth
from plates.cli import main
from plates.results import load_results
from tests.support.chat_server import ChatServer, image_urls, last_user_text


def _run(tmp_path, dataset, prompts, answer, limit):
    with ChatServer(answer=answer, models=("m",)) as server:
        for prompt in prompts:
            code = main(["run", "--dataset", dataset, "--prompt", prompt, "--backend", "openai", "--model", "m",
                         "--base-url", server.url, "--no-api-key", "--limit", str(limit), "--no-progress",
                         "--out", str(tmp_path / "out")])
            assert code == 0
        bodies = [r.body for r in server.records] if hasattr(server.records[0], "body") else []
    return load_results(tmp_path / "out").frame, bodies


def test_rcid_both_framings_and_their_metrics(tmp_path):
    """A model that always answers 'They are exactly same' (III): No-illusion on identical targets (the pixels
    are equal), never Human-like; right on controls whose targets are equal, wrong on the others."""
    frame, _ = _run(tmp_path, "rcid-contrast", ["rcid-compare-pixel", "rcid-compare-human"], lambda body: "III", 16)
    assert len(frame) == 32 and set(frame["family"]) == {"illusion"} and set(frame["task"]) == {"rcid-compare"}
    facts = with_truth(frame)
    assert set(facts["answer"]) == {"same"}
    table = rcid_table(facts, by=["framing"])
    for _, row in table.iterrows():
        assert row["illusion_n"] > 0 and row["human_like"] == 0.0 and row["no_illusion"] == 1.0
        assert 0 < row["control_accuracy"] < 1


def test_images_reach_the_model_as_the_exact_pixels(tmp_path):
    """Lossless transport: the PNG the server receives decodes to the rendered pixels (JPEG would not)."""
    from plates.datasets import load_dataset

    seen = []

    def keep(body):
        seen.append(np.asarray(Image.open(io.BytesIO(base64.b64decode(image_urls(body)[-1].split(",", 1)[1])))))
        return "I"

    _run(tmp_path, "illusions-classic", ["rcid-compare-pixel"], keep, 3)
    items = load_dataset("illusions-classic", limit=3)
    digest = lambda a: hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()  # noqa: E731
    assert len(seen) == 3  # requests arrive concurrently, in any order
    assert sorted(map(digest, seen)) == sorted(digest(np.asarray(i.image())) for i in items)


def test_colorbench_robustness_on_a_scripted_model(tmp_path):
    """One seed scene and its nine recoloured variants, one shape-counting question: a model right on every
    image is robust; the rows carry which variant each image was."""
    def right(body):
        text = last_user_text(body)
        return "(A)" if "(A)" in text else "A"

    frame, _ = _run(tmp_path, "colorbench-robustness", ["colorbench-shape-counting"], right, 10)
    facts = with_truth(frame)
    assert len(facts) == 10 and set(facts["family"]) == {"scene", "scene-recolour"}
    assert sorted(facts["recolour"])[:1] == ["image-180"] and "seed" in set(facts["recolour"])
    assert facts["colour_set"].isna().all()  # a scene has no colour set: its seed scene is its group
    facts["seed_id"] = facts["group"]
    table = robustness(facts)
    assert len(table) >= 1
