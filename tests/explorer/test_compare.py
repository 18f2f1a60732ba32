"""Models side by side (plates.explorer.compare): the comparison box's lines, the key's routing, asking the
baseline reader and a real OpenAI-compatible server on 127.0.0.1 the same request, the table, and the
overlaid sweeps with a stable colour per model."""

from __future__ import annotations

import pytest

from plates.charts.common import model_colours
from plates.explorer import compare
from plates.explorer import models as em
from plates.explorer import plate as ex
from plates.explorer.backends import ModelCache, ModelChoice
from plates.explorer.policy import Policy
from tests.support.chat_server import ChatServer, Fault

KEY = "sk-compare-4Rt8yQ2nVb7Lm"


def spec(**changes):
    return ex.default_spec().replace(size=256, **changes)


def test_the_box_reads_one_model_a_line_and_writes_them_back():
    text = "baseline\n\n# my endpoint\nopenai qwen2.5-vl http://127.0.0.1:8000/v1/\nhf org/name"
    choices = compare.parse_models(text, Policy())
    assert [c.kind for c in choices] == ["baseline", "openai", "hf"]
    assert choices[1].base_url == "http://127.0.0.1:8000/v1"  # normalised as a typed URL is
    assert compare.parse_models(compare.format_models(choices), Policy()) == choices
    assert compare.parse_models("", Policy()) == ()


@pytest.mark.parametrize("text, message", [
    ("gemini x", r"line 1 of the models to compare \('gemini x'\) is not a model; allowed: 'baseline'"),
    ("openai m", "line 1 .* is not a model"),
    ("baseline extra", "line 1 .* is not a model"),
    ("baseline\nbaseline", "line 2 of the models to compare repeats 'baseline'"),
    ("openai m ftp://x/v1", r"line 1 of the models to compare: base URL 'ftp://x/v1' is not an http\(s\) URL"),
])
def test_a_bad_line_is_named_with_what_is_allowed(text, message):
    with pytest.raises(ValueError, match=message):
        compare.parse_models(text, Policy())


def test_public_mode_takes_only_allowed_models_and_at_most_three():
    public = Policy.from_env({"PLATES_PUBLIC": "1", "PLATES_ALLOWED_BASE_URLS": "http://127.0.0.1:9/v1"})
    assert public.public and public.max_compare_models == 3
    with pytest.raises(ValueError, match="base URL 'http://10.0.0.1/v1' is not allowed here.*allowed: .*"
                                         "http://127.0.0.1:9/v1"):
        compare.parse_models("openai m http://10.0.0.1/v1", public)
    with pytest.raises(ValueError, match="Hugging Face model 'org/big' is not allowed here"):
        compare.parse_models("hf org/big", public)
    four = "baseline\n" + "\n".join(f"openai m{i} http://127.0.0.1:9/v1" for i in range(3))
    with pytest.raises(ValueError, match="4 models to compare; allowed: at most 3 here"):
        compare.parse_models(four, public)
    with pytest.raises(ValueError, match="allowed: at most"):
        compare.parse_models("baseline\n" * 10_000, public)  # bounded before it is parsed


def test_the_key_goes_only_to_the_url_it_was_typed_for():
    here = ModelChoice("openai", "m", "http://a.example/v1")
    assert compare.key_for(here, f" {KEY} ", "http://a.example/v1/") == KEY
    assert compare.key_for(here, KEY, "http://b.example/v1") == ""
    assert compare.key_for(ModelChoice("baseline"), KEY, "") == ""


def test_two_models_answer_the_same_request_side_by_side():
    """The baseline reader and a real chat-completions server: one row each, the same prompt and image."""
    with ChatServer(answer=lambda body: "I read 47.") as server:
        choices = compare.parse_models(f"baseline\nopenai test-model {server.url}", Policy())
        answers = list(compare.ask_models(spec(), em.Ask("cbe-open"), choices, key="", key_url="",
                                          policy=Policy(), cache=ModelCache(), colour_set="colorblindnesseval-1",
                                          run_id="r"))
        assert len(server.records) == 1 and server.records[0].images == 1
    rows = [a.row for a in answers]
    assert [r["model"] for r in rows] == ["baseline-cnn", "test-model"]
    assert rows[0]["prompt_text"] == rows[1]["prompt_text"] and rows[0]["spec_json"] == rows[1]["spec_json"]
    assert (rows[0]["parsed"], rows[0]["correct"]) == ("12", True)
    assert (rows[1]["parsed"], rows[1]["correct"]) == ("47", False)
    table = compare.comparison_frame(answers)
    assert list(table.columns) == compare.COMPARE_HEADERS
    assert table["Model"].tolist() == ["baseline-cnn", "test-model"]
    assert table["Verdict"].tolist() == ["✅ correct", "❌ wrong"]
    assert table["Raw reply"].tolist()[1] == "I read 47." and table["Expected"].tolist() == ["12", "12"]


