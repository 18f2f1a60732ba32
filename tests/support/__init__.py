"""What the tests share: loopback servers (`chat_server`, `redirect_server`), a tiny model built offline
(`tiny_vlm`), scripted observers (`pixel_observer`), result rows on disk (`dashboard_rows`, `family_rows`) and
the dashboard's app opened by Streamlit's AppTest (`dashboard_app`). ``ROOT`` is the repository's root."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
