"""The ``python`` backend: any callable (image, question) -> reply, imported by its ``module:function`` name,
in a query, a staircase and the apps' list of kinds (never offered there)."""

from __future__ import annotations

import pytest
from PIL import Image

from plates.models import BACKENDS, make_backend
from plates.models.base import Query, Reply, Turn
from plates.models.python_observer import PythonBackend, resolve_callable

HERE = "tests.models.test_python_observer"
SEEN: list[tuple[tuple[int, int], str]] = []


def echo_size(image, question):
    SEEN.append((image.size, question))
    return f"{image.size[0]} {question}"


def broken(image, question):
    raise RuntimeError("observer fell over")


def wrong_type(image, question):
    return 12


def declines(image, question):
    return Reply(text=None, unsupported=True)


NOT_CALLABLE = 3


def _query(text="What number?"):
    return Query((Turn("user", text, (Image.new("RGB", (32, 32)),)),))


def test_the_callable_gets_the_last_image_and_the_question_text():
    SEEN.clear()
    backend = make_backend("python", model=f"{HERE}:echo_size")
    assert isinstance(backend, PythonBackend) and backend.model == f"{HERE}:echo_size"
    reply = backend.ask_one(_query("Read it"))
    assert reply.ok and reply.text == "32 Read it"
    assert SEEN == [((32, 32), "Read it")]
    assert "python callable" in reply.settings_json


def test_a_raised_exception_is_an_error_reply_not_answer_text():
    reply = PythonBackend(f"{HERE}:broken").ask_one(_query())
    assert reply.text is None and reply.error == "RuntimeError: observer fell over"


def test_a_non_string_is_an_error_naming_the_type_and_a_reply_passes_through():
    reply = PythonBackend(f"{HERE}:wrong_type").ask_one(_query())
    assert reply.text is None and "returned a int" in reply.error
    assert PythonBackend(f"{HERE}:declines").ask_one(_query()).unsupported


@pytest.mark.parametrize(("name", "says"), [
    ("no_colon", "package.module:function"),
    ("plates.models:", "package.module:function"),
    ("nope_module_xyz:f", "cannot be imported"),
    (f"{HERE}:missing", "has no attribute"),
    (f"{HERE}:NOT_CALLABLE", "not a callable"),
])
def test_bad_names_are_refused_naming_what_is_allowed(name, says):
    with pytest.raises(ValueError, match=says):
        resolve_callable(name)


def test_registered_and_never_offered_to_a_visitor():
    from plates.explorer.backends import MODEL_KINDS

    assert "python" in BACKENDS and "python" not in MODEL_KINDS


def test_a_staircase_runs_with_a_python_observer(tmp_path):
    from plates.runs.experiment import ModelSpec
    from plates.runs.staircase import Staircase, run_staircase
    from plates.stimuli.ishihara.plate import PlateSpec

    stair = Staircase(stimulus=PlateSpec(text="12", size=256), prompt="huemanity-numeric",
                      model=ModelSpec("python", "plates.models.simulated:ideal", 512, 0.0, {}), trials=12,
                      out=str(tmp_path))
    result = run_staircase(stair)
    assert result.answered == 12 and result.errors == 0
    # the ideal observer sees any 8-bit difference: its ΔE2000 threshold sits at the bottom of the range
    assert result.estimate.threshold < 3.0


def test_a_run_asks_a_python_observer(tmp_path):
    from plates.cli import main
    from plates.results import load_results

    assert main(["run", "--dataset", "colorblindnesseval", "--limit", "2", "--prompt", "cbe-open", "--backend",
                 "python", "--model", f"{HERE}:echo_size", "--out", str(tmp_path)]) == 0
    rows = load_results(tmp_path).frame
    assert len(rows) >= 1 and (rows["backend"] == "python").all() and (rows["model"] == f"{HERE}:echo_size").all()
    assert rows["reply"].str.match(r"^\d+ \S").all()  # "<image side> <the question>", from the callable
