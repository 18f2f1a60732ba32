"""``plates run``: run an experiment (a TOML file, or quick-run flags) and write Parquet results; resumable.

    plates run examples/cbe-smoke.toml
    plates run --dataset colorblindnesseval --prompt cbe-open --backend openai --model gpt-4o-mini \\
        --base-url https://api.openai.com/v1 --api-key-env OPENAI_API_KEY --limit 20 --out results/runs/quick
    plates run --dataset colorblindnesseval --prompt cbe-open --backend baseline --out results/runs/reader
    plates run --dataset huemanity-numeric --prompt huemanity-numeric --backend hf \\
        --model HuggingFaceTB/SmolVLM-256M-Instruct --device cuda --dtype bfloat16 --batch-size 16 \\
        --limit 200 --out results/runs/smolvlm

Rerunning the same command continues the same run (same run id): rows already under --out are not asked
again. Exit codes: 0 done, 2 bad input (the message names the field or value), 3 the backend kept failing
(parts already written are intact; fix the cause and rerun), 4 the machine failed: a full, read-only or failing
disk under --out (the message names it; rows already written are intact: free space and rerun).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

from plates.cli import EXIT_BACKEND, EXIT_BAD_INPUT, PresetsHelpFormatter, positive
from plates.models import BACKENDS
from plates.shards import Shard
from plates.validation import not_known


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``plates run`` and its flags to ``subparsers``.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        The ``plates`` parser's subcommands.
    """
    p = subparsers.add_parser(
        "run", help="ask models about plates and write Parquet results (resumable)",
        description=__doc__, formatter_class=PresetsHelpFormatter,
    )
    o = add_experiment_arguments(p, out_help="results folder: required for a quick run; with a TOML file it "
                                 "replaces the file's `out`")
    o.add_argument("--concurrency", type=int, help="requests in flight per model (openai)")
    o.add_argument("--name", help="the run's name in the dashboard's legends (default: the file's `name`, else "
                   "the --out folder's name); never part of the run id, so a resumed run continues")
    o.add_argument("--device", help="where a local model runs (hf): auto | cuda | cuda:N | mps | cpu "
                   "(default auto)")
    o.add_argument("--device-map", help="a local model spread by accelerate (hf), instead of --device: auto | "
                   "balanced | balanced_low_0 | sequential (every GPU, then CPU memory, then disk)")
    o.add_argument("--dtype", help="a local model's weights (hf): auto | bfloat16 | float16 | float32 "
                   "(default auto: bfloat16 on GPUs that have it, float32 on CPU, float16 elsewhere except "
                   "for families that break in it, e.g. Gemma 3, which get float32)")
    o.add_argument("--trust-remote-code", action="store_true",
                   help="let a local model (hf) run the Python code its repository ships (moondream2, "
                   "Phi-3.5-vision, MiniCPM-V need it): only for a repository you trust; off by default")
    o.add_argument("--batch-size", type=int,
                   help="images per generate() call of a local model (hf; default 8)")
    o.add_argument("--retry-errors", action="store_true", help="ask again the rows that ended in a request error")
    o.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    o.add_argument("--shard", metavar="I/N", help="ask only shard I of N of the rows (a deterministic slice; N "
                   "shards into one --out equal the unsharded run, e.g. a Slurm job array: see docs/runs-and-results.md); "
                   "rerun without --shard afterwards to merge the parts")
    o.add_argument("--take-over-lock", action="store_true",
                   help="with an s3:// --out: take over the run's lease that a crashed or killed run left "
                   "(only once it has expired: 2 minutes without renewal)")
    o.add_argument("--executor", choices=("local", "ray"), default="local",
                   help="who asks the rows: local (this process; the default) or ray (Ray actors, each rendering "
                   "its plates from their specs and writing its own parts under --out; needs the ray extra and "
                   "an --out every node reaches)")
    o.add_argument("--ray-address", metavar="ADDRESS", help="with --executor ray: auto (the cluster this machine "
                   "belongs to), HOST:PORT or ray://HOST:PORT; default: a local cluster started for this run")
    o.add_argument("--ray-actors", type=int, metavar="N", help="with --executor ray: actors per model (default: "
                   "one per CPU of the cluster; one per GPU for --backend hf on a cluster with GPUs)")
    add_judge_arguments(p)
    p.set_defaults(func=main)


