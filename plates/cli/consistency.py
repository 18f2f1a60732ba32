"""``plates consistency RUN_A RUN_B``: error consistency κ (Geirhos et al. 2020) between two observers on the
trials both answered: κ with a 95% interval, the band independent observers would give, the shared trials,
c_obs, c_exp and both accuracies (`plates.analysis.consistency`).

    plates consistency results/runs/gpt-4o results/runs/reader
    plates consistency results/runs/all results/runs/all --model-a baseline-cnn --model-b gpt-4o

RUN_A and RUN_B are results folders or Parquet files. When one holds several observers (models), name the one
to use with --model-a / --model-b.
"""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``plates consistency`` and its flags to ``subparsers``.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        The ``plates`` parser's subcommands.
    """
    p = subparsers.add_parser("consistency", help="error consistency (kappa) between two observers",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("run_a", help="results folder or Parquet file of observer A")
    p.add_argument("run_b", help="results folder or Parquet file of observer B")
    p.add_argument("--model-a", help="the model of RUN_A to use (when it holds several)")
    p.add_argument("--model-b", help="the model of RUN_B to use (when it holds several)")
    p.set_defaults(func=main)


def _observer(path: str, model: str | None, which: str):
    from pathlib import Path

    from plates.analysis.consistency import TRIAL_KEY, observers
    from plates.results import load_results

    if not Path(path).exists():
        raise ValueError(f"RUN_{which} {path!r} does not exist; allowed: a results folder or Parquet file")
    frame = load_results(path, columns=[*TRIAL_KEY, "correct", "model"]).frame
    names = observers(frame)
    if not names:
        raise ValueError(f"RUN_{which} {path!r} holds no results rows; allowed: a folder with a run's Parquet parts")
    if model is None:
        if len(names) > 1:
            raise ValueError(f"RUN_{which} holds {len(names)} observers; name one with --model-{which.lower()}; "
                             f"allowed: {', '.join(names)}")
        model = names[0]
    if model not in names:
        raise ValueError(f"--model-{which.lower()} {model!r} is not in RUN_{which}; allowed: {', '.join(names)}")
    return model, frame[frame["model"] == model]


def main(args: argparse.Namespace) -> int:
    """Run ``plates consistency``: error consistency (kappa) between two observers.

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
    from plates.analysis.consistency import error_consistency

    name_a, a = _observer(args.run_a, args.model_a, "A")
    name_b, b = _observer(args.run_b, args.model_b, "B")
    c = error_consistency(a, b)
    print(f"A: {name_a}\nB: {name_b}")
    print(f"shared trials {c.n}; accuracy A {c.accuracy_a:.3f}, B {c.accuracy_b:.3f}; c_obs {c.c_obs:.3f}, "
          f"c_exp {c.c_exp:.3f}")
    print(f"kappa {c.kappa:.3f} (95% interval {c.kappa_low:.3f} to {c.kappa_high:.3f}); independent observers: "
          f"{c.null_low:.3f} to {c.null_high:.3f}")
    if c.duplicates_a or c.duplicates_b:
        print(f"trials answered more than once (first row kept): A {c.duplicates_a}, B {c.duplicates_b}")
    return 0
