"""depot's client library: validate license keys, activate machines, keep working offline, and
find and download updates, trusting only answers signed by depot's pinned keys.

    from pathlib import Path
    import depot_client

    client = depot_client.Client("https://licenses.example.com", "1", jwks=Path("depot-keys.json"))
    result = client.validate(key)          # a Validation: result.valid, result.code

See the README (sdk/python/README.md) for every operation, setting and error.
"""

from ._version import API_VERSION, __version__
from .client import Client, new_nonce
from .errors import DepotError, RefusedError, UnreachableError, UnverifiableError
from .fingerprint import machine_fingerprint
from .heartbeat import Heartbeat
from .models import (
    Activation,
    Artifact,
    License,
    LicenseFile,
    Machine,
    Status,
    Upgrade,
    Usage,
    Validation,
    Version,
)
from .offline import offline_activation_request

__all__ = [
    "API_VERSION",
    "Activation",
    "Artifact",
    "Client",
    "DepotError",
    "Heartbeat",
    "License",
    "LicenseFile",
    "Machine",
    "RefusedError",
    "Status",
    "UnreachableError",
    "UnverifiableError",
    "Upgrade",
    "Usage",
    "Validation",
    "Version",
    "__version__",
    "machine_fingerprint",
    "new_nonce",
    "offline_activation_request",
]
