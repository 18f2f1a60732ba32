"""plates.colour.cvd: Machado et al. (2009) matrices, exact at the table's 0.1-step rows and linearly
interpolated between them. The table rows below are copied from Machado et al.'s published
matrices (the same numbers colour-science ships), so the expected matrices are computed here by hand, not by
the code under test."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plates.colour.cvd import machado_matrix, simulate_cvd

# Machado, Oliveira & Fernandes (2009), rows at severity a and a + 0.1 around each tested severity.
ROWS = {
    ("protan", 0.1): [
        [0.856167, 0.182038, -0.038205],
        [0.029342, 0.955115, 0.015544],
        [-0.00288, -0.001563, 1.004443],
    ],
    ("protan", 0.2): [
        [0.734766, 0.334872, -0.069637],
        [0.05184, 0.919198, 0.028963],
        [-0.004928, -0.004209, 1.009137],
    ],
    ("protan", 0.5): [
        [0.458064, 0.679578, -0.137642],
        [0.092785, 0.846313, 0.060902],
        [-0.007494, -0.016807, 1.024301],
    ],
    ("protan", 0.6): [
        [0.38545, 0.769005, -0.154455],
        [0.100526, 0.829802, 0.069673],
        [-0.007442, -0.02219, 1.029632],
    ],
    ("protan", 0.9): [
        [0.203876, 0.990338, -0.194214],
        [0.112975, 0.794542, 0.092483],
        [-0.005222, -0.041043, 1.046265],
    ],
    ("protan", 1.0): [
        [0.152286, 1.052583, -0.204868],
        [0.114503, 0.786281, 0.099216],
        [-0.003882, -0.048116, 1.051998],
    ],
    ("deutan", 0.1): [
        [0.866435, 0.177704, -0.044139],
        [0.049567, 0.939063, 0.01137],
        [-0.003453, 0.007233, 0.99622],
    ],
    ("deutan", 0.2): [
        [0.760729, 0.319078, -0.079807],
        [0.090568, 0.889315, 0.020117],
        [-0.006027, 0.013325, 0.992702],
    ],
    ("deutan", 0.5): [
        [0.547494, 0.607765, -0.155259],
        [0.181692, 0.781742, 0.036566],
        [-0.01041, 0.027275, 0.983136],
    ],
    ("deutan", 0.6): [
        [0.498864, 0.674741, -0.173604],
        [0.205199, 0.754872, 0.039929],
        [-0.011131, 0.030969, 0.980162],
    ],
    ("deutan", 0.9): [
        [0.392952, 0.82361, -0.216562],
        [0.263559, 0.69021, 0.046232],
        [-0.01191, 0.040281, 0.97163],
    ],
    ("deutan", 1.0): [
        [0.367322, 0.860646, -0.227968],
        [0.280085, 0.672501, 0.047413],
        [-0.01182, 0.04294, 0.968881],
    ],
    ("tritan", 0.1): [
        [0.92667, 0.092514, -0.019184],
        [0.021191, 0.964503, 0.014306],
        [0.008437, 0.054813, 0.93675],
    ],
    ("tritan", 0.2): [
        [0.89572, 0.13333, -0.02905],
        [0.029997, 0.9454, 0.024603],
        [0.013027, 0.104707, 0.882266],
    ],
    ("tritan", 0.5): [
        [1.017277, 0.027029, -0.044306],
        [-0.006113, 0.958479, 0.047634],
        [0.006379, 0.248708, 0.744913],
    ],
    ("tritan", 0.6): [
        [1.104996, -0.046633, -0.058363],
        [-0.032137, 0.971635, 0.060503],
        [0.001336, 0.317922, 0.680742],
    ],
    ("tritan", 0.9): [
        [1.278864, -0.125333, -0.153531],
        [-0.084748, 0.957674, 0.127074],
        [-0.000989, 0.601151, 0.399838],
    ],
    ("tritan", 1.0): [
        [1.255528, -0.076749, -0.178779],
        [-0.078411, 0.930809, 0.147602],
        [0.004733, 0.691367, 0.3039],
    ],
}
KINDS = ("protan", "deutan", "tritan")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("severity", "low", "high"), [(0.15, 0.1, 0.2), (0.55, 0.5, 0.6), (0.95, 0.9, 1.0)])
def test_between_rows_the_matrix_is_the_midpoint_of_the_two_neighbouring_rows(kind, severity, low, high):
    expected = (np.array(ROWS[(kind, low)]) + np.array(ROWS[(kind, high)])) / 2  # halfway, by hand
    assert np.allclose(machado_matrix(kind, severity), expected, atol=1e-12, rtol=0)


def test_a_hand_written_interpolated_matrix():
    # protan 0.15 = (row 0.1 + row 0.2) / 2, written out: colour-science 0.4.7's own doctest prints
    # 0.7869875 for the first cell (extrapolated from the 0.2 and 0.3 rows).
    assert np.allclose(
        machado_matrix("protan", 0.15),
        [[0.7954665, 0.258455, -0.053921], [0.040591, 0.9371565, 0.0222535], [-0.003904, -0.002886, 1.00679]],
        atol=1e-12,
        rtol=0,
    )
    # 0.95 is no longer the 1.0 matrix
    assert not np.allclose(machado_matrix("deutan", 0.95), ROWS[("deutan", 1.0)], atol=1e-3)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("severity", [0.1, 0.2, 0.5, 0.6, 0.9, 1.0])
def test_on_the_table_rows_the_matrix_is_the_row_itself(kind, severity):
    assert np.array_equal(machado_matrix(kind, severity), np.array(ROWS[(kind, severity)]))


@pytest.mark.parametrize("kind", KINDS)
def test_at_the_rows_we_agree_with_colour_science(kind):
    from colour.blindness import matrix_cvd_Machado2009

    from plates.colour.cvd import CVD_KINDS

    for severity in (0.1, 0.3, 0.5, 1.0):
        with pytest.warns() if kind == "tritan" else _nothing():
            theirs = matrix_cvd_Machado2009(CVD_KINDS[kind], severity)
        assert np.allclose(machado_matrix(kind, severity), theirs, atol=1e-15, rtol=0)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_identity_at_severity_zero_and_for_normal_vision():
    assert np.array_equal(machado_matrix("protan", 0.0), np.eye(3))
    assert np.array_equal(machado_matrix("none", 0.7), np.eye(3))


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(KINDS), severity=st.floats(0.0, 1.0))
def test_every_cell_lies_between_the_neighbouring_rows(kind, severity):
    from plates.colour.cvd import severity_table

    severities, matrices = severity_table(kind)
    i = min(int(np.searchsorted(severities, severity, side="right")) - 1, len(severities) - 2)
    lo = np.minimum(matrices[i], matrices[i + 1])
    hi = np.maximum(matrices[i], matrices[i + 1])
    m = machado_matrix(kind, severity)
    assert np.all(m >= lo - 1e-12) and np.all(m <= hi + 1e-12)


def _decode(v):  # IEC 61966-2-1 sRGB transfer, written out (independent of colour-science)
    v = np.asarray(v, dtype=float) / 255
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def _encode(v):
    v = np.clip(v, 0, 1)
    return np.where(v <= 0.0031308, 12.92 * v, 1.055 * v ** (1 / 2.4) - 0.055)


@pytest.mark.parametrize(
    ("kind", "severity", "low", "high"),
    [("protan", 0.15, 0.1, 0.2), ("deutan", 0.55, 0.5, 0.6), ("tritan", 0.95, 0.9, 1.0)],
)
def test_simulated_pixels_follow_the_hand_computed_matrix(kind, severity, low, high):
    colours = np.array(
        [[200, 60, 40], [60, 140, 40], [30, 90, 220], [128, 128, 128], [250, 240, 10]], np.uint8
    )
    m = (np.array(ROWS[(kind, low)]) + np.array(ROWS[(kind, high)])) / 2
    expected = np.clip(np.rint(_encode(_decode(colours) @ m.T) * 255), 0, 255).astype(np.uint8)
    got = simulate_cvd(colours[None], kind, severity)[0]
    assert np.abs(got.astype(int) - expected.astype(int)).max() <= 1  # 8-bit rounding only


def test_bad_kind_and_severity_name_what_is_allowed():
    with pytest.raises(ValueError, match="allowed: none, protan, deutan, tritan"):
        machado_matrix("achromat", 0.5)
    with pytest.raises(ValueError, match=r"cvd severity=1.2 is not valid; allowed: a number in \[0, 1\]"):
        machado_matrix("protan", 1.2)