def test_a_model_that_cannot_answer_is_named_and_the_others_still_answer():
    public = Policy(public=True, allowed_base_urls=())
    with ChatServer(answer=lambda body: "12", api_key=KEY) as keyed, ChatServer(answer=lambda body: "12") as other:
        policy = Policy(public=True, allowed_base_urls=(keyed.url, other.url))
        choices = (ModelChoice("openai", "test-model", keyed.url), ModelChoice("openai", "test-model", other.url),
                   ModelChoice())
        answers = list(compare.ask_models(spec(), em.Ask("cbe-open"), choices, key=KEY, key_url=keyed.url,
                                          policy=policy, cache=ModelCache(), colour_set="x", run_id="r"))
        assert [r.authorization for r in keyed.records] == [f"Bearer {KEY}"]
        assert other.records == []  # public mode: no key for it, so it is not asked at all
    assert answers[0].row["correct"] is True and answers[2].row["correct"] is True
    assert answers[1].row is None and "an API key is needed" in answers[1].error
    table = compare.comparison_frame(answers)
    assert table["Verdict"].tolist() == ["✅ correct", "error", "✅ correct"]
    assert table["Raw reply"][1].startswith("[not asked: an API key is needed")
    with pytest.raises(ValueError, match="no models to compare"):
        next(compare.ask_models(spec(), em.Ask("cbe-open"), (), key="", key_url="", policy=public,
                                cache=ModelCache(), colour_set="x", run_id="r"))


def test_a_key_echoed_by_a_failing_server_never_reaches_the_table():
    with ChatServer(faults=lambda n, body: Fault.http(401, message="bad key {authorization}")) as server:
        choice = ModelChoice("openai", "test-model", server.url)
        answers = list(compare.ask_models(spec(), em.Ask("cbe-open"), (choice,), key=KEY, key_url=server.url,
                                          policy=Policy(), cache=ModelCache(), colour_set="x", run_id="r"))
    text = compare.comparison_frame(answers).to_string() + repr(answers)
    assert KEY not in text and "***" in text


def test_sweeps_of_two_models_overlay_with_a_colour_per_model():
    values = [2.0, 8.0, 20.0]
    with ChatServer(answer=lambda body: "74") as server:
        choices = (ModelChoice(), ModelChoice("openai", "test-model", server.url))
        answers = list(compare.sweep_models(spec(), values, em.Ask("cbe-open"), choices, key="", key_url="",
                                            policy=Policy(), cache=ModelCache(), colour_set="x",
                                            run_id="r"))
    rows = [a.row for a in answers]
    assert sorted(r["model"] for r in rows) == ["baseline-cnn"] * 3 + ["test-model"] * 3
    # the same plates for both models
    assert sorted(r["spec_json"] for r in rows[:3]) == sorted(r["spec_json"] for r in rows[3:])
    fig = compare.sweep_figure(rows)
    colours = model_colours(["baseline-cnn", "test-model"])
    by_name = {t.name: t for t in fig.data}
    assert by_name[f"baseline-cnn: {compare.ACCURACY_ENTRY}"].marker.color == colours["baseline-cnn"]
    assert by_name[f"test-model: {compare.ACCURACY_ENTRY}"].marker.color == colours["test-model"]
    assert colours["baseline-cnn"] != colours["test-model"]
    assert by_name[f"test-model: {compare.ANSWERS_ENTRY}"].marker.color == colours["test-model"]
    assert list(by_name[f"test-model: {compare.ANSWERS_ENTRY}"].y) == [0.0, 0.0, 0.0]  # "74" is wrong at every ΔE2000
    assert list(by_name[f"test-model: {compare.ANSWERS_ENTRY}"].marker.symbol) == ["x"] * 3
    # the colour is the model's, whichever models share the chart
    alone = compare.sweep_figure(rows[3:])
    assert next(t for t in alone.data if t.name == f"test-model: {compare.ACCURACY_ENTRY}").marker.color == colours["test-model"]


def test_a_sweep_goes_on_past_a_model_that_fails():
    choices = (ModelChoice("hf", "org/none"), ModelChoice())

    def missing(model):
        raise ValueError(f"Hugging Face model {model!r} is not downloaded on this server")

    policy = Policy(public=True, allowed_hf_models=("org/none",))
    answers = list(compare.sweep_models(spec(), [4.0, 12.0], em.Ask("cbe-open"), choices, key="", key_url="",
                                        policy=policy, cache=ModelCache(), colour_set="x", run_id="r",
                                        check_hf=missing))
    assert answers[0].row is None and "not downloaded" in answers[0].error
    assert [a.row["model"] for a in answers[1:]] == ["baseline-cnn", "baseline-cnn"]
