"""`plates serve-baseline` stops cleanly on Ctrl-C (exit 0, says it stopped), unlike an interrupted job."""

from __future__ import annotations

from plates.reader.server import BaselineServer
from plates.cli import main


def test_ctrl_c_stops_the_server_with_exit_0(monkeypatch, capsys):
    def interrupted(self, poll_interval=0.5):
        raise KeyboardInterrupt

    monkeypatch.setattr(BaselineServer, "serve_forever", interrupted)
    assert main(["serve-baseline", "--port", "0"]) == 0
    out, err = capsys.readouterr()
    assert "stopped serving baseline-cnn at http://127.0.0.1:" in out
    assert "interrupted" not in err and "resume" not in err
