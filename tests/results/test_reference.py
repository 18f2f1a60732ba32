"""The papers' published tables (plates.results.reference): spot values read from the papers, the printed cells found on
their rows in the paper text, Parquet == CSV, the schema, and cross-checks between tables."""

from __future__ import annotations

import math
import re
import shutil
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from plates.results.reference import (
    COLUMNS,
    KEY,
    REFERENCE_DIR,
    SCHEMA,
    SRC_DIR,
    TABLES,
    build_reference,
    load_reference,
    main,
    printed_number,
    read_table_csv,
)
from plates.tasks.prompts import PAPERS
from tests.support import ROOT

REPO = ROOT
SEEDS = next((p for p in (Path("/work/shared/seeds"), REPO.parent / "shared" / "seeds") if p.is_dir()), None)

ROW_COUNTS = {
    "ColorBlindnessEval Table 1": 36, "ColorBlindnessEval Table 2": 20, "ColorBlindnessEval Table 3": 6,
    "ColorBlindnessEval Table 4": 9, "ColorBlindnessEval Table 5": 18, "HueManity Table 2": 44,
    "HueManity Table 3": 20, "HueManity Table 5": 24, "ColorBench Table 1": 417, "ColorBench Table 4": 36,
    "ColorBench Table 9": 165, "IllusionBench+ Table II": 117, "IllusionBench+ Table III": 117, "RCID Table 1": 24,
}


@pytest.fixture(scope="module")
def ref() -> pd.DataFrame:
    return load_reference()


def cell(ref: pd.DataFrame, source: str, model: str, task: str, **where) -> pd.Series:
    """The one row of `source` for model x task (plus any column=value filters)."""
    mask = (ref["source"] == source) & (ref["model"] == model) & (ref["task"] == task)
    for name, value in where.items():
        mask &= ref[name] == value
    rows = ref[mask]
    assert len(rows) == 1, f"{source} {model} {task} {where}: {len(rows)} rows"
    return rows.iloc[0]


