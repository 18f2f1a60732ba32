"""What the chart tests share: a figure's trace by its name."""

from __future__ import annotations


def by_name(fig, name):
    found = [t for t in fig.data if t.name == name]
    assert found, f"no trace {name!r}; traces: {[t.name for t in fig.data]}"
    return found[0]
