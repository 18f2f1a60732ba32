"""`plates.leases` on a real S3-compatible server on 127.0.0.1 (moto's server mode, which implements S3's
conditional writes): one writer per run and output, a crashed run's lease taken over only when asked and only
once expired, shards beside shards but not beside their unsharded run, a lease lost while held is reported, and
`plates run --out s3://...` and `plates generate --out s3://...` hold it."""

from __future__ import annotations

import json
import threading
import time

import pytest

from plates.cli import main
from plates.leases import LEASES, run_lease, set_lease
from plates.shards import Shard
from tests.support.s3_server import ACCESS_KEY, BUCKET, SECRET, S3Server

pytest.importorskip("moto")
pytest.importorskip("boto3")


@pytest.fixture(scope="module")
def s3():
    with S3Server() as server:
        yield server


def _plant(s3, prefix: str, name: str, **holder) -> None:
    """A lease another (crashed) writer left: written straight to the bucket."""
    body = {"owner": "crashed01", "host": "node-7", "pid": 4242, "ttl": 120.0, "started": "2026-01-01T00:00:00+00:00",
            **holder}
    s3.client().put_object(Bucket=BUCKET, Key=f"{prefix}/{LEASES}/{name}", Body=json.dumps(body).encode())


def test_a_second_writer_is_refused_naming_the_holder_and_gets_it_once_released(s3):
    url = s3.url("leases/one")
    with run_lease(url, "run1") as mine:
        held = json.loads(s3.read(f"leases/one/{LEASES}/run1.lease"))
        assert held["owner"] == mine.holder["owner"] and held["pid"] > 0
        with pytest.raises(ValueError, match=rf"run run1 is already running on {url}: its lease .*held by .* pid "
                                             rf"{held['pid']} \(owner {held['owner']}\).*wait for that run"):
            with run_lease(url, "run1"):
                pass
        with run_lease(url, "run2"):  # another run id: its own lease
            pass
    assert s3.keys("leases/one/") == []  # released: deleted
    with run_lease(url, "run1"):
        pass


