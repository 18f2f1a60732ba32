"""What every illusion and scene preset's first jobs write, hashed: the pixels of each item's PNG (sRGB 0-255, as
decoded) and its manifest values (`plates.datasets.write.prepare_job`), keyed by preset and item id. Run as a
script it prints them as JSON, so a test can make the same items in a fresh process with another environment and
compare. Pixels rather than the PNG's bytes: what the items promise is their pixels; the compressed stream is the
deflate library's (ISA-L), and one set written under load once held 4 PNGs whose streams differed from every
other run's for the same pixels (not reproduced since)."""

from __future__ import annotations

import hashlib
import io
import json
import sys
from itertools import islice

import numpy as np
from PIL import Image

from plates.datasets.family_presets import FAMILY_PRESETS
from plates.datasets.write import prepare_job

SIZE = 96  # px: the smallest size every illusion and scene preset allows is 64
JOBS = 2  # per preset (a robustness job is a seed scene and its nine variants)


def preset_jobs(size: int = SIZE, jobs: int = JOBS) -> list[tuple[str, object]]:
    """(preset, job) for the first ``jobs`` jobs of every illusion and scene preset (the union preset
    colorbench-synthetic left out: its jobs are the others')."""
    return [(name, job) for name, p in FAMILY_PRESETS.items() if name != "colorbench-synthetic"
            for job in islice(p.jobs(size=size, seed=0), jobs)]


def hashes(jobs: list[tuple[str, object]]) -> dict[str, str]:
    """``"<preset> <item id>"`` -> sha256 of the item's decoded pixels and its manifest values (JSON, sorted
    keys)."""
    out = {}
    for name, job in jobs:
        for e, png, row in prepare_job(job):
            h = hashlib.sha256(np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).tobytes())
            h.update(json.dumps(row, sort_keys=True, default=str).encode())
            out[f"{name} {e.item_id}"] = h.hexdigest()
    return out


if __name__ == "__main__":
    json.dump(hashes(preset_jobs()), sys.stdout)
