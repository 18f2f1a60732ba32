"""The rows every exporter writes (`plates.integrations.rows`): exactly the runner's plan and requests, one row per
(item, condition, prompt), the PNG a model is sent, the one schema, config names, and few-shot refused."""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pytest
from PIL import Image

from plates.cli import build_parser
from plates.cli.run import build_experiment
from plates.integrations.rows import COLUMNS, SCHEMA, config_name, export_rows
from plates.runs.builder import prepared
from plates.runs.experiment import ConditionSpec
from plates.runs.plan import load_items, plan
from plates.tasks import question_from_json


def _experiment(*extra: str):
    args = [
        "run",
        "--dataset",
        "colorblindnesseval",
        "--prompt",
        "cbe-open",
        "--limit",
        "3",
        "--size",
        "96",
        "--backend",
        "baseline",
        "--out",
        "x",
        *extra,
    ]
    return build_experiment(build_parser().parse_args(args))


def test_rows_are_the_runners_requests_in_plan_order():
    exp = _experiment("--grayscale", "both")
    items = load_items(exp)
    runner = list(prepared(exp, items, [u for u in plan(exp, items) if u.model == 0]))
    rows = list(export_rows(exp))
    assert len(rows) == len(runner) >= 3
    for row, (unit, query, asked) in zip(rows, runner, strict=True):
        v = row.values
        assert set(v) == set(COLUMNS)
        sent = np.asarray(Image.open(io.BytesIO(v["image"]["bytes"])).convert("RGB"))
        assert np.array_equal(sent, np.asarray(query.turns[-1].images[0])), (
            "the PNG decodes to the sent pixels"
        )
        assert v["image"]["path"] == f"{v['sample_id']}.png"
        assert v["question"] == asked.question.text and v["expected"] == asked.question.expected
        assert question_from_json(v["question_json"]) == asked.question
        assert v["config"] == config_name(unit.prompt, unit.condition)
        assert v["grayscale"] == unit.condition.grayscale and v["image_size"] == 96
        assert v["item_id"] == asked.item_id and v["spec_json"] == asked.spec_json
        assert v["group"] == asked.group
    assert len({r.values["sample_id"] for r in rows}) == len(rows)
    assert {r.values["grayscale"] for r in rows} == {True, False}


def test_rows_make_a_table_of_the_export_schema():
    rows = [r.values for r in export_rows(_experiment())]
    table = pa.Table.from_pylist(rows, schema=SCHEMA)
    assert table.num_rows == len(rows) >= 1 and table.schema.equals(SCHEMA)
    assert table.column("colour_set").to_pylist() == table.column("group").to_pylist()


def test_few_shot_rows_are_refused_before_any_row():
    with pytest.raises(ValueError, match="allowed: shots = 0"):
        next(export_rows(_experiment("--shots", "1")))


@pytest.mark.parametrize(
    ("condition", "name"),
    [
        (ConditionSpec(), "cbe-open"),
        (ConditionSpec(text_only=True), "cbe-open-text-only"),
        (ConditionSpec(hue_shift=22.5), "cbe-open-hue22.5"),
        (ConditionSpec(cvd="protan", cvd_severity=1.0), "cbe-open-protan1"),
    ],
)
def test_config_names_carry_only_the_non_default_settings(condition, name):
    assert config_name("cbe-open", condition) == name
