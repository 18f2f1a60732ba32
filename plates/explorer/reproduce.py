"""The lines that reproduce what the explorer's Model tab shows, outside it: Python over the library and the CLI.

:func:`python_lines` builds the plate from its spec, applies the condition, fills the prompt, asks the model
and scores the reply with the task's reader: the same steps, in the same order, as
`plates.explorer.models.ask_one`, so the snippet's reply, parsed answer and verdict are the explorer's (for a
deterministic model: the baseline reader, or any model at temperature 0 that is itself deterministic).
:func:`cli_lines` writes the plate with ``plates generate --spec`` and asks each model with ``plates run``
(one results folder per model; the dashboard then compares them). What the quick-run flags cannot say (an edited
prompt text, a plate variant other than the prompt's own, a CVD severity below 1) is named in
:attr:`CliLines.missing`, never dropped silently: the Python lines carry all of it.

Neither ever holds a key: an API model reads its key from the environment variable ``OPENAI_API_KEY``.
"""

from __future__ import annotations

import hashlib
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from plates.explorer import models as em
from plates.explorer.backends import ModelChoice
from plates.explorer.share import ModelView, shareable_url
from plates.stimuli.ishihara.plate import PlateSpec
from plates.tasks.prompts import get_prompt

__all__ = ["API_KEY_ENV", "GUARD_LINES", "CliLines", "cli_lines", "python_lines", "run_folder"]

#: The environment variable the lines name for an API key (never the key itself).
API_KEY_ENV = "OPENAI_API_KEY"


def _backend_call(choice: ModelChoice) -> str:
    if choice.kind == "baseline":
        return 'make_backend("baseline")'
    if choice.kind == "hf":
        return f"make_backend(\"hf\", model_id_or_path={choice.model!r})"
    return (f"make_backend(\"openai\", model={choice.model!r}, base_url={shareable_url(choice.base_url)!r}, "
            f"api_key_env={API_KEY_ENV!r})  # api_key_env=None: a server without keys")


#: The snippet's first lines: run beside a clone, Python imports the clone's ``plates/`` before the installed
#: one, and a later error would blame what that checkout lacks (the reader's weights, say); the snippet stops
#: first and names the cause (`plates.install.shadowing`).
GUARD_LINES = (
    "from plates.install import shadowing",
    "",
    "if (shadowed := shadowing()) is not None:  # a checkout in this folder, not the installed plates",
    "    raise SystemExit(shadowed)",
    "",
)


def python_lines(spec: PlateSpec, view: ModelView) -> str:
    """Python that asks the model of ``view`` about the plate of ``spec`` exactly as the explorer does.

    It prints the raw reply, the answer read and the verdict (module doc); it first stops, naming the cause,
    when
    ``plates`` would be imported from a checkout shadowing the installed one (`GUARD_LINES`).

    Parameters
    ----------
    spec : PlateSpec
        The plate.
    view : ModelView
        The Model tab's state (model, prompt, condition, variant).

    Returns
    -------
    str
        The snippet, ending in a newline; an API model reads its key from ``OPENAI_API_KEY``, never inline.
    """
    template = em.asked_template(em.Ask(view.prompt_name, view.prompt_text))
    space = em.prompt_label_space(template, spec.text)
    cond = view.condition()
    edited = view.prompt_text is not None and view.prompt_text != get_prompt(view.prompt_name).template
    lines = [
        *GUARD_LINES,
        *(("from dataclasses import replace", "") if edited else ()),
        "from plates.conditions import Condition, apply_condition",
        "from plates.models import make_backend",
        "from plates.stimuli.ishihara.plate import PlateSpec, render",
        "from plates.tasks import get_task",
        "from plates.tasks.prompts import get_prompt, query_for, render_prompt",
        "",
        f"spec = PlateSpec.from_json({spec.to_json()!r})",
        f"condition = Condition(size={cond.size!r}, grayscale={cond.grayscale!r}, hue_shift={cond.hue_shift!r}, "
        f"cvd={cond.cvd!r}, cvd_severity={cond.cvd_severity!r})",
        f"image = apply_condition(render(spec).variant({view.variant!r}), condition)  # PIL RGB, as sent (PNG)",
        f"template = get_prompt({view.prompt_name!r})",
        f"template = replace(template, template={view.prompt_text!r})  # the edited prompt text" if edited else None,
        "question = render_prompt(template, spec.text, seed=0"
        + (f", label_space={space!r})" if space else ")"),
        f"backend = {_backend_call(view.choice())}",
        "[(_, reply)] = backend.ask([query_for(question, image)])",
        "backend.close()",
        "if reply.text is None:  # a failed request, or a model that declines this kind of question",
        "    print('no answer:', reply.error or 'the model declines this kind of prompt')",
        "else:",
        "    score = get_task(question.task).score(question, reply.text)",
        "    print(repr(reply.text), '->', score.parsed, 'correct' if score.correct else 'wrong')",
    ]
    return "\n".join(line for line in lines if line is not None).lstrip("\n") + "\n"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:40] or "x"


