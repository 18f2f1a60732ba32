"""Analysis of results: chance-aware psychometric fits, points of subjective equality, simulated observers
and Bayesian adaptive procedures (`psychometric`, `pse`, `observers`, `adaptive`)."""
