"""HTTP for the library: one attempt with its timeout, and the retry policy around it.

urllib's opener is assembled by hand so that no answer is turned into an exception (a 403 is an
answer to verify like a 200) and no redirect is followed behind our back (an API answer that
redirects is not depot's signed answer; a download follows its redirects itself, see download.py).
Proxies from the environment (``https_proxy``, ``no_proxy``) are honoured as urllib does.
"""

from __future__ import annotations

import email.utils
import http.client
import random
import socket
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Callable, Dict, List, Mapping, Optional

from .errors import UnreachableError, UnverifiableError

#: Statuses worth another attempt: a gateway or an overloaded server, not depot's answer.
RETRY_STATUSES = (502, 503, 504)
#: The largest API answer read into memory; depot's are a few KiB.
MAX_ANSWER_BYTES = 8 * 1024 * 1024
_CHUNK = 64 * 1024


@dataclass(frozen=True)
class Answer:
    """An HTTP answer as received: status, headers (lower-case names, every value) and body bytes."""

    status: int
    headers: Mapping[str, List[str]]
    body: bytes

    def header(self, name: str) -> Optional[str]:
        """The header's value when it was sent exactly once, else None."""
        values = self.headers.get(name.lower(), [])
        return values[0] if len(values) == 1 else None


def _opener() -> urllib.request.OpenerDirector:
    opener = urllib.request.OpenerDirector()
    for handler in (urllib.request.ProxyHandler(), urllib.request.HTTPHandler(), urllib.request.HTTPSHandler()):
        opener.add_handler(handler)
    return opener


def headers_of(response: http.client.HTTPResponse) -> Dict[str, List[str]]:
    headers: Dict[str, List[str]] = {}
    for name, value in response.getheaders():
        headers.setdefault(name.lower(), []).append(value.strip())
    return headers


def set_read_timeout(response: http.client.HTTPResponse, seconds: float) -> None:
    """Bounds the next socket read of an open response (best effort: urllib hides the socket)."""
    sock = getattr(getattr(response.fp, "raw", None), "_sock", None)
    if isinstance(sock, socket.socket):
        sock.settimeout(max(seconds, 0.001))


def retry_after_seconds(value: Optional[str], now: float) -> Optional[float]:
    """``Retry-After`` in seconds: delay-seconds or an HTTP date; None when absent or unreadable."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, when.timestamp() - now)


class Transport:
    """Sends requests with a timeout per attempt and retries as the configuration says."""

    def __init__(
        self,
        *,
        timeout: float,
        retries: int,
        max_retry_wait: float,
        user_agent: str,
        clock: Callable[[], float],
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.timeout = timeout
        self.retries = retries
        self.max_retry_wait = max_retry_wait
        self.user_agent = user_agent
        self.clock = clock
        self.sleep = sleep
        self.opener = _opener()

    def backoff(self, attempt: int) -> float:
        """0.25 s × 2ⁿ with ±20 % jitter, never past max_retry_wait."""
        return min(self.max_retry_wait, 0.25 * (2.0**attempt) * random.uniform(0.8, 1.2))

    def open(
        self, method: str, url: str, headers: Mapping[str, str], body: Optional[bytes] = None
    ) -> http.client.HTTPResponse:
        """One attempt's response, whatever its status; OSError and kin when there is none."""
        request = urllib.request.Request(url, data=body, method=method)
        request.add_header("User-Agent", self.user_agent)
        for name, value in headers.items():
            request.add_header(name, value)
        response = self.opener.open(request, timeout=self.timeout)
        if not isinstance(response, http.client.HTTPResponse):  # a scheme urllib answered itself
            raise UnreachableError(f"{url} is not an http(s) URL")
        return response

    def request(
        self, method: str, url: str, headers: Mapping[str, str], body: Optional[bytes] = None
    ) -> Answer:
        """The answer, after retrying connection failures, timeouts, 502/503/504 and a 429 whose
        Retry-After is short enough. Raises UnreachableError when no answer came."""
        attempt = 0
        while True:
            try:
                answer = self._once(method, url, headers, body)
            except UnreachableError as error:
                if attempt >= self.retries:
                    raise
                self.sleep(self.backoff(attempt))
                attempt += 1
                continue
            retryable = answer.status in RETRY_STATUSES or answer.status == 429
            if not retryable:
                if answer.status >= 500:
                    raise UnreachableError(f"{method} {url}: HTTP {answer.status}")
                return answer
            wait = retry_after_seconds(answer.header("retry-after"), self.clock())
            if answer.status == 429 and wait is None:
                return answer  # a refusal that does not say when to come back is final
            delay = self.backoff(attempt) if wait is None else wait
            if attempt >= self.retries or delay > self.max_retry_wait:
                if answer.status == 429:
                    return answer
                raise UnreachableError(f"{method} {url}: HTTP {answer.status} after {attempt + 1} attempt(s)")
            self.sleep(delay)
            attempt += 1

    def _once(self, method: str, url: str, headers: Mapping[str, str], body: Optional[bytes]) -> Answer:
        deadline = time.monotonic() + self.timeout
        try:
            response = self.open(method, url, headers, body)
            with response:
                chunks: List[bytes] = []
                size = 0
                while True:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        raise socket.timeout("the answer did not arrive within the timeout")
                    set_read_timeout(response, remaining)
                    chunk = response.read1(_CHUNK)  # what has arrived: read() would wait for all of it
                    if not chunk:
                        break
                    size += len(chunk)
                    if size > MAX_ANSWER_BYTES:
                        raise UnverifiableError(f"the answer is larger than {MAX_ANSWER_BYTES} bytes")
                    chunks.append(chunk)
                return Answer(response.status, headers_of(response), b"".join(chunks))
        except urllib.error.URLError as error:
            raise UnreachableError(f"cannot reach {url}: {error.reason}") from error
        except (OSError, http.client.HTTPException) as error:
            raise UnreachableError(f"cannot reach {url}: {describe(error)}") from error


#: The codes of refusals whose body names none (sdk/README.md, "Three outcomes").
_CODELESS = {
    400: "INVALID",
    401: "UNAUTHENTICATED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    422: "INVALID",
    429: "TOO_MANY_REQUESTS",
}


def refusal_code(status: int) -> str:
    """The code of a refusal whose body has none: by its status, else ``HTTP_<status>``."""
    return _CODELESS.get(status, f"HTTP_{status}")


def describe(error: BaseException) -> str:
    if isinstance(error, socket.timeout) or isinstance(error, TimeoutError):
        return f"timed out ({error})" if str(error) else "timed out"
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
