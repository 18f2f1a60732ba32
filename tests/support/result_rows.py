"""One results row as a dict for `plates.results.rows_to_table` / `ResultsWriter.add`: run "r", model "m", key
``k<i>``, correct on even ``i``; ``extra`` overrides or adds columns."""

from __future__ import annotations

from datetime import UTC, datetime


def result_row(i: int, **extra) -> dict:
    return {"run_id": "r", "item_id": f"item-{i}", "model": "m", "row_key": f"k{i}", "correct": i % 2 == 0,
            "timestamp": datetime(2026, 1, 1, tzinfo=UTC), **extra}


def plate_asked(i: int = 0, prompt: str = "cbe-open", *, run_id: str = "colorblindnesseval-0123456789ab", **changes):
    """What a ColorBlindnessEval plate question's row records besides the reply (`plates.runs.rows.Asked`): the
    prompt ``prompt`` rendered for target "12" with seed ``i``, key ``key-<i>``, item ``item-<i>``, model "m" on
    the openai backend; ``changes`` override any field."""
    from plates.runs.rows import Asked
    from plates.tasks.prompts import render_prompt

    fields = dict(run_id=run_id, row_key=f"key-{i}", item_id=f"item-{i}", dataset="colorblindnesseval", model="m",
                  backend="openai", question=render_prompt(prompt, "12", seed=i, label_space="cbe"),
                  spec_json=f'{{"seed": {i}}}', family="ishihara")
    fields.update(changes)
    return Asked(**fields)
