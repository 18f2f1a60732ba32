"""The explorer's Illusions, Scenes and Try-it-yourself tabs built in-process, launched on a free
port, driven with gradio_client."""

from __future__ import annotations

import base64
import functools
import io
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from PIL import Image

gradio_client = pytest.importorskip("gradio_client")
import gradio as gr
from gradio_client import Client
from gradio_client.exceptions import AppError

from plates.explorer import app as explorer_app
from plates.explorer import families as fv
from plates.explorer import family_tabs
from plates.explorer import quiz as qv
from plates.explorer.backends import MODEL_KINDS, ModelCache
from plates.explorer.concurrency import concurrency
from plates.explorer.context import Scratch
from plates.explorer.policy import Policy
from plates.results import load_results
from plates.runs.quiz import QuizLimits
from tests.support.chat_server import ChatServer, image_urls

NO_MODEL = dict(kind="baseline", hf_id="", api_model="", base_url="")
SCENE = dict(n_regions=6, n_colours=4, min_delta_e=20.0, clutter=0.0, area_ratio=1.0,
             shapes=["circle", "square", "triangle", "star"], palette="xkcd-basic-11", seed=2, size=256)


def family_demo(policy: Policy, root: Path, quiz: qv.QuizConfig) -> gr.Blocks:
    """The family tabs alone, with a model picker standing in for the Model tab's (what tests need: a short
    quiz and a reader cache in a temporary folder)."""
    with gr.Blocks() as demo:
        key_state = gr.State("")
        kind = gr.Radio(list(MODEL_KINDS), value="baseline", label="Model")
        hf_id, api_model, base_url = gr.Textbox(), gr.Textbox(), gr.Textbox()
        family_tabs.add_family_tabs(
            policy, guard=functools.partial(explorer_app.guarded, hide_paths=policy.public), cache=ModelCache(),
            scratch=Scratch(root / "scratch"), model=(kind, hf_id, api_model, base_url), key_state=key_state,
            slots=concurrency(policy, 0), quiz=quiz, reader=qv.ReaderCache(root / "reader"))
    demo.queue()
    return demo


@pytest.fixture(scope="module")
def running():
    demo = explorer_app.build_app(Policy())
    demo.launch(prevent_thread_lock=True, quiet=True, **explorer_app.launch_options(policy=Policy()))
    yield demo
    demo.close()


@pytest.fixture()
def client(running):
    return Client(running.local_url, verbose=False)


def test_the_app_has_the_three_tabs_and_their_endpoints(client):
    names = client.view_api(print_info=False, return_format="dict")["named_endpoints"]
    for name in ("illusion_render", "illusion_ask", "scene_render", "scene_ask", "quiz_start", "quiz_answer",
                 "quiz_option_0", "quiz_option_1", "quiz_option_2"):
        assert f"/{name}" in names


def test_an_illusion_renders_with_targets_outlined_and_its_measured_values(client):
    path, truth, _ = client.predict(True, "rcid-compare-human", "whites", 1.0, -3.0, "up-down", False, 5, 256,
                                    api_name="/illusion_render")
    stim = fv.render_illusion_controls(fv.IllusionControls("whites", 1.0, -3.0, "up-down", False, 5, 256), Policy())
    assert Path(path).suffix == ".png"
    with Image.open(path) as im:
        assert im.convert("RGB").tobytes() == fv.outlined(stim).tobytes()  # exact pixels, lossless
    measured, de = fv.measure_targets(stim)
    assert f"{de:.2f}" in truth and measured["A"].hex in truth and "pixel-darker:** A" in truth
    assert "| top |" in truth.replace("**A** (magenta outline) ", "")
    with pytest.raises(AppError, match="nope is not in the list of choices"):  # the dropdown's own check
        client.predict(True, "rcid-compare-human", "nope", 1.0, 0.0, "left-right", False, 0, 256,
                       api_name="/illusion_render")


