"""The human quiz ("Try it yourself"): a person answers plates and illusions chosen by the adaptive
procedure, and their ΔE2000 threshold (plates) and point of subjective equality (illusion) are measured the same
way as a model's (`plates.runs.staircase`: the same trials, questions, rows and answer codes), then shown beside
the models' on the same stimuli. Widget-free: the explorer's tab only shows what this module returns.

A session runs two interleaved staircases (`Block`): ``plate`` (HueManity's number prompt, typed answers) and
``illusion`` (RCID's comparison in the human framing, three buttons: left / right darker, or the same). The next
trial comes from the block with the smaller share of its trials done (the plate block first on a tie), so the
two alternate and neither can be learnt from the order. Interleaving staircases is common practice (Kingdom &
Prins, *Psychophysics: A Practical Introduction*, 2nd ed. 2016, ch. 5, adaptive methods); the proportions are ours.

Privacy and storage: no name, no e-mail; a random participant id (``uuid4``); optionally the colour-vision
type the person reports (`COLOUR_VISION`: a choice from a list, never typed text), on each of their rows; each answer is one results row with
backend ``human`` (`plates.runs.rows.build_row`), written at once as its own atomic Parquet part (a crash loses
nothing already answered) under the folder in ``PLATES_HUMAN_RESULTS`` (a Space's persistent storage, e.g.
``/data/human``), or kept in memory only when it is unset. The person can download their own rows. Nothing they
type becomes a path: file names come from the participant id and counters only.

Public mode limits (`QuizLimits`): answers per session, a least time between answers, text length, and a cap
on the folder's total size (a full folder stops writing, never deletes); and, given a ``store_share`` (a
`plates.admission.RateLimit` in bytes, counted per client address), each address's share of that folder: the
part just written is counted at its size on disk, and removed again when it passes the address's share. Either
way the session goes on without storing (`QuizSession.store_note` says why); its answers stay in the session
and in the person's download.
"""

from __future__ import annotations

import io
import os
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image

from plates.admission import RateLimit, Refused
from plates.analysis.adaptive import AdaptiveEstimate, AdaptiveState
from plates.models.base import Reply
from plates.results import SCHEMA, ResultsWriter
from plates.runs.experiment import ModelSpec
from plates.runs.rows import PARTICIPANT_PREFIX, build_row
from plates.runs.staircase import Presented, Staircase
from plates.stimuli.illusions import IllusionSpec
from plates.stimuli.ishihara.plate import PlateSpec

__all__ = ["BLOCKS", "COLOUR_VISION", "CONSENT", "HUMAN_RESULTS_ENV", "ILLUSION_ANSWERS", "Block", "PersonSession",
           "QuizLimits", "QuizSession", "Trial", "check_colour_vision", "folder_bytes", "present_here",
           "results_folder"]

HUMAN_RESULTS_ENV = "PLATES_HUMAN_RESULTS"
BLOCKS = ("plate", "illusion")
#: The self-reported colour-vision types a person may give (optional; the ``colour_vision`` column), and the words
#: the page shows for each: a type, not a diagnosis, and never anything that identifies the person.
COLOUR_VISION = {"normal": "normal colour vision", "protan": "protan (red-weak or red-blind)",
                 "deutan": "deutan (green-weak or green-blind)", "tritan": "tritan (blue-weak or blue-blind)",
                 "unknown": "I don't know"}
#: The illusion buttons: the option of RCID's comparison (`plates.tasks.illusions.questions.rcid_question`) each one
#: answers, and the words after the target's position ("Left" / "Top" ... from the question's options).
ILLUSION_ANSWERS = (("I", "{first} looks darker"), ("III", "They look the same"), ("II", "{second} looks darker"))
CONSENT = (
    "**Before you start.** You will see about {trials} images, one after another: dot plates, where you type the "
    "number you see (or `?` when you see none), and pairs of grey squares on different backgrounds, where you "
    "say which square looks darker to you (or that they look the same). The differences are chosen for you, "
    "trial by trial, to find the smallest colour difference you can read and how strongly the backgrounds "
    "change what you see. Use a screen set to sRGB (most are), at normal brightness, without night-light or "
    "colour filters; if you have a colour-vision deficiency you are welcome too. **What is stored:** your "
    "answers, the images' settings, the time you took, a random participant id and, only if you choose one, "
    "your colour-vision type as you report it: no name, no e-mail, no IP address. You can download your own answers at the end. Tick the box to agree and start."
)


