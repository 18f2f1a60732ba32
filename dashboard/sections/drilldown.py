"""Drill-down: any rows, each plate regenerated from its stored spec, beside the raw reply and the verdict."""

import common
import streamlit as st

from plates.ui import dashboard as views


def row_widgets(total: int) -> tuple[str, int, int]:
    """Which rows (all / correct / incorrect / failed), how many plates per page, and which page."""
    left, middle, right = st.columns(3)
    only = left.selectbox("Rows", ["all", "incorrect", "correct", "failed"], key="drill_only")
    limit = middle.selectbox("Plates per page", [6, 12, 24], key="drill_limit")
    pages = max(1, -(-total // limit))
    page = right.number_input(f"Page (of {pages})", min_value=1, max_value=pages, value=1, key="drill_page")
    return only, int(limit), (int(page) - 1) * int(limit)


def show_row(row: dict) -> None:
    """One result: the regenerated plate, then the raw reply, the parsed answer and the verdict."""
    image_col, text_col = st.columns([1, 2])
    try:
        image_col.image(common.plate_image(row), caption=f"{row.get('item_id')} · {row.get('condition')}")
    except (ValueError, ImportError) as exc:
        image_col.warning(f"plate not regenerated: {exc}")
    headline, parsed, reply = views.drilldown_text(row)
    text_col.markdown(headline)
    text_col.markdown(parsed)
    text_col.text(reply)


view = common.current_view()
st.title("Drill-down")
st.caption(
    "Each plate is re-rendered from the row's spec_json with its condition re-applied: what the model saw."
)
only, limit, offset = row_widgets(len(view.frame))
try:
    rows = views.full_rows(view.full, views.drilldown_rows(view.frame, only=only, limit=limit, offset=offset))
except ValueError as exc:
    st.error(str(exc))
    st.stop()
st.dataframe(rows[[c for c in views.DRILLDOWN_COLUMNS if c in rows.columns]], hide_index=True)
if rows.empty:
    st.info("No rows here: change the filters or the row choice.")
for record in rows.to_dict("records"):
    with st.container(border=True):
        show_row(record)