def run_folder(choice: ModelChoice) -> str:
    """The results folder the CLI lines give a model.

    Parameters
    ----------
    choice : ModelChoice
        The model.

    Returns
    -------
    str
        ``results/runs/explorer-<model>`` (the model name, or the kind, slugged to 40 characters).
    """
    return f"results/runs/explorer-{_slug(choice.model or choice.kind)}"


@dataclass(frozen=True)
class CliLines:
    """The CLI lines that reproduce the Model tab, and what they cannot say.

    Attributes
    ----------
    lines : tuple of str
        The shell commands, one a line.
    missing : tuple of str
        What on screen they cannot say, in words.
    """

    lines: tuple[str, ...]
    missing: tuple[str, ...] = ()

    def text(self) -> str:
        """The commands, preceded by a comment per missing part."""
        notes = tuple(f"# not in these lines (the Python lines have it): {m}" for m in self.missing)
        return "\n".join((*notes, *self.lines)) + "\n"


def cli_lines(spec: PlateSpec, view: ModelView, others: Sequence[ModelChoice] = ()) -> CliLines:
    """The shell commands that write the plate and ask each model about it.

    ``plates generate --spec`` for the plate of ``spec`` (into ``data/explorer-<text>-<digest>``), then one
    ``plates run`` per model (the model of ``view``, then each of ``others`` not already named) with the
    prompt and
    condition of ``view``, each into its :func:`run_folder`.

    Parameters
    ----------
    spec : PlateSpec
        The plate.
    view : ModelView
        The Model tab's state.
    others : sequence of ModelChoice
        The compared models.

    Returns
    -------
    CliLines
        The commands and what they leave out (an edited prompt text, another plate variant, a CVD severity
        below 1).
    """
    template = get_prompt(view.prompt_name)
    missing = []
    if view.prompt_text is not None and view.prompt_text != template.template:
        missing.append(f"the edited prompt text (the lines use {view.prompt_name}'s own)")
    if view.variant != template.variant:
        missing.append(f"the {view.variant} plate (a quick run asks {view.prompt_name} about the "
                       f"{template.variant} plate)")
    if view.cvd != "none" and view.cvd_severity != 1.0:
        missing.append(f"CVD severity {view.cvd_severity:g} (--cvd simulates severity 1)")
    digest = hashlib.sha256(spec.to_json().encode()).hexdigest()[:8]
    data = f"data/explorer-{_slug(spec.text)}-{digest}"
    flags = [f"--prompt {shlex.quote(view.prompt_name)}"]
    if view.size:
        flags.append(f"--size {int(view.size)}")
    if view.grayscale:
        flags.append("--grayscale")
    if view.hue_shift:
        flags.append(f"--hue-shift {view.hue_shift:g}")
    if view.cvd != "none":
        flags.append(f"--cvd {view.cvd}")
    lines = [f"plates generate --spec {shlex.quote(spec.to_json())} --out {data}"]
    models = [view.choice()]
    models += [c for c in others if c not in models]
    for choice in models:
        if choice.kind == "baseline":
            backend = "--backend baseline"
        elif choice.kind == "hf":
            backend = f"--backend hf --model {shlex.quote(choice.model)}"
        else:
            backend = (f"--backend openai --model {shlex.quote(choice.model)} --base-url "
                       f"{shlex.quote(shareable_url(choice.base_url))} --api-key-env {API_KEY_ENV}")
        lines.append(f"plates run --dataset {data} {' '.join(flags)} {backend} --out {run_folder(choice)}")
    return CliLines(tuple(lines), tuple(missing))


def reproduce_box(spec: PlateSpec, view: ModelView, others: Sequence[ModelChoice] = ()) -> tuple[str, str]:
    """The Model tab's "Reproduce" box.

    Parameters
    ----------
    spec : PlateSpec
        The plate.
    view : ModelView
        The Model tab's state.
    others : sequence of ModelChoice
        The compared models.

    Returns
    -------
    tuple of str
        (:func:`python_lines`, :meth:`CliLines.text` of :func:`cli_lines`).
    """
    return python_lines(spec, view), cli_lines(spec, view, others).text()

