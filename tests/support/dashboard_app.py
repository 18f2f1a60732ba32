"""The dashboard opened by Streamlit's AppTest on a results folder: `APP` is the app inside the package (what
`plates dashboard` serves, also from an installed wheel), `ENTRY` the checkout's thin entry
(``streamlit run dashboard/app.py``); a page is switched to by its path relative to `APP`'s folder
("sections/<page>.py")."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

import plates.dashboard
from tests.support import ROOT

APP = Path(plates.dashboard.__file__).resolve().parent / "app.py"
ENTRY = ROOT / "dashboard" / "app.py"


def open_page(monkeypatch, path: Path, page: str) -> AppTest:
    """The dashboard on ``path`` (``PLATES_RESULTS``), switched to ``page`` (e.g. "illusions"), with no
    exception and no error on it."""
    monkeypatch.setenv("PLATES_RESULTS", str(path))
    at = AppTest.from_file(str(APP), default_timeout=120).run()
    at.switch_page(f"sections/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def notes(at) -> list[str]:
    """The page's notes: the lines of its one collapsed "Notes (N)" expander (`plates.dashboard.common.page_notes`)."""
    boxes = [e for e in at.expander if e.label.startswith("Notes (")]
    assert len(boxes) <= 1
    return [m.value for box in boxes for m in box.markdown]
