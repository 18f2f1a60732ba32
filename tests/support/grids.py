"""A tiny grid file (`plates generate --grid`) the generate, grid and shard tests share: 2 labels x 2 colour sets
x 2 fonts x 2 ΔE2000 x 1 size, 2 variants each."""

GRID = """
name = "tiny-grid"
labels = ["12", "A7"]
colour_sets = ["colorblindnesseval-1"]
fonts = ["liberation-sans-bold", "dejavu-sans-bold-oblique"]
delta_e = [0, 4]
sizes = [96]
variants = ["standard", "clear"]

[[colours]]
name = "brick-on-sage"
foreground = ["#b22222", [192, 57, 43]]
background = ["#8fbc8f"]
"""
