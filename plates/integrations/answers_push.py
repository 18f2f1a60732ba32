"""People's quiz answers kept beyond a Space's ephemeral disk: the folder the quiz writes its results parts to
(``PLATES_HUMAN_RESULTS``, `plates.runs.quiz`) is pushed to a Hugging Face dataset repository with
``huggingface_hub.CommitScheduler`` (the Hub's "Space persistence" pattern) — ONLY when the Space's owner
configures both the repository (``PLATES_ANSWERS_REPO``, "owner/name") and a write token
(``PLATES_ANSWERS_TOKEN``, a Space secret). Otherwise nothing is pushed and nothing is started.

What leaves: the results parts (``*.parquet``) only, in a private dataset repository (created if missing):
every mode of the quiz writes there (`plates.runs.quiz.QuizSession`'s plates and illusion rows, and the
directions mode's rows, `plates.runs.quiz_directions`, with their centre, direction and levels), with the
colour-vision type a person chose to report (``colour_vision``, from a fixed list, or null). Their rows name a
person only as "participant-<random id>" (`plates.results.schema.PARTICIPANT_PREFIX`) and hold no address, browser
or account: nothing that identifies the visitor. The scheduler commits every ``every``
minutes (default 10) and once more when the process exits; it uploads only files changed since its last
commit. The token is handed to the client and never written, logged or shown.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from plates.runs.quiz import HUMAN_RESULTS_ENV

__all__ = ["PUSH_NOTE", "REPO_ENV", "TOKEN_ENV", "answers_scheduler", "push_config"]

REPO_ENV = "PLATES_ANSWERS_REPO"
TOKEN_ENV = "PLATES_ANSWERS_TOKEN"
#: Added to the quiz's consent text when answers are pushed (`plates.explorer.quiz`).
PUSH_NOTE = (" **Where it goes:** this Space's owner keeps the stored answers in a private Hugging Face dataset "
             "(copied there every few minutes), with the same contents: nothing that identifies you.")
_REPO = re.compile(r"^[A-Za-z0-9][\w.-]{0,95}/[\w.-]{1,96}$")


def push_config(env: Mapping[str, str] | None = None) -> tuple[Path, str, str] | None:
    """(results folder, repository id, token) when the owner configured all three, else None.

    Parameters
    ----------
    env : mapping of str to str, optional
        The environment (default ``os.environ``).

    Returns
    -------
    (pathlib.Path, str, str) or None
        The configuration, or None.

    Raises
    ------
    ValueError
        The repository id is not "owner/name" (the message names it, never the token).
    """
    env = os.environ if env is None else env
    folder, repo, token = env.get(HUMAN_RESULTS_ENV), env.get(REPO_ENV), env.get(TOKEN_ENV)
    if not (folder and repo and token):
        return None
    if not _REPO.match(repo):
        raise ValueError(f"{REPO_ENV}={repo!r} is not a repository id; allowed: 'owner/name' (a dataset repository)")
    return Path(folder), repo, token


def answers_scheduler(env: Mapping[str, str] | None = None, *, every: float = 10.0, endpoint: str | None = None
                      ) -> Any | None:
    """A started ``CommitScheduler`` pushing the quiz's results folder (module docstring), or None when the
    owner configured no repository and token. ``endpoint``: the Hub's URL (default: huggingface_hub's, which
    ``HF_ENDPOINT`` sets).

    Parameters
    ----------
    env : mapping of str to str, optional
        The environment (default ``os.environ``).
    every : float, optional
        Minutes between pushes.
    endpoint : str, optional
        The Hub's URL.

    Returns
    -------
    huggingface_hub.CommitScheduler or None
        The started scheduler, or None.

    Raises
    ------
    ValueError
        As `push_config`.
    """
    config = push_config(env)
    if config is None:
        return None
    folder, repo, token = config
    from huggingface_hub import CommitScheduler, HfApi  # lazy: only a Space that pushes needs the client

    api = HfApi(endpoint=endpoint, token=token)
    return CommitScheduler(repo_id=repo, repo_type="dataset", folder_path=folder, every=every, private=True,
                           token=token, hf_api=api, allow_patterns=["*.parquet", "**/*.parquet"],
                           ignore_patterns=[".*", "**/.*"])
