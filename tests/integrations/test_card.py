"""The dataset card of an exported set (`plates.integrations.card`): the front matter the Hub reads (parsed
back with YAML), the papers of the experiment's prompts with their citations, the protocol's settings and the
command quoted to regenerate the set."""

from __future__ import annotations

import yaml

from plates import __version__
from plates.integrations.card import CITATIONS, dataset_card, papers_of
from plates.runs.experiment import parse_experiment
from plates.stimuli import ENGINE_VERSION
from plates.tasks.prompts import PAPERS

FEATURES = {"image": {"_type": "Image"}, "question": {"_type": "Value", "dtype": "string"},
            "delta_e": {"_type": "Value", "dtype": "float64"}}


def _experiment(*prompts: str, dataset: str = "colorblindnesseval"):
    return parse_experiment({"prompts": list(prompts), "out": "x", "dataset": {"source": dataset},
                             "models": [{"backend": "baseline", "model": "baseline-cnn"}]})


def _front_matter(card: str) -> dict:
    assert card.startswith("---\n")
    return yaml.safe_load(card.split("---\n")[1])


def test_every_paper_has_a_citation():
    assert set(CITATIONS) == set(PAPERS)


def test_papers_follow_the_prompts_order_once_each_and_skip_our_own_prompts():
    assert papers_of(_experiment("huemanity-numeric", "plain-open", "cbe-open", "huemanity-alnum")) == [
        "HueManity", "ColorBlindnessEval"]
    assert papers_of(_experiment("plain-open")) == []


def test_front_matter_lists_each_config_with_its_rows_bytes_and_features():
    rows = {"cbe-open-size900": 12, "cbe-open-gray": 3}
    card = dataset_card(_experiment("cbe-open"), rows, FEATURES, command="plates export hf x",
                        split="validation", sizes={"cbe-open-size900": 2048})
    meta = _front_matter(card)
    assert meta["license"] == "mit" and meta["pretty_name"] == "plates: colorblindnesseval"
    assert meta["size_categories"] == ["n<1K"]
    assert [c["config_name"] for c in meta["configs"]] == list(rows)
    assert meta["configs"][0]["default"] is True and "default" not in meta["configs"][1]
    assert meta["configs"][1]["data_files"] == [{"split": "validation", "path": "data/cbe-open-gray/*.parquet"}]
    info = {c["config_name"]: c for c in meta["dataset_info"]}
    assert info["cbe-open-size900"]["splits"] == [{"name": "validation", "num_bytes": 2048, "num_examples": 12}]
    assert info["cbe-open-gray"]["splits"][0]["num_bytes"] == 0  # no size given: 0 bytes
    assert info["cbe-open-gray"]["features"] == [{"name": "image", "dtype": "image"},
                                                  {"name": "question", "dtype": "string"},
                                                  {"name": "delta_e", "dtype": "float64"}]
    assert "| `cbe-open-size900` | 12 |" in card and "| `cbe-open-gray` | 3 |" in card


def test_size_categories_follow_the_total_rows():
    exp = _experiment("cbe-open")
    for total, category in ((999, "n<1K"), (1_000, "1K<n<10K"), (99_999, "10K<n<100K"), (100_000, "100K<n<1M")):
        card = dataset_card(exp, {"a": total}, FEATURES, command="c")
        assert _front_matter(card)["size_categories"] == [category], total


def test_body_cites_the_papers_quotes_the_command_and_the_versions():
    command = "plates export hf --dataset colorblindnesseval --prompt cbe-open --out 'my set'"
    card = dataset_card(_experiment("cbe-open", "huemanity-numeric"), {"a": 1}, FEATURES, command=command)
    assert f"- ColorBlindnessEval: {CITATIONS['ColorBlindnessEval']}" in card
    assert f"- HueManity: {CITATIONS['HueManity']}" in card and "RCID" not in card.split("## Papers")[1]
    assert f"## Regenerate\n\n```\n{command}\n```" in card
    assert f"plates {__version__} (stimulus engine {ENGINE_VERSION})" in card
    assert "temperature 0, at most" in card and "(protocol: plates)" in card
    own = dataset_card(_experiment("plain-open"), {"a": 1}, FEATURES, command="c")
    assert "- none: the prompts are this project's own." in own
