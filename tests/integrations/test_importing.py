"""Harness results back in (`plates.integrations.importing`): inspect samples and lmms-eval sample logs read
into `HarnessSample`s (replies, verdicts, errors, skips), and written as one run judged again by our rules.
The inspect samples are the real log's (tests/integrations/data); the lmms-eval logs are written here in its
``--log_samples`` form over a real `plates export hf` folder."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from plates.cli import main
from plates.integrations.exported import read_export
from plates.integrations.importing import (
    MAX_REPLY,
    HarnessSample,
    import_samples,
    inspect_samples,
    lmms_eval_samples,
)
from plates.integrations.inspect_log import read_inspect_log
from plates.results import load_results

LOG = Path(__file__).parent / "data" / "inspect-0.3.285-plates.eval"


def _log_json(tmp_path: Path, name: str, edit) -> Path:
    """The real log as inspect's JSON form, each sample passed through ``edit(index, sample)``."""
    log, samples = read_inspect_log(LOG, via="zip")
    for i, s in enumerate(samples):
        edit(i, s)
    path = tmp_path / name
    path.write_text(json.dumps({**log, "samples": samples}))
    return path


def test_inspect_samples_carry_the_row_reply_verdict_and_model():
    log, raw = read_inspect_log(LOG, via="zip")
    got = list(inspect_samples([LOG]))
    assert len(got) == len(raw) == 2 and all(isinstance(s, HarnessSample) for s in got)
    for s, r in zip(got, raw, strict=True):
        assert s.row == r["metadata"] and s.model == log["eval"]["model"] and s.error is None
        assert s.reply == r["output"]["choices"][0]["message"]["content"]
        assert s.harness_correct == (r["scores"]["plates_scorer"]["value"] == "C")


def test_inspect_replies_verdicts_and_errors_in_every_form(tmp_path):
    def edit(i, s):
        if i == 0:
            s["output"]["choices"][0]["message"]["content"] = [{"type": "reasoning", "reasoning": "hmm"},
                                                              {"type": "text", "text": "x" * (MAX_REPLY + 50)}]
            s["scores"]["plates_scorer"]["value"] = "P"  # partial: no verdict
        else:
            s["error"] = {"message": "boom " + "y" * 900, "traceback": "..."}

    first, second = inspect_samples([_log_json(tmp_path, "forms.json", edit)])
    assert first.reply == "x" * MAX_REPLY and first.harness_correct is None  # text parts kept, bounded
    assert second.reply is None and second.error.startswith("boom ") and len(second.error) == 500


def test_a_sample_without_a_plates_row_is_skipped_and_a_log_with_none_is_refused(tmp_path):
    def drop_first(i, s):
        if i == 0:
            s["metadata"] = {"subject": "x"}

    got = list(inspect_samples([_log_json(tmp_path, "one.json", drop_first)]))
    assert got[0] == "not a plates sample" and isinstance(got[1], HarnessSample)

    def drop_all(i, s):
        s["metadata"] = {}

    with pytest.raises(ValueError, match=r"not of a plates task .*allowed: logs of plates/integrations/inspect_tasks"):
        list(inspect_samples([_log_json(tmp_path, "none.json", drop_all)]))


