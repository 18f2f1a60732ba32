"""The lock of a run, or of `plates generate`, writing to an object store (``s3://``): a lease object that only one
writer can create (`run_lease`; `set_lease` for a set, whose lease is ``<out>/_locks/generate.lease``).

A local run holds flocks beside its parts (`plates.runs.locks`); an object store has no flock and no atomic
rename, but S3 has conditional writes (AWS, since August and November 2024; MinIO and moto too): a PUT with
``If-None-Match: *`` creates an object only if no object has that key, and one with ``If-Match: <ETag>``
replaces it only if nobody replaced it since it was read. Two `plates run` on one ``s3://`` output therefore
cannot both hold the lease, whatever the timing:

* the lease is ``<out>/_locks/<run id>.lease`` (a shard's: ``<run id>.shard-<I>-of-<N>.lease``): JSON naming
  its holder (host, pid, a random owner token), the start and the lease's time to live (``ttl`` seconds). The
  ``_`` folder is never listed as results (`plates.storage.Store.list`);
* the holder renews it every ``ttl / 4`` seconds (a conditional PUT on its own ETag) and deletes it at the end
  (a conditional DELETE: never another holder's lease). A run killed outright stops renewing: its lease is
  expired once the server's clock is ``ttl`` past the object's last write (server time on both sides, so no
  two machines' clocks are compared);
* a second run finds the lease and stops with an error naming the holder; an expired lease is taken over only
  when asked (``take_over``: ``plates run --take-over-lock``), again by a conditional PUT on the ETag it read,
  so of two runs taking over at once one wins. A holder whose renewal finds another owner's lease (its own
  expired while it was stalled, and another run took it over) stops renewing and fails when it ends, saying
  so (RuntimeError: both may have asked the same rows);
* as the local locks: an unsharded run excludes every shard of its run and shards exclude only themselves.
  A writer creates its own lease first and then looks for the other kind (a live shard lease, or the run's
  lease), giving its own back if it finds one: with the store's read-after-write consistency, of two writers
  starting at once at least one sees the other.

The requests go through boto3 (the ``s3`` extra), with the endpoint, region and credentials `plates.storage`
takes from the environment. Nothing here creates buckets.

References: AWS, "Amazon S3 now supports conditional writes" (2024-08-20) and "... conditional writes using
If-Match" (2024-11-25); Gray & Cheriton 1989, "Leases: an efficient fault-tolerant mechanism for distributed
file cache consistency", SOSP §2.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any

from plates.install import extra_hint
from plates.shards import Shard
from plates.storage import Store, open_store, s3_endpoint, s3_region
from plates.validation import check_number

__all__ = ["GENERATE", "LEASES", "TTL", "Lease", "run_lease", "set_lease"]

#: The folder under a run's output holding its leases.
LEASES = "_locks"
#: Seconds a lease lives without renewal (the holder renews every quarter of it).
TTL = 120.0


def _client() -> Any:
    """A boto3 S3 client for `plates.storage`'s endpoint and region (credentials: the standard AWS chain)."""
    try:
        import boto3  # lazy: an optional extra, needed only for s3:// outputs
    except ImportError:
        raise ImportError(f"a run writing to s3:// takes its lock with boto3: {extra_hint('s3')}") from None
    endpoint, scheme = s3_endpoint()
    region = s3_region(endpoint)
    options: dict[str, Any] = {} if region is None else {"region_name": region}
    if endpoint is not None:
        options["endpoint_url"] = f"{scheme}://{endpoint}"
    return boto3.client("s3", **options)


def _status(exc: BaseException) -> int | None:
    response = getattr(exc, "response", None) or {}
    return response.get("ResponseMetadata", {}).get("HTTPStatusCode")


@dataclass
class Lease:
    """One lease object: where (``bucket``, ``key``), what it says (``holder``), its ETag and, when read, its age
    on the server's clock (seconds since its last write).

    Attributes
    ----------
    bucket, key : str
        Where the lease object is.
    holder : dict
        What it says (host, pid, owner, started, ttl).
    etag : str or None
        Its ETag.
    age : float
        Seconds since its last write, on the server's clock.
    """

    bucket: str
    key: str
    holder: dict[str, Any]
    etag: str | None = None
    age: float = 0.0

    @property
    def expired(self) -> bool:
        """Whether the lease outlived its ttl since its last renewal."""
        return self.age > float(self.holder.get("ttl", TTL))

    def describe(self) -> str:
        """Who holds the lease and since when, in words (for messages)."""
        h = self.holder
        return (f"held by {h.get('host', '?')} pid {h.get('pid', '?')} (owner {h.get('owner', '?')}) since "
                f"{h.get('started', '?')}, last renewed {self.age:.0f} s ago (expires {h.get('ttl', TTL):.0f} s "
                "after its last renewal)")