_STILL_TAKE_IT = ("You can still take the quiz and see your result: your answers are kept in this session only, "
                  "and you can download them at the end.")


@dataclass(frozen=True)
class QuizLimits:
    """Per-session and storage limits (public mode: a visitor is assumed hostile).

    Parameters
    ----------
    max_answers : int
        Answers one session may give.
    min_seconds_between : float
        Seconds, at least, between two answers.
    max_text : int
        Characters, at most, of one answer.
    max_folder_bytes : int
        Bytes of stored parts past which answers are no longer stored (the session goes on).
    """

    max_answers: int = 80
    min_seconds_between: float = 0.5
    max_text: int = 16
    max_folder_bytes: int = 200_000_000


@dataclass(frozen=True)
class Trial:
    """What to show now.

    Parameters
    ----------
    number : int
        Its number in the session, from 1.
    block : str
        "plate" or "illusion".
    level : float
        ΔE2000 (CIELAB D65 2°); signed for the illusion, + = A lighter.
    image : PIL.Image.Image
        RGB, sRGB 0-255.
    prompt : str
        The instruction.
    options : tuple of (str, str)
        For the illusion, the answer buttons as (option, label) pairs (`ILLUSION_ANSWERS`); empty for a plate.
    """

    number: int
    block: str
    level: float
    image: Image.Image
    prompt: str
    options: tuple[tuple[str, str], ...] = ()


def check_colour_vision(value: str | None) -> str | None:
    """A self-reported colour-vision type as stored: one of `COLOUR_VISION`'s keys, or None when not given
    (None or blank).

    Parameters
    ----------
    value : str or None
        The choice the person made: a key of `COLOUR_VISION`, or None or blank text for none.

    Returns
    -------
    str or None
        ``value`` itself, or None when it was not given.

    Raises
    ------
    ValueError
        Any other value (the message names it, at most 24 characters of it, and the allowed ones).
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str) or value not in COLOUR_VISION:
        raise ValueError(f"colour vision {str(value)[:24]!r} is not allowed; allowed: blank (not given), "
                         + ", ".join(COLOUR_VISION))
    return value


def results_folder(folder: str | os.PathLike | None = None) -> Path | None:
    """Where a person's answers are stored: ``folder``, else the folder in ``PLATES_HUMAN_RESULTS``, else None
    (kept in memory only).

    Parameters
    ----------
    folder : str or os.PathLike or None, optional
        The folder; None to read ``PLATES_HUMAN_RESULTS`` (unset or empty: none). Neither is checked or created
        here.

    Returns
    -------
    pathlib.Path or None
        The folder, or None when answers are not stored.
    """
    env = os.environ.get(HUMAN_RESULTS_ENV)
    return Path(folder) if folder is not None else (Path(env) if env else None)


def folder_bytes(folder: Path) -> int:
    """Total size of the Parquet parts under ``folder``.

    Parameters
    ----------
    folder : pathlib.Path

    Returns
    -------
    int
        Bytes; 0 if the folder is absent.
    """
    return sum(p.stat().st_size for p in folder.glob("*.parquet")) if folder.is_dir() else 0


@dataclass(frozen=True)
class Block:
    """One staircase of a session and its procedure's state after the answers so far.

    Parameters
    ----------
    name : str
        "plate" or "illusion".
    staircase : Staircase
        What it shows and how it is scored (`plates.runs.staircase`).
    state : AdaptiveState
        The adaptive procedure after the answers so far (`plates.analysis.adaptive`).
    """

    name: str
    staircase: Staircase
    state: AdaptiveState

    @property
    def answered(self) -> int:
        """Trials answered in this block."""
        return len(self.state.history)

    @property
    def done(self) -> bool:
        """Whether the block's procedure has stopped."""
        return self.state.done


