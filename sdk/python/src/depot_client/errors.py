"""What the library raises: every error is a :class:`DepotError`.

Three outcomes are never folded into one: an answer that verified (a result, valid or not), an
answer that could not be verified (:class:`UnverifiableError`) and no answer at all
(:class:`UnreachableError`). A signed, verified refusal of a machine or update call is a
:class:`RefusedError` carrying depot's code.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Optional


class DepotError(Exception):
    """The base of every error this library raises about depot or its answers."""


class UnverifiableError(DepotError):
    """An answer came but is not provably depot's answer to this request.

    A bad or missing signature, digest or key id, a ``created`` outside the clock skew, the wrong
    nonce, an answer about another license, product, machine or platform, a body that is not
    JSON, a downloaded file whose hash does not match. ``reason`` says which.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class UnreachableError(DepotError):
    """No answer: DNS, a refused connection, a timeout, TLS, or a 5xx after the retries."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class RefusedError(DepotError):
    """depot refused a machine, update or download call with a signed (verified) answer.

    ``code`` is depot's (``TOO_MANY_MACHINES``, ``TOO_MANY_ACTIVATIONS``, ``HEARTBEAT_DEAD``,
    ``REVOKED``, ``EXPIRED``, ``NOT_FOUND``, ``MACHINE_FILE_VALID`` …) or, for a refusal without
    one, ``INVALID`` (400, 422, with the server's per-field ``errors``), ``UNAUTHENTICATED`` (401),
    ``FORBIDDEN`` (403), ``NOT_FOUND`` (404), ``TOO_MANY_REQUESTS`` (429) or ``HTTP_<status>``.
    ``retry_after`` is the number of seconds the server asked to wait (``TOO_MANY_ACTIVATIONS``),
    else ``None``. ``file_expires_at`` is when the license file that holds the seat expires
    (``MACHINE_FILE_VALID``: the machine cannot be deactivated before), else ``None``.
    """

    def __init__(
        self,
        code: str,
        message: str,
        status: int,
        retry_after: Optional[float] = None,
        errors: Optional[Mapping[str, Any]] = None,
        file_expires_at: Optional[datetime] = None,
    ) -> None:
        super().__init__(f"{code}: {message} (HTTP {status})")
        self.code = code
        self.message = message
        self.status = status
        self.retry_after = retry_after
        self.errors: Mapping[str, Any] = dict(errors) if errors else {}
        self.file_expires_at = file_expires_at
