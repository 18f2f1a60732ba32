"""Numbers only (no figures, no SQL): accuracy and Wilson intervals (`metrics`), chance-aware psychometric fits
(`psychometric`), points of subjective equality (`pse`), simulated observers (`observers`), Bayesian adaptive
procedures (`adaptive`) and the families' metrics (`illusions`, `colorbench`). Figures are in `plates.charts`,
the dashboard's DuckDB queries in `plates.dashboard.queries`."""
