"""What the tests share: a signing key made in the test, a small HTTP server that answers what a
test tells it to (signed with that key, so only the one thing under test is wrong), and the seeded
depot of sdk/conformance/start-depot.ts."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import signal
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

ROOT = Path(__file__).resolve().parents[3]
COMPONENTS = '("@status" "content-type" "content-digest")'


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


class TestKey:
    """An Ed25519 key made for the test, published as a JWKS the client pins."""

    def __init__(self) -> None:
        self.private = Ed25519PrivateKey.generate()
        raw = self.private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        self.x = b64url(raw)
        thumbprint = json.dumps({"crv": "Ed25519", "kty": "OKP", "x": self.x}, separators=(",", ":"))
        self.kid = b64url(hashlib.sha256(thumbprint.encode()).digest())
        self.jwks = json.dumps(
            {"keys": [{"kty": "OKP", "crv": "Ed25519", "x": self.x, "kid": self.kid, "alg": "EdDSA", "use": "sig"}]}
        )

    def sign_headers(
        self,
        status: int,
        body: bytes,
        *,
        content_type: str = "application/json",
        created: Optional[int] = None,
        kid: Optional[str] = None,
        params: Optional[str] = None,
    ) -> Dict[str, str]:
        digest = f"sha-256=:{base64.b64encode(hashlib.sha256(body).digest()).decode()}:"
        if params is None:
            when = int(time.time()) if created is None else created
            params = f'{COMPONENTS};created={when};keyid="{kid or self.kid}";alg="ed25519"'
        base = (
            f'"@status": {status}\n"content-type": {content_type}\n"content-digest": {digest}\n'
            f'"@signature-params": {params}'
        )
        signature = base64.b64encode(self.private.sign(base.encode())).decode()
        return {
            "Content-Type": content_type,
            "Content-Digest": digest,
            "Signature-Input": f"depot={params}",
            "Signature": f"depot=:{signature}:",
        }

    def license_file(self, claims: Dict[str, Any], header: Optional[Dict[str, Any]] = None) -> str:
        head = header if header is not None else {"alg": "EdDSA", "typ": "depot-license+jwt", "kid": self.kid}
        signing_input = f"{b64url(json.dumps(head).encode())}.{b64url(json.dumps(claims).encode())}"
        jws = f"{signing_input}.{b64url(self.private.sign(signing_input.encode()))}"
        lines = [jws[i : i + 64] for i in range(0, len(jws), 64)]
        return "-----BEGIN DEPOT LICENSE FILE-----\n" + "\n".join(lines) + "\n-----END DEPOT LICENSE FILE-----\n"


@dataclass
class Request:
    method: str
    path: str
    query: Dict[str, str]
    headers: Dict[str, str]
    body: bytes

    @property
    def json(self) -> Dict[str, Any]:
        value = json.loads(self.body or b"{}")
        assert isinstance(value, dict)
        return value

    @property
    def nonce(self) -> Optional[str]:
        """The nonce the client sent, in the body or the query."""
        if "nonce" in self.query:
            return self.query["nonce"]
        return self.json.get("nonce") if self.body else None


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: Dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    #: A Content-Length other than the body's: the connection is closed after the body (cut short).
    length: Optional[int] = None
    #: Seconds between the body's bytes (a server that dribbles).
    drip: float = 0.0


Handler = Callable[[Request], Reply]


class FakeDepot:
    """An HTTP server on 127.0.0.1 that answers each request with what ``handler`` says."""

    def __init__(self) -> None:
        self.handler: Handler = lambda request: Reply(404, b"not found")
        self.requests: List[Request] = []
        fake = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                url = urllib.parse.urlsplit(self.path)
                request = Request(
                    self.command,
                    url.path,
                    dict(urllib.parse.parse_qsl(url.query)),
                    {k.lower(): v for k, v in self.headers.items()},
                    body,
                )
                fake.requests.append(request)
                reply = fake.handler(request)
                if reply.delay:
                    time.sleep(reply.delay)
                try:
                    self.send_response(reply.status)
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(reply.body) if reply.length is None else reply.length))
                    self.end_headers()
                    if reply.drip:
                        for byte in reply.body:
                            self.wfile.write(bytes([byte]))
                            self.wfile.flush()
                            time.sleep(reply.drip)
                    else:
                        self.wfile.write(reply.body)
                    if reply.length is not None:
                        self.close_connection = True
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_GET = do_POST = do_DELETE = _serve

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def signed_json(key: TestKey, status: int, value: Any, **sign: Any) -> Reply:
    """A reply as depot signs it."""
    body = json.dumps(value, separators=(",", ":")).encode()
    return Reply(status, body, key.sign_headers(status, body, **sign))


def license_json(key: str, product_id: str = "1", **extra: Any) -> Dict[str, Any]:
    return {
        "id": "0190c3a2-0000-7000-8000-000000000001",
        "userId": "1",
        "creatorId": "1",
        "productId": product_id,
        "expires": None,
        "maxIps": 100,
        "key": key,
        "createdAt": "2026-01-01T00:00:00.000Z",
        "updatedAt": "2026-01-01T00:00:00.000Z",
        **extra,
    }


def machine_json(fingerprint: str, machine_id: str = "0190c3a2-0000-7000-8000-0000000000aa") -> Dict[str, Any]:
    return {
        "id": machine_id,
        "licenseId": "0190c3a2-0000-7000-8000-000000000001",
        "fingerprint": fingerprint,
        "name": None,
        "platform": None,
        "hostname": None,
        "createdAt": "2026-01-01T00:00:00.000Z",
        "lastHeartbeatAt": "2026-01-01T00:00:00.000Z",
        "alive": True,
    }


def validation_json(request: Request, code: str = "VALID", **override: Any) -> Dict[str, Any]:
    body = request.json
    answer: Dict[str, Any] = {
        "valid": code == "VALID",
        "code": code,
        "detail": "…",
        "ts": "2026-01-01T00:00:00.000Z",
        "nonce": body.get("nonce"),
        "license": license_json(body["key"]),
        "ips": {"count": 1, "max": 100},
    }
    answer.update(override)
    return answer


# --- the seeded depot --------------------------------------------------------------------------

_fixture: Optional[Dict[str, Any]] = None
_started: Optional[Tuple[subprocess.Popen[bytes], Path]] = None


def bun_env() -> Dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{ROOT / 'node_modules' / '.bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


def live_fixture() -> Dict[str, Any]:
    """The seeded depot's details: DEPOT_FIXTURE's file (test.sh starts one for both Pythons), or
    a depot started here for this run (stopped at exit by stop_live_depot)."""
    global _fixture, _started
    if _fixture is not None:
        return _fixture
    named = os.environ.get("DEPOT_FIXTURE")
    if named:
        _fixture = json.loads(Path(named).read_text())
        return _fixture
    out = Path(tempfile.mkdtemp(prefix="depot-python-")) / "fixture.json"
    process = subprocess.Popen(
        ["bun", str(ROOT / "sdk/conformance/start-depot.ts"), "--out", str(out)],
        cwd=ROOT,
        env=bun_env(),
        stdout=subprocess.DEVNULL,
    )
    _started = (process, out)
    deadline = time.monotonic() + 180
    while not (out.exists() and out.stat().st_size > 0):
        if process.poll() is not None or time.monotonic() > deadline:
            stop_live_depot()
            raise unittest.SkipTest("start-depot.ts did not start a depot")
        time.sleep(0.5)
    _fixture = json.loads(out.read_text())
    return _fixture


def new_license(**settings: Any) -> Dict[str, Any]:
    """A license of the fixture's product made for this run through the license API (x-api-key), so
    that runs sharing one depot (both Pythons, every library's tests) never share its seats."""
    fixture = live_fixture()
    body = {"ownerId": fixture["ownerId"], "creatorId": fixture["ownerId"], "productId": fixture["productId"]}
    request = urllib.request.Request(
        f"{fixture['server']}/api/v1/licenses",
        data=json.dumps({**body, "maxIps": 100, **settings}).encode(),
        headers={"x-api-key": fixture["apiKey"], "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        created = json.loads(response.read())
    assert isinstance(created, dict)
    return created


def stop_live_depot() -> None:
    global _started
    if _started is not None:
        process, _ = _started
        process.send_signal(signal.SIGTERM)
        process.wait(30)
        _started = None
