"""``plates view IMAGE --as FAMILY --out DIR``: the image as a family's vision encoder receives it.

Writes ``view.png`` (one image) or ``view-00.png``, ``view-01.png``, ... (tiles, in the processor's order): the
processor's pixels de-normalised back to sRGB 8-bit at the processed size (`plates.models.views`); and
``view.json``: family, input_size, seen_size, tiles, cropped_fraction, crop_boxes (input pixels), processor (what
this reproduces), implemented_by, exact and note.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``plates view`` and its flags to ``subparsers``.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        The ``plates`` parser's subcommands.
    """
    p = subparsers.add_parser("view", help="write an image as a VLM family's processor hands it to the model",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("image", help="the input image (PNG or anything Pillow reads)")
    p.add_argument("--as", dest="family", required=True,
                   help="the family: llava-1.5, llava-1.5-pad, qwen2-vl, qwen2.5-vl, idefics3, smolvlm, internvl, "
                        "paligemma-224/448/896, gemma-3, gemma-3-pan-and-scan, llama-3.2-vision, florence-2, openai-high, "
                        "openai-low, anthropic, gemini")
    p.add_argument("--out", required=True, help="output folder (created)")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    """Run ``plates view``: write an image as a VLM family's processor hands it to the model.

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
    from PIL import Image

    from plates.models.views import see, view_plan

    with Image.open(args.image) as im:
        im.load()
        view_plan(args.family, *im.size)  # an unknown family or a refused size fails before anything is written
        view = see(im, args.family)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    names = ["view.png"] if len(view.images) == 1 else [f"view-{i:02d}.png" for i in range(len(view.images))]
    for name, pixels in zip(names, view.images):
        Image.fromarray(pixels, mode="RGB").save(out / name, format="PNG")
    summary = {**view.summary(), "files": names, "implemented_by": "plates.models.views (numpy/Pillow)"}
    (out / "view.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    print(f"{args.family}: {summary['input_size'][0]}x{summary['input_size'][1]} -> seen "
          f"{summary['seen_size'][0]}x{summary['seen_size'][1]}, {summary['tiles']} tile(s), "
          f"{summary['cropped_fraction']:.1%} cropped; wrote {len(names)} PNG(s) and view.json to {out}")
    return 0
