"""Benchmark of the bundled baseline reader on FRESH plates (seeds never used in training).

Prints Markdown tables (for docs/baseline-reader.md) and each figure's ratio to its target:

1. accuracy at the papers' default difficulty, 900 px, on every preset and variant: each paper's
   own style and conventions (HueManity §3-4, Table 7, in its released generator's style, colour roles and
   jitter; ColorBlindnessEval §2.1, App. D-E in its IshiharaMC style, Arial and DejaVu Sans) and the same sets
   in this project's dense style (``<preset>-dense``); targets by label space: numeric >= 97%, alphanumeric
   >= 93%, CBE standard plates >= 95% (clear plates: no target); all built with plates.datasets.make_spec;
2. accuracy against CIEDE2000: HueManity numeric plates whose background is moved to a given ΔE2000 from the
   foreground (PlateSpec.delta_e), with and without HueManity's jitter, plus the fitted 50% threshold;
3. accuracy against resolution (300-1300 px) for the three sets;
4. inference milliseconds per plate on one core (onnxruntime intra-op threads = 1), preprocessing included;
5. figures no font draws (a stand-in for plates from generators the project does not contain; aim
   >= 95%): two-digit numbers in the classic 5 x 7 dot-matrix digits (HD44780 shapes, never seen in training),
   drawn on each paper preset's plates with ``render_on_mask``;
6. plates from an independent mini-generator the training never sees (``bench/foreign_plates.py``: ~800 large
   or ~3,000 small dots, uniform / bimodal / power-law radii, thin / bold / outlined strokes, every system font
   the project does not train on, white / black / coloured / textured surrounds, discs in a margin, square plates,
   confusion-line and random-hue palettes), one row per variant against >= 95%;
7. training time of the default recipe (``plates train-baseline`` with no options, into a scratch folder)
   against <= 15 min wall-clock: opt-in (``--sections train-time``), it trains a whole model.

Plate seeds come from plates.datasets.item_seed with preset seed BENCH_SEED (SHA-256 hashes, so they never
meet the training seeds 10^7-2.1x10^7). Run: ``python3 bench/bench_baseline.py [--n 200] [--quick] [--model M]
[--sections presets,delta-e,resolution,speed,dot-matrix,foreign] [--variants a,b]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from plates.analysis.metrics import wilson_interval
from plates.analysis.psychometric import guess_rate
from plates.analysis.psychometric_fits import fit_psychometric
from plates.datasets import PRESETS, make_spec
from plates.reader.reader import BaselineReader
from plates.stimuli.ishihara.plate import render, render_on_mask

sys.path.insert(0, str(Path(__file__).resolve().parent))
import foreign_plates  # noqa: E402  (bench/, held out from the package on purpose)

BENCH_SEED = 777_000_001
#: accuracy targets by label space (standard plates)
TARGETS = {"huemanity-numeric": 0.97, "huemanity-alnum": 0.93, "cbe": 0.95}
#: the presets of the resolution table
RESOLUTION_PRESETS = ("huemanity-numeric", "huemanity-alnum", "colorblindnesseval")


#: 5 x 7 dot-matrix digits (rows top to bottom), the HD44780 character generator's shapes
DOT_MATRIX = {
    "0": ("01110", "10001", "10011", "10101", "11001", "10001", "01110"),
    "1": ("00100", "01100", "00100", "00100", "00100", "00100", "01110"),
    "2": ("01110", "10001", "00001", "00010", "00100", "01000", "11111"),
    "3": ("11111", "00010", "00100", "00010", "00001", "10001", "01110"),
    "4": ("00010", "00110", "01010", "10010", "11111", "00010", "00010"),
    "5": ("11111", "10000", "11110", "00001", "00001", "10001", "01110"),
    "6": ("00110", "01000", "10000", "11110", "10001", "10001", "01110"),
    "7": ("11111", "00001", "00010", "00100", "01000", "01000", "01000"),
    "8": ("01110", "10001", "10001", "01110", "10001", "10001", "01110"),
    "9": ("01110", "10001", "10001", "01111", "00001", "00010", "01100"),
}


def dot_matrix_mask(text: str, size: int, width: float = 0.62) -> np.ndarray:
    """bool (size, size): ``text`` in 5 x 7 dot-matrix digits, one blank column between digits, ``width`` of
    the plate wide, centred."""
    grid = np.concatenate([np.array([[c == "1" for c in row] + [False] for row in DOT_MATRIX[ch]]) for ch in text],
                          axis=1)[:, :-1]
    cell = int(width * size / grid.shape[1])
    big = np.kron(grid, np.ones((cell, cell), dtype=bool))
    out = np.zeros((size, size), dtype=bool)
    oy, ox = (size - big.shape[0]) // 2, (size - big.shape[1]) // 2
    out[oy : oy + big.shape[0], ox : ox + big.shape[1]] = big
    return out


def sample_specs(preset: str, n: int, size: int, rng: np.random.Generator, **changes):
    """n (spec, label) drawn uniformly over the preset's labels x colour sets (with replacement)."""
    p = PRESETS[preset]
    out = []
    while len(out) < n:
        label = p.labels[int(rng.integers(len(p.labels)))]
        pal = p.palettes[int(rng.integers(len(p.palettes)))]
        spec = make_spec(preset, label, pal, size=size, seed=BENCH_SEED)
        if changes:
            try:
                spec = spec.replace(**changes)
            except ValueError:  # e.g. a ΔE2000 this pair cannot reach inside sRGB: draw another pair
                continue
        out.append((spec, label))
    return out


