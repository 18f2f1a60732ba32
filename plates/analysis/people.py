"""People beside models: each participant's and each model's ΔE2000 threshold on the plates, and the
papers' human numbers: pure DataFrame -> DataFrame (numbers only; the figures are in `plates.charts.people`).

Input: results rows (every column). Human rows have ``backend == "human"`` (written by the quiz,
`plates.runs.quiz`: one ``model`` per anonymous participant, "participant-<id>"). The threshold is the level of
the CIEDE2000 difference between text and background dots (``delta_e``; CIELAB D65 2°) where a chance-aware
psychometric function is halfway between the guess rate and the ceiling (`plates.analysis.psychometric`,
Wichmann & Hill 2001), fitted per participant / model x prompt by maximum likelihood with the fit's 95%
interval (a posterior under the staircase's priors, never narrower than the profile likelihood:
`plates.analysis.psychometric_fits`). The guess rate comes from the prompt's kind (`guess_rate`): yes/no ½; multiple
choice 1 / the options the row showed (``options_json``; else the template's ``n_options``); open answers 1 / the size of the
prompt's label space (`plates.stimuli.ishihara.labels.LABEL_SPACES`: cbe 100, huemanity-numeric 90,
huemanity-alnum 3,364). A prompt over the open label space "any" has no finite label space: its guess rate is
0, said in the ``guess_from`` column (not silently).

Illusions (`pse_people_table`): each participant's and model's point of subjective equality (PSE, signed
ΔE2000 in favour of the target the illusion makes look lighter; magnitude = −PSE) per framing x kind x inducer
strength, from `plates.analysis.illusions.pse_table` (three-alternative fit, `plates.analysis.pse`). Human
illusion rows are the quiz's comparison trials, built as `plates staircase` builds them (task "rcid-compare",
prompt "rcid-compare-human", ``delta_e`` the signed ΔE2000 drawn).

Pooled people (``pooled``): beside each participant, one fit over every human row together, labelled
"people (K participants)" (`pooled_label`; our wording). It treats all answers as one observer's (a fixed-effect
pool, not a mixed model), so its interval is narrower than a between-participant spread would be.

The papers publish human accuracies, never thresholds or PSEs: `human_reference` lists them (ColorBlindnessEval
Table 2, HueManity Table 2, ColorBench Table 1, IllusionBench+ Tables II / III); `people_accuracy` puts our
people's and models' accuracy per prompt beside the paper's human accuracy for the same prompt
(``prompt_name``). RCID Table 1 has no human raters' rates (`plates.charts.illusions.MISSING`).

A ``weight`` column (`plates.analysis.metrics.WEIGHT`: the dashboard's collapsed rows) makes a row count as that
many answers in every table here.

Other pages (`label_people`): human rows keep their participant but are named "person: participant-…", so a
chart that groups by ``model`` shows them as people, never as a model.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from plates.analysis.conditions import with_condition
from plates.analysis.illusions import pse_table
from plates.analysis.metrics import row_weights, wilson_intervals
from plates.analysis.psychometric import prompt_guess_rate
from plates.analysis.psychometric_fits import fit_groups
from plates.validation import check_int

__all__ = ["PEOPLE_PREFIX", "PEOPLE_SHOWN", "PERSON_PREFIX", "guess_of_row", "has_people", "human_reference", "label_people",
           "people_accuracy", "pooled_label", "pse_people_table", "threshold_table", "with_pooled"]

#: How a human row's participant is named on a table or chart that groups by model ("person: participant-…");
#: the pooled people fit is named "people (K participants)" (`pooled_label`, `label_people`).
PERSON_PREFIX, PEOPLE_PREFIX = "person: ", "people ("
#: People drawn one by one at most on a chart (the dashboard's People and Illusions pages offer a choice of
#: whom past this; the ΔE2000 and Resolution charts draw more people as one pooled series): a chart of
#: hundreds of people reads as none.
PEOPLE_SHOWN = 12


def has_people(frame: pd.DataFrame) -> bool:
    """Whether ``frame`` holds any human row.

    Parameters
    ----------
    frame : pandas.DataFrame
        Results rows; without a ``backend`` column there are none.

    Returns
    -------
    bool
        True when some row has ``backend == "human"``.
    """
    return "backend" in frame.columns and bool(frame["backend"].astype(object).eq("human").any())


def _who(frame: pd.DataFrame) -> np.ndarray:
    return np.where(frame["backend"].astype(object).eq("human"), "person", "model")


def pooled_label(participants: int) -> str:
    """The name of the pooled people fit (our wording).

    Parameters
    ----------
    participants : int
        K, >= 1.

    Returns
    -------
    str
        "people (K participants)" ("participant" when K is 1).

    Raises
    ------
    ValueError
        ``participants`` is not a whole number >= 1.

    Examples
    --------
    >>> pooled_label(3), pooled_label(1)
    ('people (3 participants)', 'people (1 participant)')
    """
    check_int("participants", participants, 1)
    return f"{PEOPLE_PREFIX}{participants} participant{'s' if participants != 1 else ''})"


def with_pooled(rows: pd.DataFrame, pooled: bool = True) -> pd.DataFrame:
    """``rows`` with ``who`` and ``pooled`` columns, and every human row once more as the pooled people.

    Grouping by model then fits the people together too. Rows that carry a ``pooled`` column already hold
    their pool (the dashboard pools in DuckDB, every participant, while it fits only some one by one): kept as
    they are (without ``pooled``: the pooled rows dropped).

    Parameters
    ----------
    rows : pandas.DataFrame
        Results rows with ``backend`` and ``model``.
    pooled : bool
        Add the pooled copy.

    Returns
    -------
    pandas.DataFrame
        ``rows`` with ``who`` ("person" / "model") and ``pooled`` (False), plus, with ``pooled`` and when
        there are human rows, a copy of every human row with ``model`` = `pooled_label` (K = the distinct
        human ``model`` values) and ``pooled`` True.

    Raises
    ------
    ValueError
        ``backend`` or ``model`` is missing.
    """
    if "backend" not in rows.columns or "model" not in rows.columns:
        raise ValueError(f"with_pooled needs columns backend and model; got {', '.join(map(str, rows.columns))}")
    if "pooled" in rows.columns:  # pooled already (the dashboard's DuckDB counts pool every participant's rows)
        rows = rows.assign(who=_who(rows), pooled=rows["pooled"].astype(bool))
        return rows if pooled else rows[~rows["pooled"]]
    rows = rows.assign(who=_who(rows), pooled=False)
    human = rows[rows["who"] == "person"]
    if not pooled or human.empty:
        return rows
    pool = human.assign(model=pooled_label(int(human["model"].astype(object).nunique())), pooled=True)
    return pd.concat([rows, pool], ignore_index=True)


def label_people(frame: pd.DataFrame, *, pooled: bool = True) -> pd.DataFrame:
    """People named for pages whose charts group by ``model``.

    Parameters
    ----------
    frame : pandas.DataFrame
        Results rows (every column); human rows have ``backend == "human"``.
    pooled : bool
        Add the human rows once more as "people (K participants)" (`with_pooled`).

    Returns
    -------
    pandas.DataFrame
        ``frame`` with each human row's ``model`` named "person: participant-…" (`PERSON_PREFIX`), and ``who``
        and ``pooled`` added; rows of models unchanged. A frame without ``backend`` or ``model`` is returned
        as it is.
    """
    if "backend" not in frame.columns or "model" not in frame.columns:
        return frame
    out = with_pooled(frame, pooled)
    person = (out["who"] == "person") & ~out["pooled"].astype(bool)
    out.loc[person, "model"] = PERSON_PREFIX + out.loc[person, "model"].astype(str)
    return out


def guess_of_row(prompt_name: str, options_json: object = None) -> tuple[float, str]:
    """The guess rate γ of one row of a built-in prompt, and how it was set (module docstring).

    Parameters
    ----------
    prompt_name : str
        A registered prompt (`plates.tasks.prompts`).
    options_json : str or None
        The row's options (JSON list) for a multiple-choice prompt; None: the template's ``n_options``.

    Returns
    -------
    tuple of (float, str)
        γ (0-1; 0 for an open prompt over a label space with no finite size) and the sentence stored in
        ``guess_from``.

    Raises
    ------
    ValueError
        ``prompt_name`` is not a registered prompt; the message lists them.

    References
    ----------
    Wichmann and Hill (2001), *Percept. Psychophys.* 63(8): 1293-1313.

    Examples
    --------
    >>> guess_of_row("cbe-yn-correct"), guess_of_row("cbe-open")
    ((0.5, 'yes/no: 1/2'), (0.01, 'open over cbe: 1/100'))
    """
    from plates.stimuli.ishihara.labels import LABEL_SPACES  # the stimulus and task registries: where used
    from plates.tasks.prompts import get_prompt

    template = get_prompt(prompt_name)
    if template.kind == "yesno":
        return prompt_guess_rate(template), "yes/no: 1/2"
    if template.kind == "mc":
        options = json.loads(options_json) if isinstance(options_json, str) and options_json else None
        k = len(options) if options else template.n_options
        return prompt_guess_rate(template, n_options=k), f"multiple choice: 1/{k}"
    space = template.label_space
    if space not in LABEL_SPACES:
        return 0.0, f"open over label space {space!r}: no finite label space, guess 0"
    return prompt_guess_rate(template), f"open over {space}: 1/{len(LABEL_SPACES[space])}"


def _plate_rows(frame: pd.DataFrame) -> pd.DataFrame:
    need = {"family", "delta_e", "correct", "prompt_name", "model", "backend"}
    if not need <= set(frame.columns):
        return frame.iloc[0:0]
    return frame[frame["family"].astype(object).eq("ishihara") & frame["delta_e"].notna()]


def threshold_table(frame: pd.DataFrame, confidence: float = 0.95, *, pooled: bool = False) -> pd.DataFrame:
    """One chance-aware fit per participant / model x prompt x viewing condition x colour set on the plates
    (``family == "ishihara"``): never pooled across conditions or colour sets, whose accuracy moves with
    grayscale or size and not with ΔE2000 alone.

    Parameters
    ----------
    frame : pandas.DataFrame
        Results rows (every column); human rows have ``backend == "human"``.
    confidence : float
        Level of the threshold's interval.
    pooled : bool
        Add the fit over every participant's rows together.

    Returns
    -------
    pandas.DataFrame
        ``who`` ("person" or "model"), ``pooled`` (True for the fit over every participant's rows together,
        ``model`` "people (K participants)"; only with ``pooled``), ``model``, ``prompt_name``, ``condition``
        (`plates.analysis.conditions.condition_label`), ``colour_set``, ``guess``, ``guess_from``, ``n``,
        ``errors``, ``status`` (`STATUSES` of `plates.analysis.psychometric`: "non-monotonic" and "at-chance"
        fits carry no threshold), ``threshold``, ``ci_low``, ``ci_high`` (ΔE2000, CIELAB D65 2°), ``slope``,
        ``lapse``, ``extrapolated``, ``x_min``, ``x_max``, ``deviance_p``, ``monotone_p``, ``chance_p``,
        ``message``; empty with these columns without plate rows.

    References
    ----------
    Wichmann and Hill (2001), *Percept. Psychophys.* 63(8): 1293-1313; Sharma, Wu and Dalal (2005), *Color
    Res. Appl.* 30(1) (CIEDE2000).
    """
    rows = _plate_rows(frame)
    columns = ["who", "pooled", "model", "prompt_name", "condition", "colour_set", "guess", "guess_from", "n",
               "errors", "status", "threshold", "ci_low", "ci_high", "slope", "lapse", "extrapolated", "x_min",
               "x_max", "deviance_p", "monotone_p", "chance_p", "message"]
    if rows.empty:
        return pd.DataFrame(columns=columns)
    rows = with_condition(with_pooled(rows, pooled))
    colour_set = rows["colour_set"] if "colour_set" in rows.columns else pd.Series("", index=rows.index)
    rows = rows.assign(colour_set=colour_set.astype(object).fillna(""))
    options = rows["options_json"] if "options_json" in rows.columns else pd.Series(None, index=rows.index)
    guesses = [guess_of_row(str(p), o) for p, o in zip(rows["prompt_name"], options.astype(object))]
    rows = rows.assign(guess=[g for g, _ in guesses], guess_from=[w for _, w in guesses])
    # one γ per group: multiple-choice rows of one prompt may show different option counts, so ``guess_from``
    # (which names γ) is a group key too
    by = ["who", "pooled", "model", "prompt_name", "condition", "colour_set"]
    table = fit_groups(rows, [*by, "guess_from"], level="delta_e", guess="guess", confidence=confidence)
    return table[columns].sort_values(by, ascending=[False, False, True, True, True, True], ignore_index=True)


def pse_people_table(frame: pd.DataFrame, confidence: float = 0.95, *, pooled: bool = True) -> pd.DataFrame:
    """The point of subjective equality per participant / model x framing x kind x strength (module
    docstring; `plates.analysis.illusions.pse_table` over the illusion comparison rows).

    Parameters
    ----------
    frame : pandas.DataFrame
        Results rows (every column); human rows have ``backend == "human"``.
    confidence : float
        Level of the PSE's profile-likelihood interval.
    pooled : bool
        Add the fit over every human row together.

    Returns
    -------
    pandas.DataFrame
        ``who``, ``pooled`` (the fit over every human row together, ``model`` "people (K participants)", only
        with ``pooled``), ``model``, ``framing``, ``kind``, ``strength``, ``n``, ``unanswered``, ``status``,
        ``pse``, ``ci_low``, ``ci_high`` (signed ΔE2000), ``magnitude`` (−PSE), ``band``, ``extrapolated``,
        ``message``; people first.

    References
    ----------
    García-Pérez and Alcalá-Quintana (2013), *Front. Psychol.* 4:253; RCID (Mao et al. 2025) §3.3.
    """
    by = ["who", "pooled", "model", "framing", "kind", "strength"]
    columns = [*by, "n", "unanswered", "status", "pse", "ci_low", "ci_high", "magnitude", "band", "extrapolated",
               "message"]
    need = {"family", "backend", "model"}
    if not need <= set(frame.columns):
        return pd.DataFrame(columns=columns)
    rows = frame[frame["family"].astype(object).eq("illusion")]
    if rows.empty:
        return pd.DataFrame(columns=columns)
    rows = with_pooled(rows, pooled)
    table = pse_table(rows, by=by, confidence=confidence)
    if table.empty:
        return pd.DataFrame(columns=columns)
    return table[columns].sort_values(["who", "pooled", "model", "framing", "kind", "strength"],
                                      ascending=[False, False, True, True, True, True], ignore_index=True)


def people_accuracy(frame: pd.DataFrame, reference: pd.DataFrame | None = None, *,
                    pooled: bool = False) -> pd.DataFrame:
    """Accuracy (Wilson 95%) per who x model x prompt over every family, beside the paper's human accuracy
    for the same ``prompt_name`` where a reference table has one.

    Rows without an answer key (``expected`` empty: an RCID comparison whose human answer is undetermined, as
    on most trials of an illusion staircase, which measure a PSE instead) are left out: they have no accuracy.

    Parameters
    ----------
    frame : pandas.DataFrame
        Results rows (every column); human rows have ``backend == "human"``.
    reference : pandas.DataFrame or None
        The papers' reference tables (`plates.results.reference`); None: no paper column filled.
    pooled : bool
        Add every participant's answers together ("people (K participants)", ``pooled`` True).

    Returns
    -------
    pandas.DataFrame
        ``who, pooled, model, prompt_name, n, accuracy, ci_low, ci_high, paper_human, paper_source``
        (accuracy 0-1).

    References
    ----------
    Wilson (1927), *J. Am. Stat. Assoc.* 22(158): 209-212; the papers' human rows (`human_reference`).
    """
    need = {"backend", "model", "prompt_name", "correct"}
    columns = ["who", "pooled", "model", "prompt_name", "n", "accuracy", "ci_low", "ci_high", "paper_human",
               "paper_source"]
    if not need <= set(frame.columns) or frame.empty:
        return pd.DataFrame(columns=columns)
    rows = frame[frame["correct"].notna()]
    if "expected" in rows.columns:
        rows = rows[rows["expected"].astype(object).fillna("").astype(str) != ""]
    rows = with_pooled(rows, pooled)
    w = row_weights(rows)  # a collapsed row (the dashboard's DuckDB counts) stands for `weight` answers
    rows = rows.assign(_n=w, k=rows["correct"].astype(bool).astype(np.int64) * w)
    g = rows.groupby(["who", "pooled", "model", "prompt_name"], sort=True, observed=True)[["_n", "k"]].sum()
    g = g.reset_index().rename(columns={"_n": "n"})
    low, high = wilson_intervals(g["k"].to_numpy(np.int64), g["n"].to_numpy(np.int64), 0.95)
    g = g.assign(accuracy=g["k"] / g["n"], ci_low=low, ci_high=high)
    ref = human_reference(reference)
    ref = ref[ref["prompt_name"].notna() & (ref["metric"] == "accuracy")]
    ref = ref.groupby("prompt_name", sort=True).agg(paper_human=("value", "mean"),
                                                     paper_source=("source", "first")).reset_index()
    return g.merge(ref, on="prompt_name", how="left")[columns].sort_values(
        ["who", "pooled", "model", "prompt_name"], ascending=[False, False, True, True], ignore_index=True)


def human_reference(reference: pd.DataFrame | None) -> pd.DataFrame:
    """The papers' human rows (``model == "Human"``).

    Parameters
    ----------
    reference : pandas.DataFrame or None
        The reference tables (`plates.results.reference`), or None when hidden.

    Returns
    -------
    pandas.DataFrame
        ``source, task, condition, prompt_name, metric, value, printed, n, note``; empty when the reference
        tables are hidden or lack them.

    References
    ----------
    ColorBlindnessEval Table 2, HueManity Table 2, ColorBench Table 1, IllusionBench+ Tables II / III (as the
    module docstring lists them).
    """
    columns = ["source", "task", "condition", "prompt_name", "metric", "value", "printed", "n", "note"]
    if reference is None or "model" not in reference.columns:
        return pd.DataFrame(columns=columns)
    rows = reference[reference["model"].astype(str).str.fullmatch("Human")]
    return rows[[c for c in columns if c in rows.columns]].reset_index(drop=True)
