"""The Python conformance driver (sdk/README.md, "The conformance suite"):

    driver.py --server URL --jwks FILE --product ID --key KEY [--fingerprint FP]
              [--current-version V --platform P --arch A]

Activates the fingerprint when given, validates, checks for an update when a current version is
given, and prints one JSON line. Exit 0 valid and verified, 1 verified but not valid, 2
unverifiable, 3 unreachable, 64 usage. run.sh puts sdk/python/src on PYTHONPATH.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Dict, List, NoReturn, Optional

from depot_client import Client, RefusedError, UnreachableError, UnverifiableError

USAGE_ERROR = 64


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        print(f"driver.py: {message}", file=sys.stderr)
        sys.exit(USAGE_ERROR)


def _arguments(argv: List[str]) -> argparse.Namespace:
    parser = _Parser(prog="driver.py", description="depot's Python conformance driver")
    parser.add_argument("--server", required=True)
    parser.add_argument("--jwks", required=True, type=Path)
    parser.add_argument("--product", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--fingerprint")
    parser.add_argument("--current-version")
    parser.add_argument("--platform")
    parser.add_argument("--arch")
    return parser.parse_args(argv)


def _emit(line: Dict[str, Any], code: int) -> int:
    print(json.dumps(line, separators=(",", ":")))
    return code


def run(argv: List[str]) -> int:
    args = _arguments(argv)
    try:
        client = Client(args.server, args.product, jwks=args.jwks)
    except (ValueError, OSError) as error:
        print(f"driver.py: {error}", file=sys.stderr)
        return USAGE_ERROR
    try:
        machine: Optional[Dict[str, str]] = None
        if args.fingerprint is not None:
            machine = {"id": client.activate(args.key, args.fingerprint).machine.id}
        validation = client.validate(args.key, fingerprint=args.fingerprint)
        line: Dict[str, Any] = {"valid": validation.valid, "code": validation.code, "verified": True}
        if machine is not None:
            line["machine"] = machine
        if args.current_version is not None:
            upgrade = client.check_for_update(
                args.key, args.current_version, platform=args.platform, arch=args.arch
            )
            line["upgrade"] = {"version": upgrade.version.version_number if upgrade.version else None}
        return _emit(line, 0 if validation.valid else 1)
    except UnverifiableError as error:
        return _emit({"verified": False, "error": "unverifiable", "reason": error.reason}, 2)
    except UnreachableError as error:
        return _emit({"verified": False, "error": "unreachable", "reason": error.reason}, 3)
    except RefusedError as error:
        # A signed, verified refusal (a full license, another product's key): verified, not valid.
        return _emit({"valid": False, "code": error.code, "verified": True}, 1)


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
