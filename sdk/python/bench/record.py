"""Records one real validate answer from a depot for bench.py (status, headers, body bytes, nonce,
and the key set that verifies it):

    PYTHONPATH=src python3 bench/record.py FIXTURE.json > bench/answer.json

FIXTURE.json is what sdk/conformance/start-depot.ts --out writes.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

from depot_client import Client
from depot_client.client import new_nonce
from depot_client.signature import SIGNED_HEADERS


def main(fixture_path: str) -> None:
    fixture = json.loads(Path(fixture_path).read_text())
    jwks = Path(fixture["jwks"]).read_text()
    client = Client(fixture["server"], fixture["productId"], jwks=jwks)
    nonce = new_nonce()
    body = json.dumps({"key": fixture["key"], "productId": fixture["productId"], "nonce": nonce}).encode()
    answer = client._transport.request(
        "POST",
        f"{client.server}/api/v1/licenses/validate",
        {"Content-Type": "application/json", "Accept": "application/json"},
        body,
    )
    client._verified(answer, nonce)  # record only what verifies
    record = {
        "productId": fixture["productId"],
        "key": fixture["key"],
        "nonce": nonce,
        "jwks": json.loads(jwks),
        "status": answer.status,
        "headers": {name: answer.headers[name][0] for name in SIGNED_HEADERS},
        "body": base64.b64encode(answer.body).decode("ascii"),
    }
    print(json.dumps(record, indent=2))


if __name__ == "__main__":
    main(sys.argv[1])
