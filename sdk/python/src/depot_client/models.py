"""The typed results: what depot's verified answers and license files say.

Each keeps the whole JSON object it was read from in ``raw`` (fields a newer depot adds are there
before this library names them). Times are timezone-aware UTC ``datetime`` objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Mapping, Optional, Tuple

from .errors import DepotError

JsonObject = Mapping[str, Any]


def parse_time(value: Any) -> Optional[datetime]:
    """An ISO 8601 time as depot writes it (``2026-05-01T12:00:00.000Z``), or None."""
    if not isinstance(value, str):
        return None
    text = value[:-1] + "+00:00" if value.endswith("Z") else value
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def from_epoch(seconds: Optional[float]) -> Optional[datetime]:
    return None if seconds is None else datetime.fromtimestamp(seconds, tz=timezone.utc)


def _str(value: Any) -> Optional[str]:
    return value if isinstance(value, str) else None


def _int(value: Any) -> Optional[int]:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _bool(value: Any) -> Optional[bool]:
    return value if isinstance(value, bool) else None


def _object(value: Any) -> Optional[JsonObject]:
    return value if isinstance(value, dict) else None


@dataclass(frozen=True)
class License:
    """A license as depot's license API shows it."""

    id: str
    key: str
    product_id: str
    user_id: Optional[str]
    creator_id: Optional[str]
    #: The license's own expiry, or None when it never expires.
    expires: Optional[datetime]
    max_ips: Optional[int]
    #: Only on licenses bound to machines.
    max_machines: Optional[int]
    floating: Optional[bool]
    heartbeat_seconds: Optional[int]
    created_at: Optional[datetime]
    updated_at: Optional[datetime]
    raw: JsonObject = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, data: JsonObject) -> License:
        return cls(
            id=str(data.get("id", "")),
            key=str(data.get("key", "")),
            product_id=str(data.get("productId", "")),
            user_id=_str(data.get("userId")),
            creator_id=_str(data.get("creatorId")),
            expires=parse_time(data.get("expires")),
            max_ips=_int(data.get("maxIps")),
            max_machines=_int(data.get("maxMachines")),
            floating=_bool(data.get("floating")),
            heartbeat_seconds=_int(data.get("heartbeatSeconds")),
            created_at=parse_time(data.get("createdAt")),
            updated_at=parse_time(data.get("updatedAt")),
            raw=data,
        )


@dataclass(frozen=True)
class Machine:
    """A machine activated on a license."""

    id: str
    license_id: str
    fingerprint: str
    name: Optional[str]
    platform: Optional[str]
    hostname: Optional[str]
    created_at: Optional[datetime]
    last_heartbeat_at: Optional[datetime]
    #: False: it missed its heartbeats and holds no seat.
    alive: bool
    raw: JsonObject = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, data: JsonObject) -> Machine:
        return cls(
            id=str(data.get("id", "")),
            license_id=str(data.get("licenseId", "")),
            fingerprint=str(data.get("fingerprint", "")),
            name=_str(data.get("name")),
            platform=_str(data.get("platform")),
            hostname=_str(data.get("hostname")),
            created_at=parse_time(data.get("createdAt")),
            last_heartbeat_at=parse_time(data.get("lastHeartbeatAt")),
            alive=data.get("alive") is True,
            raw=data,
        )


@dataclass(frozen=True)
class Usage:
    """How many of a license's seats (machines or addresses) are taken, and its maximum."""

    count: int
    #: None: not limited.
    max: Optional[int]

    @classmethod
    def from_json(cls, data: Any) -> Optional[Usage]:
        if not isinstance(data, dict):
            return None
        return cls(count=_int(data.get("count")) or 0, max=_int(data.get("max")))


@dataclass(frozen=True)
class Validation:
    """A verified answer of validate (or checkout): valid or not, and why.

    ``valid`` is True only with ``code`` ``VALID``. The other codes: ``NOT_FOUND``, ``REVOKED``,
    ``EXPIRED``, ``PRODUCT_MISMATCH``, ``FINGERPRINT_REQUIRED``, ``NOT_ACTIVATED``,
    ``HEARTBEAT_DEAD``, ``TOO_MANY_IPS``; a code this version does not know is kept as it is.
    """

    valid: bool
    code: str
    detail: Optional[str]
    #: The license the key names (None for NOT_FOUND).
    license: Optional[License]
    #: The machine of the fingerprint sent (None when it is not activated; also None without one).
    machine: Optional[Machine]
    #: Alive machines and the maximum, on licenses bound to machines or when a fingerprint was sent.
    machines: Optional[Usage]
    ips: Optional[Usage]
    #: When depot signed the answer (its signature's ``created``).
    signed_at: datetime
    #: checkout only: the license file (armoured text) and when it expires.
    license_file: Optional[str]
    license_file_expires_at: Optional[datetime]
    raw: JsonObject = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, data: JsonObject, signed_at: datetime) -> Validation:
        license_json = _object(data.get("license"))
        machine_json = _object(data.get("machine"))
        return cls(
            valid=data.get("valid") is True,
            code=str(data.get("code", "")),
            detail=_str(data.get("detail")),
            license=License.from_json(license_json) if license_json is not None else None,
            machine=Machine.from_json(machine_json) if machine_json is not None else None,
            machines=Usage.from_json(data.get("machines")),
            ips=Usage.from_json(data.get("ips")),
            signed_at=signed_at,
            license_file=_str(data.get("license_file")),
            license_file_expires_at=parse_time(data.get("license_file_expires_at")),
            raw=data,
        )


