"""A real S3-compatible server on 127.0.0.1 for tests: moto's server mode in a child process.

    with S3Server() as s3:              # a fresh bucket; AWS_* variables point at it while inside
        url = s3.url("runs/a")          # "s3://plates-test/runs/a"
        s3.keys()                       # every object key in the bucket

The credentials are fake but secret-shaped (`SECRET`): tests check that none of them reaches a written file.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from typing import Any

BUCKET = "plates-test"
ACCESS_KEY = "AKIAPLATESTEST000001"
SECRET = "plates-test-secret-Zq81TmR4vW"


class S3Server:
    """moto_server on a free loopback port, a bucket made, and the AWS environment set while entered."""

    def __init__(self) -> None:
        self.process: subprocess.Popen | None = None
        self.port = 0
        self._saved: dict[str, str | None] = {}

    def __enter__(self) -> S3Server:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.process = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p",
                                         str(self.port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{self.endpoint}/moto-api/", timeout=2).close()
                break
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    self.__exit__()
                    raise RuntimeError("moto's S3 server did not start") from None
                time.sleep(0.1)
        env = {"AWS_ENDPOINT_URL": self.endpoint, "AWS_ACCESS_KEY_ID": ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": SECRET,
               "AWS_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true"}
        for name, value in env.items():
            self._saved[name] = os.environ.get(name)
            os.environ[name] = value
        self.client().create_bucket(Bucket=BUCKET)
        return self

    def __exit__(self, *exc: object) -> None:
        for name, value in self._saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, prefix: str = "") -> str:
        return f"s3://{BUCKET}/{prefix}".rstrip("/")

    def client(self) -> Any:
        import boto3

        return boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id=ACCESS_KEY,
                            aws_secret_access_key=SECRET, region_name="us-east-1")

    def keys(self, prefix: str = "") -> list[str]:
        """Every object key under ``prefix`` but the empty folder markers pyarrow leaves (names ending in '/')."""
        pages = self.client().get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix)
        return sorted(o["Key"] for page in pages for o in page.get("Contents", []) if not o["Key"].endswith("/"))

    def read(self, key: str) -> bytes:
        return self.client().get_object(Bucket=BUCKET, Key=key)["Body"].read()
