"""``plates export``: write an experiment's rows where researchers already evaluate models.

    plates export hf --dataset colorblindnesseval --prompt cbe-open --out exports/cbe-open
    plates export hf examples/cbe-smoke.toml --out exports/cbe-smoke --push-to-hub me/plates-cbe
    plates export lmms-eval --from exports/cbe-open --out tasks/plates_cbe
    plates export vlmevalkit --dataset huemanity-numeric --prompt huemanity-numeric --out lmudata/

``hf`` takes `plates run`'s arguments (an experiment file or the quick-run flags) and exports exactly the rows
that run would ask: Parquet shards with the PNG each model is sent and the question as sent, and a dataset
card (`plates.integrations.hf_dataset`). ``--push-to-hub`` uploads the folder with the token from the
environment (HF_TOKEN, or --token-env NAME), never written.
"""

from __future__ import annotations

import argparse
import shlex

from plates.cli import positive
from plates.cli.run import add_experiment_arguments, build_experiment


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``plates export hf | lmms-eval | vlmevalkit`` and their flags to ``subparsers``.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        The ``plates`` parser's subcommands.
    """
    p = subparsers.add_parser("export", help="export a run's rows as a Hugging Face dataset or a harness task",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="target", metavar="TARGET")
    hf = sub.add_parser("hf", help="a Hugging Face dataset folder: Parquet shards and a dataset card",
                        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    o = add_experiment_arguments(hf, out_help="the dataset folder to write (new or empty; required)",
                                 default_backend="baseline")
    o.add_argument("--shard-mb", type=int, default=256, help="images per Parquet shard, in MB (default 256)")
    o.add_argument("--push-to-hub", metavar="REPO", help="upload the folder to this Hub dataset repository")
    o.add_argument("--token-env", default="HF_TOKEN",
                   help="NAME of the environment variable holding the Hub token (default HF_TOKEN)")
    o.add_argument("--private", action="store_true", help="create the Hub repository private")
    hf.set_defaults(func=main_hf)
    lm = sub.add_parser("lmms-eval", help="an lmms-eval task folder over an exported set",
                        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    lm.add_argument("--from", dest="source", required=True, metavar="EXPORT",
                    help="the folder `plates export hf` wrote")
    lm.add_argument("--out", required=True, help="the task folder to write (new or empty)")
    lm.add_argument("--name", default="plates", help="the group's name; tasks are NAME_<config> (default plates)")
    lm.add_argument("--dataset-path", help="where lmms-eval loads the data: a Hub repository id the export was "
                    "pushed to (default: the export folder's absolute path)")
    lm.set_defaults(func=main_lmms_eval)
    vk = sub.add_parser("vlmevalkit", help="a VLMEvalKit TSV (PNG images) and a dataset class scoring with our "
                        "rules", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    o = add_experiment_arguments(vk, out_help="the folder to write NAME.tsv and plates_dataset.py to (your "
                                 "$LMUData; required)", default_backend="baseline")
    o.add_argument("--name", default="plates", help="the dataset's name in VLMEvalKit (default plates)")
    vk.set_defaults(func=main_vlmevalkit)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _command(args: argparse.Namespace) -> str:
    return shlex.join(["plates", *getattr(args, "argv", [])])


def main_hf(args: argparse.Namespace) -> int:
    """Run ``plates export hf``: a Hugging Face dataset folder (Parquet shards and a dataset card).

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
    from plates.integrations.hf_dataset import export_hf, push_to_hub

    if args.out is None:
        raise ValueError("--out is required: the dataset folder to write (new or empty)")
    shard_mb = positive("--shard-mb", args.shard_mb)
    exp = build_experiment(args)
    summary = export_hf(exp, args.out, command=_command(args), shard_bytes=shard_mb * 2**20)
    print(f"exported {summary.total} rows in {len(summary.rows)} config(s) ({summary.bytes / 2**20:.1f} MB of "
          f"PNG) to {summary.out}")
    if args.push_to_hub:
        push_to_hub(summary.out, args.push_to_hub, token_env=args.token_env, private=args.private)
        print(f"pushed {summary.out} to the Hub dataset {args.push_to_hub}")
    return 0


def main_lmms_eval(args: argparse.Namespace) -> int:
    """Run ``plates export lmms-eval``: an lmms-eval task folder over an exported set.

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
    from plates.integrations.lmms_eval import export_lmms_eval

    tasks = export_lmms_eval(args.source, args.out, name=args.name, dataset_path=args.dataset_path)
    print(f"wrote lmms-eval group {args.name!r} ({len(tasks)} task(s): {', '.join(tasks)}) to {args.out}; run it "
          f"with: python -m lmms_eval --tasks {args.name} --include_path {args.out} --log_samples ...")
    return 0


def main_vlmevalkit(args: argparse.Namespace) -> int:
    """Run ``plates export vlmevalkit``: a VLMEvalKit TSV (PNG images) and a dataset class scoring with this project's rules.

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
    from plates.integrations.vlmevalkit import export_vlmevalkit

    if args.out is None:
        raise ValueError("--out is required: the folder to write the TSV and the class file to ($LMUData)")
    n = export_vlmevalkit(build_experiment(args), args.out, name=args.name)
    print(f"wrote {n} rows to {args.out}/{args.name}.tsv and the dataset class to {args.out}/plates_dataset.py "
          "(copy it into vlmeval/dataset/ and list PlatesDataset in IMAGE_DATASET)")
    return 0
