"""The explorer's live ellipse: the logic with the bundled reader, its limits, and the tab's endpoint driven
through a launched app with gradio_client."""

from __future__ import annotations

import pytest

from plates.explorer.ellipse import limits, live_ellipse, offered_centres
from plates.explorer.policy import Policy
from plates.models.baseline import BaselineBackend


@pytest.fixture(scope="module")
def reader():
    backend = BaselineBackend()
    yield backend
    backend.close()


def test_one_centre_with_the_bundled_reader(reader):
    seen = []
    fig, table, row = live_ellipse(reader, "macadam-13", 5, 10, Policy(), on_trial=seen.append)
    assert len(table) == 5 and set(table.columns) >= {"threshold", "code_steps", "limits", "status"}
    assert row["centre"] == "macadam-13" and row["model"] == "baseline-cnn" and row["trials"] >= 50
    assert seen[-1] == len(seen) >= 50
    assert any(t.name == "MacAdam 1942 × 3" for t in fig.data)


@pytest.mark.parametrize(("args", "says"), [
    (("macadam-01", 5, 10), "not offered"),  # outside sRGB: not offered
    (("macadam-13", 4, 10), "not offered"),
    (("macadam-13", 5, 13), r"trials=13 is not valid; allowed: an integer in \[10, 12\] per direction here"),
])
def test_public_limits(reader, args, says):
    with pytest.raises(ValueError, match=says):
        live_ellipse(reader, *args, Policy(public=True))
    assert limits(Policy(public=True))[0] < limits(Policy())[0] and "macadam-13" in offered_centres()


def test_the_tab_answers_through_the_app():
    gradio_client = pytest.importorskip("gradio_client")
    from plates.explorer import app as explorer_app

    policy = Policy()
    demo = explorer_app.build_app(policy)
    demo.launch(prevent_thread_lock=True, quiet=True, **explorer_app.launch_options(policy=policy))
    try:
        client = gradio_client.Client(demo.local_url, verbose=False)
        status, _plot, table = client.predict("baseline", "", "", "", "macadam-13", 5, 10,
                                              api_name="/ellipse")
        assert "baseline-cnn" in status and "macadam-13" in status
        assert len(table["data"]) == 5
    finally:
        demo.close()