def test_import_judges_again_counts_and_names_the_run_by_source_and_model(tmp_path):
    samples = [s for s in inspect_samples([LOG])]
    no_reply = HarnessSample(samples[0].row, None, None, "other-model")  # neither a reply nor an error
    summary = import_samples([*samples, "why not", "why not", no_reply], tmp_path, harness="inspect_ai",
                             source="log-a")
    assert summary.run_id.startswith("inspect-ai-") and len(summary.run_id) == len("inspect-ai-") + 12
    assert (summary.written, summary.existing, summary.skipped) == (3, 0, {"why not": 2})
    frame = load_results([tmp_path]).frame
    assert set(frame["run_id"]) == {summary.run_id} and set(frame["harness"]) == {"inspect_ai"}
    assert summary.correct == int(frame["correct"].sum())
    judged = frame[frame["model"] != "other-model"]
    assert summary.agree == int((judged["correct"] == judged["harness_correct"]).sum())
    missing = frame[frame["model"] == "other-model"].iloc[0]
    assert missing["error"] == "no reply" and pd.isna(missing["reply"]) and not missing["correct"]
    again = import_samples(samples, tmp_path, harness="inspect_ai", source="log-a")
    assert again.run_id != summary.run_id  # another set of models: another run
    same = import_samples([*samples, no_reply], tmp_path, harness="inspect_ai", source="log-a")
    assert (same.run_id, same.written, same.existing) == (summary.run_id, 0, 3)
    other = import_samples(samples, tmp_path / "b", harness="inspect_ai", source="log-b")
    assert other.run_id not in (summary.run_id, again.run_id)


@pytest.fixture(scope="module")
def export(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("export") / "cbe"
    assert main(["export", "hf", "--dataset", "colorblindnesseval", "--prompt", "cbe-open", "--limit", "2",
                 "--out", str(out)]) == 0
    return out


def _lmms_log(folder: Path, task: str, lines: list[dict], model_args: str | None = None) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"2026_samples_{task}.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n\n")
    if model_args is not None:
        (folder / "2026_results.json").write_text(json.dumps({"config": {"model_args": model_args}}))


def test_lmms_eval_samples_map_rows_by_sample_id_and_read_the_model_name(tmp_path, export):
    rows = [r for config in read_export(export).values() for r in config]
    lines = [{"doc_id": 0, "filtered_resps": [["12"]], "plates": {"sample_id": rows[0]["sample_id"], "correct": 1}},
             {"doc_id": 1, "resps": [[["x" * (MAX_REPLY + 1)]]], "plates": {"sample_id": rows[-1]["sample_id"],
                                                                             "correct": 0}},
             {"doc_id": 9, "filtered_resps": [["3"]], "plates": {"sample_id": "not-exported", "correct": 1}}]
    _lmms_log(tmp_path / "out", "plates_cbe", lines, "model_version=gpt-x,max_tokens=8")
    first, second, third = lmms_eval_samples(tmp_path / "out", export)
    assert first.row == rows[0] and first.reply == "12" and first.harness_correct is True
    assert first.model == second.model == "gpt-x"
    assert second.reply == "x" * MAX_REPLY and second.harness_correct is False
    assert third == "item not in the exported set"
    _lmms_log(tmp_path / "bare", "plates_cbe", lines[:1])  # no results file: the model is unknown
    assert next(lmms_eval_samples(tmp_path / "bare", export)).model == "unknown"


def test_lmms_eval_logs_missing_or_of_another_task_are_refused(tmp_path, export):
    with pytest.raises(ValueError, match=r"holds no \*_samples_\*.jsonl; allowed: an lmms-eval --output_path"):
        list(lmms_eval_samples(tmp_path, export))
    _lmms_log(tmp_path / "mmmu", "mmmu", [{"doc_id": 0, "exact_match": 1}])
    with pytest.raises(ValueError, match=r"task 'mmmu' without the plates metric; allowed: logs of a task folder"):
        list(lmms_eval_samples(tmp_path / "mmmu", export))


def test_an_export_keeps_only_its_own_rows(tmp_path, export):
    rows = [r for config in read_export(export).values() for r in config]
    good = HarnessSample(rows[0], "12", True, "m")
    foreign = HarnessSample({**rows[0], "sample_id": "elsewhere"}, "12", True, "m")
    changed = HarnessSample({**rows[-1], "question_json": json.dumps({"task": "other"})}, "12", True, "m")
    summary = import_samples([good, foreign, changed], tmp_path, harness="lmms-eval", source="s", export=export)
    assert summary.written == 1 and summary.skipped == {"item not in the exported set": 2}
    assert summary.run_id.startswith("lmms-eval-")