class _Leases:
    """The lease objects of one output folder on an object store."""

    def __init__(self, store: Store) -> None:
        bucket, _, prefix = store.root.partition("/")
        self.bucket, self.prefix, self.url = bucket, f"{prefix}/{LEASES}/" if prefix else f"{LEASES}/", store.url
        self.client = _client()
        self.errors = self.client.exceptions.ClientError

    def read(self, key: str) -> Lease | None:
        try:
            got = self.client.get_object(Bucket=self.bucket, Key=key)
        except self.errors as exc:
            if _status(exc) == 404:
                return None
            raise
        body = got["Body"].read()
        now = parsedate_to_datetime(got["ResponseMetadata"]["HTTPHeaders"]["date"])
        try:
            holder = json.loads(body)
        except ValueError:  # not ours: shown as it is, never taken for a lease of ours
            holder = {"owner": repr(body[:80])}
        return Lease(self.bucket, key, holder, got["ETag"], (now - got["LastModified"]).total_seconds())

    def put(self, lease: Lease, *, replacing: str | None = None) -> bool:
        """Create ``lease`` (no object there) or replace the one with ETag ``replacing``; False when the
        condition failed (another writer got there first)."""
        condition = {"IfMatch": replacing} if replacing else {"IfNoneMatch": "*"}
        lease.holder["renewed"] = datetime.now(timezone.utc).isoformat(timespec="seconds")  # new bytes, new ETag
        try:
            put = self.client.put_object(Bucket=self.bucket, Key=lease.key, Body=json.dumps(lease.holder).encode(),
                                         ContentType="application/json", **condition)
        except self.errors as exc:
            if _status(exc) in (409, 412):  # 412 Precondition Failed; 409: a concurrent conditional write
                return False
            raise
        lease.etag, lease.age = put["ETag"], 0.0
        return True

    def delete(self, lease: Lease) -> None:
        try:
            self.client.delete_object(Bucket=self.bucket, Key=lease.key, IfMatch=lease.etag)
        except self.errors as exc:
            if _status(exc) not in (404, 412):  # gone, or another holder's now: not ours to delete
                raise

    def live(self, names: str) -> list[Lease]:
        """The unexpired leases whose names start with ``names``."""
        pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket,
                                                                       Prefix=self.prefix + names)
        found = [self.read(o["Key"]) for page in pages for o in page.get("Contents", [])]
        return [lease for lease in found if lease is not None and not lease.expired]


def _name(run_id: str, shard: Shard | None) -> str:
    return f"{run_id}.lease" if shard is None else f"{run_id}.shard-{shard.tag}.lease"


#: The lease name of `plates generate` on an object store (one set per output, whatever its preset).
GENERATE = "generate"


def run_lease(out: str | Store, run_id: str, shard: Shard | None = None, *, take_over: bool = False,
              ttl: float = TTL) -> AbstractContextManager[Lease]:
    """Hold run ``run_id``'s lease on the object store ``out`` (or its shard's) while inside; ValueError naming
    the holder when another writer holds it, or holds the other kind (see the module doc). ``take_over``: take
    an expired lease (a crashed run's). Raises RuntimeError on the way out when another writer took the lease
    over while this one held it (it had stalled past ``ttl``).

    Parameters
    ----------
    out : str or Store
        The run's object-store folder.
    run_id : str
        The run.
    shard : Shard, optional
        This writer's shard.
    take_over : bool, optional
        Take an expired lease.
    ttl : float, optional
        Seconds a lease lives without renewal.

    Returns
    -------
    context manager of Lease
        Holds the lease while inside.
    """
    return _hold(out, run_id, f"run {run_id}", shard, take_over=take_over, ttl=ttl,
                 lost="both may have asked the same rows (the results keep one row per key); check that run")