def test_the_question_list_follows_the_kind_and_the_outlines_toggle(client):
    """rcid-filter is asked for colour names: its default question (a comparison) failed with an error naming
    an internal function; the outlines covered the stimulus with no way to hide them."""
    path, _, prompt = client.predict(False, "rcid-compare-human", "rcid-filter", 1.0, 0.0, "left-right", False, 0,
                                     256, api_name="/illusion_render")
    assert prompt["value"] == "rcid-name-pixel"  # the comparison does not apply; the first question that does
    assert [c[0] for c in prompt["choices"]] == ["rcid-name-pixel", "rcid-name-human", "illusionbench-tf",
                                                 "illusionbench-mc"]
    stim = fv.render_illusion_controls(fv.IllusionControls("rcid-filter", 1.0, 0.0, "left-right", False, 0, 256),
                                       Policy())
    assert fv.illusion_prompts(stim) == ["rcid-name-pixel", "rcid-name-human", "illusionbench-tf", "illusionbench-mc"]
    with Image.open(path) as im:  # outlines off: the stimulus as the model receives it
        assert im.convert("RGB").tobytes() == stim.image.convert("RGB").tobytes()
    _, _, kept = client.predict(True, "illusionbench-tf", "whites", 1.0, 0.0, "left-right", False, 0, 256,
                                api_name="/illusion_render")
    assert kept["value"] == "illusionbench-tf"


def test_the_bundled_reader_hands_illusions_and_scenes_to_the_reference_observer(client):
    """No dead end: with the bundled reader chosen (it reads plate text only) the Ask buttons answer through
    the reference observer, which reads the pixels, and the verdict says who answered."""
    question, reply, verdict, parquet = client.predict(*NO_MODEL.values(), "rcid-compare-human", "rcid-contrast",
                                                       1.0, 0.0, "left-right", False, 0, 256, api_name="/illusion_ask")
    assert "According to human perception" in question and reply
    assert "Answered by the reference observer" in verdict and "Parsed answer" in verdict
    frame = pq.read_table(parquet).to_pandas()
    assert frame["backend"].tolist() == ["reference-pixels"] and frame["parse_status"].tolist() == ["ok"]
    *_, verdict, parquet = client.predict(*NO_MODEL.values(), "colour-counting", *SCENE.values(),
                                          api_name="/scene_ask")
    assert "Answered by the reference observer" in verdict and "✅ correct" in verdict  # pixels decide a count
    assert pq.read_table(parquet).to_pandas()["family"].tolist()[-1] == "scene"


def test_an_api_model_gets_the_exact_image_and_is_scored_with_either_framing(client):
    stim = fv.render_illusion_controls(fv.IllusionControls("simultaneous-contrast", 1.0, 0.0, size=256), Policy())
    bodies = []

    def answer(body):
        bodies.append(body)
        return "III"  # "They are exactly same": right by pixels, wrong by perception

    # gradio_client sends every input it is not given at its component's initial value: pass them all
    with ChatServer(answer=answer) as server:
        model = ("openai", "", "test-model", server.url)
        controls = ("simultaneous-contrast", 1.0, 0.0, "left-right", False, 0, 256)
        pixel = client.predict(*model, "rcid-compare-pixel", *controls, api_name="/illusion_ask")
        human = client.predict(*model, "rcid-compare-human", *controls, api_name="/illusion_ask")
    assert "✅ correct" in pixel[2] and "❌ wrong" in human[2]
    sent = Image.open(io.BytesIO(base64.b64decode(image_urls(bodies[-1])[-1].split(",", 1)[1])))
    assert sent.format == "PNG" and sent.convert("RGB").tobytes() == stim.image.tobytes()
    frame = pq.read_table(human[3]).to_pandas()
    assert frame["prompt_name"].tolist()[-2:] == ["rcid-compare-pixel", "rcid-compare-human"]


