"""Transport audit: for each export path and each view, how far the colours a model receives move from the PNG
we generated (plates.integrations.transport, plates.models.views).

Run: python3 bench/bench_transport.py [--preset huemanity-numeric] [--plates 3] [--size 512]

The plates come through the exporters' own path (`plates.integrations.rows.export_rows` on a quick experiment:
the exported PNG bytes), then through each harness's decode (`TRANSPORTS`), then through each family's view.
Printed per export path x view: the per-pixel CIEDE2000 between the view of the generated PNG and the view of
what the harness hands the model, averaged over the plates (mean, 95th percentile, max; share of pixels
changed). Target: 0 for the lossless paths (every path plates exports; ratio column "ok"); VLMEvalKit's own
JPEG dump is reported as measured. The figures are colour differences, not timings: machine load does not
change them.
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np

from plates.integrations.rows import export_rows
from plates.integrations.transport import TRANSPORTS, transport_shift
from plates.models.views import FAMILIES
from plates.reader import MODEL_NAME
from plates.runs.experiment import quick_experiment

LOSSLESS = ("hf-datasets", "lmms-eval", "inspect_ai", "vlmevalkit")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="huemanity-numeric")
    ap.add_argument("--plates", type=int, default=3)
    ap.add_argument("--size", type=int, default=512, help="the size sent (px), a condition")
    args = ap.parse_args(argv)
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as out:
        exp = quick_experiment(dataset=args.preset, prompt=args.preset, backend="baseline", model=MODEL_NAME,
                               out=out, limit=args.plates, size=args.size)
        pngs = [row.values["image"]["bytes"] for row in export_rows(exp)]
    print(f"{len(pngs)} plates of {args.preset} sent at {args.size} px; per-pixel CIEDE2000 between the view of "
          "the exported PNG and the view of what each harness hands the model (mean over plates)")
    print(f"{'export path':<24} {'view':<22} {'mean':>6} {'p95':>6} {'max':>6} {'changed':>8}  target")
    failures = 0
    for path in TRANSPORTS:
        for family in (None, *FAMILIES):
            shifts = [transport_shift(png, path, family, seed=i) for i, png in enumerate(pngs)]
            mean, p95 = (float(np.mean([s[k] for s in shifts])) for k in ("mean", "p95"))
            top, changed = max(s["max"] for s in shifts), float(np.mean([s["changed"] for s in shifts]))
            verdict = ("ok" if top == 0 else "FAIL") if path in LOSSLESS else "reported"
            failures += verdict == "FAIL"
            print(f"{path:<24} {family or '(image as sent)':<22} {mean:6.2f} {p95:6.2f} {top:6.2f} "
                  f"{changed:8.1%}  {verdict}")
    print(f"{time.monotonic() - started:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