def add_judge_arguments(p: argparse.ArgumentParser) -> None:
    """The judge model's flags (`plates.runs.judge`), shared by `plates run` and `plates rescore`.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser.
    """
    j = p.add_argument_group("judge model (optional: asked where the rules abstain; see docs/judge.md)")
    j.add_argument("--judge", metavar="MODEL", help="an OpenAI-compatible model that reads the replies the rules "
                   "leave unparsed or ambiguous (with an experiment file: replaces its [judge])")
    j.add_argument("--judge-base-url", metavar="URL", help="the judge's server, e.g. http://127.0.0.1:8000/v1 "
                   "(default: OpenAI's)")
    j.add_argument("--judge-api-key-env", metavar="NAME", help="the environment variable holding the judge's key "
                   "(default: PLATES_JUDGE_API_KEY, else OPENAI_API_KEY)")
    j.add_argument("--judge-no-api-key", action="store_true", help="the judge's server needs no key")
    j.add_argument("--judge-all", action="store_true", help="ask the judge about every reply, not only where the "
                   "rules abstain")
    j.add_argument("--judge-timeout", type=float, metavar="S", help="seconds per judge request (default 60)")


def judge_from_args(args: argparse.Namespace):  # -> plates.runs.judge.JudgeSpec | None
    """The judge the flags name (None without --judge); ValueError for a judge flag without --judge, or both
    --judge-api-key-env and --judge-no-api-key.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    JudgeSpec or None
        The judge.
    """
    from plates.runs.judge import JUDGE_KEY_ENVS, JudgeSpec  # lazy, as every subcommand's library

    given = [flag for flag, value in (("--judge-base-url", args.judge_base_url),
                                      ("--judge-api-key-env", args.judge_api_key_env),
                                      ("--judge-no-api-key", args.judge_no_api_key or None),
                                      ("--judge-all", args.judge_all or None),
                                      ("--judge-timeout", args.judge_timeout)) if value is not None]
    if args.judge is None:
        if given:
            raise ValueError(f"{', '.join(given)} need --judge MODEL; allowed: --judge MODEL {given[0]} ...")
        return None
    if args.judge_api_key_env is not None and args.judge_no_api_key:
        raise ValueError("give --judge-api-key-env or --judge-no-api-key, not both; allowed: one of them, or "
                         "neither (the key in PLATES_JUDGE_API_KEY, else OPENAI_API_KEY)")
    env = () if args.judge_no_api_key else (args.judge_api_key_env,) if args.judge_api_key_env else JUDGE_KEY_ENVS
    return JudgeSpec(args.judge, base_url=args.judge_base_url, key_env=env, judge_all=args.judge_all,
                     **({} if args.judge_timeout is None else {"timeout": args.judge_timeout}))


