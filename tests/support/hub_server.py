"""A stand-in for the Hugging Face Hub's HTTP API on 127.0.0.1: just what ``CommitScheduler`` uses (create a
repository, ask each file's upload mode, commit files inline), recording the requests and the files committed."""

from __future__ import annotations

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class HubServer:
    """``with HubServer() as hub:`` -> ``hub.url``; ``hub.requests`` ((method, path, authorization)),
    ``hub.files`` (path in repo -> bytes, latest commit wins), ``hub.commits``, ``hub.created`` (repo requests)."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, str | None]] = []
        self.files: dict[str, bytes] = {}
        self.commits = 0
        self.created: list[dict] = []
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def _send(self, code: int, obj: dict) -> None:
                body = json.dumps(obj).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                data = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                hub.requests.append(("POST", self.path, self.headers.get("authorization")))
                base = f"http://{self.headers['Host']}"
                if self.path == "/api/repos/create":
                    req = json.loads(data)
                    hub.created.append(req)
                    rid = f"{req['organization']}/{req['name']}" if req.get("organization") else req["name"]
                    return self._send(200, {"url": f"{base}/datasets/{rid}"})
                if "/preupload/" in self.path:
                    files = json.loads(data)["files"]
                    return self._send(200, {"files": [{"path": f["path"], "uploadMode": "regular",
                                                       "shouldIgnore": False} for f in files]})
                if "/commit/" in self.path:
                    for line in data.decode().splitlines():
                        item = json.loads(line)
                        if item.get("key") == "file":
                            hub.files[item["value"]["path"]] = base64.b64decode(item["value"]["content"])
                    hub.commits += 1
                    repo = self.path.split("/api/datasets/")[1].split("/commit/")[0]
                    oid = f"{hub.commits:040x}"
                    return self._send(200, {"commitUrl": f"{base}/datasets/{repo}/commit/{oid}", "commitOid": oid,
                                            "pullRequestUrl": None})
                return self._send(404, {"error": f"not served by the stand-in: {self.path}"})

            def do_GET(self) -> None:  # noqa: N802
                hub.requests.append(("GET", self.path, self.headers.get("authorization")))
                self._send(404, {"error": f"not served by the stand-in: {self.path}"})

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> HubServer:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
