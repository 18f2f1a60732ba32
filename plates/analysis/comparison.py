"""Our cells beside the papers' cells for the same model, prompt and condition: numbers only (the figure is
`plates.charts.comparison.comparison_figure`).

`compare(table, reference)` takes the overview's cells (series, prompt, condition: accuracy, n, Wilson 95%
interval; the plate overview's table) and the papers' published accuracies
(`plates.results.reference.load_reference`) and returns one row per match, with the difference (ours −
paper) and whether the paper's value lies inside our interval. A match needs:

* the same model, by `model_key` (case, punctuation, a provider prefix "org/" and a date suffix ignored;
  tokens in any order; the API ids of HueManity Table 6 mapped to its row names by `MODEL_IDS`);
* the same prompt (the reference's ``prompt_name``) and the published task our plates are an instance of
  (`COMPARISON_TASKS`: ColorBench's Color Blindness task for its multiple-choice prompts);
* the paper's condition for ours (`paper_condition`): original -> "standard", clear, mask, gray ->
  "grayscale", text-only, a chain-of-thought prompt -> "cot"; hue shifts and CVD views have no published
  counterpart;
* the paper's image side where it states one, and its shots (none stated: zero-shot);
* the paper's own font (a font study, ColorBlindnessEval Table 5's DejaVu Sans, is not our plates);
* the paper's set (`PAPER_SETS`), where the cell says which sets it was asked on (a ``datasets`` column: the
  overview's table gives one): a one-answer explorer plate with a custom colour is not ColorBlindnessEval's
  500 plates. A paper whose images we do not draw (ColorBench: its Color Blindness task) pairs with a cell
  asked only on our presets (`plates.datasets.PRESETS`), never an explorer plate or another family's set.
"""

from __future__ import annotations

import re

import pandas as pd

from plates.analysis.conditions import CONDITION, SERIES

__all__ = ["COLUMNS", "COMPARISON_TASKS", "MODEL_IDS", "PAPER_FONTS", "PAPER_SETS", "compare", "context",
           "model_key", "paper_condition", "same_set"]

#: Per prompt: the published tasks (the reference's ``task``) that ask what our plates ask.
COMPARISON_TASKS: dict[str, tuple[str, ...]] = {
    "cbe-open": ("Open",),
    "cbe-open-clear": ("Open-clear",),
    "cbe-yn-correct": ("Y*/N",),
    "cbe-yn-incorrect": ("Y/N*",),
    "huemanity-numeric": ("numeric",),
    "huemanity-alnum": ("alphanumeric",),
    "colorbench-mc": ("Reasoning: Color Blindness",),
    "colorbench-mc-cot": ("Reasoning: Color Blindness",),
}
#: Each paper's own font for the plates its main tables report (rows naming another font are a font study).
PAPER_FONTS = {"ColorBlindnessEval": ("Arial",), "HueManity": ("DejaVu Sans Bold Oblique",)}
#: Each paper's own set of plates, as our presets draw it (`plates.datasets.PRESETS`; the "-dense" and font
#: variants are ours, not the papers'). A paper not listed publishes images we do not draw: any preset of ours
#: is an instance of its task (ColorBench's Color Blindness), an explorer plate is not.
PAPER_SETS: dict[str, tuple[str, ...]] = {
    "ColorBlindnessEval": ("colorblindnesseval",),
    "HueManity": ("huemanity", "huemanity-numeric", "huemanity-alnum"),
}
#: HueManity Table 6's model versions (API ids) -> the row names its tables print.
MODEL_IDS: dict[str, str] = {
    "gpt-4.1-mini-2025-04-14": "GPT-4.1 mini",
    "gpt-4.1-2025-04-14": "GPT-4.1",
    "claude-3-7-sonnet-20250219": "Claude 3.7 Sonnet",
    "llava:7b": "LLaVA-v1.6-7B",
    "llava:13b": "LLaVA-v1.6-13B",
    "llava:34b": "LLaVA-v1.6-34B",
    "mistral-small-3.1-24b-instruct": "Mistral-small3.1-24b",
    "qwen/qwen-vl-max": "Qwen VL Max",
    "pixtral-large-2411": "Pixtral",
    "gemini-2.0-flash": "Gemini-2-flash",
}
COLUMNS = [
    SERIES,
    "prompt_name",
    CONDITION,
    "n",
    "accuracy",
    "ci_low",
    "ci_high",
    "source",
    "paper_model",
    "paper_task",
    "paper_condition",
    "paper_value",
    "paper_printed",
    "paper_n",
    "difference",
    "inside",
]
_DATE = re.compile(r"[-_:@]?(20\d\d)-?(0[1-9]|1[0-2])-?([0-3]\d)$")


