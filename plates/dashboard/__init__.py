"""The results dashboard: the Streamlit app, shipped in the wheel (`plates dashboard PATH` runs `app.py`; from a
checkout `streamlit run dashboard/app.py` does the same). `app` draws the sidebar and hands the view to a page
script in `sections/` (one per page); `common` is what the pages share; the widget-free logic lives in `views`
(opening, filters, drill-down, export), `pages` (each page's numbers and figure) and `queries` (DuckDB)."""
