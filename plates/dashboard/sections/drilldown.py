"""Drill-down: rows fetched a page at a time, each plate regenerated from its stored spec, beside the raw
reply and the verdict."""

import streamlit as st

from plates.dashboard import common, views


def row_widgets() -> tuple[str, int]:
    """Which rows (all / correct / incorrect / failed) and how many plates per page."""
    left, right = st.columns(2)
    only = left.selectbox("Rows", ["all", "incorrect", "correct", "failed"], key="drill_only")
    limit = right.selectbox("Plates per page", [6, 12, 24], key="drill_limit")
    return only, int(limit)


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
common.page_notes()
only, limit = row_widgets()
try:
    _, total, pages = views.drilldown(view, only=only, limit=limit, page=1)
    page = int(
        st.number_input(
            f"Page (of {pages}: {total:,} rows)",
            min_value=1,
            max_value=pages,
            value=1,
            key=f"drill_page-{only}-{limit}",
        )
    )
    rows, _, _ = views.drilldown(view, only=only, limit=limit, page=page)
except ValueError as exc:
    st.error(str(exc))
    st.stop()
st.dataframe(rows[[c for c in views.DRILLDOWN_COLUMNS if c in rows.columns]], hide_index=True)
if rows.empty:
    st.info("No rows here: change the filters or the row choice.")
for record in rows.to_dict("records"):
    with st.container(border=True):
        show_row(record)
