"""The explorer's browser tests' shared fixtures: Debian's Chromium through Playwright (never ``playwright
install``; its path and flags in tests/support/browser.py), and the explorer with the default policy served on
127.0.0.1. The explorer is one for the whole session: every test opens pages of its own, and nothing a test does
in its page reaches another's (Gradio keeps state per page session). The headless Chromium is one per module:
Playwright's sync API holds an event loop on the thread while it runs, which the other modules' tests (Gradio
clients, asyncio) must not find there."""

from __future__ import annotations

import pytest

from tests.support.browser import ARGS, CHROMIUM


@pytest.fixture(scope="session")
def url():
    """The explorer (`plates.explorer.app.build_app` with the default policy) launched once; its URL."""
    from plates.explorer import app as explorer_app
    from plates.explorer.policy import Policy

    demo = explorer_app.build_app(Policy())
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