def add_experiment_arguments(p: argparse.ArgumentParser, *, out_help: str,
                             default_backend: str = "openai") -> argparse._ArgumentGroup:
    """The arguments that say which rows an experiment plans (an experiment file, or the quick-run flags;
    --protocol, --out and --limit): `plates run`'s, shared with the exporters (`plates export ...`) so that one
    command line names the same rows in both. Returns the "operational" group for a caller's own flags.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser.
    out_help : str
        The help of its --out.
    default_backend : str, optional
        The --backend default.

    Returns
    -------
    argparse._ArgumentGroup
        The "operational" group.
    """
    p.add_argument("experiment", nargs="?", help="a TOML experiment file (see examples/); or use the flags below")
    q = p.add_argument_group("quick run (without a TOML file)")
    q.add_argument("--dataset", help="a folder with manifest.parquet, or a preset of any family ({presets})")
    q.add_argument("--prompt", help="a prompt name (see `plates prompts`)")
    q.add_argument("--prompt-file", action="append", default=[], metavar="TOML",
                   help="register your own [[prompt]] templates first (repeatable; see plates.tasks.prompts)")
    q.add_argument("--backend", default=default_backend,
                   help=f"openai | hf | baseline | reference-pixels (the pixel-reading reference observer, not a model; default "
                        f"{default_backend}) | python (--model package.module:function, a callable (image, "
                        "question) -> reply)")
    q.add_argument("--model", help="model name as the server knows it (openai), a Hugging Face id or folder "
                   "(hf); not needed for baseline (baseline-cnn)")
    q.add_argument("--base-url", help="OpenAI-compatible server URL, e.g. http://127.0.0.1:8000/v1")
    q.add_argument("--api-key-env", default="OPENAI_API_KEY",
                   help="NAME of the environment variable holding the API key (default OPENAI_API_KEY)")
    q.add_argument("--no-api-key", action="store_true", help="the server needs no key (vLLM, Ollama)")
    q.add_argument("--sampling-fields", help="openai backend: which sampling fields each request sends: openai "
                   "(temperature only, for strict providers; the default) | vllm (also top_p, top_k, min_p and "
                   "the penalties at neutral values, so the server imposes none of the model's defaults); joins "
                   "the run id")
    q.add_argument("--size", type=int, nargs="+", metavar="PX",
                   help="side in pixels of the image sent; several sizes are crossed (default: the dataset's own)")
    q.add_argument("--grayscale", nargs="?", const="on", choices=("on", "both"),
                   help="send grayscale images (ColorBench §3.2); 'both': colour and grayscale, for the pair")
    q.add_argument("--hue-shift", type=float, nargs="+", metavar="DEG",
                   help="rotate hue by these degrees in HSV (ColorBench §2.2; e.g. 0 90 180 270)")
    q.add_argument("--cvd", nargs="+", metavar="VIEW",
                   help="simulated colour-vision-deficiency views at full severity: none, protan, deutan, tritan "
                   "(Machado 2009; e.g. none deutan)")
    q.add_argument("--shots", type=int, default=0, help="few-shot examples of the same colour set (default 0)")
    q.add_argument("--seed", type=int, default=0, help="prompt and few-shot seed (default 0)")
    q.add_argument("--timeout", type=float, help="per-request timeout in seconds")
    q.add_argument("--max-attempts", type=int, help="requests per row before it is stored as an error (openai)")
    q.add_argument("--sample", type=int, metavar="N", help="a seeded random subset of N plates balanced across "
                   "colour sets (HueManity §4's random subsets; part of the run id; TOML: [dataset] sample)")
    q.add_argument("--sample-seed", type=int, help="seed of --sample's draw (default 0)")
    p.add_argument("--protocol", help="a paper's sampling settings per model: huemanity (Table 6), "
                   "colorblindnesseval (§3.1 defaults), colorbench (App. E: none reported), plates (ours: "
                   "temperature 0, 512 tokens; the default); joins the run id")
    p.add_argument("--view", metavar="FAMILY", help="rows record each image as this family's processor hands it "
                   "to the model: seen size, tiles, cropped fraction, ΔE2000 after the view (plates.models.views; "
                   "e.g. openai-high, qwen2-vl); with a file, for every model; joins the run id")
    o = p.add_argument_group("both ways (operational: they do not change the run id)")
    o.add_argument("--out", help=out_help)
    o.add_argument("--limit", type=int, help="ask about the first N dataset items only (the CBE preset holds "
                   "each plate twice, standard and clear: a prompt asks the items of its own variant)")
    return o


def build_experiment(args: argparse.Namespace):  # -> plates.runs.experiment.Experiment
    """The experiment the flags (or the TOML file and its allowed flags) describe, named by --name if given.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    Experiment
        The experiment.

    Raises
    ------
    ValueError
        Naming the bad flag or field and what is allowed.
    """
    from plates.runs.experiment import run_name

    exp = _build_experiment(args)
    if getattr(args, "name", None) is not None:  # exporters have no --name
        exp = dataclasses.replace(exp, run_name=run_name(args.name))
    return exp