def test_of_writers_starting_together_exactly_one_holds_the_lease(s3):
    url, n = s3.url("leases/race"), 6
    barrier, won, refused = threading.Barrier(n), [], []
    release = threading.Event()

    def start() -> None:
        barrier.wait()
        try:
            with run_lease(url, "race"):
                won.append(1)
                release.wait(30)
        except ValueError:
            refused.append(1)

    threads = [threading.Thread(target=start) for _ in range(n)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 60
    while len(won) + len(refused) < n and len(refused) < n - 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    release.set()
    for t in threads:
        t.join()
    assert (len(won), len(refused)) == (1, n - 1)


def test_a_crashed_runs_lease_is_taken_over_only_when_asked_and_expired(s3):
    url = s3.url("leases/crash")
    _plant(s3, "leases/crash", "r.lease", ttl=3.0)
    with pytest.raises(ValueError, match=r"node-7 pid 4242 \(owner crashed01\).*wait for that run"):
        with run_lease(url, "r", take_over=True):  # not expired yet: a live holder is never displaced
            pass
    time.sleep(4.5)  # the server's clock passes its 3 s time to live
    with pytest.raises(ValueError, match=r"expired, so that run has stopped .*--take-over-lock"):
        with run_lease(url, "r"):
            pass
    with run_lease(url, "r", take_over=True) as mine:
        assert json.loads(s3.read(f"leases/crash/{LEASES}/r.lease"))["owner"] == mine.holder["owner"]
    assert s3.keys("leases/crash/") == []


def test_shards_run_side_by_side_but_never_beside_their_unsharded_run(s3):
    url = s3.url("leases/shards")
    with run_lease(url, "r", Shard(1, 2)), run_lease(url, "r", Shard(2, 2)):
        with pytest.raises(ValueError, match=r"shard 1/2 of run r is already running"):
            with run_lease(url, "r", Shard(1, 2)):
                pass
        with pytest.raises(ValueError, match=r"run r cannot start on .*: shards of it are running"):
            with run_lease(url, "r"):
                pass
    with run_lease(url, "r"):
        with pytest.raises(ValueError, match=r"shard 2/2 of run r cannot start .*running unsharded"):
            with run_lease(url, "r", Shard(2, 2)):
                pass
    assert s3.keys("leases/shards/") == []  # every refused writer gave its own lease back


def test_a_lease_taken_over_while_held_is_reported_and_not_deleted(s3):
    url = s3.url("leases/lost")
    with pytest.raises(RuntimeError, match=r"lost its lease .*another run took it over"):
        with run_lease(url, "r", ttl=4):
            _plant(s3, "leases/lost", "r.lease", owner="newowner")  # another run took it over
            time.sleep(2.5)  # a renewal (every ttl / 4 = 1 s) finds it
    assert json.loads(s3.read(f"leases/lost/{LEASES}/r.lease"))["owner"] == "newowner"  # theirs, kept


def test_bad_ttl_and_local_folders_are_refused(s3, tmp_path):
    with pytest.raises(ValueError, match=r"ttl=1 is not valid; allowed: a number >= 4 \(seconds\)"):
        with run_lease(s3.url("x"), "r", ttl=1):
            pass
    with pytest.raises(ValueError, match=r"is a local folder"):
        with run_lease(str(tmp_path), "r"):
            pass


def _argv(url: str, *extra: str) -> list[str]:
    return ["run", "--dataset", "colorblindnesseval", "--prompt", "cbe-open", "--backend", "baseline", "--limit", "4",
            "--size", "64", "--out", url, "--no-progress", *extra]


def test_plates_run_on_s3_holds_the_lease_and_takes_over_a_crashed_one(s3, capsys, tmp_path):
    url = s3.url("leases/run")
    assert main(_argv(url)) == 0
    run_id = capsys.readouterr().out.split()[1].rstrip(":")
    assert not [k for k in s3.keys("leases/run/") if f"/{LEASES}/" in k]  # released at the end
    _plant(s3, "leases/run", f"{run_id}.lease", ttl=1.0)
    assert main(_argv(url, "--retry-errors")) == 2
    err = capsys.readouterr().err
    assert f"run {run_id} is already running on {url}" in err and "node-7 pid 4242" in err
    time.sleep(2.5)
    assert main(_argv(url, "--take-over-lock")) == 0
    assert "0 rows written" in capsys.readouterr().out
    for key in s3.keys("leases/"):
        body = s3.read(key)
        assert SECRET.encode() not in body and ACCESS_KEY.encode() not in body, key
    assert main(_argv(str(tmp_path), "--take-over-lock")) == 2
    assert "--take-over-lock is for an object-store --out" in capsys.readouterr().err


def _generate(url: str, *extra: str) -> list[str]:
    return ["generate", "--preset", "colorblindnesseval", "--limit", "2", "--size", "64", "--workers", "1",
            "--format", "parquet", "--out", url, "--no-progress", *extra]


def _leases(s3, prefix: str) -> list[str]:
    return [k for k in s3.keys(prefix) if f"/{LEASES}/" in k]


def test_plates_generate_on_s3_holds_one_lease_per_output(s3, capsys):
    url = s3.url("leases/set")
    with set_lease(url) as other:  # another `plates generate` writing this set
        assert main(_generate(url)) == 2
        err = capsys.readouterr().err
        assert f"plates generate is already running on {url}" in err and f"pid {other.holder['pid']}" in err
        assert f"owner {other.holder['owner']}" in err and "wait for that run" in err
    assert not s3.keys("leases/set/data/")  # refused before writing anything
    assert main(_generate(url)) == 0
    assert json.loads(capsys.readouterr().out)["rows"] == 4  # two plates, standard and clear images
    assert _leases(s3, "leases/set/") == []  # released at the end
    # whatever the preset: one set per output, so a family preset is refused beside it too
    with set_lease(url):
        assert main([*_generate(url)[:2], "illusions-classic", *_generate(url)[3:]]) == 2
        assert "plates generate is already running" in capsys.readouterr().err


def test_a_crashed_generates_lease_is_taken_over_only_when_asked(s3, capsys, tmp_path):
    url = s3.url("leases/crashed-set")
    _plant(s3, "leases/crashed-set", "generate.lease", ttl=1.0)
    assert main(_generate(url)) == 2
    assert "node-7 pid 4242" in capsys.readouterr().err
    time.sleep(2.5)  # expired now, but taken over only when asked
    assert main(_generate(url)) == 2
    err = capsys.readouterr().err
    assert "expired, so that run has stopped" in err and "--take-over-lock" in err
    assert main(_generate(url, "--take-over-lock")) == 0
    assert json.loads(capsys.readouterr().out)["rows"] == 4
    assert _leases(s3, "leases/crashed-set/") == []  # the taken-over lease is released as its own
    for key in s3.keys("leases/crashed-set/"):
        assert SECRET.encode() not in s3.read(key) and ACCESS_KEY.encode() not in s3.read(key), key
    assert main(["generate", "--preset", "colorblindnesseval", "--limit", "1", "--size", "64", "--out",
                 str(tmp_path / "local"), "--take-over-lock", "--no-progress"]) == 2
    assert "--take-over-lock is for an object-store --out" in capsys.readouterr().err
    assert not (tmp_path / "local").exists()  # refused before anything was written


def test_generate_shards_write_side_by_side_but_never_beside_an_unsharded_writer(s3, capsys):
    url = s3.url("leases/set-shards")
    with set_lease(url, Shard(2, 2)):  # shard 2/2 running elsewhere
        assert main(_generate(url, "--shard", "1/2")) == 0  # its sibling writes beside it
        capsys.readouterr()
        assert main(_generate(url)) == 2
        assert "shards of it are running" in capsys.readouterr().err
    with set_lease(url):  # an unsharded writer running
        assert main(_generate(url, "--shard", "2/2")) == 2
        assert "shard 2/2 of plates generate cannot start" in capsys.readouterr().err
    assert main(_generate(url, "--shard", "2/2")) == 0
    assert json.loads(capsys.readouterr().out)["rows"] == 4  # the last shard published the whole manifest
    assert _leases(s3, "leases/set-shards/") == []
