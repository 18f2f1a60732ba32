"""The proof that families and tasks are plug-ins: a toy family (a solid colour patch whose truth is its
colour name) and its task, defined here and nowhere else, added with one registry entry each, run through
`plates run` against a real HTTP server, land in Parquet results and show in the dashboard's overview."""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from types import MappingProxyType
from typing import ClassVar

import numpy as np
import pytest
from PIL import Image

import plates.stimuli
import plates.tasks
from plates.stimuli.base import Family, SpecBase, Stimulus
from plates.tasks.base import Question, Score, Task
from tests.support.chat_server import ChatServer, image_urls

# ---- the toy family's own module (would be plates/stimuli/toy/) ------------------------------------------------
COLOURS = {"red": (220, 30, 30), "green": (30, 160, 60), "blue": (40, 60, 210)}  # sRGB 0-255


@dataclass(frozen=True)
class PatchSpec(SpecBase):
    """A solid patch of a named colour; size px; seed (unused: nothing is random, but every spec has one).
    Its JSON, tagged JSON, inverse and ``replace`` come from `SpecBase`: a new family writes none of them."""

    colour: str
    size: int = 32
    seed: int = 0
    FAMILY: ClassVar[str] = "toy"

    def __post_init__(self) -> None:
        if self.colour not in COLOURS:
            raise ValueError(f"colour {self.colour!r} is not known; allowed: {', '.join(COLOURS)}")


def render_patch(spec: PatchSpec) -> Stimulus:
    image = Image.new("RGB", (spec.size, spec.size), COLOURS[spec.colour])
    return Stimulus(spec, image, {"patch": np.ones((spec.size, spec.size), bool)}, {"label": spec.colour},
                    {"pixels": spec.size * spec.size})


def colour_question(truth, template, *, seed, label_space=None) -> Question:
    return Question(name=template.name, kind="open", text=template.template, expected=truth["label"],
                    target=truth["label"], task="toy-colour-name", answer_kind="name")


def colour_score(question: Question, reply: str) -> Score:
    word = reply.strip().strip(".").lower()
    ok = word in COLOURS
    return Score(word if ok else None, "ok" if ok else "unparsed", word == question.expected, None, "one word")


TOY = Family("toy", PatchSpec, render_patch, ("standard",), "a test of the registries")
TOY_TASK = Task("toy-colour-name", "toy", "name", colour_question, colour_score, "a test of the registries")
# ------------------------------------------------------------------------------------------------------------------


def _name_the_colour(body) -> str:
    """A 'model' behind a real HTTP server: decodes the PNG it was sent and names the nearest colour."""
    data = base64.b64decode(image_urls(body)[-1].split(",", 1)[1])
    pixel = np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))[0, 0].astype(int)
    return min(COLOURS, key=lambda c: int(np.abs(np.array(COLOURS[c]) - pixel).sum())).capitalize() + "."


@pytest.fixture
def toy_registered(monkeypatch):
    """The one registry entry per registry that adding the family and its task takes."""
    monkeypatch.setattr(plates.stimuli, "STIMULI", MappingProxyType({**plates.stimuli.STIMULI, "toy": TOY}))
    monkeypatch.setattr(plates.tasks, "TASKS", MappingProxyType({**plates.tasks.TASKS, TOY_TASK.name: TOY_TASK}))


def test_a_toy_family_runs_through_plates_run_results_and_the_dashboard(tmp_path, toy_registered, capsys):
    from plates.cli import main
    from plates.dashboard import pages
    from plates.dashboard import views as dashboard
    from plates.datasets import Entry, load_dataset, write_items
    from plates.results import load_results
    from plates.stimuli import render, spec_from_json

    specs = [PatchSpec(c, seed=i) for i, c in enumerate(["red", "green", "blue", "green"])]
    assert write_items("patches", [Entry(f"p{i}", s, label=s.colour) for i, s in enumerate(specs)],
                       tmp_path / "data") == 4
    items = load_dataset(tmp_path / "data")
    assert [i.family for i in items] == ["toy"] * 4 and items[1].truth()["label"] == "green"
    (tmp_path / "prompts.toml").write_text(
        '[[prompt]]\nname = "toy-name"\nkind = "open"\nlabel_space = "any"\ntask = "toy-colour-name"\n'
        'template = "What colour is this patch? One word."\n')
    with ChatServer(answer=_name_the_colour, models=("patch-namer",)) as server:
        code = main(["run", "--dataset", str(tmp_path / "data"), "--prompt", "toy-name", "--prompt-file",
                     str(tmp_path / "prompts.toml"), "--backend", "openai", "--model", "patch-namer",
                     "--base-url", server.url, "--no-api-key", "--no-progress", "--out", str(tmp_path / "out")])
    assert code == 0, capsys.readouterr().err
    frame = load_results(tmp_path / "out").frame
    opened = dashboard.open_results(tmp_path / "out")  # what the dashboard's pages draw from
    assert int(opened.cube["n"].sum()) == 4 and set(opened.cube["model"]) == {"patch-namer"}
    assert sorted(frame["target"]) == ["blue", "green", "green", "red"]
    assert set(frame["family"]) == {"toy"} and set(frame["task"]) == {"toy-colour-name"}
    assert frame["correct"].all() and set(frame["parsed"]) == {"red", "green", "blue"}
    row = frame.iloc[0]
    again = render(spec_from_json(row["spec_json"]))  # any stored row regenerates its image
    assert again.truth["label"] == row["target"]
    page = pages.overview(dashboard.View(dashboard.open_results(tmp_path / "out")))  # the dashboard's overview
    table = page.table
    assert len(table) == 1 and int(table["n"].iloc[0]) == 4 and float(table["accuracy"].iloc[0]) == 1.0


def test_unknown_family_and_task_names_list_the_valid_ones():
    from plates.stimuli import get_family, spec_from_json
    from plates.tasks import get_task

    with pytest.raises(ValueError, match="stimulus family .toy. is not known; allowed: ishihara, illusion"):
        get_family("toy")
    with pytest.raises(ValueError, match="family 'toy' is not known"):
        spec_from_json('{"family": "toy", "colour": "red"}')
    with pytest.raises(ValueError, match="task 'nope' is not known; allowed: cbe-open"):
        get_task("nope")


def test_a_plate_task_refuses_another_familys_items(tmp_path, toy_registered, capsys):
    from plates.cli import main
    from plates.datasets import Entry, write_items

    write_items("patches", [Entry("p0", PatchSpec("red"), label="red")], tmp_path / "data")
    code = main(["run", "--dataset", str(tmp_path / "data"), "--prompt", "cbe-open", "--backend", "baseline",
                 "--model", "baseline-cnn", "--no-progress", "--out", str(tmp_path / "out")])
    assert code == 2 and "asks about 'ishihara' stimuli, not 'toy'" in capsys.readouterr().err
    assert not list((tmp_path / "out").glob("*.parquet"))  # refused before anything was asked