def accuracy(reader: BaselineReader, specs, space: str, variant: str = "standard") -> tuple[int, int]:
    correct = 0
    for spec, label in specs:
        correct += reader.read(render(spec).variant(variant), space).text == label
    return correct, len(specs)


def fmt(k: int, n: int) -> str:
    lo, hi = wilson_interval(k, n)
    return f"{k / n:.1%} ({lo:.1%}-{hi:.1%})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200, help="plates per headline figure (default 200)")
    ap.add_argument("--n-cell", type=int, default=40, help="plates per table cell (default 40)")
    ap.add_argument("--quick", action="store_true", help="n=40, n-cell=15: a smoke run")
    ap.add_argument("--model", default=None, help="ONNX weights (default: the bundled ones)")
    ap.add_argument("--variants", default=None,
                    help=f"foreign-generator variants (default all: {','.join(foreign_plates.VARIANTS)})")
    ap.add_argument("--n-foreign", type=int, default=80, help="plates per foreign variant (default 80)")
    ap.add_argument("--misses", default=None,
                    help="folder for contact sheets of the foreign plates read wrong, one PNG per variant with "
                         "misses (each plate captioned 'plate j: label -> read'; default: none)")
    ap.add_argument("--sections", default=",".join(DEFAULT_SECTIONS),
                    help=f"comma-separated sections to run (default all: {','.join(SECTIONS)}); each draws its "
                         "plates from its own seed, so a section's figures do not depend on the others")
    args = ap.parse_args(argv)
    n, n_cell = (40, 15) if args.quick else (args.n, args.n_cell)
    variants = list(foreign_plates.VARIANTS) if args.variants is None else args.variants.split(",")
    bad = sorted(set(variants) - set(foreign_plates.VARIANTS))
    if bad:
        ap.error(f"--variants {bad} not known; allowed: {', '.join(foreign_plates.VARIANTS)}")
    FOREIGN.update(variants=variants, n=15 if args.quick else args.n_foreign,
                   misses=None if args.misses is None else Path(args.misses))
    sections = [x for x in args.sections.split(",") if x]
    unknown = sorted(set(sections) - set(SECTIONS))
    if unknown:
        ap.error(f"--sections {unknown} not known; allowed: {', '.join(SECTIONS)}")
    reader = BaselineReader(args.model, threads=1)
    t0 = time.perf_counter()
    for name in sections:
        SECTIONS[name](reader, n, n_cell, np.random.default_rng([BENCH_SEED, list(SECTIONS).index(name)]))
    print(f"\n(bench took {time.perf_counter() - t0:.0f} s)")
    return 0