def set_lease(out: str | Store, shard: Shard | None = None, *, take_over: bool = False,
              ttl: float = TTL) -> AbstractContextManager[Lease]:
    """`run_lease`'s rules for `plates generate` writing a set to the object store ``out``: one writer per output
    (lease ``<out>/_locks/generate.lease``), shards of the set side by side (``generate.shard-<I>-of-<N>.lease``)
    but never beside an unsharded writer. Two writers adding the same items would commit them twice (each
    writer's shard files have unique names), and the manifest would list both.

    Parameters
    ----------
    out : str or Store
        The set's object-store folder.
    shard : Shard, optional
        This writer's shard.
    take_over : bool, optional
        Take an expired lease.
    ttl : float, optional
        Seconds a lease lives without renewal.

    Returns
    -------
    context manager of Lease
        Holds the lease while inside.

    Raises
    ------
    ValueError
        As `run_lease`.
    """
    return _hold(out, GENERATE, "plates generate", shard, take_over=take_over, ttl=ttl,
                 lost="both may have written the same items (the manifest would list them twice); check that "
                      "writer and generate again into a fresh --out if it did")


@contextmanager
def _hold(out: str | Store, name: str, whole: str, shard: Shard | None, *, take_over: bool, ttl: float,
          lost: str) -> Iterator[Lease]:
    """The lease ``name`` (``whole``: the writer in words; ``lost``: what a lost lease means) under ``out``."""
    check_number("ttl", ttl, 4, note=" (seconds)")
    store = open_store(out)
    if not store.object_store:
        raise ValueError(f"leases are for object stores; {store.url!r} is a local folder (plates.runs.locks)")
    leases = _Leases(store)
    what = whole if shard is None else f"shard {shard.index}/{shard.count} of {whole}"
    mine = Lease(leases.bucket, leases.prefix + _name(name, shard), {
        "owner": secrets.token_hex(8), "host": socket.gethostname(), "pid": os.getpid(), "run_id": name,
        "shard": None if shard is None else shard.tag, "ttl": float(ttl),
        "started": datetime.now(timezone.utc).isoformat(timespec="seconds")})
    if not leases.put(mine):
        held = leases.read(mine.key)
        if held is None or not held.expired or not take_over:
            if held is None:
                detail = "another writer released it this instant"
            elif held.expired:
                detail = (f"{held.describe()}: expired, so that run has stopped (crashed or killed); rerun with "
                          "--take-over-lock to take it over")
            else:
                detail = f"{held.describe()}; wait for that run or stop it, then rerun to continue"
            raise ValueError(f"{what} is already running on {store.url}: its lease {mine.key!r} is {detail}")
        if not leases.put(mine, replacing=held.etag):
            raise ValueError(f"{what} on {store.url}: another writer took over the expired lease {mine.key!r} "
                             "at the same time; rerun to see who holds it")
    try:
        if shard is None:
            other = leases.live(f"{name}.shard-")
            if other:
                raise ValueError(f"{what} cannot start on {store.url}: shards of it are running ({other[0].key!r} "
                                 f"{other[0].describe()}); wait for them or stop them")
        else:
            whole_lease = leases.read(leases.prefix + _name(name, None))
            if whole_lease is not None and not whole_lease.expired:
                raise ValueError(f"{what} cannot start on {store.url}: it is running unsharded ("
                                 f"{whole_lease.describe()}); wait for it or stop it")
    except BaseException:
        leases.delete(mine)
        raise
    lost_it = threading.Event()
    stop = threading.Event()

    def renew() -> None:
        while not stop.wait(ttl / 4):
            try:
                if not leases.put(mine, replacing=mine.etag):
                    lost_it.set()
                    return
            except Exception:  # a failed renewal (network): tried again next time; the lease expires if it lasts
                continue

    renewer = threading.Thread(target=renew, name=f"lease-{name}", daemon=True)
    renewer.start()
    try:
        yield mine
    finally:
        stop.set()
        renewer.join()
        if not lost_it.is_set():
            leases.delete(mine)
    if lost_it.is_set():
        raise RuntimeError(f"{what} on {store.url} lost its lease {mine.key!r} while writing: it was not renewed "
                           f"for {ttl:.0f} s and another run took it over; {lost}")
