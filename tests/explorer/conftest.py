"""The explorer's browser tests' shared parts: Debian's Chromium through Playwright (never ``playwright
install``), and the explorer with the default policy served on 127.0.0.1 for a test module."""

from __future__ import annotations

import pytest

#: Debian's Chromium and the flags every browser test launches it with (no sandbox in the container, no GPU,
#: nothing fetched in the background).
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.fixture(scope="module")
def url():
    """The explorer (`plates.explorer.app.build_app` with the default policy) launched for the module; its URL."""
    from plates.explorer import app as explorer_app
    from plates.explorer import plate as ex

    demo = explorer_app.build_app(ex.Policy())
    demo.launch(prevent_thread_lock=True, quiet=True, **explorer_app.launch_options())
    yield demo.local_url
    demo.close()


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium for the module (skipped where Playwright is not installed)."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()