def presets_section(reader, n, n_cell, rng) -> None:
    print(f"## Accuracy at the papers' defaults (900 px, {n} fresh plates each, 95% Wilson CI)\n")
    print("| set | style | accuracy | target | ratio to target |\n|---|---|---|---|---|")
    for preset, variant in [(name, v) for name, p in PRESETS.items() for v in p.variants]:
        space = PRESETS[preset].label_space
        k, m = accuracy(reader, sample_specs(preset, n, 900, rng), space, variant)
        target = TARGETS[space] if variant == "standard" else None
        ratio = f"{k / m / target:.3f}" if target else "-"
        print(f"| {preset} ({variant}) | {PRESETS[preset].style} | {fmt(k, m)} | "
              f"{f'>= {target:.0%}' if target else '-'} | {ratio} |", flush=True)


def delta_e_section(reader, n, n_cell, rng) -> None:
    print(f"\n## Accuracy against CIEDE2000 (HueManity numeric, 900 px, {n_cell} plates per cell)\n")
    print("| ΔE2000 | HueManity jitter | no jitter |\n|---|---|---|")
    levels = (3, 5, 8, 10, 12, 15, 20, 30, 45)
    xs: dict[str, list[float]] = {"jitter": [], "none": []}
    ys: dict[str, list[bool]] = {"jitter": [], "none": []}
    no_jitter = {"jitter_shift": 0.0, "jitter_rgb": 0.0, "jitter_lightness": 0.0}
    for de in levels:
        cells = []
        for key, extra in (("jitter", {}), ("none", no_jitter)):
            specs = sample_specs("huemanity-numeric", n_cell, 900, rng, delta_e=float(de), **extra)
            k = 0
            for spec, label in specs:
                ok = reader.read(render(spec).image, "huemanity-numeric").text == label
                xs[key].append(de)
                ys[key].append(ok)
                k += ok
            cells.append(fmt(k, len(specs)))
        print(f"| {de} | {cells[0]} | {cells[1]} |", flush=True)
    guess = guess_rate("open", label_space_size=len(PRESETS["huemanity-numeric"].label_space))
    for key in xs:
        fit = fit_psychometric(xs[key], ys[key], guess=guess, interval=False)
        print(f"\n50% threshold ({key}): ΔE2000 = {fit.threshold:.1f} (status {fit.status})", end="")
    print()


def resolution_section(reader, n, n_cell, rng) -> None:
    print(f"\n## Accuracy against resolution ({n_cell} plates per cell)\n")
    print("| size (px) | HueManity numeric | HueManity alphanumeric | ColorBlindnessEval |\n|---|---|---|---|")
    for size in (300, 500, 700, 900, 1100, 1300):
        cells = [fmt(*accuracy(reader, sample_specs(p, n_cell, size, rng), PRESETS[p].label_space))
                 for p in RESOLUTION_PRESETS]
        print(f"| {size} | {' | '.join(cells)} |", flush=True)


def speed_section(reader, n, n_cell, rng) -> None:
    images = [render(spec).image for spec, _ in sample_specs("huemanity-numeric", 20, 900, rng)]
    for image in images[:3]:
        reader.read(image)
    prep, total = [], []
    for _ in range(5):
        for image in images:
            t = time.perf_counter()
            x = reader.preprocess(image)
            t1 = time.perf_counter()
            reader.log_probs(x[None])
            t2 = time.perf_counter()
            prep.append((t1 - t) * 1000)
            total.append((t2 - t) * 1000)
    med = statistics.median(total)
    print(f"\n## Inference on one core (900 px plates, {len(total)} reads)\n")
    print(f"median {med:.1f} ms per plate (preprocessing {statistics.median(prep):.1f} ms, network "
          f"{med - statistics.median(prep):.1f} ms); target <= 20 ms, ratio {med / 20:.2f}")


def dot_matrix_section(reader, n, n_cell, rng) -> None:
    print(f"\n## Figures no font draws: 5 x 7 dot-matrix numbers 10-99, 900 px ({n_cell} plates per cell)\n")
    print("| preset (style) | accuracy | aim | ratio |\n|---|---|---|---|")
    for preset in ("colorblindnesseval", "huemanity-numeric", "huemanity-numeric-dense"):
        k = 0
        for spec, _label in sample_specs(preset, n_cell, 900, rng):
            text = str(int(rng.integers(10, 100)))
            plate = render_on_mask(spec.replace(text=text), dot_matrix_mask(text, 900))
            k += reader.read(plate.image, "cbe").text == text
        print(f"| {preset} ({PRESETS[preset].style}) | {fmt(k, n_cell)} | >= 95% | {k / n_cell / 0.95:.3f} |",
              flush=True)


