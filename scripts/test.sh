#!/usr/bin/env bash
# The whole test suite, from a fresh machine: installs what the tests need (Debian's Chromium for the browser
# tests; the CPU build of PyTorch this machine carries; the project with its dev extras at the versions the suite
# was last green with, constraints.txt), lints with the project's ruff settings, then runs every test, slow and
# browser ones included. Fonts need no install: they ship inside the package.
#   PLATES_UNPINNED=1 bash scripts/test.sh   installs the newest releases the bounds allow instead of the lock.
# The tests run on two worker processes (pytest-xdist), a test file per worker at a time (--dist loadfile: a
# file's module fixtures, such as a running app, stay in one process): 15 min against 27 min on one, on this
# project's 2-core machine. PLATES_TEST_WORKERS=N sets the count (0: in this process, as plain pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
export GRADIO_ANALYTICS_ENABLED=False HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_HUB_DISABLE_TELEMETRY=1
export STREAMLIT_BROWSER_GATHER_USAGE_STATS=false PYTHONDONTWRITEBYTECODE=1
if [ ! -x /usr/bin/chromium ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
pins=(-c constraints.txt)
[ "${PLATES_UNPINNED:-}" = 1 ] && pins=()
python3 -m pip install -q --disable-pip-version-check "${pins[@]}" torch==2.13.0
python3 -m pip install -q --disable-pip-version-check "${pins[@]}" -e ".[dev]"
python3 -m ruff check .
exec python3 -m pytest -n "${PLATES_TEST_WORKERS:-2}" --dist loadfile "$@"
