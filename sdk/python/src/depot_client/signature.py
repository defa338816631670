"""Verifies a signed answer: RFC 9530 digest of the exact bytes, RFC 9421 signature by a pinned
key, ``created`` within the clock skew, a JSON object body (sdk/README.md, checks 1 to 6).

What the answer is about (nonce, license, product, machine, platform) is the caller's to check:
it depends on the request.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

from cryptography.exceptions import InvalidSignature

from ._http import Answer
from .errors import UnverifiableError
from .keys import KeySet

#: The only signature depot makes: its label, its components in this order.
_COMPONENTS = '("@status" "content-type" "content-digest")'
_PARAMETER = re.compile(r';([a-z][a-z0-9_.*-]*)=(-?[0-9]+|"[^"\\]*")')
_DIGEST = re.compile(r"^sha-256=:([A-Za-z0-9+/]*={0,2}):$")
_SIGNATURE = re.compile(r"^depot=:([A-Za-z0-9+/]*={0,2}):$")
#: The headers a signed answer carries, which status() keeps to verify it again later.
SIGNED_HEADERS = ("content-type", "content-digest", "signature-input", "signature")


@dataclass(frozen=True)
class Signed:
    """A verified answer: its status, its JSON object, and when depot signed it (epoch seconds)."""

    status: int
    body: Dict[str, Any]
    created: int


def _decode(text: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise UnverifiableError("a signature or digest is not valid base64") from None


def _signature_params(header: Optional[str]) -> Tuple[str, Dict[str, Any]]:
    if header is None:
        raise UnverifiableError("the answer is not signed (no single Signature-Input header)")
    if not header.startswith("depot=" + _COMPONENTS):
        raise UnverifiableError(f"Signature-Input is not depot's signature: {header[:120]}")
    params_text = header[len("depot=") :]
    rest = params_text[len(_COMPONENTS) :]
    params: Dict[str, Any] = {}
    at = 0
    while at < len(rest):
        match = _PARAMETER.match(rest, at)
        if match is None:
            raise UnverifiableError(f"Signature-Input has unreadable parameters: {rest[:120]}")
        name, value = match.group(1), match.group(2)
        if name in params:
            raise UnverifiableError(f"Signature-Input repeats {name}")
        params[name] = value[1:-1] if value.startswith('"') else int(value)
        at = match.end()
    unknown = set(params) - {"created", "keyid", "alg"}
    if unknown:
        raise UnverifiableError(f"Signature-Input has parameters depot does not send: {', '.join(sorted(unknown))}")
    if params.get("alg") != "ed25519":
        raise UnverifiableError(f"the signature's alg is {params.get('alg')!r}, expected 'ed25519'")
    if not isinstance(params.get("keyid"), str):
        raise UnverifiableError("Signature-Input has no keyid")
    if not isinstance(params.get("created"), int):
        raise UnverifiableError("Signature-Input has no created time")
    return params_text, params


def verify_answer(answer: Answer, keys: KeySet, now: float, max_skew: Optional[float]) -> Signed:
    """Checks 1 to 6 of sdk/README.md but the nonce; UnverifiableError on the first that fails.

    ``max_skew`` None skips the clock check (an answer kept by status() is judged by its age)."""
    # 1. The digest of the bytes as received, never of a re-serialised body.
    digest_header = answer.header("content-digest")
    digest = _DIGEST.match(digest_header or "")
    if digest is None:
        raise UnverifiableError("the answer has no single sha-256 Content-Digest")
    if not hmac.compare_digest(_decode(digest.group(1)), hashlib.sha256(answer.body).digest()):
        raise UnverifiableError("the body does not match its Content-Digest")
    # 2. The signature's components and parameters, exactly depot's.
    params_text, params = _signature_params(answer.header("signature-input"))
    # 3. A pinned key.
    key = keys.find(params["keyid"])
    # 4. The signature over the base of RFC 9421 §2.5.
    content_type = answer.header("content-type")
    signature = _SIGNATURE.match(answer.header("signature") or "")
    if content_type is None or signature is None:
        raise UnverifiableError("the answer has no single Content-Type and depot Signature")
    base = (
        f'"@status": {answer.status}\n'
        f'"content-type": {content_type}\n'
        f'"content-digest": {digest_header}\n'
        f'"@signature-params": {params_text}'
    )
    try:
        key.verify(_decode(signature.group(1)), base.encode("utf-8"))
    except InvalidSignature:
        raise UnverifiableError("the signature does not verify") from None
    # 5. Recent: a signed answer recorded earlier is not one to this request.
    created: int = params["created"]
    if max_skew is not None and abs(now - created) > max_skew:
        raise UnverifiableError(
            f"the signature was created {int(now - created)} s from now (more than {int(max_skew)} s away)"
        )
    # 6. A JSON object.
    try:
        body = json.loads(answer.body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise UnverifiableError("the signed body is not JSON") from None
    if not isinstance(body, dict):
        raise UnverifiableError("the signed body is not a JSON object")
    return Signed(answer.status, body, created)