def _build_experiment(args: argparse.Namespace):
    # lazy: loads only when this subcommand runs (plates.cli)
    from plates.models import DEFAULT_MODELS
    from plates.models.views import FAMILIES
    from plates.runs.experiment import load_experiment, quick_experiment
    from plates.validation import lookup

    quick_flags = [f"--{n.replace('_', '-')}" for n in ("dataset", "prompt", "model", "base_url", "size", "timeout",
                                                               "max_attempts", "sample", "sample_seed", "sampling_fields",
                                                               "grayscale", "hue_shift", "cvd")
                   if getattr(args, n) is not None] + (["--prompt-file"] if args.prompt_file else [])
    if args.experiment:
        if quick_flags:
            raise ValueError(f"{', '.join(quick_flags)} cannot be combined with an experiment file; "
                             "put them in the TOML (allowed with a file: --out, --limit, --concurrency, "
                             "--device, --device-map, --dtype, --batch-size, --trust-remote-code, "
                             "--protocol, --name, --judge and its flags)")
        exp = load_experiment(args.experiment, protocol=args.protocol)
        if getattr(args, "view", None) is not None:
            lookup(FAMILIES, args.view, "--view")
            exp = dataclasses.replace(exp, models=tuple(dataclasses.replace(m, view=args.view) for m in exp.models))
        if args.limit is not None:
            exp = dataclasses.replace(exp, limit=positive("--limit", args.limit))
        if getattr(args, "concurrency", None) is not None:
            n = positive("--concurrency", args.concurrency)
            exp = dataclasses.replace(exp, models=tuple(  # requests in flight: the OpenAI-compatible backend's
                dataclasses.replace(m, options={**m.options, "concurrency": n}) if m.backend == "openai" else m
                for m in exp.models))
        if args.out is not None:
            exp = dataclasses.replace(exp, out=args.out)
        return _with_local_options(exp, args)
    if args.backend not in BACKENDS:  # before --model: `--backend hf2` is the mistake, not the missing model
        raise not_known("--backend", args.backend, BACKENDS)
    model = args.model if args.model is not None else DEFAULT_MODELS.get(args.backend)
    missing = [flag for flag, value in (("--dataset", args.dataset), ("--prompt", args.prompt),
                                        ("--model", model), ("--out", args.out)) if value is None]
    if missing:
        raise ValueError(f"give an experiment file, or all of --dataset, --prompt, --model (not needed with "
                         f"--backend baseline) and --out (missing: {', '.join(missing)})")
    exp = quick_experiment(
        dataset=args.dataset, prompt=args.prompt, backend=args.backend, model=model, out=args.out,
        base_url=args.base_url, api_key_env=None if args.no_api_key else args.api_key_env,
        limit=positive("--limit", args.limit),
        concurrency=positive("--concurrency", getattr(args, "concurrency", None)),  # exporters have none
        size=None if args.size is None else tuple(args.size), shots=args.shots,
        grayscale={None: (), "on": (True,), "both": (False, True)}[args.grayscale],
        hue_shifts=tuple(args.hue_shift or ()), cvd=tuple(args.cvd or ()), seed=args.seed, timeout=args.timeout,
        max_attempts=positive("--max-attempts", args.max_attempts),
        prompt_files=tuple(args.prompt_file), protocol=args.protocol, sample=args.sample,
        sample_seed=args.sample_seed, sampling_fields=args.sampling_fields, view=getattr(args, "view", None),
    )
    return _with_local_options(exp, args)


