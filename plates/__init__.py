"""plates: a colour-perception workbench for vision-language models.

Generate the Ishihara-style stimuli of ColorBlindnessEval and HueManity exactly (seeded, at any CIEDE2000
difference), ask any VLM about them with the papers' own prompts and scoring, and write every answer to Parquet.
Below the two apps nothing imports a UI toolkit: the Gradio explorer (`plates.explorer`) and the Streamlit
dashboard (`plates.dashboard`) are thin layers over the library.
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version

try:
    __version__ = _version("plates")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"