# (source, model, task, filters, value). Each comment quotes the line of the paper the value is read from.
SPOT = [
    # CBE l.63  "GPT-4o	0.936	0.554	0.308	0.962"
    ("ColorBlindnessEval Table 1", "GPT-4o", "Y*/N", {}, 0.936),
    # CBE l.64  "GPT-4o-mini	0.780	0.780	<b>0.344</b>	<b>0.966</b>"
    ("ColorBlindnessEval Table 1", "GPT-4o-mini", "Open", {}, 0.344),
    # CBE l.65  "Claude3-Haiku	0.008	0.998	0.008	0.124"
    ("ColorBlindnessEval Table 1", "Claude3-Haiku", "Y/N*", {}, 0.998),
    # CBE l.71  "Llama3.2-Vision-Instruct-90B	0.108	0.928	0.032	0.510"
    ("ColorBlindnessEval Table 1", "Llama3.2-Vision-Instruct-90B", "Open-clear", {}, 0.510),
    # CBE l.155 "GPT-4o	0.20	0.90"
    ("ColorBlindnessEval Table 2", "GPT-4o", "Open-C", {}, 0.20),
    # CBE l.162 "Llama3.2-Vision-Instruct-11B	0.00	0.50"
    ("ColorBlindnessEval Table 2", "Llama3.2-Vision-Instruct-11B", "OpenClear-C", {}, 0.50),
    # CBE l.164 "Human	<b>0.89</b>	<b>0.97</b>"
    ("ColorBlindnessEval Table 2", "Human", "Open-C", {}, 0.89),
    # CBE l.175 "Qwen2-VL-Instruct-2B (Clear)	0.020	1.000"
    ("ColorBlindnessEval Table 3", "Qwen2-VL-Instruct-2B", "Y*/N", {}, 0.020),
    # CBE l.176 "Qwen2-VL-Instruct-7B (Clear)	0.450	0.976"
    ("ColorBlindnessEval Table 3", "Qwen2-VL-Instruct-7B", "Y/N*", {}, 0.976),
    # CBE l.177 "Qwen2-VL-Instruct-72B (Clear)	0.980	0.960"
    ("ColorBlindnessEval Table 3", "Qwen2-VL-Instruct-72B", "Y*/N", {}, 0.980),
    # CBE l.186 "Qwen2-VL-Instruct-2B	0.014	0.994	0.076"
    ("ColorBlindnessEval Table 4", "Qwen2-VL-Instruct-2B", "Open", {}, 0.076),
    # CBE l.187 "Qwen2-VL-Instruct-7B	0.006	0.998	0.038"
    ("ColorBlindnessEval Table 4", "Qwen2-VL-Instruct-7B", "Y*/N", {}, 0.006),
    # CBE l.188 "Qwen2-VL-Instruct-72B	0.004	0.998	0.032"
    ("ColorBlindnessEval Table 4", "Qwen2-VL-Instruct-72B", "Y/N*", {}, 0.998),
    # CBE l.202 "Qwen2-VL-Instruct-7B (Clear)	0.386	0.984	0.704"  (the 'Open' column of a Clear row)
    ("ColorBlindnessEval Table 5", "Qwen2-VL-Instruct-7B", "Open-clear", {"condition": "clear"}, 0.704),
    # CBE l.203 "Qwen2-VL-Instruct-72B	0.602	0.440	0.030"
    ("ColorBlindnessEval Table 5", "Qwen2-VL-Instruct-72B", "Y*/N", {"condition": "standard"}, 0.602),
    # CBE l.204 "Qwen2-VL-Instruct-72B (Clear)	0.759	0.947	0.876"
    ("ColorBlindnessEval Table 5", "Qwen2-VL-Instruct-72B", "Y/N*", {"condition": "clear"}, 0.947),
    # HueManity l.127 "GPT-4.1 GPT-4.1 mini Claude 3.7 Sonnet ... $33.6 \pm 2.92\%$ $19.0 \pm 2.42\%$ ..."
    ("HueManity Table 2", "GPT-4.1", "numeric", {"condition": "standard"}, 0.336),
    ("HueManity Table 2", "GPT-4.1 mini", "numeric", {"condition": "standard"}, 0.190),
    # HueManity l.127 "... $80 \pm 2.47\%$ $72.4 \pm 2.76\%$ $82.2 \pm 2.36\%$ ..."  (alphanumeric mask)
    ("HueManity Table 2", "Claude 3.7 Sonnet", "alphanumeric", {"condition": "mask"}, 0.822),
    # HueManity l.129 "... \begin{array}{c} 0 \pm 0.19\% \\ 0.1 \pm 0.27\% \\ ... \\ 1.8 \pm 0.84\% \end{array}$"
    ("HueManity Table 2", "Pixtral", "alphanumeric", {"condition": "standard"}, 0.018),
    # HueManity l.129 "... $27.1 \pm 2.75\%$ $31.8 \pm 2.88\%$ $15 \pm 2.21\%$ ..."  (alphanumeric mask)
    ("HueManity Table 2", "LLaVA-v1.6-7B", "alphanumeric", {"condition": "mask"}, 0.15),
    # HueManity l.125 "Humans (average) ResNet50	-	$99.37 \pm 2.37\%$ $96.5 \pm 1.15\%$ ..."
    ("HueManity Table 2", "ResNet50", "numeric", {"condition": "standard"}, 0.965),
    # HueManity l.156 "GPT 4.1	$33.6 \pm 2.9\%$	$34.0 \pm 2.9\%$	$35.0 \pm 3.0\%$	$31.0 \pm 2.9\%$"
    ("HueManity Table 3", "GPT-4.1", "numeric", {"shots": 3}, 0.350),
    # HueManity l.157 "GPT-4.1 mini	$19.0\pm2.5\%$	$14.0\pm2.2\%$	$9.0 \pm 1.8\%$	$6.0\pm1.5\%$"
    ("HueManity Table 3", "GPT-4.1 mini", "numeric", {"shots": 5}, 0.060),
    # HueManity l.159 "Claude 3.7 Sonnet	$0.4\pm0.4\%$	$0.0 \pm 0.2\%$	$1.0\pm0.6\%$	$1.0\pm0.6\%$"
    ("HueManity Table 3", "Claude 3.7 Sonnet", "numeric", {"shots": 3}, 0.010),
    # HueManity l.182 "GPT 4.1	$49.0 \pm 9.8\%$	$29.0 \pm 8.9\%$ ... $29.2 \pm 8.9\%$"
    ("HueManity Table 5", "GPT-4.1", "numeric", {"size": 300}, 0.490),
    ("HueManity Table 5", "GPT-4.1", "numeric", {"size": 1300}, 0.292),
    # HueManity l.183 "GPT-4.1 mini	$39.0\pm9.6\%$	$18.2\pm7.6\%$ ..."
    ("HueManity Table 5", "GPT-4.1 mini", "numeric", {"size": 500}, 0.182),
    # ColorBench l.102 "LLaVA-OV-0.5B 26.3 44.8 46.8 30.0 23.8 22.6 21.4 38.7 58.6 26.8 32.6 38.7"
    ("ColorBench Table 1", "LLaVA-OV-0.5B", "Reasoning: Color Mimicry", {}, 0.586),
    # ColorBench l.137 "GPT-4o 76.3 40.6 80.5 38.3 66.3 30.4 29.1 50.5 70.0 58.6 52.9 46.2"
    ("ColorBench Table 1", "GPT-4o", "Reasoning: Color Blindness", {"condition": "standard"}, 0.586),
    # ColorBench l.139 "GPT-4o (CoT) 77.6 55.2 83.1 44.4 71.3 26.5 33.0 44.1 77.1 66.8 57.4 69.9"
    ("ColorBench Table 1", "GPT-4o", "Robustness: Color Robustness", {"condition": "cot"}, 0.699),
    # ColorBench l.142 "Human Evaluation 92.0 - 90.1 59.6 79.8 62.0 81.3 63.0 83.8 94.0 - -"
    ("ColorBench Table 1", "Human", "Perception: Object Recognition", {}, 0.901),
    # ColorBench l.135 "LLaVA-OV-72B 73.7 63.5 83.1 52.5 69.3 27.5 50.5 36.6 55.7 31.9 51.9 80.3"
    ("ColorBench Table 1", "LLaVA-OV-72B", "P & R Overall", {}, 0.519),
    # ColorBench l.193 "GPT-4o Δ\Delta +1.3 +14.6 +2.6 +6.1 +5.0 –3.9 +3.9 –6.4 +7.1 +8.2 +4.5 +23.7"
    ("ColorBench Table 4", "GPT-4o", "Perception: Color Extraction", {}, 0.146),
    ("ColorBench Table 4", "GPT-4o", "Reasoning: Color Illusion", {}, -0.064),
    # ColorBench l.195 "Average Δ\Delta +1.95 +9.35 +1.95 +8.60 +1.50 +2.95 +3.9 –4.80 +4.95 +9.30 +4.35 +13.30"
    ("ColorBench Table 4", "Average (GPT-4o, Gemini-2-flash)", "Robustness: Color Robustness", {}, 0.133),
    # ColorBench l.428 "Text-only 23.7 35.4 32.3 20.6 29.7 18.4 19.3 36.7 36.9 21.1 26.7"  (group 7B - 8B)
    ("ColorBench Table 9", "VLMs 7B-8B (mean)", "Perception: Color Extraction", {"condition": "text-only"}, 0.354),
    # ColorBench l.429 "Gray+Text 25.2 35.7 46.0 27.8 41.3 22.2 27.5 48.2 58.7 23.6 34.2"
    ("ColorBench Table 9", "VLMs 7B-8B (mean)", "Reasoning: Color Mimicry", {"condition": "grayscale"}, 0.587),
    # ColorBench l.442 "RGB+Text 73.4 54.7 82.5 45.6 62.4 26.7 39.6 33.9 53.9 29.6 47.6"  (group >> 70B)
    ("ColorBench Table 9", "VLMs >70B (mean)", "P & R Overall", {"condition": "standard"}, 0.476),
    # IllusionBench+ l.89 "\hdashlineGPT-4o 0.7653 0.8082 0.8532 0.7692 0.5000 0.8526 0.8040 0.7397 0.8059"
    ("IllusionBench+ Table II", "GPT-4o", "True-or-false: Ishihara", {}, 0.7692),
    # IllusionBench+ l.92 "Qwen-vl-plus 0.5522 0.6479 0.8250 0.9800 0.3055 0.7592 0.6447 0.6058 0.6742"
    ("IllusionBench+ Table II", "Qwen-vl-plus", "True-or-false: Ishihara", {}, 0.98),
    # IllusionBench+ l.100 "mPLUG-Owl2 (LLaMA-7B) 0.5843 0.6154 0.7557 0.6731 0.3421 0.7001 0.6026 0.616 0.6375"
    ("IllusionBench+ Table II", "mPLUG-Owl2 (LLaMA-7B)", "True-or-false: Hard", {}, 0.616),
    # IllusionBench+ l.123 "\hdashlineGPT-4o 0.7206 0.7620 0.8255 0.7564 0.6667 0.8163 0.7558 0.7172 0.7675"
    ("IllusionBench+ Table III", "GPT-4o", "Multiple-choice: Trap", {}, 0.6667),
    # IllusionBench+ l.129 "DeepSeek-VL-7B-chat 0.3158 0.3603 0.3623 0.1538 0.1538 0.3843 0.3388 0.3078 0.3473"
    ("IllusionBench+ Table III", "DeepSeek-VL-7B-chat", "Multiple-choice: Ishihara", {}, 0.1538),
    # IllusionBench+ l.136 "Human 0.9327 0.8712 0.9275 1.0000 0.9167 0.9170 0.8889 0.8889 0.8975"
    ("IllusionBench+ Table III", "Human", "Multiple-choice: All", {}, 0.8975),
    # RCID l.175 "| LLaVA-1.5 (7B)        | 35.4 (41.2)         | 32.4 (37.4)         | 20.0 (67.8) ..."
    ("RCID Table 1", "LLaVA-1.5 (7B)", "Contrast Illusion",
     {"condition": "pixel-based prompt", "metric": "no_illusion_rate"}, 0.354),
    ("RCID Table 1", "LLaVA-1.5 (7B)", "Filter Illusion",
     {"condition": "pixel-based prompt", "metric": "human_like_rate"}, 0.678),
    # RCID l.176 "| Mixed Training (Ours) | 83.9 ( 6.9)         | 8.1 (79.0) ... | 84.5 ( 9.8) | 15.4 (76.7) |"
    ("RCID Table 1", "LLaVA-1.5 (7B) + mixed training", "Stripe Illusion",
     {"condition": "human-based prompt", "metric": "human_like_rate"}, 0.767),
    ("RCID Table 1", "LLaVA-1.5 (7B) + mixed training", "Contrast Illusion",
     {"condition": "pixel-based prompt", "metric": "human_like_rate"}, 0.069),
]