def _with_local_options(exp, args: argparse.Namespace):
    """``exp`` with --device, --device-map, --dtype, --batch-size and --trust-remote-code set on its local (hf)
    models: operational options, outside the run id (plates.runs.experiment.OPERATIONAL_MODEL_KEYS). ValueError
    when given without one."""
    # lazy: loads only when this subcommand runs (plates.cli)
    from plates.models.hf_loading import DEVICE_MAPS, DEVICES, DTYPES

    options: dict = {}
    if getattr(args, "device_map", None) is not None:
        if args.device_map not in DEVICE_MAPS:
            raise ValueError(f"--device-map {args.device_map!r} is not allowed; allowed: {', '.join(DEVICE_MAPS)}")
        if getattr(args, "device", None) is not None:
            raise ValueError("give --device or --device-map, not both; allowed: --device-map alone spreads the "
                             "model over every GPU, CPU memory and disk")
        options["device_map"] = args.device_map
    if getattr(args, "trust_remote_code", False):
        options["trust_remote_code"] = True
    if getattr(args, "device", None) is not None:
        if args.device.split(":", 1)[0] not in DEVICES:
            raise ValueError(f"--device {args.device!r} is not allowed; allowed: {', '.join(DEVICES)} or "
                             "cuda:N")
        options["device"] = args.device
    if getattr(args, "dtype", None) is not None:
        if args.dtype not in DTYPES:
            raise ValueError(f"--dtype {args.dtype!r} is not allowed; allowed: {', '.join(DTYPES)}")
        options["dtype"] = args.dtype
    if getattr(args, "batch_size", None) is not None:
        options["batch_size"] = positive("--batch-size", args.batch_size)
    if not options:
        return exp
    if not any(m.backend == "hf" for m in exp.models):
        flags = ", ".join(f"--{k.replace('_', '-')}" for k in options)
        raise ValueError(f"{flags} apply to local Hugging Face models only; allowed with --backend hf or a "
                         "TOML file with an hf [[models]] entry")
    return dataclasses.replace(exp, models=tuple(
        dataclasses.replace(m, options={**m.options, **options}) if m.backend == "hf" else m
        for m in exp.models))


def _executor(args: argparse.Namespace):  # -> plates.runs.runner.Executor | None
    """The executor --executor names (None: this process), with its --ray-* options; ValueError for a
    --ray-* option without --executor ray."""
    if args.executor != "ray":
        given = [flag for flag, value in (("--ray-address", args.ray_address), ("--ray-actors", args.ray_actors))
                 if value is not None]
        if given:
            raise ValueError(f"{', '.join(given)} need --executor ray; allowed: --executor ray {given[0]} ...")
        return None
    from plates.runs.ray_executor import RayExecutor  # lazy: ray is an optional extra

    return RayExecutor(address=args.ray_address, actors=positive("--ray-actors", args.ray_actors))


def main(args: argparse.Namespace) -> int:
    # lazy: loads only when this subcommand runs (plates.cli)
    """Run ``plates run``: ask models about stimuli and write Parquet results (resumable).

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
    from plates.models import BackendFailing
    from plates.runs.runner import key_values, run_experiment
    from plates.secrets import redact

    shard = None if args.shard is None else Shard.parse(args.shard)
    executor = _executor(args)
    exp = build_experiment(args)
    judge = judge_from_args(args)
    if judge is not None:
        exp = dataclasses.replace(exp, judge=judge)
    try:
        summary = run_experiment(exp, retry_errors=args.retry_errors, progress=not args.no_progress, shard=shard,
                                 executor=executor, take_over_lock=args.take_over_lock)
    except BackendFailing as exc:
        why = redact(str(exc), key_values(exp)).removeprefix("stopping: ")
        print(f"plates run: error: the backend keeps failing, stopped: {why}\n"
              f"plates run: the rows already written under {exp.out} are kept; fix the cause and rerun the same "
              "command to continue", file=sys.stderr)
        return EXIT_BACKEND
    except ImportError as exc:
        print(f"plates run: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(f"run {summary.run_id}: {summary.written} rows written ({summary.errors} errors, "
          f"{summary.unsupported} unsupported, {summary.correct} correct), {summary.existing} already there, "
          f"{summary.planned} planned; results in {summary.out} ({summary.seconds:.1f} s)"
          + (f"; the judge {exp.judge.model} decided {summary.judged} verdicts" if exp.judge else ""))
    return 0