def test_a_scene_shows_its_question_and_says_when_it_cannot_carry_one(client):
    path, facts, question = client.predict("colour-counting", *SCENE.values(), api_name="/scene_render")
    stim = fv.render_scene_controls(fv.SceneControls(**{**SCENE, "shapes": tuple(SCENE["shapes"])}), Policy())
    with Image.open(path) as im:
        assert im.convert("RGB").tobytes() == stim.image.tobytes()
    assert "How many different colors" in question and "**A**" in question and "objects:** 6" in facts
    *_, question = client.predict("colour-comparison", *SCENE.values(), api_name="/scene_render")
    assert question.startswith("**Not askable:** this scene cannot carry a colour-comparison question")
    with ChatServer(answer=lambda body: "(B)") as server:
        model = ("openai", "", "test-model", server.url)
        q, reply, verdict, parquet = client.predict(*model, "colour-counting", *SCENE.values(), api_name="/scene_ask")
        with pytest.raises(AppError, match="cannot carry a colour-comparison question"):
            client.predict(*model, "colour-comparison", *SCENE.values(), api_name="/scene_ask")
    expected = fv.make_question(stim, fv.SCENE_PROMPTS["colour-counting"]).expected
    assert reply == "(B)" and (("✅ correct" in verdict) == (expected == "B"))
    assert pq.read_table(parquet).to_pandas()["family"].tolist()[-1] == "scene"


def test_a_full_quiz_writes_human_rows_and_shows_both_thresholds(tmp_path, monkeypatch):
    monkeypatch.setenv("PLATES_HUMAN_RESULTS", str(tmp_path / "human"))
    quiz = qv.QuizConfig(trials=3, illusion_trials=2, size=128, limits=QuizLimits(min_seconds_between=0.0),
                         max_sessions=2)
    demo = family_demo(Policy(), tmp_path, quiz)
    demo.launch(prevent_thread_lock=True, quiet=True, **explorer_app.launch_options(policy=Policy()))
    try:
        client = Client(demo.local_url, verbose=False)
        with pytest.raises(AppError, match="tick the box"):
            client.predict(False, api_name="/quiz_start")
        out = client.predict(True, api_name="/quiz_start")
        assert "Image 1 of 5" in out[0] and Path(out[1]).suffix == ".png"
        with pytest.raises(AppError, match="asks for a typed number, not a button"):
            client.predict(api_name="/quiz_option_0")
        # plates and the illusion alternate: plate, illusion, plate, illusion, plate
        steps = [("/quiz_answer", "12"), ("/quiz_option_2", "II"), ("/quiz_answer", "?"), ("/quiz_option_1", "III"),
                 ("/quiz_answer", "../x")]
        for n, (api, reply) in enumerate(steps, start=1):
            if api == "/quiz_answer":
                out = client.predict(reply, api_name=api)
            else:
                assert "which square looks darker" in out[0] and "Which square looks darker" in out[2]
                out = client.predict(api_name=api)
            if n < len(steps):
                assert f"Image {n + 1} of 5" in out[0]
        progress, result, download = out[0], out[-3], out[-2]  # the last: the directions mode's plot (hidden)
        assert progress == "**Done.**" and "Your result" in result and "bundled reader" in result
        assert "pixel-exact observer" in result and "3** plates" in result
        frame = load_results(tmp_path / "human").frame.sort_values("item_id")
        assert frame["reply"].tolist() == [r for _, r in steps] and set(frame["backend"]) == {"human"}
        assert frame["family"].tolist() == ["ishihara", "illusion", "ishihara", "illusion", "ishihara"]
        assert list(Path(tmp_path / "human").glob("*../x*")) == []
        mine = pq.read_table(download["value"] if isinstance(download, dict) else download).to_pandas()
        assert mine["reply"].tolist() == frame["reply"].tolist()
        assert mine["row_key"].tolist() == frame["row_key"].tolist()
        client.predict(True, api_name="/quiz_start")
        with pytest.raises(AppError, match="allowed: 2 per visit"):
            client.predict(True, api_name="/quiz_start")
    finally:
        demo.close()