def model_key(name: str) -> tuple[str, ...]:
    """A model name reduced for matching, so our run's model and the paper's name meet.

    Parameters
    ----------
    name : str
        A model id or a paper's printed name.

    Returns
    -------
    tuple of str
        Its letter and digit tokens, sorted, after the organisation prefix, "-latest" and a trailing date are
        dropped (``"Qwen/Qwen2-VL-7B-Instruct"`` and ``"Qwen2-VL-Instruct-7B"`` agree).

    Examples
    --------
    >>> model_key("gpt-4.1-2025-04-14") == model_key("GPT-4.1") == ("1", "4", "gpt")
    True
    """
    name = MODEL_IDS.get(str(name), str(name))
    name = str(name).split("/")[-1].lower().removesuffix("-latest")
    name = _DATE.sub("", name)
    tokens = re.findall(r"[a-z]+|\d+", name)
    return tuple(sorted(tokens))


def paper_condition(condition: str, prompt: str) -> str | None:
    """The reference's condition for one of our condition labels (size left out).

    Parameters
    ----------
    condition : str
        Our label (`plates.analysis.conditions.condition_label`).
    prompt : str
        The prompt's name (a ``-cot`` prompt maps "original" to "cot").

    Returns
    -------
    str or None
        The reference table's condition, or None when the papers publish nothing under it (hue shifts, CVD
        views, several at once).

    Examples
    --------
    >>> paper_condition("gray @900px", "cbe-open"), paper_condition("deutan @900px", "cbe-open")
    ('grayscale', None)
    """
    base = condition.split(" @")[0]
    if prompt.endswith("-cot"):
        return "cot" if base == "original" else None
    return {
        "original": "standard",
        "clear": "clear",
        "mask": "mask",
        "gray": "grayscale",
        "clear · gray": None,
        "text-only": "text-only",
    }.get(base)


def _size(condition: str) -> int | None:
    match = re.search(r"@(\d+)px$", condition)
    return int(match.group(1)) if match else None


def compare(table: pd.DataFrame, reference: pd.DataFrame | None, *, shots: int = 0) -> pd.DataFrame:
    """One row per (our cell, matching published accuracy of the same model): our figure beside the paper's.

    Parameters
    ----------
    table : pandas.DataFrame
        Overview cells with ``series``, ``prompt_name``, ``condition``, ``n``, ``accuracy``, ``ci_low``,
        ``ci_high`` (accuracy 0-1; and ``model`` when the series is "model · run", else the series is the
        model).
    reference : pandas.DataFrame or None
        The papers' reference tables (`plates.results.reference`); None or empty: no rows.
    shots : int
        The cells' few-shot examples.

    Returns
    -------
    pandas.DataFrame
        `COLUMNS`; empty with them when nothing matches. A cell is paired with a published value only when it
        holds at least as many answered items as the paper counted (``paper_n``, where the table prints one): a
        handful of answers (an explorer ask) is not the paper's measurement; and only when it was asked on the
        paper's set (`PAPER_SETS`, where ``table`` has a ``datasets`` column of the sets each cell was asked on).
        The cells left out are listed in ``attrs["left_out"]`` (one sentence each, saying why).
    """
    matched = _matches(table, reference, shots=shots, same_model=True)
    enough = matched["paper_n"].isna() | (matched["n"] >= pd.to_numeric(matched["paper_n"], errors="coerce"))
    left = matched[~enough]
    kept = matched[enough].reset_index(drop=True)
    kept.attrs["left_out"] = [*matched.attrs.get("off_set", ()), *(
        f"{r[SERIES]} · {r['prompt_name']} · {r[CONDITION]}: {int(r['n'])} answered item(s), fewer than the "
        f"{int(r['paper_n'])} of {r['source']} ({r['paper_model']}); not paired"
        for r in left.to_dict("records"))]
    return kept


def same_set(datasets: object, paper: str) -> bool:
    """Were a cell's items (asked on the sets ``datasets``: an iterable of dataset names, or None when the cell
    does not say) drawn from ``paper``'s set (`PAPER_SETS`)? None: not known, so not refused.

    Parameters
    ----------
    datasets : iterable of str or None
        The cell's dataset names.
    paper : str
        A paper of `PAPER_SETS`.

    Returns
    -------
    bool or None
        Whether they are the paper's set; None: not known.

    Examples
    --------
    >>> same_set(("colorblindnesseval",), "ColorBlindnessEval"), same_set(("explorer",), "ColorBlindnessEval")
    (True, False)
    >>> same_set(("huemanity-dense",), "HueManity"), same_set(("huemanity",), "ColorBench")
    (False, True)
    """
    if datasets is None or (not isinstance(datasets, (tuple, list, set, frozenset)) and pd.isna(datasets)):
        return True
    # the dataset and stimulus registries: imported only for a paper with no own set
    from plates.datasets import PRESETS

    allowed = PAPER_SETS.get(paper, tuple(PRESETS))
    return len(datasets) > 0 and all(str(d) in allowed for d in datasets)