@pytest.mark.parametrize("source, model, task, where, expected", SPOT, ids=lambda v: str(v)[:40])
def test_spot_values(ref, source, model, task, where, expected):
    assert cell(ref, source, model, task, **where)["value"] == pytest.approx(expected, abs=1e-12)


def test_every_table_has_three_spot_values():
    counts = pd.Series([s for s, *_ in SPOT]).value_counts()
    assert {t.source for t in TABLES.values()} == set(counts.index)
    assert (counts >= 3).all(), counts


def test_row_counts_and_sources(ref):
    assert ref.groupby("source").size().to_dict() == ROW_COUNTS


# --------------------------------------------------------------------------------------------- prompt mapping
def test_colorblindnesseval_prompt_mapping_undoes_app_f_swap(ref):
    cbe = ref[ref["paper"] == "ColorBlindnessEval"]
    expected = {"Y*/N": "cbe-yn-correct", "Y/N*": "cbe-yn-incorrect", "Open": "cbe-open", "Open-C": "cbe-open",
                "Open-clear": "cbe-open-clear", "OpenClear-C": "cbe-open-clear"}
    assert dict(zip(cbe["task"], cbe["prompt_name"])) == expected
    # §4.1: Claude3-Haiku "tended to respond 'No' regardless of the prompt": low on Y*/N, high on Y/N*.
    assert cell(ref, "ColorBlindnessEval Table 1", "Claude3-Haiku", "Y*/N")["prompt_name"] == "cbe-yn-correct"
    clear = cbe[cbe["task"].isin(["Open-clear", "OpenClear-C"])]
    assert set(clear["condition"]) == {"clear"}


