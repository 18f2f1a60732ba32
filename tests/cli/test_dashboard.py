"""`plates dashboard`: the Streamlit command line it becomes, and its bad-input errors."""

from __future__ import annotations

import pytest

from plates.cli import build_parser, main
from plates.cli.dashboard import APP_PATH, streamlit_command
from tests.support.imports import HOW_TO_FIND, heavy_in, loaded_after


def test_the_dashboard_is_served_headless_without_usage_statistics():
    command = streamlit_command(8600, "127.0.0.1")
    assert command[1:4] == ["-m", "streamlit", "run"] and command[4] == str(APP_PATH) and APP_PATH.is_file()
    flags = dict(zip(command[5::2], command[6::2]))
    assert flags["--browser.gatherUsageStats"] == "false" and flags["--server.headless"] == "true"
    assert flags["--server.port"] == "8600" and flags["--server.address"] == "127.0.0.1"
    assert flags["--server.maxUploadSize"] == "50"  # MB: Streamlit's default let a visitor send 200 MB a file


def test_the_dashboard_is_served_without_a_file_watcher():
    from streamlit import config

    command = streamlit_command(8600, "127.0.0.1")
    flags = dict(zip(command[5::2], command[6::2]))
    assert flags["--server.fileWatcherType"] == "none"
    option = config.get_config_options()["server.fileWatcherType"]  # a real option, taking that value
    assert "none" in option.description


def test_path_and_port_are_parsed_with_results_as_the_default():
    args = build_parser().parse_args(["dashboard"])
    assert args.path == "results" and args.port == 8501
    args = build_parser().parse_args(["dashboard", "runs/x", "--port", "9000"])
    assert args.path == "runs/x" and args.port == 9000


def test_bad_port_and_missing_folder_are_errors_that_name_the_value(tmp_path, capsys):
    with pytest.raises(ValueError, match="70000.*1-65535"):
        streamlit_command(70000, "127.0.0.1")
    assert main(["dashboard", str(tmp_path / "nowhere")]) == 2
    assert "nowhere" in capsys.readouterr().err


def test_the_command_is_built_without_the_libraries_the_server_loads_again():
    """``plates dashboard`` becomes the Streamlit server (``os.execve``): what it imports before is thrown away,
    so it builds the command without pandas, pyarrow, DuckDB, Streamlit or the results package (the upload cap
    is `plates.admission.UploadLimits`; `plates.storage` loads pyarrow's filesystems where a store is opened)."""
    code = ("import os\nos.execve = lambda *args: None  # the command is built; the server is not started\n"
            "from plates.cli import main\nassert main(['dashboard', 'results/runs', '--port', '8599']) == 0")
    modules = loaded_after(code)
    assert "plates.admission" in modules
    assert heavy_in(modules, ("pandas", "pyarrow", "duckdb", "streamlit", "plates.results")) == [], HOW_TO_FIND.replace(
        "CODE", "...")