def context(table: pd.DataFrame, reference: pd.DataFrame | None, *, shots: int = 0) -> pd.DataFrame:
    """`compare`'s rows without the same-model rule: every published accuracy for the same prompt, task,
    condition, size, shots and font as one of our cells, whatever model the paper ran. Context for a cell
    (where the papers' models lie on the same question), never a replication: ``paper_model`` says whose.

    Parameters
    ----------
    table : pandas.DataFrame
        Overview cells with ``series``, ``prompt_name``, ``condition``, ``n``, ``accuracy``, ``ci_low``,
        ``ci_high`` (accuracy 0-1; and ``model`` when the series is "model · run", else the series is the
        model).
    reference : pandas.DataFrame or None
        The papers' reference tables (`plates.results.reference`); None or empty: no rows.
    shots : int
        The cells' few-shot examples.

    Returns
    -------
    pandas.DataFrame
        `COLUMNS`; empty with them when nothing matches.
    """
    return _matches(table, reference, shots=shots, same_model=False)


def _matches(table: pd.DataFrame, reference: pd.DataFrame | None, *, shots: int, same_model: bool) -> pd.DataFrame:
    if reference is None or reference.empty or table.empty:
        return pd.DataFrame(columns=COLUMNS)
    ref = reference[
        (reference["metric"] == "accuracy") & reference["value"].notna() & reference["prompt_name"].notna()
    ]
    # the published values grouped once by (prompt, paper condition), each group's rows in the reference's
    # order, the task, shots and font rules applied here (they do not depend on the cell): a cell then looks
    # up its few candidates instead of filtering the whole reference (hundreds of cells x the table was
    # seconds for the context comparison, which keeps every model)
    candidates: dict[tuple[str, str], list[dict]] = {}
    for hit in ref.to_dict("records"):
        prompt = str(hit["prompt_name"])
        if prompt not in COMPARISON_TASKS or hit["task"] not in COMPARISON_TASKS[prompt]:
            continue
        if not ((pd.isna(hit["shots"]) and shots == 0) or hit["shots"] == shots):
            continue
        font = hit["font"]
        if isinstance(font, str) and font not in PAPER_FONTS.get(hit["paper"], ()):
            continue
        candidates.setdefault((prompt, hit["condition"]), []).append({**hit, "key": model_key(hit["model"])})
    # a cell whose prompt (or, for the same-model rule, model) no paper printed matches nothing: skipped before
    # any filtering (a quiz's hundreds of participants are cells of their own)
    rows, off_set = [], {}
    for cell in table[table["n"] > 0].to_dict("records"):
        prompt, condition = str(cell["prompt_name"]), str(cell[CONDITION])
        if prompt not in COMPARISON_TASKS:
            continue
        wanted = paper_condition(condition, prompt)
        hits = candidates.get((prompt, wanted), []) if wanted is not None else []
        if same_model and hits:
            key = model_key(cell.get("model") or str(cell[SERIES]).split(" · ")[0])
            hits = [hit for hit in hits if hit["key"] == key]
        size = _size(condition)
        for hit in hits:
            if not (pd.isna(hit["size"]) or (size is not None and hit["size"] == size)):
                continue
            if not same_set(cell.get("datasets"), hit["paper"]):
                asked = ", ".join(map(str, cell["datasets"])) or "no set"
                allowed = PAPER_SETS.get(hit["paper"], ("one of our presets",))
                off_set[(cell[SERIES], prompt, condition, hit["paper"])] = (
                    f"{cell[SERIES]} · {prompt} · {condition}: asked on {asked}, not {hit['paper']}'s set "
                    f"({', '.join(allowed)}); not paired")
                continue
            value = float(hit["value"])
            rows.append(
                {
                    SERIES: cell[SERIES],
                    "prompt_name": prompt,
                    CONDITION: condition,
                    "n": int(cell["n"]),
                    "accuracy": cell["accuracy"],
                    "ci_low": cell["ci_low"],
                    "ci_high": cell["ci_high"],
                    "source": hit["source"],
                    "paper_model": hit["model"],
                    "paper_task": hit["task"],
                    "paper_condition": wanted,
                    "paper_value": value,
                    "paper_printed": hit["printed"],
                    "paper_n": hit["n"],
                    "difference": cell["accuracy"] - value,
                    "inside": bool(cell["ci_low"] <= value <= cell["ci_high"]),
                }
            )
    out = pd.DataFrame(rows, columns=COLUMNS)
    out.attrs["off_set"] = list(off_set.values())
    return out