def test_prompt_names_per_paper(ref):
    names = ref.groupby("paper")["prompt_name"].apply(lambda s: set(s.dropna()))
    assert names["HueManity"] == {"huemanity-numeric", "huemanity-alnum"}
    assert names["ColorBench"] == {"colorbench-mc", "colorbench-mc-cot"}
    assert names["IllusionBench+"] == set() and names["RCID"] == set()
    cot = ref[(ref["paper"] == "ColorBench") & (ref["prompt_name"] == "colorbench-mc-cot")]
    assert set(cot["condition"]) == {"cot"}


def test_prompt_names_are_registered_prompts_of_the_right_kind(ref):
    """The join key is real: every prompt_name is a registered prompt (plates.tasks.prompts) whose kind fits the column."""
    from plates.tasks.prompts import PROMPTS

    used = set(ref["prompt_name"].dropna())
    assert used <= set(PROMPTS), used - set(PROMPTS)
    kinds = {"Y*/N": "yesno", "Y/N*": "yesno", "Open": "open", "Open-C": "open", "Open-clear": "open",
             "OpenClear-C": "open"}
    for row in ref[ref["paper"] == "ColorBlindnessEval"].itertuples():
        assert PROMPTS[row.prompt_name].kind == kinds[row.task], (row.source, row.task)
    assert PROMPTS["cbe-yn-correct"].template.startswith("This is an Ishihara plate designed for color blindness "
                                                          "testing. Is the number in")
    assert PROMPTS["colorbench-mc-cot"].cot and not PROMPTS["colorbench-mc"].cot


