"""The explorer's CPU work, in this process or in warm worker processes: renders and the bundled reader's answers.

Everything the explorer computes for a visitor is CPU work under Python's GIL: the Plate tab's render (the plate
and its views, `plates.explorer.plate.render_views`, encoded as the page serves them: the plate as exact PNG, the
other views as JPEG written as Gradio's own image encoder writes them, display only), the Illusions and Scenes
tabs' renders (the image as exact PNG, its truth and the questions it can carry, `plates.explorer.families`), the
quiz's trials (a person's next level, chosen by the adaptive procedure, and its image, drawn and encoded as
exact PNG, `present_trial`), the plates a model is asked about that are not on screen (a ΔE2000 sweep's), and
the bundled reader's answers (ONNX inference, `plates.models.baseline`). A public server runs all of it in one `plates.workers.WorkerPool` of one
spawned process per core (`plates.explorer.concurrency.render_workers`) and only writes the bytes it gets back, so N
visitors use N cores; a private explorer (workers 0) computes in its own threads. The pool is bounded: past its
``max_pending`` calls a visitor is told the server is busy (`plates.admission.Refused`), never left waiting.

Each worker loads the reader once (`warm`) with one onnxruntime intra-op thread, so N workers use N cores, not
N x cores threads fighting for them.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import functools
import io
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from PIL import Image

from plates.analysis.adaptive import AdaptiveState
from plates.explorer import families as fv
from plates.explorer import plate as ex
from plates.explorer import quiz as qv
from plates.explorer.policy import Policy
from plates.explorer.specs import spec_from_controls
from plates.images import StoredPng
from plates.models import Backend, Query, Reply, make_backend
from plates.reader import MODEL_NAME
from plates.runs.ellipse_plan import EllipseRun
from plates.runs.ellipse_trials import DirectionTrial, present_direction
from plates.runs.staircase import Presented, Staircase
from plates.stimuli.base import Stimulus
from plates.validation import check_int
from plates.workers import WorkerPool

__all__ = ["EncodedStimulus", "EncodedViews", "ExplorerPool", "PooledBaseline", "encode_controls",
           "encode_illusion", "encode_scene", "encode_views", "jpeg_bytes"]


def jpeg_bytes(image: Image.Image) -> bytes:
    """``image`` as JPEG, byte for byte as Gradio encodes a PIL image for ``gr.Image(format="jpeg")``.

    Parameters
    ----------
    image : PIL.Image.Image
        An RGB image (sRGB 0-255).

    Returns
    -------
    bytes
        JPEG with Pillow's defaults (quality 75; no EXIF: our images have none); display only, lossy.
    """
    with io.BytesIO() as out:
        image.save(out, "jpeg")
        return out.getvalue()


@dataclass(frozen=True)
class EncodedViews:
    """A Plate tab render as the page shows it.

    Attributes
    ----------
    plate : Plate
        The rendered plate.
    png : bytes
        The plate's exact PNG (sRGB 0-255).
    jpeg : dict of str to bytes
        Each other view's JPEG (`jpeg_bytes`), keyed as `plates.explorer.plate.VIEWS` after the plate.
    stats : str
        The stats line (`plates.explorer.plate.stats_text`).
    """

    plate: ex.Plate
    png: bytes
    jpeg: dict[str, bytes]
    stats: str


def encode_views(spec: ex.PlateSpec, renderer=ex.render) -> EncodedViews:
    """Render ``spec`` and encode its views (module docstring); a worker process's task.

    Parameters
    ----------
    spec : PlateSpec
        The plate to draw.
    renderer : callable
        Spec -> Plate (`plates.explorer.plate.render`, or the app's `plates.explorer.plate.PlateCache`).

    Returns
    -------
    EncodedViews
        The plate, its PNG, the other views' JPEGs and the stats line.
    """
    views = ex.render_views(spec, renderer=renderer)
    return EncodedViews(plate=views.plate, png=ex.png_bytes(views.images["plate"]),
                        jpeg={v: jpeg_bytes(views.images[v]) for v in ex.VIEWS[1:]}, stats=views.stats)


def encode_controls(policy: Policy, base_json: str | None, vals: tuple) -> EncodedViews:
    """The Plate tab's controls as a spec, rendered and encoded; a worker process's task.

    The spec's colour search (the background at the asked ΔE2000, ~35 ms when the slider moves) runs there
    too.

    Parameters
    ----------
    policy : Policy
        This server's limits.
    base_json : str or None
        The pasted or linked spec the controls were set from, or None.
    vals : tuple
        The control values in `plates.explorer.plate.Controls` field order.

    Returns
    -------
    EncodedViews
        The render, encoded.

    Raises
    ------
    ValueError
        Naming a bad control value (`plates.explorer.specs.spec_from_controls`).
    """
    return encode_views(spec_from_controls(policy, base_json, *vals))


@dataclass(frozen=True)
class EncodedStimulus:
    """An Illusions or Scenes tab render as the page shows it.

    Attributes
    ----------
    png : bytes
        The image's exact PNG (sRGB 0-255), an illusion's targets outlined when asked.
    truth : str
        Its truth as Markdown.
    question : tuple of str or str
        The illusion prompts this kind can carry (`plates.explorer.families.illusion_prompts`), or the scene
        task's question as Markdown.
    """

    png: bytes
    truth: str
    question: tuple[str, ...] | str


def encode_illusion(controls: fv.IllusionControls, policy: Policy, outline: bool) -> EncodedStimulus:
    """The Illusions tab's render (a worker process's task).

    Parameters
    ----------
    controls : IllusionControls
        The tab's values.
    policy : Policy
        This server's limits.
    outline : bool
        Whether to ring the targets (`plates.explorer.families.outlined`).

    Returns
    -------
    EncodedStimulus
        The PNG, the targets' measured values as Markdown and the prompts it can carry.

    Raises
    ------
    ValueError
        Naming a bad control value.
    """
    stim = fv.render_illusion_controls(controls, policy)
    return EncodedStimulus(ex.png_bytes(fv.outlined(stim) if outline else stim.image), fv.illusion_markdown(stim),
                           tuple(fv.illusion_prompts(stim)))


def encode_scene(controls: fv.SceneControls, policy: Policy, task: str) -> EncodedStimulus:
    """The Scenes tab's render (a worker process's task): the scene and the ColorBench task's question.

    Parameters
    ----------
    controls : SceneControls
        The tab's values.
    policy : Policy
        This server's limits.
    task : str
        A ColorBench task (a key of `plates.explorer.families.SCENE_PROMPTS`).

    Returns
    -------
    EncodedStimulus
        The PNG, the scene's truth and the question as Markdown.

    Raises
    ------
    ValueError
        Naming a bad control value or an unknown task.
    """
    stim = fv.render_scene_controls(controls, policy)
    return EncodedStimulus(ex.png_bytes(stim.image), fv.scene_markdown(stim), fv.scene_question_markdown(stim, task))


def portable(stim: Stimulus) -> Stimulus:
    """``stim`` as it crosses to another process.

    Parameters
    ----------
    stim : Stimulus
        Any stimulus.

    Returns
    -------
    Stimulus
        Its spec, image, masks, truth and stats; its variants (functions, which do not cross processes) left
        out.
    """
    return Stimulus(stim.spec, stim.image, stim.masks, stim.truth, stim.stats)


def render_stimulus(controls: fv.IllusionControls | fv.SceneControls, policy: Policy) -> Stimulus:
    """The illusion or scene the controls describe, as a model is asked about it (a worker process's task).

    Parameters
    ----------
    controls : IllusionControls or SceneControls
        The tab's values.
    policy : Policy
        This server's limits.

    Returns
    -------
    Stimulus
        The stimulus, :func:`portable`.

    Raises
    ------
    ValueError
        Naming a bad control value.
    """
    return portable(fv.render_illusion_controls(controls, policy) if isinstance(controls, fv.IllusionControls)
                    else fv.render_scene_controls(controls, policy))


def present_trial(staircase: Staircase, history: tuple[tuple[float, int], ...], n: int) -> Presented:
    """Trial ``n`` of a person's quiz staircase (a worker process's task), its image already encoded.

    The level is the one its procedure picks after ``history``
    (`plates.analysis.adaptive.AdaptiveState.replay`
    then ``next_level``: the same level as the session's own state, which is not sent: it shares a 10 MB
    likelihood table each worker builds once); the image is `plates.runs.staircase.Staircase.present`'s.

    Parameters
    ----------
    staircase : Staircase
        The block's staircase.
    history : tuple of (float, int)
        The block's answers so far: (level shown, outcome) pairs, as `AdaptiveState.replay` takes them.
    n : int
        The trial's index in the block.

    Returns
    -------
    Presented
        The trial; its image a `plates.images.StoredPng` of `plates.explorer.plate.png_bytes`'s bytes (the
        exact
        pixels), which crosses back as those bytes and is written as they are.
    """
    level = AdaptiveState.replay(staircase.adaptive_spec(), history).next_level()
    shown = staircase.present(n, level)
    return dataclasses.replace(shown, stimulus=portable(shown.stimulus),
                               image=StoredPng(ex.png_bytes(shown.image)))


def present_direction_trial(run: EllipseRun, k: int, r: int, attempt: int,
                            history: tuple[tuple[float, int], ...]) -> DirectionTrial:
    """A person's directions-quiz trial (a worker process's task): direction ``k``'s next level after
    ``history`` (its QUEST+ replayed, as `present_trial` does) and its plate
    (`plates.runs.ellipse_trials.present_direction`), the image already encoded as a `plates.images.StoredPng`.

    Parameters
    ----------
    run : EllipseRun
        The session's run (one centre, index 0).
    k : int
        The direction's index.
    r : int
        The round.
    attempt : int
        The ask within the round (0 first).
    history : tuple of (float, int)
        The direction's answers so far: (level shown in 10⁻³ u'v', answer code) pairs.

    Returns
    -------
    DirectionTrial
        The trial, its image a PNG (sRGB 0-255) that pickles small.
    """
    level = AdaptiveState.replay(run.adaptive_spec(), history).next_level()
    drawn = present_direction(run, 0, k, r, attempt, level)
    return dataclasses.replace(drawn, image=StoredPng(ex.png_bytes(drawn.image)))


@functools.cache
def worker_reader() -> Backend:
    """This process's bundled reader (`plates.models.baseline.BaselineBackend`, one onnxruntime intra-op thread),
    loaded once per worker process and kept for its life."""
    return make_backend("baseline", threads=1)


def answer_query(query: Query) -> dict:
    """The bundled reader's reply to ``query`` (a worker process's task; it declines what it cannot answer).

    Parameters
    ----------
    query : Query
        The question and image.

    Returns
    -------
    dict
        The `plates.models.Reply` fields, its ``settings`` a plain dict (a read-only mapping does not pickle).
    """
    reply = worker_reader().ask_one(query)
    fields = {f.name: getattr(reply, f.name) for f in dataclasses.fields(reply)}
    return {**fields, "settings": None if reply.settings is None else dict(reply.settings)}


def warm() -> None:
    """A worker's first work: one small plate, illusion, scene and quiz trial of each block, and the reader
    loaded and asked once, so fonts, colour-science, the painters, the quiz's adaptive procedures and
    onnxruntime are loaded before a visitor waits on them."""
    policy = Policy()
    encode_views(ex.default_spec().replace(size=128))
    encode_illusion(fv.IllusionControls(size=64), policy, True)
    encode_scene(fv.SceneControls(size=64), policy, next(iter(fv.SCENE_PROMPTS)))
    quiz = qv.start_session(qv.QuizConfig(size=64), agreed=True, started=0)  # its procedures' likelihood tables
    for block in quiz.blocks.values():
        present_trial(block.staircase, (), 0)
    mine = qv.start_session(qv.QuizConfig(size=64), agreed=True, started=0, mode="directions")
    present_direction_trial(mine.run, 0, 0, 0, ())  # the directions mode's likelihood table
    worker_reader()


class PooledBaseline(Backend):
    """The bundled reader answering in an explorer's worker processes.

    The same replies as `plates.models.baseline.BaselineBackend` (each worker holds one); the queries of one
    `ask` are spread over the workers, at most one in flight per worker, so one sweep does not fill the pool's
    bound alone.

    Parameters
    ----------
    explorer : ExplorerPool
        The app's pool; it must have workers.

    Raises
    ------
    ValueError
        When ``explorer`` has no workers.
    """

    kind = "baseline"
    model = MODEL_NAME

    def __init__(self, explorer: ExplorerPool) -> None:
        if not explorer.workers:
            raise ValueError("PooledBaseline needs an ExplorerPool with workers; allowed: workers >= 1")
        self._explorer = explorer

    def ask(self, queries: Sequence[Query]) -> Iterator[tuple[int, Reply]]:
        """Ask the queries, each in a worker, yielding the replies as they finish.

        Parameters
        ----------
        queries : sequence of Query
            The questions and images.

        Yields
        ------
        tuple of (int, Reply)
            The query's index in ``queries`` and its reply, in order of completion.

        Raises
        ------
        plates.admission.Refused
            When the pool is full.
        """
        if not queries:
            return
        threads = cf.ThreadPoolExecutor(min(len(queries), self._explorer.workers), thread_name_prefix="baseline")
        try:
            futures = {threads.submit(self._explorer.run, answer_query, q): i for i, q in enumerate(queries)}
            for future in cf.as_completed(futures):
                yield futures[future], Reply(**future.result())  # a refusal (the pool is full) is raised here
        finally:
            threads.shutdown(wait=False, cancel_futures=True)


class ExplorerPool:
    """One app's CPU work (module docstring), in worker processes or in this process.

    ``plates`` holds the plates on screen (an LRU, `plates.explorer.plate.PlateCache`): every plate the Plate
    tab
    renders goes in, and a plate asked about that is not there is rendered here or in a worker.

    Parameters
    ----------
    workers : int
        Worker processes (started all together by `start`, or the first call); 0 computes in this process.
    max_pending : int or None
        At most this many calls waiting or running; None for no bound.
    plates_kept : int
        How many plates ``plates`` keeps.

    Raises
    ------
    ValueError
        When ``workers`` is not an integer >= 0.
    """

    def __init__(self, workers: int, max_pending: int | None = None, plates_kept: int = 16) -> None:
        check_int("workers", workers, 0)
        self.workers, self.max_pending = workers, max_pending
        self.plates = ex.PlateCache(plates_kept, render=self.render_plate)
        self._pool: WorkerPool | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start the workers now (they warm while the app is built), not at the first call."""
        with self._lock:
            if self.workers and self._pool is None:
                self._pool = WorkerPool(self.workers, warm=warm, max_pending=self.max_pending,
                                        what="renders and answers")

    @property
    def pool(self) -> WorkerPool | None:
        """The worker pool, once started (None in-process)."""
        return self._pool

    def run(self, fn: Callable, *args):
        """``fn(*args)``, in a worker or here.

        Parameters
        ----------
        fn : callable
            A picklable top-level function.
        *args
            Its arguments (picklable).

        Returns
        -------
        object
            What ``fn`` returns.

        Raises
        ------
        plates.admission.Refused
            When the pool is full.
        Exception
            Whatever ``fn`` raises (a ValueError naming a bad value among them), raised here.
        """
        if self.workers == 0:
            return fn(*args)
        self.start()
        return self._pool.call(fn, *args)

    def render_plate(self, spec: ex.PlateSpec) -> ex.Plate:
        """The plate of ``spec`` (`plates.explorer.plate.render`), drawn in a worker (here without workers).

        Parameters
        ----------
        spec : PlateSpec
            The plate to draw.

        Returns
        -------
        Plate
            The rendered plate.
        """
        return self.run(ex.render, spec)

    def plates_for(self, specs: Sequence[ex.PlateSpec]) -> Callable[[ex.PlateSpec], ex.Plate]:
        """A renderer (spec -> Plate) for a sweep.

        With workers, the plates of ``specs`` not on screen are drawn now, one per worker at a time, and kept
        for this
        sweep alone; without, the plates on screen (``plates``), each drawn when asked.

        Parameters
        ----------
        specs : sequence of PlateSpec
            The sweep's plates.

        Returns
        -------
        callable
            Spec -> Plate.

        Raises
        ------
        ValueError
            A bad spec; or `plates.admission.Refused` when the pool is full.
        """
        if not self.workers or not specs:
            return self.plates
        with cf.ThreadPoolExecutor(min(len(specs), self.workers), thread_name_prefix="plates") as threads:
            drawn = dict(zip(specs, threads.map(self.plates, specs)))
        return lambda spec: drawn[spec] if spec in drawn else self.plates(spec)

    def from_controls(self, policy: Policy, base_json: str | None, *vals) -> EncodedViews:
        """`encode_controls` here or in a worker; the plate goes in ``plates``.

        Parameters
        ----------
        policy : Policy
            This server's limits.
        base_json : str or None
            The pasted or linked spec the controls were set from, or None.
        *vals
            The control values in `plates.explorer.plate.Controls` field order.

        Returns
        -------
        EncodedViews
            The render; the rendered spec is ``.plate.spec``.

        Raises
        ------
        ValueError
            Naming a bad control value.
        """
        if self.workers == 0:
            return encode_views(spec_from_controls(policy, base_json, *vals), renderer=self.plates)
        encoded = self.run(encode_controls, policy, base_json, tuple(vals))
        self.plates.put(encoded.plate)
        return encoded

    def illusion(self, controls: fv.IllusionControls, policy: Policy, outline: bool) -> EncodedStimulus:
        """`encode_illusion` here or in a worker.

        Parameters
        ----------
        controls : IllusionControls
            The tab's values.
        policy : Policy
            This server's limits.
        outline : bool
            Whether to ring the targets.

        Returns
        -------
        EncodedStimulus
            The render.
        """
        return self.run(encode_illusion, controls, policy, outline)

    def scene(self, controls: fv.SceneControls, policy: Policy, task: str) -> EncodedStimulus:
        """`encode_scene` here or in a worker.

        Parameters
        ----------
        controls : SceneControls
            The tab's values.
        policy : Policy
            This server's limits.
        task : str
            A ColorBench task.

        Returns
        -------
        EncodedStimulus
            The render.
        """
        return self.run(encode_scene, controls, policy, task)

    def stimulus(self, controls: fv.IllusionControls | fv.SceneControls, policy: Policy) -> Stimulus:
        """`render_stimulus` here or in a worker: what a model is asked about.

        Parameters
        ----------
        controls : IllusionControls or SceneControls
            The tab's values.
        policy : Policy
            This server's limits.

        Returns
        -------
        Stimulus
            The stimulus, without its variants.
        """
        return self.run(render_stimulus, controls, policy)

    def quiz_trial(self, staircase: Staircase, n: int, state: AdaptiveState) -> Presented:
        """`present_trial` after ``state``'s answers, here or in a worker.

        It is the ``present`` of `plates.runs.quiz.QuizSession.next_trial`.

        Parameters
        ----------
        staircase : Staircase
            The block's staircase.
        n : int
            The trial's index in the block.
        state : AdaptiveState
            The block's adaptive state; only its ``history`` goes to the worker.

        Returns
        -------
        Presented
            The trial's level, image and PNG.
        """
        return self.run(present_trial, staircase, state.history, n)

    def direction_trial(self, run: EllipseRun, k: int, r: int, attempt: int, state: AdaptiveState) -> DirectionTrial:
        """`present_direction_trial` after ``state``'s answers, here or in a worker (the ``present`` of
        `plates.runs.quiz_directions.DirectionsSession.next_trial`).

        Parameters
        ----------
        run : EllipseRun
            The session's run.
        k : int
            The direction's index.
        r : int
            The round.
        attempt : int
            The ask within the round.
        state : AdaptiveState
            The direction's QUEST+ state; only its ``history`` goes to the worker.

        Returns
        -------
        DirectionTrial
            The trial, its image a `plates.images.StoredPng`.

        Raises
        ------
        plates.admission.Refused
            The pool is full (`run`).
        """
        return self.run(present_direction_trial, run, k, r, attempt, state.history)

    def make_backend(self, kind: str, **options) -> Backend:
        """`plates.models.make_backend`, but the bundled reader answers in the workers when there are any.

        The app's `plates.explorer.backends.ModelCache` builds its models with this.

        Parameters
        ----------
        kind : str
            A backend kind (`plates.models.BACKENDS`).
        **options
            The backend's options; with any, the bundled reader is built here as asked.

        Returns
        -------
        Backend
            A `PooledBaseline` for ``baseline`` with workers and no options, else the backend built here.
        """
        if kind == "baseline" and self.workers and not options:
            return PooledBaseline(self)
        return make_backend(kind, **options)

    def close(self) -> None:
        """Stop the worker processes (a later call starts fresh ones)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()
