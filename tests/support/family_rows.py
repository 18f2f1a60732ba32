"""Real results rows of every family for the family dashboard tests.

`write_family_results(folder)` runs the family presets through `plates run` against tests/support/chat_server.py (a
real OpenAI-compatible HTTP server) with seeded scripted answers, and adds human rows written by the quiz
(`plates.runs.quiz.QuizSession`, backend "human"). Answers are drawn from a hash of the request, so every
answer is reproducible and the rows are the runner's own, truth_json and all.

The rows take minutes to write (26 runs and two quiz sessions) and three test modules read them (the charts' and
the dashboard's), so one process writes them once per set of arguments into a folder of its own and each call
gets a copy of it: the same files, with only the folder in the grayscale TOMLs' ``out`` changed to the caller's.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import shutil
import tempfile
from pathlib import Path

from plates.cli import main
from tests.support.chat_server import ChatServer, last_user_text


def _pick(body: dict, choices: tuple[str, ...], salt: str) -> str:
    """One of ``choices``, chosen by a hash of the question text and the image (deterministic)."""
    h = int.from_bytes(hashlib.sha256(f"{salt}|{json.dumps(body, sort_keys=True)}".encode()).digest()[:4], "big")
    return choices[h % len(choices)]


def _answer(model: str):
    def answer(body: dict) -> str:
        text = last_user_text(body)
        if "‘True’ or ‘False’" in text or "True or False" in text:
            return _pick(body, ("True", "False"), model)
        if "IV. " in text:
            return _pick(body, ("I", "II", "III", "IV"), model)
        if "(A)" in text:
            return _pick(body, ("(A)", "(B)", "(C)", "(D)"), model)
        if "number" in text.lower():
            return _pick(body, ("12", "3", "45", "7"), model)
        if "color" in text.lower() and "compare" not in text.lower():
            return _pick(body, ("red", "green", "blue", "gray"), model)
        return _pick(body, ("I", "II", "III"), model)

    return answer


RUNS = (
    ("rcid-contrast", ("rcid-compare-pixel", "rcid-compare-human"), 24),
    ("rcid-filter", ("rcid-name-pixel", "rcid-name-human"), 8),
    ("illusion-magnitude", ("rcid-compare-pixel",), 84),
    ("illusions-classic", ("illusionbench-tf", "illusionbench-mc"), 10),
    ("colorbench-colour-counting", ("colorbench-colour-counting",), 12),
    ("colorbench-colour-comparison", ("colorbench-colour-comparison",), 12),
    ("colorbench-robustness", ("colorbench-shape-counting",), 20),
    ("colorblindnesseval", ("cbe-open",), 24),
    ("huemanity-numeric", ("huemanity-numeric",), 16),  # the quiz's prompt: the models beside the people
)

GRAYSCALE_TOML = """
name = "scene-gray"
prompts = ["colorbench-colour-recognition"]
out = "{out}"
[dataset]
source = "colorbench-colour-recognition"
limit = 8
[conditions]
grayscale = [false, true]
[[models]]
backend = "openai"
model = "{model}"
base_url = "{url}"
api_key_env = false
"""


#: Folders written by `_write` in this process, by the arguments they were written with.
_WRITTEN: dict[tuple, Path] = {}


def write_family_results(folder: Path, models: tuple[str, ...] = ("model-a", "model-b"),
                         participants: int = 2, trials: int = 16) -> Path:
    """Runs every entry of `RUNS` for each model (sizes 128 px to stay quick), a colour/grayscale scene run,
    and ``participants`` quiz sessions of ``trials`` answers into ``folder``; returns ``folder``.

    Written once per process and arguments (into a private folder, removed at exit) and copied into ``folder``
    on every call, so a caller may change its copy freely."""
    key = (tuple(models), participants, trials)
    if key not in _WRITTEN:
        master = Path(tempfile.mkdtemp(prefix="plates-family-rows-"))
        atexit.register(shutil.rmtree, master, ignore_errors=True)
        _write(master, models, participants, trials)
        _WRITTEN[key] = master
    master = _WRITTEN[key]
    shutil.copytree(master, folder, dirs_exist_ok=True)
    for toml in Path(folder).glob("gray-*.toml"):  # the one place the folder is written down
        toml.write_text(toml.read_text().replace((master / "runs").as_posix(), (Path(folder) / "runs").as_posix()))
    return folder


def _write(folder: Path, models: tuple[str, ...], participants: int, trials: int) -> None:
    from plates.runs.quiz import QuizLimits, QuizSession

    out = folder / "runs"
    for model in models:
        with ChatServer(answer=_answer(model), models=(model,)) as server:
            for dataset, prompts, limit in RUNS:
                for prompt in prompts:
                    code = main(["run", "--dataset", dataset, "--prompt", prompt, "--backend", "openai",
                                 "--model", model, "--base-url", server.url, "--no-api-key", "--limit",
                                 str(limit), "--size", "128", "--no-progress", "--out", str(out)])
                    if code != 0:
                        raise RuntimeError(f"plates run {dataset} {prompt} exited {code}")
            toml = folder / f"gray-{model}.toml"
            toml.write_text(GRAYSCALE_TOML.format(out=out.as_posix(), model=model, url=server.url))
            if main(["run", str(toml), "--no-progress"]) != 0:
                raise RuntimeError("the grayscale scene run failed")
    for p in range(participants):
        session = QuizSession.start(trials=trials, illusion=None, size=128, seed=100 + p, folder=folder / "human",
                                    limits=QuizLimits(min_seconds_between=0.0))
        for t in range(trials):
            if session.done:
                break
            trial = session.next_trial()  # a person with a threshold near 6 + 4p ΔE2000 (as tests/runs/test_quiz.py)
            session.answer(session._shown[1].question.target if trial.level > 6 + 4 * p or t % 7 == 3 else "?")