# --------------------------------------------------------------------------------------------- cross-checks
def test_colorbench_table4_is_table1_cot_minus_plain(ref):
    t1 = ref[ref["source"] == "ColorBench Table 1"].set_index(["model", "condition", "task"])["value"]
    t4 = ref[ref["source"] == "ColorBench Table 4"]
    for row in t4[t4["model"] != "Average (GPT-4o, Gemini-2-flash)"].itertuples():
        delta = t1[(row.model, "cot", row.task)] - t1[(row.model, "standard", row.task)]
        assert row.value == pytest.approx(delta, abs=1e-9), (row.model, row.task)
    per_model = t4[t4["model"] != "Average (GPT-4o, Gemini-2-flash)"].groupby("task")["value"].mean()
    avg = t4[t4["model"] == "Average (GPT-4o, Gemini-2-flash)"].set_index("task")["value"]
    assert (per_model - avg).abs().max() < 1e-9


def test_colorbench_table9_rgb_is_mean_of_table1_group(ref):
    t1 = ref[(ref["source"] == "ColorBench Table 1") & (ref["condition"] == "standard") & (ref["model"] != "Human")]
    group = t1["note"].str.extract(r"size group: ([^;]+)")[0]
    means = t1[group != "proprietary"].groupby([group, "task"])["value"].mean()
    t9 = ref[(ref["source"] == "ColorBench Table 9") & (ref["condition"] == "standard")]
    assert len(t9) == 55
    for row in t9.itertuples():
        g = re.fullmatch(r"VLMs (.+) \(mean\)", row.model).group(1)
        assert abs(row.value - means[(g, row.task)]) < 0.0008, (g, row.task)  # means of values printed at 0.1


def test_colorbench_overall_is_micro_average_of_table7_counts(ref):
    t1 = ref[(ref["source"] == "ColorBench Table 1") & (ref["task"] == "P & R Overall") & ref["n"].notna()]
    assert len(t1) >= 25
    for row in t1.itertuples():
        tasks = ref[(ref["source"] == "ColorBench Table 1") & (ref["model"] == row.model)
                    & (ref["condition"] == row.condition) & ref["metric"].eq("accuracy")
                    & ~ref["task"].eq("P & R Overall")]
        counts = {"Perception: Color Recognition": 76, "Perception: Color Extraction": 96,
                  "Perception: Object Recognition": 77, "Reasoning: Color Proportion": 80,
                  "Reasoning: Color Comparison": 101, "Reasoning: Color Counting": 102,
                  "Reasoning: Object Counting": 103, "Reasoning: Color Illusion": 93,
                  "Reasoning: Color Mimicry": 70, "Reasoning: Color Blindness": 157}
        micro = sum(v * counts[t] for t, v in zip(tasks["task"], tasks["value"])) / 955
        assert abs(micro - row.value) < 0.0008, row.model


def wilson_half_width(p: float, n: int, z: float = 1.959964) -> float:
    """Half the width of the 95% Wilson score interval for a proportion p (0-1) of n trials."""
    return z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)


