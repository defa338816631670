"""Verifies a license file offline: a compact JWS (EdDSA) between armour lines, signed by a pinned
key, with the claims sdk/README.md lists."""

from __future__ import annotations

import json
import re
from typing import Any, Dict, Optional

from cryptography.exceptions import InvalidSignature

from .errors import UnverifiableError
from .keys import KeySet, b64url_decode
from .models import LicenseFile, from_epoch, parse_time

LICENSE_FILE_TYPE = "depot-license+jwt"
_ARMOURED = re.compile(r"-----BEGIN DEPOT LICENSE FILE-----(.*?)-----END DEPOT LICENSE FILE-----", re.DOTALL)


def normalise_key(key: str) -> str:
    """A license key as depot looks it up: case and surrounding spaces do not matter."""
    return key.strip().upper()


def same_id(found: Any, expected: str) -> bool:
    """Whether an id in an answer (a string of digits, or a number) is ``expected``."""
    if isinstance(found, bool) or not isinstance(found, (str, int)):
        return False
    text = str(found)
    return text.isdigit() and text.isascii() and int(text) == int(expected)


def _part(text: str, what: str) -> Dict[str, Any]:
    try:
        value = json.loads(b64url_decode(text).decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        raise UnverifiableError(f"the license file's {what} is not base64url JSON") from None
    if not isinstance(value, dict):
        raise UnverifiableError(f"the license file's {what} is not a JSON object")
    return value


def _time(claims: Dict[str, Any], name: str, required: bool) -> Optional[float]:
    value = claims.get(name)
    if value is None and not required:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise UnverifiableError(f"the license file's {name} is not a time")
    return float(value)


def verify_license_file(
    text: str,
    *,
    keys: KeySet,
    issuer: str,
    product_id: str,
    now: float,
    max_skew: float,
    key: Optional[str] = None,
    fingerprint: Optional[str] = None,
    grace_seconds: float = 0,
) -> LicenseFile:
    """The file's claims once every check passes; UnverifiableError naming the first that fails."""
    match = _ARMOURED.search(text)
    if match is None:
        raise UnverifiableError("no -----BEGIN DEPOT LICENSE FILE----- block")
    token = "".join(match.group(1).split())
    parts = token.split(".")
    if len(parts) != 3:
        raise UnverifiableError("the license file is not a compact JWS")
    header = _part(parts[0], "header")
    claims = _part(parts[1], "payload")
    if header.get("alg") != "EdDSA":
        raise UnverifiableError(f"the license file's alg is {header.get('alg')!r}, expected 'EdDSA'")
    if header.get("typ") != LICENSE_FILE_TYPE:
        raise UnverifiableError(f"the license file's typ is {header.get('typ')!r}, expected {LICENSE_FILE_TYPE!r}")
    kid = header.get("kid")
    if not isinstance(kid, str):
        raise UnverifiableError("the license file names no kid")
    public_key = keys.find(kid)
    try:
        signature = b64url_decode(parts[2])
    except ValueError:
        raise UnverifiableError("the license file's signature is not base64url") from None
    try:
        public_key.verify(signature, f"{parts[0]}.{parts[1]}".encode("ascii"))
    except (InvalidSignature, UnicodeEncodeError):
        raise UnverifiableError("the license file's signature does not verify") from None

    expected_issuer = issuer.rstrip("/")
    if claims.get("iss") != expected_issuer:
        raise UnverifiableError(
            f"the file was issued by {json.dumps(claims.get('iss'))}, expected {json.dumps(expected_issuer)} "
            "(the issuer is the depot's APP_URL: configure the client with that URL, or set APP_URL to the "
            "address clients use)"
        )
    iat = _time(claims, "iat", required=True)
    exp = _time(claims, "exp", required=True)
    nbf = _time(claims, "nbf", required=False)
    assert iat is not None and exp is not None
    if nbf is not None and nbf > now + max_skew:
        raise UnverifiableError(f"the license file is not valid before {from_epoch(nbf)}")
    if iat > now + max_skew:
        raise UnverifiableError(f"the license file was issued in the future ({from_epoch(iat)})")
    if exp + grace_seconds <= now:
        grace = f" (with {grace_seconds:g} s of grace)" if grace_seconds else ""
        raise UnverifiableError(f"the license file expired at {from_epoch(exp)}{grace}")
    if not same_id(claims.get("product_id"), product_id):
        raise UnverifiableError(f"the license file is for product {claims.get('product_id')!r}, not {product_id!r}")
    file_key = claims.get("key")
    if not isinstance(file_key, str):
        raise UnverifiableError("the license file names no key")
    if key is not None and normalise_key(file_key) != normalise_key(key):
        raise UnverifiableError("the license file is for another license key")
    file_fingerprint = claims.get("fingerprint")
    if fingerprint is not None and file_fingerprint != fingerprint:
        raise UnverifiableError(
            "the license file is not bound to a machine"
            if file_fingerprint is None
            else "the license file is bound to another machine"
        )

    def text_claim(name: str) -> Optional[str]:
        value = claims.get(name)
        return value if isinstance(value, str) else None

    max_ips = claims.get("max_ips")
    issued_at, expires_at = from_epoch(iat), from_epoch(exp)
    assert issued_at is not None and expires_at is not None
    return LicenseFile(
        kid=kid,
        issuer=expected_issuer,
        license_id=text_claim("sub"),
        key=file_key,
        product_id=str(claims.get("product_id")),
        issued_at=issued_at,
        expires_at=expires_at,
        not_before=from_epoch(nbf),
        user_id=text_claim("user_id"),
        creator_id=text_claim("creator_id"),
        max_ips=max_ips if isinstance(max_ips, int) and not isinstance(max_ips, bool) else None,
        license_expires=parse_time(claims.get("expires")),
        fingerprint=file_fingerprint if isinstance(file_fingerprint, str) else None,
        machine_id=text_claim("machine_id"),
        claims=claims,
    )
