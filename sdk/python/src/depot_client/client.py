"""The client: one server, one product, a pinned key set, and every operation of sdk/README.md."""

from __future__ import annotations

import base64
import json
import logging
import os
import secrets
import time
import urllib.parse
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Callable, Dict, Mapping, Optional, Tuple, Union

from . import download as _download
from ._http import Answer, Transport, refusal_code, retry_after_seconds
from ._state import KeptAnswer, StateStore
from ._version import USER_AGENT
from .errors import DepotError, RefusedError, UnreachableError, UnverifiableError
from .heartbeat import Heartbeat
from .keys import JwksSource, KeySet, parse_jwks
from .license_file import normalise_key, same_id, verify_license_file
from .models import (
    Activation,
    Artifact,
    JsonObject,
    License,
    LicenseFile,
    Machine,
    Status,
    Upgrade,
    Validation,
    Version,
    from_epoch,
    parse_time,
)
from .offline import offline_activation_request
from .signature import Signed, verify_answer

log = logging.getLogger("depot_client")

Seconds = Union[float, int, timedelta]
#: A point in time for verify_license_file's ``now``: a datetime or epoch seconds.
Moment = Union[datetime, float, int]


def _seconds(value: Seconds, name: str) -> float:
    seconds = value.total_seconds() if isinstance(value, timedelta) else float(value)
    if seconds < 0:
        raise ValueError(f"{name} must not be negative")
    return seconds


def new_nonce() -> str:
    """16 random bytes, base64url without padding: no answer can be prepared for it in advance."""
    return base64.urlsafe_b64encode(secrets.token_bytes(16)).rstrip(b"=").decode("ascii")