def test_huemanity_table2_merged_cells_match_wilson_at_n_1000(ref):
    """Each merged cell's ± is the Wilson half-width of its own value: the split kept values with their widths."""
    t2 = ref[(ref["source"] == "HueManity Table 2") & (ref["n"] == 1000)]
    assert len(t2) == 38
    for row in t2.itertuples():
        assert abs(row.ci_half_width - wilson_half_width(row.value, 1000)) < 0.0002, (row.model, row.task)


def test_colorblindnesseval_table1_is_k_over_500(ref):
    for row in ref[ref["source"] == "ColorBlindnessEval Table 1"].itertuples():
        assert row.n == 500 and abs(row.value * 500 - round(row.value * 500)) < 1e-6


# --------------------------------------------------------------------------------------------- paper text
def normalise(line: str) -> str:
    """A seed line with its markup dropped: HTML tags, LaTeX maths, markdown pipes; '±' kept tight."""
    line = re.sub(r"<[^>]+>", "", line)
    for old, new in (("\\hdashline", ""), ("Δ\\Delta", ""), ("\\begin{array}{c}", " "), ("\\end{array}", " "),
                     ("\\\\", " "), ("\\pm", "±"), ("\\%", "%"), ("$", ""), ("|", " ")):
        line = line.replace(old, new)
    line = re.sub(r"\s*±\s*", "±", line)
    line = re.sub(r"\(\s+", "(", line)  # RCID prints "83.9 ( 6.9)"
    return re.sub(r"\s+", " ", line).strip()


def table_block(lines: list[str], info) -> list[str]:
    """The non-blank lines right before or after the table's caption, normalised."""
    start = next(i for i, ln in enumerate(lines) if ln.strip().startswith(info.caption))
    step = -1 if info.block == "before" else 1
    i = start + step
    while lines[i].strip() == "":
        i += step
    block = []
    while 0 <= i < len(lines) and lines[i].strip():
        block.append(normalise(lines[i]))
        i += step
    return block[::-1] if step == -1 else block


def has_token(line: str, printed: str) -> bool:
    return re.search(r"(?<![0-9.])" + re.escape(printed) + r"(?![0-9.])", line) is not None


@pytest.mark.skipif(SEEDS is None, reason="the papers (../shared/seeds) are not present")
@pytest.mark.parametrize("stem", list(TABLES))
def test_printed_values_are_on_their_rows_in_the_paper(stem):
    info = TABLES[stem]
    lines = next(SEEDS.glob(f"{info.seed_prefix}_*.txt")).read_text(encoding="utf-8").splitlines()
    block = [ln for ln in table_block(lines, info) if re.search(r"[0-9]", ln)]
    rows = read_table_csv(SRC_DIR / f"{stem}.csv")
    labels = sorted(set(rows["row_printed"]), key=len, reverse=True)
    owner = {}  # line index -> the longest row label the line starts with
    for k, ln in enumerate(block):
        for label in labels:
            if ln == label or ln.startswith(label + " "):
                owner[k] = label
                break
    for label, group in rows.groupby("row_printed", sort=False):
        own = [k for k, lab in owner.items() if lab == label]
        models = list(dict.fromkeys(group["model"]))
        for m_index, model in enumerate(models):
            cells = group[group["model"] == model]
            if len(own) > 1:  # a label repeated per section (ColorBench Table 9): k-th model <-> k-th line
                assert len(own) == len(models), (label, own, models)
                candidates = [own[m_index]]
            elif own:
                candidates = own
            else:  # merged rows (HueManity Table 2): the label sits inside the line
                candidates = [k for k, ln in enumerate(block) if re.search(r"(^| )" + re.escape(label) + r"( |$)", ln)]
            assert candidates, f"{stem}: row label {label!r} not found in the table's lines"
            printed = [normalise(p) for p in cells["printed"]]
            for p in printed:
                assert any(has_token(block[k], p) for k in candidates), f"{stem}: {label!r} {p!r} not on its line"
            if len(candidates) == 1:  # one line per row: check the column position too, when cells align
                tokens = block[candidates[0]][len(label):].split()
                tokens = [t.strip("()") for t in tokens if t != "-"]  # '-': a cell not measured
                if len(tokens) == len(printed):
                    assert tokens == printed, f"{stem}: {label!r} cells out of order"


