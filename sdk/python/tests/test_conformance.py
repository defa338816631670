"""The conformance driver through sdk/conformance/run.sh, under this interpreter: against the seeded
depot, a port nobody listens on, and scripts/fake-depot.ts in each forging mode."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path
from typing import Any, Dict, List, Tuple

from support import ROOT, bun_env, live_fixture, stop_live_depot

fixture: Dict[str, Any] = {}


def setUpModule() -> None:
    if os.environ.get("DEPOT_CONFORMANCE") == "skip":
        raise unittest.SkipTest("DEPOT_CONFORMANCE=skip: sdk/conformance/check.ts runs the driver")
    fixture.update(live_fixture())


def tearDownModule() -> None:
    stop_live_depot()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class DriverTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        # run.sh runs `python3`: make that this interpreter.
        cls.bin = tempfile.TemporaryDirectory()
        os.symlink(sys.executable, Path(cls.bin.name) / "python3")

    @classmethod
    def tearDownClass(cls) -> None:
        cls.bin.cleanup()

    def run_driver(self, server: str, key: str, *extra: str) -> Tuple[int, Dict[str, Any]]:
        env = bun_env()
        env["PATH"] = f"{self.bin.name}{os.pathsep}{env['PATH']}"
        argv = ["bash", str(ROOT / "sdk/conformance/run.sh"), "python", "--server", server, "--jwks", fixture["jwks"]]
        argv += ["--product", fixture["productId"], "--key", key, *extra]
        done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
        lines = done.stdout.splitlines()
        self.assertEqual(len(lines), 1, f"one JSON line, got {done.stdout!r} ({done.stderr})")
        return done.returncode, json.loads(lines[0])

    def test_valid(self) -> None:
        self.assertEqual(self.run_driver(fixture["server"], fixture["key"]), (0, {"valid": True, "code": "VALID", "verified": True}))

    def test_another_product(self) -> None:
        self.assertEqual(
            self.run_driver(fixture["server"], fixture["otherKey"]),
            (1, {"valid": False, "code": "PRODUCT_MISMATCH", "verified": True}),
        )

    def test_a_machine(self) -> None:
        code, line = self.run_driver(fixture["server"], fixture["machineKey"], "--fingerprint", "fp-x")
        self.assertEqual(code, 0)
        self.assertEqual((line["valid"], line["code"]), (True, "VALID"))
        self.assertRegex(line["machine"]["id"], r"^[0-9a-f-]{36}$")

    def test_an_upgrade(self) -> None:
        extra = ("--platform", "linux", "--arch", "x86_64")
        code, line = self.run_driver(fixture["server"], fixture["key"], "--current-version", "1.0.0", *extra)
        self.assertEqual((code, line["upgrade"]), (0, {"version": "1.1.0"}))
        code, line = self.run_driver(fixture["server"], fixture["key"], "--current-version", "1.1.0", *extra)
        self.assertEqual((code, line["upgrade"]), (0, {"version": None}))

    def test_unreachable(self) -> None:
        code, line = self.run_driver(f"http://127.0.0.1:{free_port()}", fixture["key"])
        self.assertEqual((code, line["verified"], line["error"]), (3, False, "unreachable"))

    def test_usage(self) -> None:
        done = subprocess.run(
            ["bash", str(ROOT / "sdk/conformance/run.sh"), "python", "--server", fixture["server"]],
            capture_output=True,
            text=True,
            env={**bun_env(), "PATH": f"{self.bin.name}{os.pathsep}{bun_env()['PATH']}"},
        )
        self.assertEqual((done.returncode, done.stdout), (64, ""))

    def test_every_forging_mode_is_unverifiable(self) -> None:
        stranger = "ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ"
        # (mode, the license the fake uses, the key the app asks about)
        cases: List[Tuple[str, str, str]] = [
            ("unsigned", fixture["key"], fixture["key"]),
            ("forged", fixture["key"], fixture["key"]),
            ("replayed", fixture["key"], fixture["key"]),
            ("swapped", fixture["key"], stranger),
            ("self-keyed", fixture["key"], fixture["key"]),
        ]
        for mode, its_key, asked in cases:
            with self.subTest(mode=mode):
                port = free_port()
                fake = subprocess.Popen(
                    ["bun", str(ROOT / "scripts/fake-depot.ts"), mode, fixture["server"], its_key, str(port)],
                    cwd=ROOT,
                    env=bun_env(),
                    stdout=subprocess.PIPE,
                    text=True,
                )
                try:
                    assert fake.stdout is not None
                    self.assertEqual(fake.stdout.readline().strip(), "listening")
                    code, line = self.run_driver(f"http://127.0.0.1:{port}", asked)
                    self.assertEqual((code, line["verified"], line["error"]), (2, False, "unverifiable"), line)
                finally:
                    fake.terminate()
                    fake.wait(10)
                    if fake.stdout is not None:
                        fake.stdout.close()


if __name__ == "__main__":
    unittest.main()
