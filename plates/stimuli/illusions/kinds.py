"""The illusion kinds: what each draws, what its strength and inducer colours mean, its defaults and sources.

`ILLUSION_TYPES` is a read-only mapping kind name -> `IllusionType`. Colours here are CIELAB (D65, 2°)
triples (L* 0-100). Every kind draws two flat targets, "A" (left, or top) and "B" (right, or bottom); each
sits in an *inducer context*. ``strength`` 0 makes the two contexts equal (a control: no illusion), 1 draws
the inducers as given. The prediction rule says which target the illusion makes look lighter when the target
pixels are identical; its literature source is ``source``.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

__all__ = [
    "DIRECTIONS",
    "HUMAN_KEYS",
    "ILLUSION_TYPES",
    "KINDS",
    "LAYOUTS",
    "STRIPE_KINDS",
    "UNVALIDATED_KINDS",
    "UNVALIDATED_NOTE",
    "IllusionType",
    "Lab",
]

Lab = tuple[float, float, float]  # CIELAB, D65 / 2°

#: Layouts: where targets A and B sit. "left-right": A left, B right; "up-down": A top, B bottom.
LAYOUTS = ("left-right", "up-down")
#: Stripe directions in the final image: "horizontal" stripes run left-right, "vertical" top-bottom,
#: "diagonal" from lower left to upper right.
DIRECTIONS = ("horizontal", "vertical", "diagonal")


@dataclass(frozen=True)
class IllusionType:
    """One kind of illusion.

    Attributes
    ----------
    name : str
        The kind's registry name (``"white"``).
    description : str
        What the image shows, in words.
    source : str
        The papers the kind follows (author, year, venue, section).
    prediction : str
        The human answer, in words.
    strength : str
        What the spec's strength (0-1) controls.
    inducers : tuple of str
        What each inducer colour (CIELAB D65) is, in order.
    default_target : tuple of 3 float
        The targets' base colour, CIELAB D65.
    default_inducers : tuple of (tuple of 3 float)
        The inducers' default colours, CIELAB D65.
    regions : str
        How questions name the two targets, with ``{first}``/``{second}`` for the layout's words.
    count : str or None
        What the spec's ``count`` means (None: the kind has none).
    default_count : int or None
        Its default.
    count_range : (int, int) or None
        Its bounds, inclusive.
    default_direction : str or None
        The stripe direction by default (stripe kinds).
    edge_noise : float or None
        Default edge noise, a fraction of the image size; None where the kind has none.
    random : bool
        True when the seed changes the drawing (other kinds ignore it and reproduce across seeds).
    human_key : str
        Where the human answer comes from: "literature" (the rule the cited studies measured with people on
        this geometry) or "unvalidated" (our reading, never tested with people on these images; `HUMAN_KEYS`
        says why for each kind).
    lettered : bool
        The targets carry the letters A and B (`plates.stimuli.illusions.marks`), where nothing else tells
        them from their like.
    """

    name: str
    description: str
    source: str
    prediction: str
    strength: str
    inducers: tuple[str, ...]
    default_target: Lab
    default_inducers: tuple[Lab, ...]
    regions: str
    count: str | None = None
    default_count: int | None = None
    count_range: tuple[int, int] | None = None
    default_direction: str | None = None
    edge_noise: float | None = None
    random: bool = False
    human_key: str = "literature"
    lettered: bool = False


_MIDPOINT = (
    "0: both inducers take their CIELAB midpoint (no illusion, a control); 1: the inducers as given; linear "
    "in CIELAB between"
)

# kinds whose midpoint limit is featureless: strength 0 draws a control that keeps the geometry instead
_MIDPOINT_GEOMETRY = (
    "(0, 1]: the inducers move from their CIELAB midpoint (toward 0) to the colours as given (1), linear in "
    "CIELAB; 0 is a control that keeps the geometry with equal contexts: {control}"
)

_TYPES = (
    IllusionType(
        "rcid-contrast",
        "Two mirrored targets of one colour on a background with a dark half and a bright half; target "
        "outlines roughened by edge noise (RCID contrast illusion, drawn procedurally).",
        "Mao et al., RCID (2025) §3.1 'Contrast Illusions' and Fig. 7a; simultaneous contrast: Heinemann "
        "(1955), J. Exp. Psychol. 50(2):89-96",
        "the target on the darker background half looks lighter (RCID §3.1: 'a darker background enhances "
        "the perceived brightness of the foreground color')",
        "background contrast. " + _MIDPOINT,
        ("background half around A", "background half around B"),
        (55.0, -35.0, 30.0),
        ((25.0, -10.0, 10.0), (80.0, -10.0, 10.0)),
        "the two squares on the {first} and {second}",
        edge_noise=0.01,
        random=True,
    ),
    IllusionType(
        "rcid-stripe",
        "A field of dark stripes alternating with a coloured background; target A replaces segments of the "
        "dark stripes, target B segments of the background stripes (RCID stripe illusion in White's "
        "geometry); edge noise bends the stripes.",
        "Mao et al., RCID (2025) §3.1 'Stripe Illusions' and Fig. 7b; White (1979), Perception 8(4):413-416",
        "the target that replaces dark-stripe segments (flanked by lighter stripes) looks lighter: its "
        "lightness shifts toward the flanking stripes (White 1979)",
        "stripe contrast. " + _MIDPOINT,
        ("stripes whose segments A replaces (dark)", "stripes whose segments B replaces (background)"),
        (55.0, 40.0, 35.0),
        ((10.0, 0.0, 0.0), (80.0, 10.0, 40.0)),
        "the two striped patches on the {first} and {second}",
        count="dark stripes across the image (stripe width = size / (2 * count) px, at least 1 px)",
        default_count=12,
        count_range=(2, 1024),
        default_direction="horizontal",
        edge_noise=0.01,
        random=True,
    ),
    IllusionType(
        "rcid-filter",
        "A Mondrian scene of coloured rectangles with a disc target in each half; one half lies under a "
        "uniform colour cast (alpha blend), so its disc's pixels no longer carry its original colour "
        "(colour constancy, RCID filter illusion).",
        "Mao et al., RCID (2025) §3.2 'Filter Illusion Image Generation'; Kitaoka's 'strawberries' (2017); "
        "colour constancy: Land (1977), Sci. Am. 237(6):108-128",
        "the disc under the cast is named by its original colour, not its pixel colour; the other disc by "
        "its pixels (no lighter/darker prediction). RCID and Kitaoka show it on familiar objects; on an "
        "abstract disc the effect is likely weaker (our reading, not tested with people)",
        "cast opacity: pixel = (1 - a) * original + a * cast in sRGB 0-1 with a = 0.45 * strength (0: no "
        "cast, a control)",
        ("cast colour",),
        (55.0, 0.0, 0.0),
        ((91.0, -47.0, -14.0),),
        "the two discs on the {first} and {second}",
        random=True,
        human_key="unvalidated",
    ),
    IllusionType(
        "simultaneous-contrast",
        "Two grey squares, one centred in each half of a background with a dark half and a light half.",
        "Chevreul (1839) De la loi du contraste simultané des couleurs; Heinemann (1955), J. Exp. Psychol. "
        "50(2):89-96",
        "the target on the darker surround looks lighter",
        "surround contrast. " + _MIDPOINT,
        ("surround of A", "surround of B"),
        (55.0, 0.0, 0.0),
        ((10.0, 0.0, 0.0), (80.0, 0.0, 0.0)),
        "the two squares on the {first} and {second}",
    ),
    IllusionType(
        "simultaneous-contrast-chromatic",
        "Two grey squares on a background with a dark bluish half and a light yellowish half.",
        "Chevreul (1839); Kirschmann (1891), Philos. Stud. 6:417-491 (chromatic induction)",
        "the target on the darker surround looks lighter; each target takes a tint complementary to its "
        "surround's hue (here: on blue -> yellowish, on yellow -> bluish)",
        "surround contrast (lightness and hue). " + _MIDPOINT,
        ("surround of A", "surround of B"),
        (60.0, 0.0, 0.0),
        ((35.0, 20.0, -55.0), (85.0, -5.0, 75.0)),
        "the two squares on the {first} and {second}",
    ),
    IllusionType(
        "whites",
        "White's illusion: a black-and-white grating; grey target A replaces black-bar segments, grey "
        "target B white-bar segments.",
        "White (1979), 'A new effect of pattern on perceived lightness', Perception 8(4):413-416",
        "the target on the black bars (flanked by white bars) looks lighter, against what border contrast "
        "predicts",
        "grating contrast. " + _MIDPOINT,
        ("bars whose segments A replaces (dark)", "bars whose segments B replaces (light)"),
        (40.0, 0.0, 0.0),
        ((10.0, 0.0, 0.0), (95.0, 0.0, 0.0)),
        "the two grey patches on the {first} and {second}",
        count="dark bars across the image (bar width = size / (2 * count) px, at least 1 px)",
        default_count=12,
        count_range=(2, 1024),
        default_direction="vertical",
    ),
    IllusionType(
        "munker-white",
        "Munker-White illusion: fine blue and yellow stripes; target A replaces blue-stripe segments "
        "(flanked by yellow), target B yellow-stripe segments (flanked by blue).",
        "Munker (1970), Habilitationsschrift, LMU München; White (1979), Perception 8(4):413-416",
        "each target assimilates toward its flanking stripes: A (flanked by the lighter yellow) looks "
        "lighter and yellower, B darker and bluer",
        "stripe contrast. " + _MIDPOINT,
        ("stripes whose segments A replaces (blue)", "stripes whose segments B replaces (yellow)"),
        (55.0, 45.0, 40.0),
        ((35.0, 20.0, -55.0), (90.0, -8.0, 80.0)),
        "the two striped patches on the {first} and {second}",
        count="blue stripes across the image (stripe width = size / (2 * count) px, at least 1 px)",
        default_count=40,
        count_range=(2, 1024),
        default_direction="horizontal",
    ),
    IllusionType(
        "checker-shadow",
        "Adelson's checker-shadow: a checkerboard with a green cylinder casting a soft shadow; A is a dark "
        "check in the light, B a light check in the shadow (flat, without perspective); the two checks carry "
        "the letters A and B, as in Adelson's figure.",
        "Adelson (1995), checker-shadow illusion; Adelson (2000), 'Lightness perception and lightness "
        "illusions', in The New Cognitive Neurosciences, MIT Press, 339-351",
        "the light check in the shadow looks lighter than the dark check in the light",
        "light-check colour, from the target colour (0: a uniform board without shadow, a control) to the "
        "inducer (1), linear in CIELAB; the shadow multiplies linear RGB by Y(target) / Y(light check), so "
        "a light check in full shadow has the target's pixels. 0 is a control with the board's geometry: "
        "full check contrast, no shadow, B on a dark check in the light (A's context)",
        ("light check",),
        (40.0, 0.0, 0.0),
        ((75.0, 0.0, 0.0),),
        "the two marked checks on the {first} and {second}",
        count="checks per row (even)",
        default_count=6,
        count_range=(6, 16),
        lettered=True,
    ),
    IllusionType(
        "cornsweet",
        "Cornsweet edge: two fields of one colour meeting at an edge where A's side dips darker and B's "
        "side rises lighter along quadratic ramps; the targets are the flat parts beyond the ramps.",
        "Cornsweet (1970), Visual Perception, Academic Press; O'Brien (1958), J. Opt. Soc. Am. 48(2):112-119",
        "the field whose edge ramp is lighter looks lighter as a whole",
        "edge amplitude. " + _MIDPOINT_GEOMETRY.format(control="both sides ramp to the first edge colour"),
        ("edge colour on A's side", "edge colour on B's side"),
        (55.0, 0.0, 0.0),
        ((40.0, 0.0, 0.0), (70.0, 0.0, 0.0)),
        "the two large fields on the {first} and {second}",
    ),
    IllusionType(
        "chevreul",
        "Chevreul staircase: flat bands of stepped lightness; A and B are the two halves of the middle band "
        "(A next to the darker neighbour).",
        "Chevreul (1839); Ratliff (1965), Mach Bands, Holden-Day",
        "each band looks lighter next to its darker neighbour and darker next to its lighter one, so the "
        "half beside the darker band looks lighter",
        "step contrast. " + _MIDPOINT_GEOMETRY.format(control="B's side mirrors A's steps"),
        ("first (A-side) step", "last (B-side) step"),
        (55.0, 0.0, 0.0),
        ((20.0, 0.0, 0.0), (90.0, 0.0, 0.0)),
        "the two halves of the middle band, on the {first} and {second}",
        count="steps (odd: the target band is the middle one)",
        default_count=7,
        count_range=(3, 31),
    ),
    IllusionType(
        "koffka-ring",
        "Koffka ring: a grey ring split into halves on a background with a dark half and a light half.",
        "Koffka (1935), Principles of Gestalt Psychology, Harcourt Brace; Adelson (2000)",
        "the half ring on the darker background looks lighter (split ring: the contrast is seen)",
        "background contrast. " + _MIDPOINT,
        ("background half around A", "background half around B"),
        (55.0, 0.0, 0.0),
        ((15.0, 0.0, 0.0), (85.0, 0.0, 0.0)),
        "the two half rings on the {first} and {second}",
    ),
    IllusionType(
        "neon-spreading",
        "Neon colour spreading: a black lattice in each half with the segments inside a disc coloured; in A's "
        "half they continue the black lines and the colour seems to spread over the background inside the "
        "disc; in B's half a small gap separates them from the black lines, which stops the spreading.",
        "van Tuijl (1975), Acta Psychol. 39(6):441-445; Bressan et al. (1997), Psychol. Rev. 104(1):1-22",
        "the background inside A's neon disc looks tinted toward the segments' colour, so darker when the "
        "segments are darker than the background (lightness direction inferred from the tint)",
        "segment colour, from the lattice colour (toward 0) to the neon colour (1), linear in CIELAB; 0 is a "
        "control drawing A's continuous neon disc in both halves (equal contexts, both areas findable)",
        ("lattice lines", "neon segments"),
        (90.0, 0.0, 0.0),
        ((10.0, 0.0, 0.0), (50.0, 30.0, -65.0)),
        "the two disc-shaped areas inside the grids on the {first} and {second}",
        count="lattice lines per half, each way",
        default_count=7,
        count_range=(3, 24),
    ),
)

#: kind name -> IllusionType, read-only.
ILLUSION_TYPES = MappingProxyType({t.name: t for t in _TYPES})
KINDS = tuple(ILLUSION_TYPES)
STRIPE_KINDS = tuple(t.name for t in _TYPES if t.default_direction is not None)


#: What each value of `IllusionType.human_key` means, as shown beside the numbers it decides.
HUMAN_KEYS = MappingProxyType(
    {
        "literature": "the human answer is the illusion's direction as the cited studies measured it with people",
        "unvalidated": "the human answer is our prediction, not measured with people on these images",
    }
)
#: Why the filter kind's human answer is unvalidated (shown on the Illusions page, stored with each item).
UNVALIDATED_NOTE = (
    "rcid-filter's human answer (the disc's colour before the cast) is unvalidated: RCID (§3.2, §3.4) measured "
    "it with people on photographs of familiar objects under a whole-image filter; our procedural scene casts "
    "one half over an abstract disc, and no person has named these discs. Read its 'human' framing and "
    "Human-like share as a test of a prediction, not as agreement with people."
)
#: Kinds whose human key is "unvalidated" (pages warn when their rows are shown).
UNVALIDATED_KINDS = tuple(t.name for t in _TYPES if t.human_key == "unvalidated")
