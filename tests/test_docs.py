"""The documentation site (mkdocs.yml, docs/) builds with ``mkdocs build --strict`` (no broken link, anchor or
cross-reference; every API page's docstrings parse), every code block its pages (and README.md) mark runnable
runs, and the README keeps its shape: the Space front matter, then the two commands, under 200 lines, every
relative link resolving.

A page marks a block runnable with an HTML comment on the line before its fence (invisible on the site)::

    <!-- runnable -->
    ```python
    ...
    ```

Each such block runs on its own, in a fresh namespace, from the repository root (so ``results/runs`` is the
shipped results), and fails the test with its page and line when it raises.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
MARK = "<!-- runnable -->"
BLOCK = re.compile(r"^" + re.escape(MARK) + r"\n```python\n(.*?)^```", re.M | re.S)


def runnable_blocks() -> list[tuple[str, int, str]]:
    """(page, line of the fence, code) for every runnable block under docs/ and in README.md, in page order."""
    blocks = []
    for page in [README, *sorted(DOCS.rglob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        for match in BLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 2
            blocks.append((str(page.relative_to(ROOT)), line, match.group(1)))
    return blocks


BLOCKS = runnable_blocks()


def test_every_marked_block_is_found():
    """A mark not followed by a python fence would silently run nothing: every mark (a line of its own) must
    open a block."""
    marks = sum(line == MARK for page in [README, *DOCS.rglob("*.md")]
                for line in page.read_text(encoding="utf-8").splitlines())
    assert marks == len(BLOCKS) and len(BLOCKS) >= 5


@pytest.mark.parametrize("page,line,code", BLOCKS, ids=[f"{p}:{n}" for p, n, _ in BLOCKS])
def test_a_runnable_block_runs(page, line, code, monkeypatch):
    monkeypatch.chdir(ROOT)
    exec(compile(code, f"{page}:{line}", "exec"), {"__name__": "__docs__"})


@pytest.mark.slow
def test_the_site_builds_strict(tmp_path):
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"),
         "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert (tmp_path / "site" / "api" / "colour" / "index.html").is_file()
    assert "srgb255_to_lab" in (tmp_path / "site" / "api" / "colour" / "index.html").read_text(encoding="utf-8")


def test_the_readme_keeps_its_shape():
    """Space front matter first (Hugging Face reads it), then the two set-up commands, all under 200 lines."""
    lines = README.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "---" and "sdk: gradio" in lines and lines.index("---", 1) > 5
    after = lines[lines.index("---", 1) + 1:]
    commands = [line.split("#")[0].strip() for line in after if line.strip()][1:3]
    assert commands == ["pip install -e . && python app.py", "bash scripts/test.sh"]
    assert len(lines) < 200


def test_the_readme_links_resolve():
    """GitHub renders README's relative links; each must name a file of this checkout."""
    text = README.read_text(encoding="utf-8")
    targets = [t.split("#")[0] for t in re.findall(r"\]\(([^)\s]+)\)", text) if "://" not in t]
    assert len(targets) >= 15
    assert [t for t in targets if not (ROOT / t).exists()] == []
