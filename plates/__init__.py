"""plates: a colour-perception workbench for vision-language models.

Generate the Ishihara-style stimuli of ColorBlindnessEval and HueManity exactly (seeded, at any CIEDE2000
difference), ask any VLM about them with the papers' own prompts and scoring, and write every answer to Parquet.
Below the two apps nothing imports a UI toolkit: the Gradio explorer (`plates.explorer`) and the Streamlit
dashboard (`plates.dashboard`) are thin layers over the library.

Imports sit at the top of each module. The few deferred ones carry a ``# lazy:`` comment with the reason, and
are of three kinds only: optional extras (torch, transformers, onnx), measurably heavy libraries a caller may
never need (colour-science through `plates.colour.spaces.colour_science`, onnxruntime, the openai SDK, pandas
for one table), and a CLI subcommand's own work, so that ``plates --help`` stays fast.
"""

#: The package version, a literal: pyproject.toml reads it from here (``[tool.setuptools.dynamic]``), so the
#: two never differ and ``import plates`` does not ask importlib.metadata (which was ~85% of the import).
__version__ = "0.2.0"
