"""Verdicts that can be recomputed: stored replies judged again under today's scoring rules, with no model call.

A results row stores everything its task's scorer reads: the reply, the prompt text, the expected answer, the
options (``options_json``), the question's facts (``truth_json``), the task, and since rules version 1 the label
space. `question_of` rebuilds the `plates.tasks.Question` from a row, `rejudge` scores its reply again
(`plates.tasks.answers`), and `rescore_run` turns one stored run into a new run: a new run id
(`rescored_run_id`), every row judged under ``RULES_VERSION`` (never a mix of versions in one run), a
``rescored_from`` column naming the source run, and a count of the verdicts that changed. With a judge model
(`plates.runs.judge`), the replies the rules abstain on are read by it too, and the new run's id says which judge.

Rows without a reply (``parse_status`` "error" or "unsupported") are copied as they are: nothing was read.
Rows written before rows recorded ``label_space`` get the space the runner would have used: the dataset's preset
(`plates.runs.builder.label_space`), else the registered prompt's own (an open prompt about a target outside it:
"any", as the explorer asks), else "any"; `Rescored.inferred` counts them.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from plates.datasets import PRESETS
from plates.results.schema import COLUMNS, UNVERSIONED
from plates.runs.judge import Judge, JudgeSpec, rules_columns
from plates.stimuli.ishihara.labels import LABEL_SPACE_NAMES, LABEL_SPACES
from plates.tasks import QUERY_KIND_OF, Question, get_task
from plates.tasks.answers import RULES_VERSION
from plates.tasks.prompts import PROMPTS

__all__ = ["VERDICT_COLUMNS", "Rescored", "question_of", "rejudge", "rescore_run", "rescored_run_id",
           "rescored_suffix"]

#: The columns a judgement writes; a verdict "changed" when any of them did.
VERDICT_COLUMNS = ("parsed", "parse_status", "correct", "failure_mode")
_NOT_READ = ("error", "unsupported")


def _value(v: Any) -> Any:
    """A stored value with pandas' missing markers (NaN, NaT, pd.NA) as None."""
    if v is None:
        return None
    try:
        if v != v:  # NaN, NaT  # noqa: PLR0124
            return None
    except (TypeError, ValueError):  # pd.NA compares to NA
        return None
    return v


def _typed(name: str, v: Any) -> Any:
    """``v`` as ``COLUMNS[name]``'s type expects it (pandas reads a nullable int column as float)."""
    v = _value(v)
    if v is None:
        return None
    kind = str(COLUMNS[name][0])
    if kind.startswith("int"):
        return int(v)
    if kind == "bool":
        return bool(v)
    if kind == "double":
        return float(v)
    return v


def inferred_label_space(row: Mapping[str, Any]) -> str:
    """The label space a row written before rows recorded it was read in (see the module docstring).

    Parameters
    ----------
    row : mapping
        One results row; its ``dataset``, ``prompt_name`` and ``target`` are read.

    Returns
    -------
    str
        The dataset preset's label space, else the prompt's, else "any" (an unknown prompt, or an open
        prompt whose target lies outside its space).

    Examples
    --------
    >>> inferred_label_space({"prompt_name": "cbe-open", "target": "12"}), inferred_label_space({})
    ('cbe', 'any')
    """
    preset = PRESETS.get(_value(row.get("dataset")))
    if preset is not None:
        return preset.label_space
    template = PROMPTS.get(_value(row.get("prompt_name")))
    if template is None:
        return "any"
    space = template.label_space
    target = _value(row.get("target")) or ""
    if template.kind == "open" and space in LABEL_SPACES and target not in LABEL_SPACES[space]:
        return "any"
    return space


def question_of(row: Mapping[str, Any]) -> Question:
    """The question a stored row asked, as its task's scorer reads it.

    Parameters
    ----------
    row : mapping
        One results row (`plates.results.schema` columns).

    Returns
    -------
    plates.tasks.Question

    Raises
    ------
    ValueError
        The row's task is not a known task (the message lists them), a stored JSON column does not decode
        (the message names it), or its label space is not known.
    """
    task = get_task(_value(row.get("task")))
    try:
        options = json.loads(row["options_json"]) if _value(row.get("options_json")) else None
        extra = json.loads(row["truth_json"]) if _value(row.get("truth_json")) else {}
    except (TypeError, json.JSONDecodeError) as exc:
        raise ValueError(f"row {row.get('row_key')!r}: options_json/truth_json is not valid JSON ({exc})") from None
    space = _value(row.get("label_space")) or inferred_label_space(row)
    if space not in LABEL_SPACE_NAMES:
        raise ValueError(f"row {row.get('row_key')!r}: label_space {space!r} is not known; allowed: "
                         f"{', '.join(LABEL_SPACE_NAMES)}")
    return Question(name=_value(row.get("prompt_name")) or "", kind=QUERY_KIND_OF[task.answer_kind],
                    text=_value(row.get("prompt_text")) or "", expected=_value(row.get("expected")) or "",
                    options=options, target=_value(row.get("target")) or "", label_space=space, task=task.name,
                    answer_kind=task.answer_kind, extra=extra)