@pytest.mark.skipif(SEEDS is None, reason="the papers (../shared/seeds) are not present")
@pytest.mark.parametrize("stem", ["colorbench_table1", "colorbench_table9"])
def test_colorbench_rows_sit_in_their_size_group(stem):
    """ColorBench repeats row labels per size-group section ('Text-only' five times): each line's cells belong to
    the rows of the section whose header ('VLMs: << 7B') precedes it."""
    info = TABLES[stem]
    lines = next(SEEDS.glob(f"{info.seed_prefix}_*.txt")).read_text(encoding="utf-8").splitlines()
    rows = read_table_csv(SRC_DIR / f"{stem}.csv")
    rows["group"] = rows["note"].str.extract(r"size group: ([^;]+)")[0].fillna(
        rows["model"].str.extract(r"VLMs (.+) \(mean\)")[0])
    headers = {"Human Evaluation": "human", "VLMs: Proprietary": "proprietary"}
    group, checked = None, 0
    for line in table_block(lines, info):
        if line in headers or line.startswith("VLMs: "):
            group = headers.get(line) or line[len("VLMs: "):].replace("<< ", "<").replace(">> ", ">").replace(" - ", "-")
            continue
        if group is None:
            continue  # the column headers
        label, *tokens = re.split(r" (?=[0-9+–-])", line, maxsplit=1)
        here = rows[(rows["row_printed"] == label) & (rows["group"] == group)]
        assert list(here["printed"]) == [t for t in " ".join(tokens).split() if t != "-"], (label, group)
        checked += len(here)
    assert checked == len(rows)


@pytest.mark.skipif(SEEDS is None, reason="the papers (../shared/seeds) are not present")
def test_huemanity_table2_merged_lines_read_column_by_column():
    """HueManity Table 2's extraction puts several rows on one line, each cell holding one value per row: the line's
    values, read left to right, are column by column (numeric mask, numeric pattern, alphanumeric mask,
    alphanumeric pattern) and, within a column, row by row in the order of the line's row labels."""
    info = TABLES["huemanity_table2"]
    lines = next(SEEDS.glob(f"{info.seed_prefix}_*.txt")).read_text(encoding="utf-8").splitlines()
    block = table_block(lines, info)
    rows = read_table_csv(SRC_DIR / "huemanity_table2.csv")
    columns = [("numeric", "mask"), ("numeric", "standard"), ("alphanumeric", "mask"), ("alphanumeric", "standard")]
    merged = {"Random choice": ["Random choice"], "Humans (average) ResNet50": ["Humans (average)", "ResNet50"],
              "GPT-4.1 GPT-4.1 mini Claude 3.7 Sonnet": ["GPT-4.1", "GPT-4.1 mini", "Claude 3.7 Sonnet"],
              "LLaVA-v1.6-34B LLaVA-v1.6-13B LLaVA-v1.6-7B Mistral-small3.1-24b Qwen VL Max Pixtral":
                  ["LLaVA-v1.6-34B", "LLaVA-v1.6-13B", "LLaVA-v1.6-7B", "Mistral-small3.1-24b", "Qwen VL Max", "Pixtral"]}
    seen = 0
    for prefix, labels in merged.items():
        line = next(ln for ln in block if ln.startswith(prefix + " "))
        on_line = re.findall(r"[0-9.]+(?:±[0-9.]+)?%", line)
        expected = []
        for task, condition in columns:
            for label in labels:
                hit = rows[(rows["row_printed"] == label) & (rows["task"] == task) & (rows["condition"] == condition)]
                expected += [normalise(p) for p in hit["printed"]]
        assert on_line == expected, prefix
        seen += len(expected)
    assert seen == len(rows)


# --------------------------------------------------------------------------------------------- build and schema
def test_parquet_matches_csvs(tmp_path):
    written = build_reference(SRC_DIR, tmp_path)
    assert [p.name for p in written] == [f"{s}.parquet" for s in TABLES]
    for path in written:
        committed = REFERENCE_DIR / path.name
        assert committed.is_file(), f"{committed} missing: run `python -m plates.results.reference build`"
        assert pq.read_table(committed).equals(pq.read_table(path)), f"{path.name} is stale: rebuild it"


