"""What the harness tests share: the bundled reader's OpenAI-compatible server on 127.0.0.1, which the
harnesses' own command lines ask (as `plates serve-baseline` serves it)."""

import threading

import pytest

from plates.reader.server import BaselineServer


@pytest.fixture(scope="module")
def server():
    srv = BaselineServer(port=0)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield srv
    srv.shutdown()
    srv.server_close()