def test_public_mode_limits_sizes_and_shares_the_model_slot():
    demo = explorer_app.build_app(Policy(public=True))
    limits = {f.api_name: (f.concurrency_limit, f.concurrency_id) for f in demo.fns.values()}
    assert limits["illusion_ask"] == limits["scene_ask"] == limits["ask"] == (1, "model")
    with pytest.raises(ValueError, match=r"image size \(px\)=2048 is not valid"):
        fv.IllusionControls(size=2048).spec(Policy(public=True, max_plate_size=1024))


def test_public_mode_quiz_limits_hold_for_a_hostile_visitor(tmp_path, monkeypatch):
    monkeypatch.setenv("PLATES_HUMAN_RESULTS", str(tmp_path / "human"))
    policy = Policy(public=True)
    quiz = qv.QuizConfig(trials=5, size=128, limits=QuizLimits(min_seconds_between=60.0, max_text=4), max_sessions=1)
    demo = family_demo(policy, tmp_path, quiz)
    demo.launch(prevent_thread_lock=True, quiet=True, **explorer_app.launch_options(policy=policy))
    try:
        client = Client(demo.local_url, verbose=False)
        with pytest.raises(AppError, match="no quiz is running"):
            client.predict("12", api_name="/quiz_answer")
        client.predict(True, api_name="/quiz_start")
        with pytest.raises(AppError, match="at most 4 characters"):
            client.predict("../../etc/passwd", api_name="/quiz_answer")
        client.predict("12", api_name="/quiz_answer")
        with pytest.raises(AppError, match="answering too fast"):
            client.predict("13", api_name="/quiz_answer")
        with pytest.raises(AppError, match="allowed: 1 per visit"):
            client.predict(True, api_name="/quiz_start")
        files = list((tmp_path / "human").iterdir())
        assert len(files) == 1 and files[0].name.startswith("human-") and "passwd" not in files[0].name
    finally:
        demo.close()


def test_the_directions_mode_measures_a_persons_ellipse_with_the_caveat(tmp_path, monkeypatch):
    monkeypatch.setenv("PLATES_HUMAN_RESULTS", str(tmp_path / "human"))
    quiz = qv.QuizConfig(size=128, directions=3, direction_trials=10, limits=QuizLimits(min_seconds_between=0.0))
    assert "Your screen is not calibrated" in qv.consent_text(quiz)
    demo = family_demo(Policy(), tmp_path, quiz)
    demo.launch(prevent_thread_lock=True, quiet=True, **explorer_app.launch_options(policy=Policy()))
    try:
        client = Client(demo.local_url, verbose=False)
        # free text never reaches a row: the widget (or the library behind it) refuses what is not a choice
        with pytest.raises(AppError, match="not in the list of choices|allowed: blank"):
            client.predict(True, "directions", "Ann Smith, deuteranope", api_name="/quiz_start")
        with pytest.raises(AppError, match="not in the list of choices|mode"):
            client.predict(True, "ellipse-of-/etc", "", api_name="/quiz_start")
        out = client.predict(True, "directions", "deutan", api_name="/quiz_start")
        replies = []
        for n in range(1, 31):
            assert f"Image {n} of 30" in out[0] and "type the number you see" in out[0]
            replies.append("12" if n % 3 else "?")
            out = client.predict(replies[-1], api_name="/quiz_answer")
        progress, result, download, plot = out[0], out[-3], out[-2], out[-1]
        assert progress == "**Done.**" and "Your colour ellipse" in result and "macadam-13" in result
        assert "Your screen is not calibrated" in result and result.count("| uv-") == 3
        assert plot is not None
        frame = load_results(tmp_path / "human").frame.sort_values("item_id")
        assert len(frame) == 30 and set(frame["colour_vision"]) == {"deutan"} and set(frame["backend"]) == {"human"}
        assert set(frame["direction"]) == {"uv-000.0", "uv-120.0", "uv-240.0"} and frame["level_shown"].notna().all()
        mine = pq.read_table(download["value"] if isinstance(download, dict) else download).to_pandas()
        assert sorted(mine["row_key"]) == sorted(frame["row_key"])  # the download: in answer order
    finally:
        demo.close()
