"""The dashboard's pages, one script per page, run by Streamlit's navigation (`plates.dashboard.app.PAGES`);
not meant to be imported."""