#: what the foreign section runs (set from the command line)
FOREIGN: dict = {"variants": list(foreign_plates.VARIANTS), "n": 80, "misses": None}
FOREIGN_SEED = 913_000_000
TRAIN_TIME_TARGET_S = 15 * 60


def foreign_plate(name: str, j: int):
    """Plate ``j`` of foreign variant ``name`` -> (image sRGB 0-255, label, the label space it is read in).

    A variant's plates depend on its name (its place in foreign_plates.VARIANTS) and ``j`` only, never on which
    other variants a run includes: ``--variants a,b`` draws the same plates as the full run."""
    i, cfg = list(foreign_plates.VARIANTS).index(name), foreign_plates.VARIANTS[name]
    image, label = foreign_plates.make_plate(cfg, FOREIGN_SEED + 10_000 * i + j)
    return image, label, "cbe" if cfg.labels == "numbers" else "huemanity-alnum"


def contact_sheet(tiles: list[tuple[Image.Image, str]], path: Path, side: int = 220, columns: int = 6) -> Path:
    """Write ``tiles`` (image, caption) as one PNG grid, each image ``side`` px with its caption under it."""
    rows = -(-len(tiles) // columns)
    sheet = Image.new("RGB", (min(len(tiles), columns) * side, rows * (side + 24)), "white")
    for i, (image, caption) in enumerate(tiles):
        x, y = (i % columns) * side, (i // columns) * (side + 24)
        sheet.paste(image.convert("RGB").resize((side, side)), (x, y))
        ImageDraw.Draw(sheet).text((x + 4, y + side + 6), caption, fill="black")
    path.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(path)
    return path


def foreign_section(reader, n, n_cell, rng) -> None:
    fonts = ", ".join(p.name for p in foreign_plates.held_out_fonts()) or "none found"
    m = FOREIGN["n"]
    print(f"\n## Plates of an independent mini-generator (bench/foreign_plates.py, {m} plates per variant)\n")
    print(f"Held-out fonts (system fonts the reader never trains on): {fonts}\n")
    print("| variant | accuracy | target | ratio |\n|---|---|---|---|")
    worst = 1.0
    for name in FOREIGN["variants"]:
        k, misses = 0, []
        for j in range(m):
            image, label, space = foreign_plate(name, j)
            read = reader.read(image, space).text
            k += read == label
            if read != label:
                misses.append((image, f"plate {j}: {label} -> {read}"))
        if misses and FOREIGN["misses"] is not None:
            contact_sheet(misses, FOREIGN["misses"] / f"misses-{name}.png")
        worst = min(worst, k / m)
        print(f"| {name} | {fmt(k, m)} | >= 95% | {k / m / 0.95:.3f} |", flush=True)
    print(f"\nworst variant: {worst:.1%} (target >= 95%, ratio {worst / 0.95:.3f})")


def train_time_section(reader, n, n_cell, rng) -> None:
    # lazy: torch, the [train] extra
    from plates.reader.train import TrainConfig, train

    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        metrics = train(TrainConfig(), tmp, command="plates train-baseline", log=lambda _m: None)
        wall = time.perf_counter() - t
    print("\n## Training the default recipe (plates train-baseline)\n")
    print(f"{wall / 60:.1f} min wall ({metrics['render_s'] / 60:.1f} min rendering, {metrics['cpu_s'] / 60:.1f} "
          f"CPU-min); target <= {TRAIN_TIME_TARGET_S / 60:.0f} min, ratio {wall / TRAIN_TIME_TARGET_S:.2f}; "
          f"validation {metrics['history'][-1]['all']:.1%}")


SECTIONS = {"presets": presets_section, "delta-e": delta_e_section, "resolution": resolution_section,
            "speed": speed_section, "dot-matrix": dot_matrix_section, "foreign": foreign_section,
            "train-time": train_time_section}
#: every section but the training run
DEFAULT_SECTIONS = tuple(s for s in SECTIONS if s != "train-time")


if __name__ == "__main__":
    sys.exit(main())
