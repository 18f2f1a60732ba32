"""`plates train-baseline` and `plates serve-baseline --port P`: the offline baseline reader.

train-baseline needs the ``train`` extra (torch, onnx; plates.install.extra_hint says how to install it) and
writes to ``./baseline-reader`` unless told otherwise: the weights shipped inside the package are replaced
only with ``--out`` naming their folder and ``--replace-bundled``. serve-baseline needs only the default
install.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from plates.install import extra_hint

#: Where the shipped weights live (inside the package, so package-data carries them).
ASSET_DIR = Path(__file__).resolve().parents[1] / "assets" / "baseline"
#: Where train-baseline writes by default: a folder in the current directory, never the shipped weights.
DEFAULT_TRAIN_OUT = "baseline-reader"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``plates train-baseline`` and ``plates serve-baseline`` and their flags to ``subparsers``.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        The ``plates`` parser's subcommands.
    """
    train = subparsers.add_parser(
        "train-baseline",
        help="train the baseline plate reader (CPU, deterministic, about 13 minutes on 2 cores) and export it to ONNX",
        description="Train the baseline CNN on freshly generated plates, export ONNX + MODEL_CARD.md.",
    )
    train.add_argument("--out", default=DEFAULT_TRAIN_OUT,
                       help=f"output folder for baseline.onnx and MODEL_CARD.md (default: "
                            f"./{DEFAULT_TRAIN_OUT}; use it with serve-baseline --model-path or a [[models]] "
                            "model_path)")
    train.add_argument("--replace-bundled", action="store_true",
                       help=f"allow --out to be the shipped weights' folder ({ASSET_DIR}) and overwrite them")
    # every recipe option defaults to None = TrainConfig's value (plates/reader/train.py is the recipe's one home;
    # importing it here would load numpy/scipy for every `plates` command)
    train.add_argument("--seed", type=int, default=None, help="training seed (default: 0)")
    train.add_argument("--n-train", type=int, default=None, help="training plates (default: 16000)")
    train.add_argument("--cards", type=int, default=None,
                       help="glyph cards trained beside the plates: the text alone, drawn without dots (default: "
                            "16000; 0: plates only)")
    train.add_argument("--n-val", type=int, default=None, help="validation plates (default: 600)")
    train.add_argument("--epochs", type=int, default=None, help="epochs over the plates and cards (default: 6)")
    train.add_argument("--steps", type=int, default=None,
                       help="exactly this many optimiser steps instead of whole epochs (default: epochs x batches)")
    train.add_argument("--batch-size", type=int, default=None, help="batch size (default: 64)")
    train.add_argument("--width", type=int, default=None, help="network width (default: 32)")
    train.add_argument("--input-size", type=int, default=None,
                       help="the network's input side in px: 64 or 96 (default: 64; the weights before 2026-11-26 "
                            "read 96)")
    train.add_argument("--render-size", type=int, default=None,
                       help="render every plate at this size (default: each plate draws one of --render-sizes)")
    train.add_argument("--render-sizes", type=_sizes, default=None,
                       help="comma-separated sizes in px each plate draws one of (default: 192,256,384,512)")
    train.add_argument("--workers", type=int, default=None,
                       help="rendering processes (default: 2; the weights do not depend on it)")
    train.add_argument("--threads", type=int, default=None,
                       help="torch threads (default: 2; part of the recipe: float sums depend on it)")
    train.add_argument("--mode", default=None,
                       help="preprocessing: contrast | contrast-dots | rgb (default: contrast-dots)")
    train.add_argument("--skew", type=float, default=None,
                       help="shear / aspect augmentation of the network input, 0-0.5 (default: 0.1)")
    train.add_argument("--init", default=None,
                       help="fine-tune from these ONNX weights (BatchNorm statistics frozen) instead of training "
                            "from scratch (default: from scratch)")
    train.add_argument("--extra-fonts", type=float, default=None,
                       help="share 0-1 of free plates drawn in the reader's extra training faces (default: 0.8)")
    train.add_argument("--rim", type=float, default=None,
                       help="share 0-1 of free plates whose figure is a hollow ring drawn around the glyphs "
                            "(stroked outline lettering; default: 0.35)")
    train.add_argument("--lr", type=float, default=None, help="peak learning rate (default: 0.003)")
    train.add_argument("--time-budget", type=float, default=None,
                       help="safety stop in seconds: a run that exceeds it ABORTS (writes nothing); it never "
                            "changes the schedule (default: none)")
    train.set_defaults(func=run_train)

    serve = subparsers.add_parser(
        "serve-baseline",
        help="serve the baseline reader behind the OpenAI chat-completions API on 127.0.0.1",
        description="Serve POST /v1/chat/completions and GET /v1/models for model 'baseline-cnn'.",
    )
    serve.add_argument("--port", type=int, default=8000, help="port (default: 8000; 0 = any free port)")
    serve.add_argument("--model-path", default=None, help="ONNX weights (default: the bundled ones)")
    serve.set_defaults(func=run_serve)


