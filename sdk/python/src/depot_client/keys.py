"""depot's public keys: the pinned JWKS, and (opt-in, weaker) the set fetched from the server."""

from __future__ import annotations

import base64
import json
import os
import re
import threading
from typing import Any, Callable, Dict, Mapping, Optional, Union

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from .errors import UnverifiableError

#: A pinned key set: its JSON text (str or bytes), a path to the file, or the parsed object.
JwksSource = Union[str, bytes, "os.PathLike[str]", Mapping[str, Any]]

_BASE64URL = re.compile(r"^[A-Za-z0-9_-]*={0,2}$")


def b64url_decode(text: str) -> bytes:
    """base64url with or without padding; ValueError on anything else."""
    if not _BASE64URL.match(text):
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def parse_jwks(source: JwksSource) -> Dict[str, Ed25519PublicKey]:
    """The Ed25519 signing keys of a JWKS by kid. Any other key is skipped: nothing else may vouch
    for an answer. ValueError when the set is unreadable or holds no Ed25519 key."""
    if isinstance(source, Mapping):
        document: Any = source
    else:
        if isinstance(source, os.PathLike):
            with open(os.fspath(source), "rb") as file:
                text: Union[str, bytes] = file.read()
        else:
            text = source
        try:
            document = json.loads(text)
        except ValueError as error:
            hint = "" if isinstance(source, os.PathLike) else " (pass a pathlib.Path to read a file)"
            raise ValueError(f"jwks: not JSON text{hint}: {error}") from None
    keys = document.get("keys") if isinstance(document, dict) else None
    if not isinstance(keys, list):
        raise ValueError('jwks: not a JSON Web Key Set (no "keys" array)')
    found: Dict[str, Ed25519PublicKey] = {}
    for jwk in keys:
        if not isinstance(jwk, dict) or jwk.get("kty") != "OKP" or jwk.get("crv") != "Ed25519":
            continue
        if jwk.get("alg", "EdDSA") != "EdDSA" or jwk.get("use", "sig") != "sig":
            continue
        kid, x = jwk.get("kid"), jwk.get("x")
        if not isinstance(kid, str) or not isinstance(x, str):
            continue
        try:
            raw = b64url_decode(x)
            found[kid] = Ed25519PublicKey.from_public_bytes(raw)
        except ValueError:
            continue
    if not found:
        raise ValueError("jwks: the set holds no Ed25519 signing key")
    return found


class KeySet:
    """The keys answers are checked with.

    Pinned: only those, ever (a server that hands out its own keys could vouch for anything it
    says). Fetched (no pinned set, ``fetch_jwks``): read from the server at first use and read
    again once when an answer names a kid the set does not have (a key rotated in since).
    """

    def __init__(
        self,
        pinned: Optional[Dict[str, Ed25519PublicKey]],
        fetch: Optional[Callable[[], bytes]] = None,
    ) -> None:
        self._pinned = pinned
        self._fetch = fetch
        self._fetched: Optional[Dict[str, Ed25519PublicKey]] = None
        self._lock = threading.Lock()

    def find(self, kid: str) -> Ed25519PublicKey:
        if self._pinned is not None:
            key = self._pinned.get(kid)
            if key is None:
                raise UnverifiableError(f'the answer is signed by key "{kid}", which is not pinned')
            return key
        with self._lock:
            if self._fetched is None or kid not in self._fetched:
                self._fetched = self._load()
            key = self._fetched.get(kid)
        if key is None:
            raise UnverifiableError(f'the answer is signed by key "{kid}", which the server\'s key set lacks')
        return key

    def _load(self) -> Dict[str, Ed25519PublicKey]:
        if self._fetch is None:
            raise UnverifiableError("no key set: pin one (jwks) or allow fetch_jwks")
        body = self._fetch()
        try:
            return parse_jwks(body)
        except ValueError as error:
            raise UnverifiableError(f"the server's key set: {error}") from None
