"""The explorer's Model tab (`plates.explorer.model_tab`) through its endpoints, driven with gradio_client on
the explorer the session serves (tests/explorer/conftest.py): one question and its verdict, the ΔE2000 sweeps
(coarse pass, fine pass in the bracket, compared models), and a session key that never reaches an output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

gradio_client = pytest.importorskip("gradio_client")
from gradio_client import Client
from gradio_client.exceptions import AppError

from plates.explorer import plate as ex
from tests.support.chat_server import ChatServer

KEY = "sk-test-Zq8vR2mKpL4xW9nT"
NO_MODEL = dict(hf_id="", api_model="", base_url="")


@pytest.fixture()
def client(url):
    return Client(url, verbose=False)


def test_the_default_model_answers_a_plate_correctly(client):
    controls = {**ex.spec_to_controls(ex.default_spec()).__dict__, "text": "12"}
    client.predict(*controls.values(), api_name="/render")  # the plate to ask about
    reply, verdict, _table, parquet, _seen, request = client.predict(kind="baseline", **NO_MODEL, api_name="/ask")
    assert "The exact request" in request and "image 512×512 px as sent" in request
    assert reply.strip() == "12", verdict
    assert "✅ correct" in verdict
    rows = Path(parquet).read_bytes()
    import pyarrow.parquet as pq

    frame = pq.read_table(parquet).to_pandas()
    assert len(rows) > 0 and frame["correct"].tolist() == [True] and frame["backend"].tolist() == ["baseline"]


def test_sweep_streams_rows_and_a_figure(client):
    with ChatServer(answer=lambda body: "12", delay=0.3) as server:
        job = client.submit(2.0, 30.0, 4, "openai", "", "test-model", server.url, api_name="/sweep")
        outputs = list(job)
        assert server.max_in_flight == 4  # the points are asked at once, not one after another
    assert 1 <= len(outputs) <= 4  # answers arriving together are shown together
    assert [len(out[0]["data"]) for out in outputs][-1] == 4
    table, figure, parquet, replies, summary, seen, request, low, high = outputs[-1]
    assert (low, high) == (2.0, 30.0)  # a range under 20x is one fine pass: it stays as asked
    assert Path(seen).suffix == ".png" and "The exact request" in request  # the sweep's latest point
    assert table["headers"][:4] == ["Model", "Prompt", "Text", "ΔE2000 drawn"]  # words, not column names
    assert sorted(row[3] for row in table["data"]) == pytest.approx([2.0, 11.33, 20.67, 30.0], abs=0.5)
    assert figure["type"] == "plotly" and "each answer" in figure["plot"]
    import pyarrow.parquet as pq

    assert pq.read_table(parquet).num_rows == 4
    # the raw reply and the verdict panel show the sweep, not the last single ask
    assert replies.splitlines()[0].startswith("ΔE2000 2.00 (drawn 2.") and replies.count(": 12") == 4
    assert summary.startswith("**Sweep:** 4 of 4 correct")


def test_a_sweep_shows_requested_and_drawn_delta_e_and_warns_when_a_target_cannot_be_reached(client):
    """Regression: the sweep asked 0.5 -> 6 on CBE set 1 and silently drew 1.39 -> 6.07 (the palette's line
    quantised in 8 bits). The drawn value is shown beside the asked one and warned about, and a request beyond what
    sRGB can reach from these colours along any direction is named, not fatal."""
    set1 = dict(colour_pair="colorblindnesseval-1", delta_e=0.0, text="12")
    controls = list({**ex.spec_to_controls(ex.default_spec()).__dict__, **set1}.values())
    model = ["baseline", "", "", "", "cbe-open", None, 0, False, 0, "none", 1.0, "standard"]
    outputs = list(client.submit(0.5, 200.0, 2, *model, *controls, api_name="/sweep"))
    table, _figure, _parquet, replies, summary, _seen, _request, _low, _high = outputs[-1]
    assert len(table["data"]) == 1  # 0.5 drawn; 200 is out of sRGB's reach from these colours
    # CBE set 1 holds several foreground and background colours: the mean over their pairs stays above 0.5
    assert "| 0.50 | 1.4" in summary and "⚠️ ΔE2000 0.50 was asked but 1.4" in summary
    assert "⚠️ ΔE2000 200.00 cannot be reached" in summary
    assert "ΔE2000 0.50 (drawn 1.4" in replies


def test_a_wide_sweep_asks_a_coarse_pass_then_fills_the_bracket_where_the_answers_turn_right(client):
    """The default range (0.25-16, 8 points) on the plate shown: the bundled reader is asked at 4 points spaced
    by ratio first (shown at once), then 4 more evenly inside the bracket where its answers turn right, and
    the range boxes then show that bracket (the next "Run sweep" is a fine pass there)."""
    import pyarrow.parquet as pq

    from plates.explorer.sweep import bracket, fine_values, requested_delta_e

    controls = list({**ex.spec_to_controls(ex.default_spec()).__dict__, "seed": 4}.values())
    model = ["baseline", "", "", "", "cbe-open", None, 0, False, 0, "none", 1.0, "standard"]
    outputs = list(client.submit(0.25, 16.0, 8, *model, *controls, api_name="/sweep"))
    coarse_done = next(out for out in outputs if len(out[0]["data"]) >= 4)
    assert len(coarse_done[0]["data"]) == 4  # the coarse pass is shown before the fine one is asked
    rows = pq.read_table(outputs[-1][2]).to_pylist()
    coarse = [r for r in rows if requested_delta_e(r) in (0.25, 1.0, 4.0, 16.0)]
    low, high = outputs[-1][-2:]
    assert len(coarse) == 4 and (low, high) == bracket(coarse) and (low, high) != (0.25, 16.0)
    fine = fine_values(low, high, 4)
    asked = {requested_delta_e(r) for r in rows} - {0.25, 1.0, 4.0, 16.0}
    assert asked <= set(fine) and len(rows) == 4 + len(asked)  # the rest of the points, inside the bracket
    for value in set(fine) - asked:  # a value these colours cannot draw (8-bit steps) is named, not dropped
        assert f"ΔE2000 {value:.2f} cannot be reached" in outputs[-1][4]
    verdicts = {requested_delta_e(r): r["correct"] for r in coarse}
    assert all(ok for v, ok in verdicts.items() if v >= high)  # right from the bracket's top up
    assert low not in verdicts or not verdicts[low]  # wrong at its bottom (or below the coarse range)


def test_sweeping_the_compared_models_brackets_each_models_threshold_apart(client):
    """"Sweep the compared models" over the default wide range: every model is asked the same coarse pass (4 points
    by ratio), then the rest of its points inside its own bracket: a model that reads no plate (a server always
    answering "7" to the plate's "12") is refined above the range, the bundled reader where its own answers turn
    right; the range boxes then span both brackets."""
    import pyarrow.parquet as pq

    from plates.explorer.sweep import bracket, fine_values, requested_delta_e

    controls = list({**ex.spec_to_controls(ex.default_spec()).__dict__, "seed": 4}.values())
    coarse_values = {0.25, 1.0, 4.0, 16.0}
    with ChatServer(answer=lambda body: "7") as server:
        model = ["baseline", "", "", "", "cbe-open", None, 0, False, 0, "none", 1.0, "standard",
                 f"baseline\nopenai test-model {server.url}"]
        outputs = list(client.submit(0.25, 16.0, 8, *model, *controls, api_name="/sweep_compared"))
    rows = pq.read_table(outputs[-1][2]).to_pylist()
    brackets = {}
    for name in ("baseline-cnn", "test-model"):
        own = [r for r in rows if r["model"] == name]
        coarse = [r for r in own if requested_delta_e(r) in coarse_values]
        assert sorted(requested_delta_e(r) for r in coarse) == sorted(coarse_values), name
        brackets[name] = bracket(coarse)
        fine = {requested_delta_e(r) for r in own} - coarse_values
        assert fine <= set(fine_values(*brackets[name], 4)), (name, fine, brackets[name])
        assert len(own) == 4 + len(fine)
        for value in set(fine_values(*brackets[name], 4)) - fine:  # a value these colours cannot draw is named
            assert f"ΔE2000 {value:.2f} cannot be reached" in outputs[-1][4]
    assert brackets["test-model"] == (16.0, 64.0)  # every answer wrong: the step above the range
    assert brackets["baseline-cnn"][1] <= 16.0  # the bundled reader reads the plate within the range
    low, high = outputs[-1][-2:]
    assert (low, high) == (min(lo for lo, _ in brackets.values()), max(hi for _, hi in brackets.values()))


def _all_text(outputs) -> str:
    parts = []
    for out in outputs if isinstance(outputs, (list, tuple)) else [outputs]:
        parts.append(json.dumps(out, default=str))
        if isinstance(out, str) and len(out) < 4096 and "\n" not in out and Path(out).is_file():  # a file we wrote
            parts.append(Path(out).read_bytes().decode("latin-1"))
    return "\n".join(parts)


def test_a_key_given_in_the_session_never_appears_in_any_output(client):
    with ChatServer(answer=lambda body: "12", api_key=KEY) as server:
        status = client.predict(KEY, api_name="/set_key")
        assert KEY not in status and "session" in status
        out = client.predict(kind="openai", hf_id="", api_model="test-model", base_url=server.url,
                             prompt_name="cbe-open", api_name="/ask")
        assert out[0] == "12" and "✅" in out[1]
        assert server.count >= 1  # the key really was used
        assert KEY not in _all_text(out)
    with ChatServer(answer=lambda body: f"your key is {KEY}", api_key=KEY) as server:
        out = client.predict(kind="openai", hf_id="", api_model="test-model", base_url=server.url,
                             api_name="/ask")
        assert KEY not in _all_text(out)
    with ChatServer(answer=lambda body: "12", api_key="another-key-entirely") as server:  # refused: 401
        with pytest.raises(AppError) as err:
            client.predict(kind="openai", hf_id="", api_model="test-model", base_url=server.url, api_name="/ask")
        assert KEY not in str(err.value)