def test_schema_and_unique_keys(ref):
    assert list(ref.columns) == list(COLUMNS)
    for stem in TABLES:
        schema = pq.read_schema(REFERENCE_DIR / f"{stem}.parquet")
        assert schema.equals(SCHEMA, check_metadata=False)
        assert schema.metadata[b"plates.kind"] == b"reference"
    assert not ref.duplicated(subset=list(KEY)).any()
    assert (ref["source"] == ref["paper"] + " " + ref["table"]).all()
    assert set(ref["paper"]) == set(PAPERS)
    fraction = ref["metric"] != "delta"
    assert ref.loc[fraction, "value"].between(0, 1).all() and ref["value"].between(-1, 1).all()


def test_load_reference_filters_and_errors(ref):
    hue = load_reference("HueManity")
    assert set(hue["source"]) == {"HueManity Table 2", "HueManity Table 3", "HueManity Table 5"}
    assert len(load_reference("ColorBench", "Table 4")) == 36
    assert len(load_reference(table="IllusionBench+ Table II")) == 117
    with pytest.raises(ValueError, match="paper 'HueMan' is not known; allowed: ColorBlindnessEval"):
        load_reference("HueMan")
    with pytest.raises(ValueError, match="unknown table 'Table 7' in RCID; allowed: RCID Table 1"):
        load_reference("RCID", "Table 7")


def test_load_reference_without_build_says_how(tmp_path):
    with pytest.raises(FileNotFoundError, match="python -m plates.results.reference build"):
        load_reference(reference_dir=tmp_path)


def test_printed_number_understands_signs():
    assert printed_number("–3.9") == -3.9 and printed_number("+14.6") == 14.6
    assert printed_number("33.6 ± 2.92%") == 33.6 and printed_number("<b>0.344</b>") == 0.344
    with pytest.raises(ValueError, match="holds no number"):
        printed_number("-")


def copy_src(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    shutil.copytree(SRC_DIR, src, ignore=shutil.ignore_patterns("*.md"))
    return src


def edit_cell(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize("old, new, message", [
    (",accuracy,0.936,0.936,", ",accuracy,0.963,0.936,", "value 0.963 but printed '0.936'"),
    (",accuracy,0.936,0.936,", ",accurracy,0.936,0.936,", "metric 'accurracy'; allowed: accuracy"),
    (",Y*/N,standard,", ",Y*/N,standrd,", "condition 'standrd'; allowed: standard"),
    (",cbe-yn-correct,", ",cbe-yes,", "prompt_name 'cbe-yes'; allowed: cbe-open"),
    ("ColorBlindnessEval Table 1,ColorBlindnessEval,Table 1,GPT-4o,",
     "ColorBlindnessEval Table 1,ColorBlindnessEval,Table 1,GPT-4o-mini,", "duplicate key"),
], ids=["value", "metric", "condition", "prompt_name", "duplicate"])
def test_build_rejects_bad_cells(tmp_path, old, new, message):
    src = copy_src(tmp_path)
    edit_cell(src / "colorblindnesseval_table1.csv", old, new)
    with pytest.raises(ValueError, match=re.escape(message)):
        build_reference(src, tmp_path / "out")


def test_build_rejects_unknown_and_missing_files(tmp_path):
    src = copy_src(tmp_path)
    (src / "colorbench_table2.csv").write_text("source\n", encoding="utf-8")
    with pytest.raises(ValueError, match="unknown CSV.*colorbench_table2; allowed: colorblindnesseval_table1"):
        build_reference(src, tmp_path / "out")
    (src / "colorbench_table2.csv").unlink()
    (src / "rcid_table1.csv").unlink()
    with pytest.raises(ValueError, match="missing CSV.*rcid_table1.csv"):
        build_reference(src, tmp_path / "out")


def test_module_entry_point_builds(tmp_path, capsys):
    assert main(["build", "--src", str(SRC_DIR), "--out", str(tmp_path)]) == 0
    assert "colorbench_table1.parquet  417 rows" in capsys.readouterr().out
    src = copy_src(tmp_path / "bad")
    (src / "rcid_table1.csv").unlink()
    assert main(["build", "--src", str(src), "--out", str(tmp_path / "o")]) == 2
    assert "missing CSV" in capsys.readouterr().err
