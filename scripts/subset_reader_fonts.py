"""Write the baseline reader's extra training fonts (plates/reader/fonts/) from the PyPI font packages.

The reader trains on the 8 faces bundled for the stimuli (DejaVu Sans, Liberation Sans) and, from the
fine-tune stage on (plates/reader/train.py), on these faces as well: other sans and serif designs, so that it
reads shapes of more type families. None of them is a font the benchmark holds out (bench/foreign_plates.py
draws only from /usr/share/fonts: DejaVu Serif/Mono/Condensed/ExtraLight, Liberation Serif/Mono/Narrow).

Each face is cut to the 62 characters a plate can show (0-9, A-Z, a-z) with fontTools' subsetter (no hinting)
and renamed "Plates Reader <n>" as the SIL Open Font License 1.1 asks of a modified version whose original
names a Reserved Font Name ("Source"); the Apache-2.0 faces are renamed the same way for one rule.

Monospace faces (the benchmark's alphanumeric misses are mostly in its held-out mono faces) come from the npm
Fontsource packages as WOFF: ``npm pack @fontsource/roboto-mono @fontsource/source-code-pro
@fontsource/ibm-plex-mono`` and extract each .tgz into one folder (``FONTSOURCE``, default /tmp/fontsource) as
``<name>/package``.

Run once, after ``pip install fonttools font-roboto font-caladea font-source-serif-pro font-source-sans-pro
font-manrope``: ``python3 scripts/subset_reader_fonts.py``. The licence texts are copied beside the fonts.
"""

from __future__ import annotations

import importlib
import os
import shutil
import string
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTFont

OUT = Path(__file__).resolve().parent.parent / "plates" / "reader" / "fonts"
#: (PyPI package, TTF file) -> output file name stem
FACES = {
    ("font_roboto", "Roboto-Regular.ttf"): "roboto-regular",
    ("font_roboto", "Roboto-Italic.ttf"): "roboto-italic",
    ("font_roboto", "Roboto-Bold.ttf"): "roboto-bold",
    ("font_roboto", "Roboto-Light.ttf"): "roboto-light",
    ("font_caladea", "Caladea-Regular.ttf"): "caladea-regular",
    ("font_caladea", "Caladea-Italic.ttf"): "caladea-italic",
    ("font_caladea", "Caladea-Bold.ttf"): "caladea-bold",
    ("font_caladea", "Caladea-BoldItalic.ttf"): "caladea-bold-italic",
    ("font_source_serif_pro", "SourceSerifPro-Regular.ttf"): "source-serif-regular",
    ("font_source_serif_pro", "SourceSerifPro-It.ttf"): "source-serif-italic",
    ("font_source_serif_pro", "SourceSerifPro-Bold.ttf"): "source-serif-bold",
    ("font_source_serif_pro", "SourceSerifPro-Light.ttf"): "source-serif-light",
    ("font_source_sans_pro", "SourceSansPro-Regular.ttf"): "source-sans-regular",
    ("font_source_sans_pro", "SourceSansPro-It.ttf"): "source-sans-italic",
    ("font_source_sans_pro", "SourceSansPro-Black.ttf"): "source-sans-black",
    ("font_manrope", "Manrope-Regular.ttf"): "manrope-regular",
    ("font_manrope", "Manrope-Bold.ttf"): "manrope-bold",
}
#: (Fontsource package, WOFF file) -> output file name stem (npm packages, OFL-1.1)
FONTSOURCE_FACES = {
    ("roboto-mono", "roboto-mono-latin-400-normal.woff"): "roboto-mono-regular",
    ("roboto-mono", "roboto-mono-latin-400-italic.woff"): "roboto-mono-italic",
    ("roboto-mono", "roboto-mono-latin-700-normal.woff"): "roboto-mono-bold",
    ("source-code-pro", "source-code-pro-latin-400-normal.woff"): "source-code-regular",
    ("source-code-pro", "source-code-pro-latin-700-normal.woff"): "source-code-bold",
    ("ibm-plex-mono", "ibm-plex-mono-latin-400-normal.woff"): "plex-mono-regular",
    ("ibm-plex-mono", "ibm-plex-mono-latin-400-italic.woff"): "plex-mono-italic",
    ("ibm-plex-mono", "ibm-plex-mono-latin-700-normal.woff"): "plex-mono-bold",
}
LICENCES = {"font_roboto": "LICENSE", "font_caladea": "APACHE-2.0.txt", "font_source_serif_pro": "LICENSE.txt",
            "font_source_sans_pro": "LICENSE.txt", "font_manrope": "OFL.txt"}
TEXT = string.digits + string.ascii_uppercase + string.ascii_lowercase


def cut(font: TTFont, stem: str) -> None:
    """Subset ``font`` to :data:`TEXT`, rename it "Plates Reader <stem>" and write ``<stem>.ttf``."""
    options = subset.Options()
    options.hinting = False
    options.layout_features = []
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]  # copyright, names, version, licence
    sub = subset.Subsetter(options)
    sub.populate(text=TEXT)
    sub.subset(font)
    new = f"Plates Reader {stem}"
    for record in font["name"].names:
        if record.nameID in (1, 3, 4, 16, 21):
            record.string = new
        elif record.nameID == 6:
            record.string = new.replace(" ", "-")
    font.flavor = None  # WOFF in, TrueType out
    font.save(OUT / f"{stem}.ttf")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for (package, name), stem in FACES.items():
        cut(TTFont(Path(importlib.import_module(package).__file__).parent / "files" / name), stem)
    source = Path(os.environ.get("FONTSOURCE", "/tmp/fontsource"))
    for (package, name), stem in FONTSOURCE_FACES.items():
        cut(TTFont(source / package / "package" / "files" / name), stem)
    for package in sorted({p for p, _ in FONTSOURCE_FACES}):
        shutil.copyfile(source / package / "package" / "LICENSE", OUT / f"LICENSE-{package}.txt")
    for package, licence in LICENCES.items():
        files = Path(importlib.import_module(package).__file__).parent / "files"
        shutil.copyfile(files / licence, OUT / f"LICENSE-{package.removeprefix('font_').replace('_', '-')}.txt")


if __name__ == "__main__":
    main()
