"""Tasks: what is asked about a stimulus, with which prompts, and how replies are judged.

``TASKS`` maps a task name to its `plates.tasks.base.Task` (family, answer kind, question builder, scorer,
source), read-only, like colour-science's method maps. Unknown names raise ValueError listing the valid ones.
A prompt template names its task (`plates.tasks.prompts.PromptTemplate.task`); `task_of` finds it.

One folder per stimulus family, mirroring `plates.stimuli`: `plates.tasks.ishihara`, `plates.tasks.illusions`
(its question builders in ``questions``) and `plates.tasks.scenes` (ColorBench's builders in ``colorbench`` and
``objects``); ``answers/`` reads replies for every family. Adding a task: its `Task` value in its family's
folder, and one line below.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from plates.tasks.base import (
    ANSWER_KINDS,
    QUERY_KIND_OF,
    Question,
    Score,
    Task,
    question_from_json,
    question_to_json,
    subject_of,
)
from plates.tasks.illusions import ILLUSION_TASKS
from plates.tasks.ishihara import PLATE_TASKS
from plates.tasks.prompts import PromptTemplate
from plates.tasks.scenes import SCENE_TASKS
from plates.validation import lookup

__all__ = ["TASKS", "ANSWER_KINDS", "QUERY_KIND_OF", "Question", "Score", "Task", "get_task", "question_from_json",
           "question_to_json", "subject_of", "task_of"]

#: Task name -> Task (read-only). One entry per task, grouped by the module that defines them.
TASKS: Mapping[str, Task] = MappingProxyType({t.name: t for t in (*PLATE_TASKS, *ILLUSION_TASKS, *SCENE_TASKS)})


def get_task(name: str) -> Task:
    """The task called ``name`` in `TASKS`.

    Reads the module's `TASKS` at call time, so a caller (a test) that swaps the mapping sees its own entries.

    Parameters
    ----------
    name : str
        A task name (`plates prompts` lists each prompt's task).

    Returns
    -------
    Task

    Raises
    ------
    ValueError
        An unknown name, listing the task names.

    Examples
    --------
    >>> get_task("cbe-open").name
    'cbe-open'
    """
    return lookup(globals()["TASKS"], name, "task")


def task_of(template: PromptTemplate) -> Task:
    """The task a prompt template asks (its ``task`` field).

    Parameters
    ----------
    template : PromptTemplate
        The template.

    Returns
    -------
    Task
        The entry of `TASKS`.

    Raises
    ------
    ValueError
        The template names no task in `TASKS`.
    """
    return get_task(template.task)
