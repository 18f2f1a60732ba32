"""Exploration of baseline-reader recipes on a GPU machine (not a benchmark of the shipped weights).

Renders, on every core, the benchmark's foreign plates (bench/foreign_plates.py, the seeds of
``bench_baseline.py --sections foreign``, ``N_FOREIGN`` per variant), ``N_PRESET`` plates of every preset's
standard variant (900 px) and ``N_TRAIN`` training plates of :func:`plates.reader.data.sample_plate` (the
training seeds), each preprocessed in every mode of ``MODES`` at every side of ``INPUTS`` (comma-separated env
lists; default the default recipe's, ``contrast-dots`` at 64 px); then trains each candidate of the JSON list
``CANDS`` on the GPU with the training loop of :mod:`plates.reader.train` (``fit``: AdamW, warm-up + cosine, the
same affine augmentation, channels-last) and scores it on those plates (exact match, the benchmark's label spaces). Candidate keys:
name, mode, skew, n (plates), cards (glyph cards), steps, bs, width, lr, seed, input (the network's input side, one of ``INPUTS``;
sides the shipped network does not take pool to its (2 x 3) grid adaptively), mix (a name in ``MIXES``; default
the first); a key left out takes the default recipe's value (``TrainConfig()``; seed 0). ``MIXES`` is a JSON
object of training-plate mixes, each ``N_TRAIN`` plates of the same seeds, with keys extra_fonts and rim (as
``TrainConfig``), sizes (``TrainConfig.render_sizes``), labels (the free plates' label-space weights, as
``data.FREE_LABELS``), more_changes (more changed figures, same kinds) and fonts (a folder of .ttf faces that
replaces ``data.EXTRA_FONTS``, to try a font set before it ships) and cards (that many glyph cards,
:func:`plates.reader.data.glyph_card`, rendered after the plates; a candidate takes its first ``cards``), each
left out the default recipe's;
default one mix, ``{"default": {}}``. ``N_FOREIGN_ALNUM`` plates (default ``N_FOREIGN``) of the
alphanumeric variant, whose misses are the rarest. Plates, augmentation and the benchmark's seeds come from
:func:`plates.reader.data.training_image`, :func:`plates.reader.train.fit` and
``bench_baseline.foreign_plate``. Writes one ONNX per candidate, ``results.json`` and ``table.md`` to ``OUT``.

GPU float sums differ from the CPU recipe, so its weights are not what ``plates train-baseline`` writes; the
shipped model card says which one it ships. Run (environment variables): ``FONT_DIR=/usr/share/fonts
N_FOREIGN=80 N_PRESET=100 WORKERS=16 OUT=out CANDS='[{"name": "default"}, {"name": "96px", "input": 96}]'
INPUTS=64,96 python3 bench/explore_reader.py``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_baseline  # noqa: E402  (bench/: the benchmark's plates and seeds)
import foreign_plates as F  # noqa: E402  (bench/, held out from the package on purpose)

from plates.reader import data  # noqa: E402
from plates.reader.coding import best_label, encode  # noqa: E402
from plates.reader.preprocess import preprocess  # noqa: E402
from plates.reader.train import QUANT, TrainConfig, fit, quantise  # noqa: E402
from plates.stimuli.ishihara.plate import render  # noqa: E402

#: The default recipe (plates train-baseline): every mix and candidate key left out takes its value.
DEFAULT = TrainConfig()
F.SYSTEM_FONT_DIR = Path(os.environ.get("FONT_DIR", "/usr/share/fonts"))
MODES = tuple(os.environ.get("MODES", DEFAULT.mode).split(","))
#: Input sizes the plates are preprocessed at (a candidate key ``input``; default the default recipe's).
INPUTS = tuple(int(v) for v in os.environ.get("INPUTS", str(DEFAULT.input_size)).split(","))
BASE = (data.CHANGE_SHARE, data.CHANGE_WEIGHTS, data.WARP_SHARE)
FREE_LABELS = dict(data.FREE_LABELS)
EXTRA_FONTS = data.EXTRA_FONTS
MIX2 = (0.75, (0.06, 0.16, 0.1, 0.16, 0.16, 0.1, 0.16, 0.1), 0.5)  # more changed figures, same kinds
T0 = time.perf_counter()


def log(message: str) -> None:
    print(f"[{time.perf_counter() - T0:6.0f}s] {message}", flush=True)


def both_modes(image) -> dict[tuple[str, int], np.ndarray]:
    return {(m, s): quantise(preprocess(image, size=s, mode=m)) for m in MODES for s in INPUTS}


def use_mix_fonts(mix: dict) -> None:
    """This worker's extra training faces: the mix's ``fonts`` folder, or the shipped ones."""
    data.EXTRA_FONTS = tuple(str(p) for p in sorted(Path(mix["fonts"]).glob("*.ttf"))) if "fonts" in mix else EXTRA_FONTS
    if not data.EXTRA_FONTS:
        raise ValueError(f"mix fonts {mix.get('fonts')!r} holds no .ttf face")


def train_chunk(args):
    seeds, mix = args
    data.CHANGE_SHARE, data.CHANGE_WEIGHTS, data.WARP_SHARE = MIX2 if mix.get("more_changes") else BASE
    data.FREE_LABELS = mix.get("labels", FREE_LABELS)
    use_mix_fonts(mix)
    out = []
    for seed in seeds:
        image, text, group = data.training_image(seed, None, mix.get("extra_fonts", DEFAULT.extra_fonts),
                                                 mix.get("rim", DEFAULT.rim),
                                                 tuple(mix.get("sizes", DEFAULT.render_sizes)))
        out.append((both_modes(image), encode(text), group))
    return out


def card_chunk(args):
    seeds, mix = args
    use_mix_fonts(mix)
    extra_fonts, rim = mix.get("extra_fonts", DEFAULT.extra_fonts), mix.get("rim", DEFAULT.rim)
    out = []
    for seed in seeds:
        cards = {(m, s): data.glyph_card(seed, s, extra_fonts, rim, m) for m in MODES for s in INPUTS}
        _, y, group = next(iter(cards.values()))
        out.append(({view: quantise(card[0]) for view, card in cards.items()}, y, group))
    return out


def foreign_chunk(args):
    name, js = args
    out = []
    for j in js:
        image, label, space = bench_baseline.foreign_plate(name, j)
        out.append((name, both_modes(image), label, space))
    return out


def preset_chunk(args):
    from plates.datasets import PRESETS

    preset, n, k = args
    rng = np.random.default_rng([bench_baseline.BENCH_SEED, 99, k])
    return [(preset, both_modes(render(spec).variant("standard")), label, PRESETS[preset].label_space)
            for spec, label in bench_baseline.sample_specs(preset, n, 900, rng)]


def score(evalset: dict, predict, mode: str, size: int) -> dict[str, float]:
    """Exact-match share per set; ``predict`` maps (N, 3, S, S) float32 to (N, 2, 59) log-probabilities."""
    k = (mode, size)
    result = {}
    for name, items in evalset.items():
        lp = predict(np.stack([x[k] for x, _, _ in items]).astype(np.float32) / QUANT)
        result[name] = float(np.mean([best_label(lp[i], space)[0] == label
                                      for i, (_, label, space) in enumerate(items)]))
    return result


def train_candidate(cand: dict, xs: dict, ys: np.ndarray, dev: str, n_cards: int):
    """The candidate's network trained by `plates.reader.train.fit` (the recipe's loop) on ``dev``."""
    import torch

    from plates.reader.model import GRID_POOL, PlateReader

    mode, n, size = cand.get("mode", DEFAULT.mode), cand.get("n", DEFAULT.n_train), cand.get("input", DEFAULT.input_size)
    n_plates, cards = len(ys) - n_cards, cand.get("cards", DEFAULT.cards)
    if n > n_plates or cards > n_cards:
        raise ValueError(f"candidate {cand['name']!r} asks for n={n} plates and {cards} cards; rendered "
                         f"{n_plates} and {n_cards}")
    config = replace(DEFAULT, seed=cand.get("seed", 0), n_train=n, cards=cards, steps=cand.get("steps", DEFAULT.total_steps),
                     batch_size=cand.get("bs", DEFAULT.batch_size), lr=cand.get("lr", DEFAULT.lr),
                     skew=cand.get("skew", DEFAULT.skew), width=cand.get("width", DEFAULT.width))
    torch.manual_seed(config.seed)
    pick = np.r_[0:n, n_plates : n_plates + cards]
    model = PlateReader(width=config.width, input_size=size if size in GRID_POOL else 96)
    if size not in GRID_POOL:  # a size the shipped network does not take: the (2 x 3) grid by adaptive pooling
        model.features[-1] = torch.nn.AdaptiveAvgPool2d((2, 3))  # (what GRID_POOL spells out for 64 and 96)
    model = model.to(dev)
    loss = fit(model, xs[(mode, size)][pick], ys[pick], config, device=dev)
    return model.eval(), loss


def main() -> None:
    import onnxruntime as ort
    import torch

    from plates.datasets import PRESETS
    from plates.reader.export import export_onnx
    from plates.reader.model import GRID_POOL

    n_train = int(os.environ.get("N_TRAIN", DEFAULT.n_train))
    n_foreign, n_preset = int(os.environ.get("N_FOREIGN", 80)), int(os.environ.get("N_PRESET", 100))
    n_alnum = int(os.environ.get("N_FOREIGN_ALNUM", n_foreign))
    mixes = json.loads(os.environ.get("MIXES", "{}")) or {"default": {}}
    out_dir = Path(os.environ.get("OUT", "explore-out"))
    out_dir.mkdir(parents=True, exist_ok=True)
    dev = os.environ.get("DEV", "cuda")
    seeds = [data.TRAIN_SEED_BASE + i for i in range(n_train)]
    with ProcessPoolExecutor(int(os.environ.get("WORKERS", os.cpu_count() or 1))) as pool:
        foreign = [pool.submit(foreign_chunk, (name, list(range(j, min(j + 4, n)))))
                   for name in F.VARIANTS for n in [n_alnum if name == "alnum" else n_foreign]
                   for j in range(0, n, 4)]
        presets = [pool.submit(preset_chunk, (p, max(1, n_preset // 4), k)) for p in PRESETS for k in range(4)]
        train_jobs = {m: [pool.submit(train_chunk, (seeds[i : i + 100], mix)) for i in range(0, n_train, 100)]
                      + [pool.submit(card_chunk, (list(range(i, min(i + 200, n_cards))), mix))
                         for n_cards in [mix.get("cards", DEFAULT.cards)] for i in range(0, n_cards, 200)]
                      for m, mix in mixes.items()}
        evalset: dict[str, list] = {}
        for fut in foreign + presets:
            for name, xs_, label, space in fut.result():
                evalset.setdefault(name, []).append((xs_, label, space))
        log(f"eval sets rendered: {sum(len(v) for v in evalset.values())} plates")
        sets = {m: [r for fut in jobs for r in fut.result()] for m, jobs in train_jobs.items()}
        log(f"training plates rendered: {n_train} x {len(sets)} mixes (and the mixes' glyph cards)")
    xs = {k: {view: np.stack([r[0][view] for r in v]) for view in v[0][0]} for k, v in sets.items()}
    ys = {k: np.stack([r[1] for r in v]).astype(np.int64) for k, v in sets.items()}
    session = ort.InferenceSession(str(Path(data.__file__).parent.parent / "assets/baseline/baseline.onnx"))

    def shipped(xb):
        logits = session.run(None, {session.get_inputs()[0].name: xb})[0]
        return torch.log_softmax(torch.from_numpy(logits), -1).numpy()

    meta = session.get_modelmeta().custom_metadata_map
    shipped_mode, shipped_size = meta.get("mode", "contrast"), int(meta.get("input_size", 96))
    results = ({"shipped": score(evalset, shipped, shipped_mode, shipped_size)}
               if shipped_mode in MODES and shipped_size in INPUTS else {})  # scored where its input was rendered
    for cand in json.loads(os.environ["CANDS"]):
        mix = cand.get("mix", next(iter(mixes)))
        t = time.perf_counter()
        model, loss = train_candidate(cand, xs[mix], ys[mix], dev, mixes[mix].get("cards", DEFAULT.cards))
        log(f"{cand['name']}: trained in {time.perf_counter() - t:.0f} s")

        def predict(xb, model=model):
            with torch.no_grad():
                return torch.log_softmax(model(torch.from_numpy(xb).to(dev)), -1).cpu().numpy()

        mode, size = cand.get("mode", DEFAULT.mode), cand.get("input", DEFAULT.input_size)
        results[cand["name"]] = res = score(evalset, predict, mode, size)
        foreign_acc = [v for k, v in res.items() if k in F.VARIANTS]
        log(f"{cand['name']}: loss {loss:.3f}, foreign >= 95%: {sum(v >= 0.95 for v in foreign_acc)}/"
            f"{len(foreign_acc)}, worst {min(foreign_acc):.3f}")
        if size in GRID_POOL:
            export_onnx(model.cpu(), out_dir / f"{cand['name']}.onnx", mode=mode)  # the side: the model's own
        (out_dir / "results.json").write_text(json.dumps(results, indent=1))
    names = list(results)
    lines = ["| set | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    lines += [f"| {k} | " + " | ".join(f"{results[n][k]:.3f}" for n in names) + " |" for k in evalset]
    (out_dir / "table.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