class Client:
    """depot's app-side client, bound to one server and one product.

    ``jwks`` is the pinned key set, shipped with the app: its JSON text (``str``/``bytes``), a
    ``pathlib.Path`` to the file, or the parsed object. ``fetch_jwks=True`` without a pinned set
    fetches the set from the server instead (weaker: a fake server publishes its own keys; for
    development). With a pinned set, only pinned keys are ever trusted.

    Durations are seconds (``float``) or ``datetime.timedelta``. ``clock`` returns "now" in epoch
    seconds (tests). See the README for every setting.
    """

    def __init__(
        self,
        server: str,
        product_id: Union[str, int],
        jwks: Optional[JwksSource] = None,
        *,
        fetch_jwks: bool = False,
        timeout: Seconds = 10.0,
        retries: int = 2,
        max_retry_wait: Seconds = 30.0,
        max_clock_skew: Seconds = 300.0,
        offline_grace: Seconds = timedelta(days=7),
        state_dir: Union[str, "os.PathLike[str]", None] = None,
        user_agent: Optional[str] = None,
        clock: Optional[Callable[[], float]] = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        parsed = urllib.parse.urlsplit(server)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ValueError(f"server must be an http(s) URL, got {server!r}")
        product = str(product_id)
        if not (product.isdigit() and product.isascii()):
            raise ValueError(f"product_id must be a string of digits, got {product_id!r}")
        if jwks is None and not fetch_jwks:
            raise ValueError("jwks is required (the key set shipped with the app), unless fetch_jwks=True")
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise ValueError("retries must be a whole number, 0 or more")
        self.server = server.rstrip("/")
        self.product_id = str(int(product))
        self.timeout = _seconds(timeout, "timeout")
        if self.timeout <= 0:
            raise ValueError("timeout must be positive")
        self.max_clock_skew = _seconds(max_clock_skew, "max_clock_skew")
        self.offline_grace = _seconds(offline_grace, "offline_grace")
        self._clock = clock or time.time
        self._transport = Transport(
            timeout=self.timeout,
            retries=retries,
            max_retry_wait=_seconds(max_retry_wait, "max_retry_wait"),
            user_agent=user_agent or USER_AGENT,
            clock=self._clock,
            sleep=sleep,
        )
        self._keys = KeySet(
            parse_jwks(jwks) if jwks is not None else None,
            self._fetch_jwks if fetch_jwks else None,
        )
        self._state = StateStore(Path(state_dir) if state_dir is not None else None)

    # --- license API -------------------------------------------------------------------------

    def validate(self, key: str, *, fingerprint: Optional[str] = None) -> Validation:
        """Validates ``key`` for this product (and this machine's ``fingerprint``).

        Returns the verified answer, valid or not. Raises UnverifiableError, UnreachableError, or
        RefusedError for a signed refusal (a 422 on a malformed fingerprint, ``INVALID``)."""
        return self._validation_call("/api/v1/licenses/validate", key, fingerprint, {})

    def checkout(
        self, key: str, *, fingerprint: Optional[str] = None, ttl: Optional[Seconds] = None
    ) -> Validation:
        """Validates like :meth:`validate` and, when VALID, returns a license file too
        (``license_file``, ``license_file_expires_at``; ``ttl`` 1 hour to 1 year, default 30
        days). With a fingerprint the file is bound to the machine. status() keeps the file."""
        extra: Dict[str, Any] = {}
        if ttl is not None:
            extra["ttl"] = int(_seconds(ttl, "ttl"))
        return self._validation_call("/api/v1/licenses/checkout", key, fingerprint, extra)

    def activate(
        self,
        key: str,
        fingerprint: str,
        *,
        name: Optional[str] = None,
        platform: Optional[str] = None,
        hostname: Optional[str] = None,
    ) -> Activation:
        """Activates this machine on the license: ``created`` True for a new machine (201), False
        for a fingerprint already active (200). Refusals: RefusedError with ``TOO_MANY_MACHINES``,
        ``TOO_MANY_ACTIVATIONS`` (``retry_after``), ``REVOKED``, ``EXPIRED``, ``NOT_FOUND``,
        ``INVALID``; a license of another product: ``PRODUCT_MISMATCH``."""
        nonce = new_nonce()
        body: Dict[str, Any] = {"key": key, "fingerprint": fingerprint}
        for field, value in (("name", name), ("platform", platform), ("hostname", hostname)):
            if value is not None:
                body[field] = value
        body["nonce"] = nonce
        signed = self._call("POST", "/api/v1/licenses/activate", nonce, body=body)
        machine = self._machine_of(signed.body, "fingerprint", fingerprint)
        found = self._license_of(signed.body, key)
        if found is None:
            raise UnverifiableError("the activation names no license")
        license = License.from_json(found)
        if not same_id(license.product_id, self.product_id):
            raise RefusedError(
                "PRODUCT_MISMATCH",
                f"This license is for product {license.product_id}, not {self.product_id}.",
                signed.status,
            )
        return Activation(machine, license, signed.status == 201, self._signed_at(signed), signed.body)

    def heartbeat(self, key: str, machine_id: str) -> Machine:
        """Keeps the machine alive for another ``heartbeatSeconds``. Refusals: RefusedError with
        ``HEARTBEAT_DEAD`` (activate again), ``NOT_FOUND`` (another license's machine),
        ``REVOKED``, ``EXPIRED``, ``UNAUTHENTICATED``."""
        nonce = new_nonce()
        path = f"/api/v1/machines/{urllib.parse.quote(machine_id, safe='')}/heartbeat?nonce={nonce}"
        signed = self._call("POST", path, nonce, body=None, headers=self._license_header(key))
        return self._machine_of(signed.body, "id", machine_id)

    def start_heartbeat(
        self,
        key: str,
        machine_id: str,
        *,
        interval_seconds: Seconds = 60.0,
        on_error: Optional[Callable[[DepotError], None]] = None,
    ) -> Heartbeat:
        """Sends :meth:`heartbeat` at once, then every ``interval_seconds`` (default 60) on a daemon
        thread until the returned handle is stopped. Keep it under half the license's
        ``heartbeat_seconds``. A refusal stops it (after ``on_error``); other failures are reported
        and tried again at the next beat."""
        return Heartbeat(
            lambda: self.heartbeat(key, machine_id), _seconds(interval_seconds, "interval_seconds"), on_error
        )

    def deactivate(self, key: str, machine_id: str) -> None:
        """Frees the machine's seat. The 204 is unsigned (it has no body); refusals are signed and
        raise RefusedError (``NOT_FOUND`` for another license's machine)."""
        url = f"{self.server}/api/v1/machines/{urllib.parse.quote(machine_id, safe='')}"
        headers = {"Accept": "application/json", **self._license_header(key)}
        answer = self._transport.request("DELETE", url, headers)
        if answer.status == 204:
            return
        signed = verify_answer(answer, self._keys, self._clock(), self.max_clock_skew)
        if 200 <= answer.status < 300:
            return
        raise self._refused(answer, signed.body)

    # --- license files -----------------------------------------------------------------------

    def verify_license_file(
        self,
        text: str,
        *,
        key: Optional[str] = None,
        fingerprint: Optional[str] = None,
        now: Optional[Moment] = None,
        grace_seconds: Seconds = 0,
    ) -> LicenseFile:
        """Verifies a license file offline and returns its claims; UnverifiableError says why not.

        Checks: EdDSA by a pinned key, ``typ`` ``depot-license+jwt``, ``iss`` this client's
        server, ``nbf``/``iat`` not in the future (beyond ``max_clock_skew``), ``exp`` +
        ``grace_seconds`` after ``now``, this product, and ``key`` / ``fingerprint`` when given (a
        file bound to no machine is refused when a fingerprint is given)."""
        moment = self._clock() if now is None else now.timestamp() if isinstance(now, datetime) else float(now)
        return verify_license_file(
            text,
            keys=self._keys,
            issuer=self.server,
            product_id=self.product_id,
            now=moment,
            max_skew=self.max_clock_skew,
            key=key,
            fingerprint=fingerprint,
            grace_seconds=_seconds(grace_seconds, "grace_seconds"),
        )

    def offline_activation_request(
        self,
        key: str,
        fingerprint: str,
        *,
        name: Optional[str] = None,
        platform: Optional[str] = None,
        hostname: Optional[str] = None,
    ) -> str:
        """The base64 activation request an air-gapped machine shows its user (see
        :func:`depot_client.offline_activation_request`)."""
        return offline_activation_request(key, fingerprint, name=name, platform=platform, hostname=hostname)

    # --- updates -----------------------------------------------------------------------------

    def check_for_update(
        self,
        key: Optional[str],
        current_version: str,
        *,
        platform: Optional[str] = None,
        arch: Optional[str] = None,
        channel: Optional[str] = None,
        staging_id: Optional[str] = None,
    ) -> Upgrade:
        """The signed upgrade check: the version this app is offered on its platform, arch and
        channel (``any``, ``any``, ``stable`` when not given), with its artifacts. ``key`` None for
        a free product. Refusals: RefusedError ``UNAUTHENTICATED``, ``FORBIDDEN``, ``NOT_FOUND``,
        ``INVALID`` (a version that is not semver, an unknown platform …)."""
        nonce = new_nonce()
        query = {"version": current_version, "platform": platform, "arch": arch, "channel": channel}
        text = urllib.parse.urlencode([(k, v) for k, v in query.items() if v is not None] + [("nonce", nonce)])
        headers = self._license_header(key) if key is not None else {}
        if staging_id is not None:
            headers["x-user-staging-id"] = staging_id
        signed = self._call("GET", f"/api/v1/products/{self.product_id}/upgrade?{text}", nonce, headers=headers)
        body = signed.body
        asked = {"platform": platform or "any", "arch": arch or "any", "channel": channel or "stable"}
        if not same_id(body.get("product_id"), self.product_id):
            raise UnverifiableError(f"the upgrade answer is about product_id {body.get('product_id')!r}, not {self.product_id!r}")
        for field, value in asked.items():
            if body.get(field) != value:
                raise UnverifiableError(f"the upgrade answer is about {field} {body.get(field)!r}, not {value!r}")
        if body.get("current") != current_version:
            raise UnverifiableError(f"the upgrade answer is about version {body.get('current')!r}")
        upgrade, version = body.get("upgrade"), body.get("version")
        if not isinstance(upgrade, bool) or (upgrade and not isinstance(version, dict)):
            raise UnverifiableError("the upgrade answer says neither an upgrade nor none")
        return Upgrade(
            upgrade=upgrade,
            current=current_version,
            product_id=self.product_id,
            platform=asked["platform"],
            arch=asked["arch"],
            channel=asked["channel"],
            version=Version.from_json(version) if upgrade and isinstance(version, dict) else None,
            signed_at=self._signed_at(signed),
            raw=body,
        )

    def download(
        self,
        key: Optional[str],
        artifact: Union[Artifact, JsonObject],
        directory: Union[str, "os.PathLike[str]"],
        *,
        on_progress: Optional[Callable[[int, int], None]] = None,
    ) -> Path:
        """Downloads ``artifact`` into ``directory`` and returns the path of the verified file.

        Streams into ``<file_name>.part`` (resumed with Range when one is there), checks sha512
        and/or sha256, and renames it only then; a mismatch deletes the .part
        (UnverifiableError). The name is the artifact's ``file_name``, refused when it could leave
        the directory. ``on_progress(received, total)`` is called as bytes arrive. Refusals
        (unsigned, as downloads are checked by their hash): RefusedError ``UNAUTHENTICATED``,
        ``FORBIDDEN``, ``NOT_FOUND``, ``HTTP_410``."""
        return _download.download(self._transport, key, artifact, directory, on_progress)

    # --- offline-first -----------------------------------------------------------------------

    def status(self, key: str, *, fingerprint: Optional[str] = None) -> Status:
        """Validates and, when depot cannot be reached or its answer cannot be verified, answers
        from what is kept: the last verified validation of this key (and fingerprint) younger than
        ``offline_grace`` (``source`` ``"cache"``), else the license file last checked out, if it
        verifies now (``"licenseFile"``), else not valid with ``UNREACHABLE`` or ``UNVERIFIABLE``
        (``"none"``). Never raises for an outage or a forged answer."""
        try:
            validation = self.validate(key, fingerprint=fingerprint)
            return Status(validation.valid, validation.code, "online", validation.signed_at, validation=validation)
        except RefusedError as error:
            return Status(False, error.code, "online", from_epoch(self._clock()), error=error)
        except (UnreachableError, UnverifiableError) as error:
            failure: DepotError = error
        slot = StateStore.slot(self.product_id, key, fingerprint)
        kept = self._kept_validation(slot, key, fingerprint)
        now = self._clock()
        if kept is not None and now - kept.signed_at.timestamp() <= self.offline_grace:
            return Status(kept.valid, kept.code, "cache", kept.signed_at, error=failure, validation=kept)
        text = self._state.kept_license_file(slot)
        if text is not None:
            try:
                file = self.verify_license_file(text, key=key, fingerprint=fingerprint)
                return Status(True, "VALID", "licenseFile", file.issued_at, error=failure, license_file=file)
            except DepotError:
                pass
        code = "UNREACHABLE" if isinstance(failure, UnreachableError) else "UNVERIFIABLE"
        return Status(False, code, "none", kept.signed_at if kept else None, error=failure)

    # --- the signed exchange -----------------------------------------------------------------

    def _call(
        self,
        method: str,
        path: str,
        nonce: str,
        *,
        body: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Signed:
        """A signed answer to this request: verified, its nonce ours; a verified refusal raises."""
        return self._exchange(method, path, nonce, body=body, headers=headers)[1]

    def _exchange(
        self,
        method: str,
        path: str,
        nonce: str,
        *,
        body: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Tuple[Answer, Signed]:
        sent: Dict[str, str] = {"Accept": "application/json", **(headers or {})}
        data: Optional[bytes] = None
        if body is not None:
            data = json.dumps(body, separators=(",", ":")).encode("utf-8")
            sent["Content-Type"] = "application/json"
        elif method == "POST":
            data = b""
        answer = self._transport.request(method, self.server + path, sent, data)
        return answer, self._verified(answer, nonce)

    def _verified(self, answer: Answer, nonce: str) -> Signed:
        """Checks 1 to 6: the answer verified, its nonce ours; a verified refusal raises."""
        signed = verify_answer(answer, self._keys, self._clock(), self.max_clock_skew)
        success = 200 <= answer.status < 300
        # Only an answer to this very request echoes its nonce: a recorded one carries another. A
        # refusal may carry none (or null): it can only say no, which anyone in the middle can.
        echoed = signed.body.get("nonce")
        if (success or echoed is not None) and echoed != nonce:
            raise UnverifiableError("the answer does not echo the nonce sent (a replayed answer?)")
        if not success:
            raise self._refused(answer, signed.body)
        return signed

    def _validation_call(
        self, path: str, key: str, fingerprint: Optional[str], extra: Mapping[str, Any]
    ) -> Validation:
        nonce = new_nonce()
        body: Dict[str, Any] = {"key": key, "productId": self.product_id, "nonce": nonce, **extra}
        if fingerprint is not None:
            body["fingerprint"] = fingerprint
        answer, signed = self._exchange("POST", path, nonce, body=body)
        validation = self._validation(signed, key, fingerprint)
        self._keep(key, fingerprint, answer, nonce, validation)
        return validation

    def _validation(self, signed: Signed, key: str, fingerprint: Optional[str]) -> Validation:
        """The answer as a Validation once it is about this key, product and machine (check 7)."""
        body = signed.body
        if not isinstance(body.get("valid"), bool) or not isinstance(body.get("code"), str):
            raise UnverifiableError("the answer is not a validation (no valid and code)")
        license = self._license_of(body, key)
        code = body["code"]
        if body["valid"] and (license is None or code != "VALID"):
            raise UnverifiableError(f"a valid answer with the code {code!r} names no license")
        if license is not None:
            ours = same_id(license.get("productId"), self.product_id)
            # depot answers REVOKED and EXPIRED before it compares products (any product may come);
            # PRODUCT_MISMATCH is about another product by definition; every other answer is ours.
            if code == "PRODUCT_MISMATCH" and ours:
                raise UnverifiableError("the answer says PRODUCT_MISMATCH about this very product")
            if code not in ("REVOKED", "EXPIRED", "PRODUCT_MISMATCH") and not ours:
                raise UnverifiableError(
                    f"the answer is about product {license.get('productId')}, not {self.product_id}"
                )
        if fingerprint is not None and license is not None:
            # depot names the machine (or null) whenever a fingerprint came: without it, the
            # request lost its fingerprint on the way.
            if "machine" not in body:
                raise UnverifiableError("the answer names no machine for the fingerprint sent")
            machine = body["machine"]
            if machine is not None and (not isinstance(machine, dict) or machine.get("fingerprint") != fingerprint):
                raise UnverifiableError("the answer is about another machine")
        return Validation.from_json(body, self._signed_at(signed))

    def _license_of(self, body: JsonObject, key: str) -> Optional[JsonObject]:
        """The answer's license (None: none), once it is about ``key``."""
        license = body.get("license")
        if license is None:
            return None
        if not isinstance(license, dict) or not isinstance(license.get("key"), str):
            raise UnverifiableError("the answer's license is not a license")
        if normalise_key(license["key"]) != normalise_key(key):
            raise UnverifiableError("the answer is about another license key")
        return license

    @staticmethod
    def _machine_of(body: JsonObject, field: str, expected: str) -> Machine:
        machine = body.get("machine")
        if not isinstance(machine, dict) or not isinstance(machine.get("id"), str):
            raise UnverifiableError("the answer names no machine")
        if machine.get(field) != expected:
            raise UnverifiableError(f"the answer is about another machine ({field} {machine.get(field)!r})")
        return Machine.from_json(machine)

    def _refused(self, answer: Answer, body: JsonObject) -> RefusedError:
        code = body.get("code")
        message = body.get("message")
        errors = body.get("errors")
        retry_after = None
        if answer.header("retry-after") is not None:
            retry_after = retry_after_seconds(answer.header("retry-after"), self._clock())
        return RefusedError(
            code if isinstance(code, str) else refusal_code(answer.status),
            message if isinstance(message, str) else f"HTTP {answer.status}",
            answer.status,
            retry_after=retry_after,
            errors=errors if isinstance(errors, dict) else None,
            file_expires_at=parse_time(body.get("fileExpiresAt")),
        )

    @staticmethod
    def _signed_at(signed: Signed) -> datetime:
        moment = from_epoch(signed.created)
        assert moment is not None
        return moment

    @staticmethod
    def _license_header(key: Optional[str]) -> Dict[str, str]:
        return {"Authorization": f"License {key}"} if key is not None else {}

    def _fetch_jwks(self) -> bytes:
        answer = self._transport.request("GET", f"{self.server}/.well-known/jwks.json", {"Accept": "application/json"})
        if answer.status != 200:
            raise UnverifiableError(f"the server's key set: HTTP {answer.status}")
        return answer.body

    # --- what status() keeps -----------------------------------------------------------------

    def _keep(self, key: str, fingerprint: Optional[str], answer: Answer, nonce: str, validation: Validation) -> None:
        slot = StateStore.slot(self.product_id, key, fingerprint)
        try:
            self._state.keep_answer(slot, KeptAnswer(answer, nonce))
            if validation.license_file is not None:
                self._state.keep_license_file(slot, validation.license_file)
        except OSError as error:  # status() then has less to go on; validate's answer stands
            log.warning("depot_client: cannot keep the answer in state_dir: %s", error)

    def _kept_validation(self, slot: str, key: str, fingerprint: Optional[str]) -> Optional[Validation]:
        """The kept answer, verified again as it was first (its age is status()'s to judge)."""
        kept = self._state.kept_answer(slot)
        if kept is None:
            return None
        try:
            signed = verify_answer(kept.answer, self._keys, self._clock(), None)
            if signed.created > self._clock() + self.max_clock_skew:
                return None
            if signed.status != 200 or signed.body.get("nonce") != kept.nonce:
                return None
            return self._validation(signed, key, fingerprint)
        except DepotError:
            return None
