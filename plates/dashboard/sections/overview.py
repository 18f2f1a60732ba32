"""Overview: series (model, or model · run) x prompt · condition, accuracy, n and Wilson 95% intervals; the
papers' values in the cells they match."""

from plates.dashboard import common

common.chart_page(
    "overview",
    "Overview",
    "Accuracy per model (rows; a model answered in several runs gets a row per run, never one pooled cell) "
    "and prompt · condition (columns), with n and the Wilson 95% interval in each cell. Where a paper "
    "published the same model, prompt and condition, its value is printed in the cell (details: *Ours vs the papers*).",
)