def _blocks(*, palette: str, trials: int, illusion: str | None, illusion_trials: int, size: int,
            seed: int, where: Path | None) -> dict[str, Block]:
    human = ModelSpec("human", "participant")
    stairs = {"plate": Staircase(stimulus=PlateSpec("12", size=size, palette=palette, font="dejavu-sans-bold-oblique"),
                                 prompt="huemanity-numeric", model=human, trials=trials, min_trials=trials,
                                 low=0.5, high=40.0, seed=seed, out=str(where or "."), name="human")}
    if illusion is not None and illusion_trials > 0:
        stairs["illusion"] = Staircase(stimulus=IllusionSpec(illusion, size=size), prompt="rcid-compare-human",
                                       model=human, trials=illusion_trials, min_trials=illusion_trials,
                                       low=-15.0, high=15.0, seed=seed, out=str(where or "."), name="human")
    return {name: Block(name, s, AdaptiveState.start(s.adaptive_spec())) for name, s in stairs.items()}


def _instruction(shown: Presented, block: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    if block == "plate":
        return "Type the number you see (or ? if you see none).", ()
    options = shown.question.options or {}
    first, second = (options[k].split(" ")[0] for k in ("I", "II"))
    buttons = tuple((key, label.format(first=first, second=second)) for key, label in ILLUSION_ANSWERS)
    return f"Which square looks darker to you: the {first.lower()} one or the {second.lower()} one?", buttons


def present_here(staircase: Staircase, n: int, state: AdaptiveState) -> Presented:
    """Trial ``n`` of ``staircase`` at the level ``state`` picks next (`AdaptiveState.next_level`: the
    expected-entropy search, most of a trial's CPU besides its image), drawn in this process.

    Parameters
    ----------
    staircase : Staircase
        The block's staircase.
    n : int
        The trial's number.
    state : AdaptiveState
        The procedure's state.

    Returns
    -------
    Presented
        The trial as shown.
    """
    return staircase.present(n, state.next_level())


@dataclass
class PersonSession:
    """What every person's session shares, whichever procedure picks its trials (`QuizSession`: plates and an
    illusion; `plates.runs.quiz_directions.DirectionsSession`: a person's own ellipse): the limits, where answers
    are stored and whether they still are, the random participant id, the rows, and the optional self-reported
    colour-vision type (`COLOUR_VISION`, None: not given) written on every row.

    Attributes
    ----------
    limits : QuizLimits
        The session's caps.
    folder : pathlib.Path or None
        Where answers are stored (None: not stored).
    participant : str
        A random id.
    rows : list of dict
        The results rows so far.
    client : str
        The participant's address (`plates.admission.client_address`).
    store_share : RateLimit or None
        The address's share of the answer store.
    colour_vision : str or None
        The self-reported colour-vision type (`COLOUR_VISION`), None: not given.
    store_note : str
        Why answers are no longer stored (empty while they are).
    """

    limits: QuizLimits = field(default_factory=QuizLimits)
    folder: Path | None = None
    participant: str = field(default_factory=lambda: uuid.uuid4().hex[:16])
    rows: list[dict] = field(default_factory=list)
    client: str = ""
    store_share: RateLimit | None = None
    colour_vision: str | None = None
    #: Why this session's answers are no longer stored (empty while they are), in words for the page.
    store_note: str = ""
    _shown: tuple | None = None
    _last_answer: float = 0.0

    def __post_init__(self) -> None:
        self.colour_vision = check_colour_vision(self.colour_vision)

    @property
    def run_id(self) -> str:
        """``human-<participant>``: the session's run id."""
        return f"human-{self.participant}"

    @property
    def model(self) -> str:
        """The ``model`` column of this person's rows: "participant-<random id>", nothing else."""
        return f"{PARTICIPANT_PREFIX}{self.participant}"

    def _accept(self, text: str) -> tuple[Trial, Any, float, float]:
        """The checks every answer passes (`QuizSession.answer`'s Raises), then (trial, what was drawn, when it
        was shown, now)."""
        if self._shown is None:
            raise ValueError("nothing is shown; ask for the next trial first")
        if not isinstance(text, str) or len(text) > self.limits.max_text:
            raise ValueError(f"an answer is at most {self.limits.max_text} characters")
        now = time.monotonic()
        if now - self._last_answer < self.limits.min_seconds_between:
            raise ValueError("answering too fast: take a moment to look at the image")
        trial, shown, shown_at = self._shown
        if trial.options and text not in {key for key, _ in trial.options}:
            raise ValueError(f"answer {text[:16]!r} is not one of this image's buttons; allowed: "
                             + ", ".join(f"{key} ({label})" for key, label in trial.options))
        if len(self.rows) >= self.limits.max_answers:
            raise ValueError(f"this session has reached its {self.limits.max_answers} answers")
        return trial, shown, shown_at, now

    def _record(self, row: dict, now: float) -> dict:
        """Keep ``row`` (with the colour-vision type) in the session, then store it unless storing stopped."""
        row["colour_vision"] = self.colour_vision
        self.rows.append(row)
        self._shown, self._last_answer = None, now
        self._store(row)  # after the session has it: a full store never loses the answer from the download
        return row

    def _store(self, row: dict) -> None:
        """Write ``row`` as its own part, unless storing has stopped (`store_note`): the folder is over its cap,
        or this part passes the client's share (then it is removed again)."""
        if self.folder is None or self.store_note:
            return
        if folder_bytes(self.folder) > self.limits.max_folder_bytes:
            self.store_note = ("Your answers are no longer stored: the answer store is full. "
                               + _STILL_TAKE_IT)
            return
        with ResultsWriter(self.folder, self.run_id, flush_rows=1) as writer:
            writer.add(row)
        if self.store_share is None:
            return
        try:
            self.store_share.take(self.client, sum(p.stat().st_size for p in writer.parts))
        except Refused as exc:
            for part in writer.parts:
                part.unlink(missing_ok=True)
            self.store_note = f"Your answers are no longer stored: {exc} {_STILL_TAKE_IT}"

    def parquet(self) -> bytes:
        """This session's rows as a Parquet file in the results schema (the participant's download)."""
        buf = io.BytesIO()
        pq.write_table(pa.Table.from_pylist([{k: r.get(k) for k in SCHEMA.names} for r in self.rows],
                                            schema=SCHEMA), buf)
        return buf.getvalue()


@dataclass
class QuizSession(PersonSession):
    """One participant's session: interleaved staircases (`Block`) whose answers come from a person.

    Build it with `QuizSession.start`; the fields are those of `PersonSession` and the blocks.

    Parameters
    ----------
    limits, folder, participant, rows, client, store_share, colour_vision, store_note
        As in `PersonSession`.
    blocks : dict of str to Block
        The staircases by name (``plate``, then ``illusion`` when it has trials).

    Attributes
    ----------
    blocks : dict of str to Block
        The staircases and their states after the answers so far.
    """

    blocks: dict[str, Block] = field(default_factory=dict)

    @classmethod
    def start(cls, *, palette: str = "huemanity-01", trials: int = 24, illusion: str | None = "simultaneous-contrast",
              illusion_trials: int = 16, size: int = 512, seed: int | None = None, limits: QuizLimits | None = None,
              folder: str | os.PathLike | None = None, client: str = "",
              store_share: RateLimit | None = None, colour_vision: str | None = None) -> QuizSession:
        """A new session: ``trials`` plates of colour set ``palette`` and ``illusion_trials`` images of the
        ``illusion`` kind (None or 0 trials: plates only), at most ``limits.max_answers`` answers in all;
        stored answers count against ``client``'s ``store_share`` (module docstring).

        Parameters
        ----------
        palette : str, optional
            The plates' colour set.
        trials : int, optional
            Plate trials.
        illusion : str or None, optional
            The illusion kind (None: plates only).
        illusion_trials : int, optional
            Illusion trials (0: plates only).
        size : int, optional
            The images' side, px.
        seed : int or None, optional
            Seeds the trials (None: a random one).
        limits : QuizLimits, optional
            The session's caps.
        folder : str or os.PathLike, optional
            Where answers are stored (default: `HUMAN_RESULTS_ENV`'s folder, else none).
        client : str, optional
            The participant's address.
        store_share : RateLimit, optional
            The address's share of the answer store.
        colour_vision : str or None, optional
            The person's self-reported type (`COLOUR_VISION`), None: not given.

        Returns
        -------
        QuizSession
            The session.
        """
        limits = limits or QuizLimits()
        seed = int(uuid.uuid4().int % 2**31) if seed is None else seed
        where = results_folder(folder)
        blocks = _blocks(palette=palette, trials=trials, illusion=illusion, illusion_trials=illusion_trials,
                         size=size, seed=seed, where=where)
        return cls(blocks=blocks, limits=limits, folder=where, client=client, store_share=store_share,
                   colour_vision=colour_vision)

    @property
    def staircase(self) -> Staircase:
        """The plate staircase (its settings decide the reader's comparison run)."""
        return self.blocks["plate"].staircase

    @property
    def trials(self) -> int:
        """The most trials this session shows."""
        return min(self.limits.max_answers, sum(b.staircase.trials for b in self.blocks.values()))

    @property
    def done(self) -> bool:
        """Whether the session has shown its last trial (its cap, or every block stopped)."""
        return len(self.rows) >= self.trials or all(b.done for b in self.blocks.values())

    def _next_block(self) -> Block:
        open_blocks = [b for b in self.blocks.values() if not b.done]
        return min(open_blocks, key=lambda b: (b.answered / b.staircase.trials, BLOCKS.index(b.name)))

    def next_trial(self, present: Callable[[Staircase, int, AdaptiveState], Presented] | None = None) -> Trial:
        """The image to show (the same one again until it is answered). A new one, trial ``n`` of the next
        block's staircase at the level its procedure's state picks, is drawn by ``present(staircase, n,
        state)``: `present_here` by default, or where a server draws its images
        (`plates.explorer.pool.ExplorerPool.quiz_trial`: the level and the image in a worker process).

        Parameters
        ----------
        present : callable, optional
            ``present(staircase, n, state)`` -> `Presented` (default `present_here`).

        Returns
        -------
        Trial
            The trial to show.

        Raises
        ------
        ValueError
            When the session is finished.
        """
        if self._shown is not None:
            return self._shown[0]
        if self.done:
            raise ValueError("this session is finished; see the result, or start again")
        block = self._next_block()
        shown = (present or present_here)(block.staircase, len(self.rows), block.state)
        prompt, options = _instruction(shown, block.name)
        trial = Trial(len(self.rows) + 1, block.name, shown.level_drawn, shown.image, prompt, options)
        self._shown = (trial, shown, time.monotonic())
        return trial

    def answer(self, text: str) -> dict:
        """Record the person's answer to the image shown, and store it unless storing has stopped.

        Parameters
        ----------
        text : str
            A typed label for a plate; an option of `Trial.options` for the illusion.

        Returns
        -------
        dict
            The result row (`plates.results.schema` columns).

        Raises
        ------
        ValueError
            Nothing is shown, the text is longer than ``limits.max_text``, the answer comes sooner than
            ``limits.min_seconds_between`` after the last, an illusion answer is not one of its buttons, or the
            session has given ``limits.max_answers`` answers.
        """
        trial, shown, shown_at, now = self._accept(text)
        block = self.blocks[trial.block]
        asked = block.staircase.asked(shown, run_id=self.run_id, dataset="quiz", model=self.model, backend="human")
        row = build_row(asked, Reply(text.strip() or "?", latency_s=now - shown_at))
        code = block.staircase.outcome(row)
        if code is not None:
            self.blocks[trial.block] = Block(block.name, block.staircase, block.state.update(shown.level_drawn, code))
        return self._record(row, now)

    def estimates(self) -> Mapping[str, AdaptiveEstimate]:
        """Per block, the person's estimate so far with its credible interval: "plate" the ΔE2000 threshold,
        "illusion" the PSE (signed ΔE2000, + = A lighter)."""
        return {name: b.state.estimate(check=True) for name, b in self.blocks.items()}

    def estimate(self) -> AdaptiveEstimate:
        """The person's plate threshold (ΔE2000) so far, with its credible interval and status
        (`plates.analysis.adaptive.AdaptiveEstimate`: "non-monotonic" or "at-chance" answers have no threshold)."""
        return self.blocks["plate"].state.estimate(check=True)
