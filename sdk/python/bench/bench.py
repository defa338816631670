"""The CPU cost of one verified validate, without the network: a recorded real answer of depot's
(answer.json, made by record.py) verified N times in a loop, exactly as validate() verifies an
answer it receives: the digest of the bytes, the Ed25519 signature over the RFC 9421 base, the
clock, the nonce, and the license and product, then the typed Validation.

    PYTHONPATH=src python3 bench/bench.py [N]        (from sdk/python; N defaults to 20000)
"""

from __future__ import annotations

import base64
import json
import platform
import sys
import time
from pathlib import Path

import cryptography

from depot_client import Client
from depot_client._http import Answer


def main(iterations: int) -> None:
    record = json.loads((Path(__file__).parent / "answer.json").read_text())
    answer = Answer(
        record["status"],
        {name.lower(): [value] for name, value in record["headers"].items()},
        base64.b64decode(record["body"]),
    )
    created = int(record["headers"]["signature-input"].split("created=")[1].split(";")[0])
    # The clock stands still at the moment depot signed: the recorded answer stays within the skew.
    client = Client("http://127.0.0.1", record["productId"], jwks=record["jwks"], clock=lambda: float(created))
    key, nonce = record["key"], record["nonce"]

    def verify() -> None:
        validation = client._validation(client._verified(answer, nonce), key, None)
        assert validation.valid

    for _ in range(min(1000, iterations)):  # warm up
        verify()
    # CPU time of this process: on a shared machine the wall clock also counts other processes' turns.
    started, started_cpu = time.perf_counter(), time.process_time()
    for _ in range(iterations):
        verify()
    cpu = time.process_time() - started_cpu
    elapsed = time.perf_counter() - started
    print(
        f"{cpu / iterations * 1e6:.1f} µs of CPU per verified validate ({elapsed / iterations * 1e6:.1f} µs wall; "
        f"{iterations} in {elapsed:.2f} s; Python {platform.python_version()}, "
        f"cryptography {cryptography.__version__})"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20000)