def rejudge(row: Mapping[str, Any]) -> dict[str, Any]:
    """``row``'s stored reply judged under today's rules.

    Parameters
    ----------
    row : mapping
        One results row.

    Returns
    -------
    dict
        The verdict columns (``parsed``, ``parse_status``, ``correct``, ``failure_mode``) plus
        ``reply_truncated``, ``label_space``, ``rules_version``; a row without a reply keeps its own.

    Raises
    ------
    ValueError
        As `question_of`, for a row with a reply.
    """
    if _value(row.get("parse_status")) in _NOT_READ or _value(row.get("reply")) is None:
        return {"rules_version": RULES_VERSION, **rules_columns({c: _typed(c, row.get(c)) for c in VERDICT_COLUMNS})}
    q = question_of(row)
    s = get_task(q.task).score(q, row["reply"])
    verdict = {"parsed": s.parsed, "parse_status": s.parse_status, "correct": bool(s.correct),
               "failure_mode": s.failure_mode}
    return {**verdict, "reply_truncated": bool(s.truncated), "label_space": q.label_space,
            "rules_version": RULES_VERSION, **rules_columns(verdict)}


def rescored_suffix(judge: JudgeSpec | None = None) -> str:
    """What `rescored_run_id` appends: ``-rules<RULES_VERSION>``, and with a judge ``-judge<8 hex>`` (a hash of
    `JudgeSpec.identity`: its model, prompt version and whether it reads every reply).

    Parameters
    ----------
    judge : JudgeSpec, optional
        The judge, if any.

    Returns
    -------
    str
        The suffix.
    """
    suffix = f"-rules{RULES_VERSION}"
    if judge is not None:
        suffix += "-judge" + hashlib.sha256(judge.identity().encode()).hexdigest()[:8]
    return suffix


def rescored_run_id(source: str, judge: JudgeSpec | None = None) -> str:
    """The run id of ``source`` rescored under today's rules (and ``judge``): ``source`` + `rescored_suffix` (a
    hash keeps it within the 128 characters a run id may have).

    Parameters
    ----------
    source : str
        The source run's id.
    judge : JudgeSpec, optional
        The judge, if any.

    Returns
    -------
    str
        At most 128 characters.
    """
    suffix = rescored_suffix(judge)
    if len(source) + len(suffix) > 128:
        source = source[:100] + "-" + hashlib.sha256(source.encode()).hexdigest()[:12]
    return source + suffix


@dataclass
class Rescored:
    """One source run judged again, and what changed.

    Parameters
    ----------
    source : str
        The source run's id.
    run_id : str
        The new run's id (`rescored_run_id`).
    rows : list of dict
        The new run's rows.
    per_prompt : dict of str to list of int
        Per prompt name: (rows, verdicts changed, correct before, correct after).
    transitions : collections.Counter
        (old, new) parse status -> rows, changed rows only.
    old_versions : set of int
        The rules versions the source rows were judged under.
    inferred : int
        Rows whose label space was inferred (`inferred_label_space`).
    judged : int
        Verdicts a judge model decided (`plates.runs.judge`).
    """

    source: str
    run_id: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    per_prompt: dict[str, list[int]] = field(default_factory=dict)
    transitions: Counter = field(default_factory=Counter)
    old_versions: set[int] = field(default_factory=set)
    inferred: int = 0
    judged: int = 0

    @property
    def changed(self) -> int:
        """Rows whose verdict changed, over every prompt."""
        return sum(v[1] for v in self.per_prompt.values())


def _row_key(run_id: str, old_key: Any) -> str:
    return hashlib.sha256(json.dumps([run_id, _value(old_key)]).encode()).hexdigest()[:20]


def rescore_run(rows: Iterable[Mapping[str, Any]], judge: Judge | None = None) -> Rescored:
    """One stored run's rows judged again, under today's rules and, where given, a judge model, as a new run.

    Parameters
    ----------
    rows : iterable of mapping
        Mappings over the results columns (e.g. ``frame.to_dict("records")``), all with the same ``run_id``.
    judge : plates.runs.judge.Judge, optional
        Asked where the rules abstain (or about every reply, as its spec says).

    Returns
    -------
    Rescored
        The new run's rows and what changed.

    Raises
    ------
    ValueError
        The rows hold several runs.
    """
    out: Rescored | None = None
    pairs: list[tuple[Mapping[str, Any], dict[str, Any]]] = []
    for row in rows:
        source = _value(row.get("run_id"))
        if out is None:
            out = Rescored(source=source, run_id=rescored_run_id(source, None if judge is None else judge.spec))
        elif source != out.source:
            raise ValueError(f"rescore_run takes one run's rows; got {out.source!r} and {source!r}")
        new = {name: _typed(name, row.get(name)) for name in COLUMNS}
        old_version = _value(row.get("rules_version"))
        out.old_versions.add(UNVERSIONED if old_version is None else int(old_version))
        if new["label_space"] is None and new["parse_status"] not in _NOT_READ:
            out.inferred += 1
        new.update(rejudge(row))
        # run_name None: the rescored run is named by the folder it is written to, not its source's name
        new.update(run_id=out.run_id, run_name=None, row_key=_row_key(out.run_id, row.get("row_key")),
                   rescored_from=source)
        pairs.append((row, new))
    if out is None:
        raise ValueError("rescore_run needs at least one row")
    if judge is not None:
        out.judged = judge.judge_rows([(question_of(row), new) for row, new in pairs
                                       if new["parse_status"] not in _NOT_READ and new["reply"] is not None])
    for row, new in pairs:
        before = tuple(_typed(c, row.get(c)) for c in VERDICT_COLUMNS)
        after = tuple(new[c] for c in VERDICT_COLUMNS)
        stats = out.per_prompt.setdefault(new["prompt_name"] or "", [0, 0, 0, 0])
        stats[0] += 1
        stats[1] += before != after
        stats[2] += before[2] is True
        stats[3] += after[2] is True
        if before[1] != after[1]:
            out.transitions[(before[1], after[1])] += 1
        out.rows.append(new)
    return out
