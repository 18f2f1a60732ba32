"""The audit's findings about the papers' numbers and citations stay fixed: HueManity Table 5's ±
are Wald half-widths (Tables 2-3's are Wilson), and the section citations the audit found wrong appear
nowhere."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from plates.analysis.metrics import wilson_intervals
from plates.results.reference import COLUMNS, load_reference
from tests.support import ROOT


def _printed_tolerance(printed: str) -> float:
    """Half a unit of the ± cell's last printed digit, as a fraction ("49.0 ± 9.8%" -> 0.0005)."""
    digits = printed.split("±")[1].strip().rstrip("%")
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    return 0.5 * 10.0**-decimals / 100 + 1e-9


def test_huemanity_table5_plus_minus_fit_wald_at_n_100_not_wilson():
    table = load_reference("HueManity", "Table 5")
    p, printed_pm = table["value"].to_numpy(float), table["ci_half_width"].to_numpy(float)
    wald = 1.959964 * np.sqrt(p * (1 - p) / 100)
    low, high = wilson_intervals(np.round(p * 100).astype(int), np.full(len(p), 100))
    wilson = (high - low) / 2
    tolerance = np.array([_printed_tolerance(s) for s in table["printed"]])
    nonzero = p > 0
    assert np.all(np.abs(wald - printed_pm)[nonzero] <= np.abs(wilson - printed_pm)[nonzero] + 1e-12)
    assert (np.abs(wald - printed_pm)[nonzero] <= tolerance[nonzero] + 0.0006).all()  # within print rounding
    assert not (np.abs(wilson - printed_pm)[nonzero] <= tolerance[nonzero]).any()
    assert (table.loc[nonzero, "note"].str.contains("Wald")).all()  # said where the table is shown


def test_huemanity_table2_plus_minus_are_wilson_at_n_1000():
    table = load_reference("HueManity", "Table 2")
    table = table[table["ci_half_width"].notna() & ~table["model"].isin(["Human", "ResNet50"])]
    p = table["value"].to_numpy(float)
    low, high = wilson_intervals(np.round(p * 1000).astype(int), np.full(len(p), 1000))
    assert np.abs((high - low) / 2 - table["ci_half_width"].to_numpy(float)).max() < 0.0002
    assert "Wald" in COLUMNS["ci_half_width"][1] and "Wilson" in COLUMNS["ci_half_width"][1]


WRONG_CITATIONS = [
    (r"ColorBlindnessEval §3(?![.\d])[^\n]{0,40}(?:App\. D|dataset|0-99|500)", "CBE's dataset is §2.1"),
    (r"CBE §3(?![.\d]):", "CBE's dataset is §2.1"),
    (r"ColorBench §4(?:\.3)?\b", "ColorBench has no §4 findings: CoT and grayscale are §3.2"),
    (r"ColorBench §3(?![.\d])[^\n]{0,40}(?:gr[ae]y|Finding|Fig\. 5|App\. [CM]|recolou|robust|hue)",
     "ColorBench's grayscale finding is §3.2 / App. M.2, recolouring §2.2 / App. C"),
    (r"(?:HSV|hue|gr[ae]y)[^\n]{0,40}ColorBench §3(?![.\d])", "ColorBench's recolouring is §2.2 / App. C"),
    (r"ColorBlindnessEval §4\.2, Fig\. 2", "CBE's Fig. 2 (colour sets) is in §4.4"),
]


@pytest.mark.parametrize(("pattern", "why"), WRONG_CITATIONS)
def test_no_file_cites_the_sections_the_audit_found_wrong(pattern, why):
    found = []
    for path in ROOT.rglob("*"):
        if path.suffix not in (".py", ".md", ".csv", ".toml") or any(p.startswith(".") for p in path.parts):
            continue
        if path.name == Path(__file__).name:
            continue
        text = path.read_text(encoding="utf-8", errors="ignore")
        for number, line in enumerate(text.splitlines(), start=1):
            if re.search(pattern, line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert not found, f"{why}:\n" + "\n".join(found)
