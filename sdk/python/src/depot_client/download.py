"""Downloads an artifact: streamed into ``<file_name>.part``, resumed with ``Range``, checked
against the artifact's sha512/sha256 and renamed only then (sdk/README.md, ``download``)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.client
import json
import os
import re
import socket
import urllib.error
import urllib.parse
from pathlib import Path
from typing import Callable, Dict, NoReturn, Optional, Union

from ._http import RETRY_STATUSES, Transport, describe, refusal_code, retry_after_seconds
from .errors import RefusedError, UnreachableError, UnverifiableError
from .models import Artifact, JsonObject

_CHUNK = 256 * 1024
_MAX_REDIRECTS = 5
_REDIRECTS = (301, 302, 303, 307, 308)
_CONTENT_RANGE = re.compile(r"^bytes (\d+)-(\d+)/(\d+|\*)$")

ProgressCallback = Callable[[int, int], None]


class _Transient(Exception):
    """This attempt failed in a way another attempt may not (connection, timeout, 5xx, a short body)."""

    def __init__(self, reason: str, wait: Optional[float] = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.wait = wait


def safe_file_name(name: object) -> str:
    """The artifact's own name, refused before a byte is written when it could leave the folder."""
    if not isinstance(name, str) or not name:
        raise UnverifiableError("the artifact has no file name")
    # ":" is a drive or a stream on Windows; nothing depot names needs one anywhere.
    separators = {"/", "\\", ":", os.sep} | ({os.altsep} if os.altsep else set())
    if any(s in name for s in separators) or ".." in name or name.startswith(".") or "\0" in name:
        raise UnverifiableError(f"the artifact's file name {name!r} is not a plain file name")
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        raise UnverifiableError(f"the artifact's file name {name!r} has control characters")
    return name


def _same_origin(a: str, b: str) -> bool:
    first, second = urllib.parse.urlsplit(a), urllib.parse.urlsplit(b)
    return (first.scheme, first.netloc) == (second.scheme, second.netloc)


def download(
    transport: Transport,
    key: Optional[str],
    artifact: Union[Artifact, JsonObject],
    directory: Union[str, "os.PathLike[str]"],
    on_progress: Optional[ProgressCallback] = None,
) -> Path:
    item = artifact if isinstance(artifact, Artifact) else Artifact.from_json(artifact)
    name = safe_file_name(item.file_name)
    if not item.sha512 and not item.sha256:
        raise UnverifiableError("the artifact carries no sha512 or sha256 to check the file against")
    if urllib.parse.urlsplit(item.download_url).scheme not in ("http", "https"):
        raise UnverifiableError(f"the artifact's download_url is not http(s): {item.download_url!r}")
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    part = folder / f"{name}.part"
    if target.resolve().parent != folder.resolve():
        raise UnverifiableError(f"the artifact's file name {name!r} leaves the directory")

    attempt = 0
    while True:
        try:
            _fetch(transport, key, item, part, on_progress)
            break
        except _Transient as failure:
            if attempt >= transport.retries:
                raise UnreachableError(f"download of {name}: {failure.reason}") from None
            delay = transport.backoff(attempt) if failure.wait is None else failure.wait
            if delay > transport.max_retry_wait:
                raise UnreachableError(f"download of {name}: {failure.reason}") from None
            transport.sleep(delay)
            attempt += 1

    _check_hashes(item, part)
    os.replace(part, target)
    return target