def _sizes(text: str) -> tuple[int, ...]:
    """``--render-sizes`` "192,256,512" -> (192, 256, 512); TrainConfig checks the range."""
    try:
        return tuple(int(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of whole px sizes; allowed: "
                                         "e.g. 192,256,384,512") from None


def run_train(args: argparse.Namespace) -> int:
    """Run ``plates train-baseline``: train the baseline plate reader (CPU, deterministic) and export it to ONNX.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    int
        The exit status: 0 on success (see `plates.cli.EXIT_CODES`; bad input raises ValueError, which
        `plates.cli.main` reports).
    """
    if Path(args.out).resolve() == ASSET_DIR and not args.replace_bundled:
        raise ValueError(f"--out {args.out!r} is the folder of the shipped weights; allowed: another folder "
                         f"(default ./{DEFAULT_TRAIN_OUT}), or add --replace-bundled to overwrite them")
    try:
        # lazy: torch, the [train] extra
        from plates.reader.train import TrainConfig, train
    except ModuleNotFoundError as exc:
        raise ValueError(f"training needs {exc.name!r}: {extra_hint('train')}") from exc
    given = dict(
        seed=args.seed, n_train=args.n_train, cards=args.cards, n_val=args.n_val, epochs=args.epochs, steps=args.steps,
        batch_size=args.batch_size, width=args.width, input_size=args.input_size, render_size=args.render_size,
        render_sizes=args.render_sizes, workers=args.workers,
        threads=args.threads, mode=args.mode, skew=args.skew, time_budget_s=args.time_budget, init=args.init,
        extra_fonts=args.extra_fonts, rim=args.rim, lr=args.lr,
    )
    config = TrainConfig(**{k: v for k, v in given.items() if v is not None})
    command = "plates " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:2] == ["train-baseline"] \
        else "plates train-baseline"
    train(config, args.out, command=command)
    return 0


def run_serve(args: argparse.Namespace) -> int:
    # lazy: loads only when this subcommand runs (plates.cli)
    """Run ``plates serve-baseline``: serve the baseline reader behind the OpenAI chat-completions API.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    int
        The exit status: 0 on success (see `plates.cli.EXIT_CODES`; bad input raises ValueError, which
        `plates.cli.main` reports).
    """
    from plates.models.baseline import BaselineBackend
    from plates.reader.server import BaselineServer

    server = BaselineServer(port=args.port, backend=BaselineBackend(model_path=args.model_path))
    print(f"serving baseline-cnn at {server.base_url} (Ctrl-C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:  # Ctrl-C is how a server is meant to stop: not an interrupted job to resume
        print(f"stopped serving baseline-cnn at {server.base_url}", flush=True)
    finally:
        server.server_close()
    return 0
