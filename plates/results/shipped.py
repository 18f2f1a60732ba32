"""The shipped first-start runs: which runs under a results folder came with the checkout.

`scripts/make_shipped_results.sh` writes the bundled reader's and the reference observer's runs under
``results/runs/`` and, last, a manifest (`MANIFEST`: ``shipped-runs.json``, a JSON object ``{"runs": [run
ids]}``) beside them. A user's own runs written into the same folder (``plates run --out results/runs/mine``)
are not in it, so the dashboard can show the shipped runs apart from the user's (`shipped_run_ids`).
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["MANIFEST", "shipped_run_ids", "write_manifest"]

#: The manifest's file name, in the folder holding the shipped runs (``results/runs``).
MANIFEST = "shipped-runs.json"


def write_manifest(folder: str | Path) -> Path:
    """Write ``folder``'s manifest: the run ids of every results part under it (all of them shipped).

    Parameters
    ----------
    folder : str or pathlib.Path
        The folder of the shipped runs (``results/runs``).

    Returns
    -------
    pathlib.Path
        The manifest written, ``folder / MANIFEST``.
    """
    from plates.results.reader import load_results  # the reader imports nothing of this module's

    runs = load_results(folder, columns=["run_id"], latest=False).frame["run_id"].dropna().astype(str)
    path = Path(folder) / MANIFEST
    path.write_text(json.dumps({"runs": sorted(set(runs))}, indent=1) + "\n", encoding="utf-8")
    return path


def shipped_run_ids(root: str | Path) -> frozenset[str]:
    """The shipped runs' ids a results folder holds: from the manifest in ``root`` or in ``root/runs`` (the
    dashboard opens ``results`` or ``results/runs``); empty where there is none (a user's own folder).

    Parameters
    ----------
    root : str or pathlib.Path
        A results folder.

    Returns
    -------
    frozenset of str
        The shipped runs' ids.

    Raises
    ------
    ValueError
        A manifest that is not ``{"runs": [run id, ...]}``; the message names the file.
    """
    for path in (Path(root) / MANIFEST, Path(root) / "runs" / MANIFEST):
        if not path.is_file():
            continue
        try:
            runs = json.loads(path.read_text(encoding="utf-8"))["runs"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}: not a shipped-runs manifest ({exc}); expected {{\"runs\": [run ids]}}; "
                             "rebuild it with scripts/make_shipped_results.sh") from None
        if not isinstance(runs, list) or not all(isinstance(r, str) for r in runs):
            raise ValueError(f"{path}: 'runs' must be a list of run ids, got {runs!r:.80}")
        return frozenset(runs)
    return frozenset()