def _fetch(
    transport: Transport,
    key: Optional[str],
    item: Artifact,
    part: Path,
    on_progress: Optional[ProgressCallback],
) -> None:
    """One attempt: from where the .part ends to the end of the file. Raises _Transient to retry."""
    have = part.stat().st_size if part.exists() else 0
    if have > item.file_size:
        part.unlink()
        have = 0
    if have == item.file_size and have > 0:
        return  # complete already: only the hashes are left to check
    headers: Dict[str, str] = {"Accept": "*/*"}
    if have > 0:
        headers["Range"] = f"bytes={have}-"
    url = item.download_url
    credential = {"X-License-Key": key} if key is not None else {}
    try:
        for _ in range(_MAX_REDIRECTS + 1):
            response = transport.open("GET", url, {**headers, **credential})
            if response.status not in _REDIRECTS:
                break
            location = response.getheader("location")
            response.close()
            if not location:
                raise UnverifiableError(f"HTTP {response.status} without a Location")
            next_url = urllib.parse.urljoin(url, location)
            if urllib.parse.urlsplit(next_url).scheme not in ("http", "https"):
                raise UnverifiableError(f"redirected to a URL that is not http(s): {next_url!r}")
            # The key is depot's credential: a file store elsewhere (a presigned link) never sees it.
            if not _same_origin(url, next_url):
                credential = {}
            url = next_url
        else:
            raise UnverifiableError(f"more than {_MAX_REDIRECTS} redirects")
        with response:
            _receive(transport, response, item, part, have, on_progress)
    except urllib.error.URLError as error:
        raise _Transient(f"cannot reach {url}: {error.reason}") from None
    except (OSError, http.client.HTTPException) as error:
        raise _Transient(describe(error)) from None


def _receive(
    transport: Transport,
    response: http.client.HTTPResponse,
    item: Artifact,
    part: Path,
    have: int,
    on_progress: Optional[ProgressCallback],
) -> None:
    status = response.status
    if status in RETRY_STATUSES or status == 429:
        wait = retry_after_seconds(response.getheader("retry-after"), transport.clock())
        if status == 429 and wait is None:
            _refuse(response, None)
        raise _Transient(f"HTTP {status}", wait)
    if status >= 500:
        raise UnreachableError(f"download of {item.file_name}: HTTP {status}")
    if status == 416:
        _unlink(part)
        raise _Transient("the server has no such range; starting over")
    if status == 206:
        found = _CONTENT_RANGE.match(response.getheader("content-range") or "")
        if found is None or int(found.group(1)) != have:
            _unlink(part)
            raise _Transient("the server resumed from another byte; starting over")
        mode = "ab"
    elif status == 200:
        have, mode = 0, "wb"
    else:
        _refuse(response, retry_after_seconds(response.getheader("retry-after"), transport.clock()))
    with open(part, mode) as file:
        while True:
            chunk = response.read1(_CHUNK)
            if not chunk:
                break
            have += len(chunk)
            if have > item.file_size:
                file.close()
                _unlink(part)
                raise UnverifiableError(
                    f"the server sent more than the artifact's {item.file_size} bytes of {item.file_name}"
                )
            file.write(chunk)
            if on_progress is not None:
                on_progress(have, item.file_size)
    if have < item.file_size:
        raise _Transient(f"the connection ended after {have} of {item.file_size} bytes")


def _refuse(response: http.client.HTTPResponse, retry_after: Optional[float]) -> NoReturn:
    """A download's refusal (unsigned: the file's hash is what downloads are checked by)."""
    message = response.reason or f"HTTP {response.status}"
    try:
        body = json.loads(response.read(64 * 1024).decode("utf-8"))
        if isinstance(body, dict) and isinstance(body.get("message"), str):
            message = body["message"]
    except (OSError, ValueError, UnicodeDecodeError, http.client.HTTPException, socket.timeout):
        pass
    raise RefusedError(refusal_code(response.status), message, response.status, retry_after=retry_after)


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass


def _check_hashes(item: Artifact, part: Path) -> None:
    sha512, sha256 = hashlib.sha512(), hashlib.sha256()
    with open(part, "rb") as file:
        for chunk in iter(lambda: file.read(_CHUNK), b""):
            sha512.update(chunk)
            sha256.update(chunk)
    wrong = []
    if item.sha512 and not hmac.compare_digest(base64.b64encode(sha512.digest()).decode("ascii"), item.sha512):
        wrong.append("sha512")
    if item.sha256 and not hmac.compare_digest(sha256.hexdigest(), item.sha256.lower()):
        wrong.append("sha256")
    if wrong:
        _unlink(part)
        raise UnverifiableError(f"{item.file_name} does not match its {' and '.join(wrong)}; the .part was deleted")