@dataclass(frozen=True)
class Activation:
    """A verified activation: the machine, its license, and whether it is new (HTTP 201)."""

    machine: Machine
    license: License
    #: True: activated now (201); False: this fingerprint was already active (200).
    created: bool
    signed_at: datetime
    raw: JsonObject = field(repr=False, compare=False)


@dataclass(frozen=True)
class Artifact:
    """One file of a version, for one platform and arch."""

    id: Optional[int]
    platform: Optional[str]
    arch: Optional[str]
    file_name: str
    file_size: int
    #: Hex SHA-256 of the file.
    sha256: Optional[str]
    #: Base64 SHA-512 of the file (as electron-updater checks it).
    sha512: Optional[str]
    download_url: str
    content_type: Optional[str]
    #: The updater signature published with the file (Tauri's ``.sig`` text, Sparkle's), if any.
    signature: Optional[str]
    raw: JsonObject = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, data: JsonObject) -> Artifact:
        return cls(
            id=_int(data.get("id")),
            platform=_str(data.get("platform")),
            arch=_str(data.get("arch")),
            file_name=str(data.get("file_name", "")),
            file_size=_int(data.get("file_size")) or 0,
            sha256=_str(data.get("sha256")),
            sha512=_str(data.get("sha512")),
            download_url=str(data.get("download_url", "")),
            content_type=_str(data.get("content_type")),
            signature=_str(data.get("signature")),
            raw=data,
        )


@dataclass(frozen=True)
class Version:
    """A published version offered by the upgrade check, with its artifacts for the platform."""

    id: Optional[int]
    version_number: str
    title: Optional[str]
    changelog: Optional[str]
    channel: Optional[str]
    critical: bool
    published_at: Optional[datetime]
    artifacts: Tuple[Artifact, ...]
    raw: JsonObject = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, data: JsonObject) -> Version:
        artifacts = data.get("artifacts")
        return cls(
            id=_int(data.get("id")),
            version_number=str(data.get("version_number", "")),
            title=_str(data.get("title")),
            changelog=_str(data.get("changelog")),
            channel=_str(data.get("channel")),
            critical=data.get("critical") is True,
            published_at=parse_time(data.get("published_at")),
            artifacts=tuple(
                Artifact.from_json(a) for a in (artifacts if isinstance(artifacts, list) else []) if isinstance(a, dict)
            ),
            raw=data,
        )


@dataclass(frozen=True)
class Upgrade:
    """A verified upgrade check: whether a newer version is offered, and which."""

    upgrade: bool
    #: The version the app runs, as sent.
    current: str
    product_id: str
    platform: str
    arch: str
    channel: str
    #: The version to upgrade to, or None when nothing newer is offered.
    version: Optional[Version]
    signed_at: datetime
    raw: JsonObject = field(repr=False, compare=False)

    @property
    def artifacts(self) -> Tuple[Artifact, ...]:
        """The offered version's files for the platform and arch asked about (empty: none)."""
        return self.version.artifacts if self.version else ()


@dataclass(frozen=True)
class LicenseFile:
    """The claims of a license file that verified."""

    kid: str
    issuer: str
    #: The license's id (``sub``).
    license_id: Optional[str]
    key: str
    product_id: str
    issued_at: datetime
    expires_at: datetime
    not_before: Optional[datetime]
    user_id: Optional[str]
    creator_id: Optional[str]
    max_ips: Optional[int]
    #: The license's own expiry (None: it never expires).
    license_expires: Optional[datetime]
    #: The machine the file is bound to, if any.
    fingerprint: Optional[str]
    machine_id: Optional[str]
    claims: JsonObject = field(repr=False, compare=False)


@dataclass(frozen=True)
class Status:
    """The offline-first answer of :meth:`Client.status`.

    ``source`` is ``"online"`` (depot answered now), ``"cache"`` (the last verified answer, within
    ``offline_grace``), ``"licenseFile"`` (the license file last checked out verified) or
    ``"none"`` (``code`` ``UNREACHABLE`` or ``UNVERIFIABLE``).
    """

    valid: bool
    code: str
    source: str
    #: When depot last said so: the answer's signature time, or the license file's ``iat``.
    checked_at: Optional[datetime]
    #: Why depot's answer was not used, when ``source`` is not ``"online"``.
    error: Optional[DepotError] = None
    validation: Optional[Validation] = None
    license_file: Optional[LicenseFile] = None
