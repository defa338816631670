"""Against a real depot: the seeded one of sdk/conformance/start-depot.ts (DEPOT_FIXTURE names its
details; without it one is started for this run). The status() test pauses that depot (SIGSTOP),
so it runs last (load_tests)."""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import signal
import tempfile
import time
import unittest
import urllib.request
import uuid
from pathlib import Path
from typing import Any, Dict

from depot_client import (
    Artifact,
    Client,
    RefusedError,
    UnverifiableError,
)
from support import live_fixture, new_license, stop_live_depot

fixture: Dict[str, Any] = {}


def setUpModule() -> None:
    fixture.update(live_fixture())
    # This run's own license with 3 seats, in place of the shared one.
    fixture["machineKey"] = new_license(maxMachines=3)["key"]


def tearDownModule() -> None:
    stop_live_depot()


def client(**settings: Any) -> Client:
    return Client(fixture["server"], fixture["productId"], jwks=Path(fixture["jwks"]), **settings)


def fresh_fingerprint() -> str:
    return f"python-{uuid.uuid4()}"


class LiveValidateTest(unittest.TestCase):
    def test_a_valid_key(self) -> None:
        result = client().validate(fixture["key"])
        self.assertEqual((result.valid, result.code), (True, "VALID"))
        assert result.license is not None
        self.assertEqual(result.license.key, fixture["key"])
        self.assertEqual(result.license.product_id, fixture["productId"])
        self.assertIsNotNone(result.ips)
        self.assertLess(abs(result.signed_at.timestamp() - time.time()), 60)

    def test_an_unknown_key(self) -> None:
        result = client().validate("ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ")
        self.assertEqual((result.valid, result.code, result.license), (False, "NOT_FOUND", None))

    def test_another_product_key(self) -> None:
        result = client().validate(fixture["otherKey"])
        self.assertEqual((result.valid, result.code), (False, "PRODUCT_MISMATCH"))
        self.assertEqual(result.license.product_id if result.license else None, fixture["otherProductId"])

    def test_a_machine_license_without_a_fingerprint(self) -> None:
        result = client().validate(fixture["machineKey"])
        self.assertEqual((result.valid, result.code), (False, "FINGERPRINT_REQUIRED"))
        self.assertEqual(result.machines.max if result.machines else None, 3)

    def test_a_malformed_fingerprint_is_a_signed_refusal(self) -> None:
        with self.assertRaises(RefusedError) as caught:
            client().validate(fixture["machineKey"], fingerprint="bad\x01")
        self.assertEqual((caught.exception.code, caught.exception.status), ("INVALID", 422))
        self.assertIn("fingerprint", caught.exception.errors)


class LiveMachineTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = client()
        self.key = fixture["machineKey"]
        self.fingerprint = fresh_fingerprint()

    def activate(self) -> str:
        activation = self.client.activate(self.key, self.fingerprint, name="Ada's laptop", platform="linux-x64", hostname="ada")
        self.addCleanup(self.deactivate_quietly, activation.machine.id)
        return activation.machine.id

    def deactivate_quietly(self, machine_id: str) -> None:
        try:
            self.client.deactivate(self.key, machine_id)
        except RefusedError:
            pass

    def test_activate_validate_deactivate(self) -> None:
        first = self.client.activate(self.key, self.fingerprint, name="Ada's laptop", platform="linux-x64", hostname="ada")
        self.addCleanup(self.deactivate_quietly, first.machine.id)
        self.assertTrue(first.created)
        self.assertEqual((first.machine.fingerprint, first.machine.name, first.machine.alive), (self.fingerprint, "Ada's laptop", True))
        self.assertEqual(first.license.key, self.key)
        again = self.client.activate(self.key, self.fingerprint)
        self.assertFalse(again.created)
        self.assertEqual(again.machine.id, first.machine.id)

        valid = self.client.validate(self.key, fingerprint=self.fingerprint)
        self.assertEqual((valid.valid, valid.code), (True, "VALID"))
        self.assertEqual(valid.machine.id if valid.machine else None, first.machine.id)

        self.assertIsNone(self.client.deactivate(self.key, first.machine.id))
        gone = self.client.validate(self.key, fingerprint=self.fingerprint)
        self.assertEqual((gone.valid, gone.code, gone.machine), (False, "NOT_ACTIVATED", None))
        with self.assertRaises(RefusedError) as caught:
            self.client.deactivate(self.key, first.machine.id)
        self.assertEqual((caught.exception.code, caught.exception.status), ("NOT_FOUND", 404))

    def test_another_license_cannot_touch_the_machine(self) -> None:
        machine_id = self.activate()
        with self.assertRaises(RefusedError) as caught:
            self.client.deactivate(fixture["key"], machine_id)
        self.assertEqual(caught.exception.code, "NOT_FOUND")

    def test_heartbeat(self) -> None:
        """Needs the server to echo the heartbeat's ?nonce= (the branch that adds it merges first)."""
        machine_id = self.activate()
        machine = self.client.heartbeat(self.key, machine_id)
        self.assertEqual((machine.id, machine.alive), (machine_id, True))

    def test_heartbeat_of_a_deactivated_machine_is_refused(self) -> None:
        machine_id = self.activate()
        self.client.deactivate(self.key, machine_id)
        with self.assertRaises(RefusedError) as caught:
            self.client.heartbeat(self.key, machine_id)
        self.assertEqual((caught.exception.code, caught.exception.status), ("NOT_FOUND", 404))


class LiveLicenseFileTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = client()

    def test_checkout_and_verify(self) -> None:
        checkout = self.client.checkout(fixture["key"], ttl=7 * 86400)
        self.assertEqual(checkout.code, "VALID")
        text = checkout.license_file
        assert text is not None and checkout.license_file_expires_at is not None
        file = self.client.verify_license_file(text, key=fixture["key"])
        self.assertEqual(file.key, fixture["key"])
        self.assertEqual(file.expires_at, checkout.license_file_expires_at)
        self.assertLess(abs(file.expires_at.timestamp() - time.time() - 7 * 86400), 120)

        # A tampered payload: the same file with a later exp.
        body = "".join(text.strip().splitlines()[1:-1])
        header, payload, signature = body.split(".")
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        claims["exp"] += 365 * 86400
        forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
        tampered = f"-----BEGIN DEPOT LICENSE FILE-----\n{header}.{forged}.{signature}\n-----END DEPOT LICENSE FILE-----\n"
        self.assertRaises(UnverifiableError, self.client.verify_license_file, tampered)

        expiry = file.expires_at.timestamp()
        with self.assertRaises(UnverifiableError) as caught:
            self.client.verify_license_file(text, now=expiry + 1)
        self.assertIn("expired", caught.exception.reason)
        self.assertEqual(self.client.verify_license_file(text, now=expiry + 30, grace_seconds=60).key, fixture["key"])
        with self.assertRaises(UnverifiableError) as caught:
            Client(fixture["server"].replace("127.0.0.1", "localhost"), fixture["productId"], jwks=Path(fixture["jwks"])).verify_license_file(text)
        self.assertIn(f'the file was issued by "{fixture["server"]}"', caught.exception.reason)

    def test_a_file_bound_to_a_machine_holds_its_seat(self) -> None:
        key, fingerprint = new_license(maxMachines=1)["key"], fresh_fingerprint()
        machine = self.client.activate(key, fingerprint).machine
        checkout = self.client.checkout(key, fingerprint=fingerprint)
        assert checkout.license_file is not None
        file = self.client.verify_license_file(checkout.license_file, key=key, fingerprint=fingerprint)
        self.assertEqual((file.fingerprint, file.machine_id), (fingerprint, machine.id))
        with self.assertRaises(UnverifiableError) as caught:
            self.client.verify_license_file(checkout.license_file, fingerprint="another-machine")
        self.assertIn("another machine", caught.exception.reason)
        # The file works offline until it expires: the seat stays taken until then.
        with self.assertRaises(RefusedError) as refused:
            self.client.deactivate(key, machine.id)
        self.assertEqual((refused.exception.code, refused.exception.status), ("MACHINE_FILE_VALID", 409))
        self.assertEqual(refused.exception.file_expires_at, checkout.license_file_expires_at)
        self.assertEqual(refused.exception.file_expires_at, file.expires_at)

    def test_offline_activation(self) -> None:
        key, fingerprint = new_license(maxMachines=1)["key"], fresh_fingerprint()
        license = self.client.validate(key).license
        assert license is not None
        request = self.client.offline_activation_request(key, fingerprint, name="Vault", hostname="vault")
        # What the customer does in the dashboard, as its owner's API does it.
        post = urllib.request.Request(
            f"{fixture['server']}/api/licenses/{license.id}/machines/offline",
            data=json.dumps({"request": request}).encode(),
            headers={"Authorization": f"Bearer {fixture['token']}", "Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(post, timeout=30) as response:
            self.assertEqual(response.status, 201)
            data = json.loads(response.read())["data"]
        self.assertEqual((data["machine"]["fingerprint"], data["machine"]["name"]), (fingerprint, "Vault"))
        file = self.client.verify_license_file(data["license_file"], key=key, fingerprint=fingerprint)
        self.assertEqual(file.machine_id, data["machine"]["id"])
        self.assertRaises(UnverifiableError, self.client.verify_license_file, data["license_file"], fingerprint=fresh_fingerprint())


class LiveUpdateTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = client()
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.folder = Path(folder.name)

    def newer(self) -> Artifact:
        upgrade = self.client.check_for_update(fixture["key"], "1.0.0", platform="linux", arch="x86_64")
        self.assertTrue(upgrade.upgrade)
        self.assertEqual(upgrade.version.version_number if upgrade.version else None, "1.1.0")
        (artifact,) = upgrade.artifacts
        return artifact

    def test_check_for_update(self) -> None:
        artifact = self.newer()
        self.assertEqual((artifact.file_name, artifact.platform, artifact.arch), ("desk-clock-1.1.0-linux-x86_64.tar.gz", "linux", "x86_64"))
        latest = self.client.check_for_update(fixture["key"], "1.1.0", platform="linux", arch="x86_64")
        self.assertEqual((latest.upgrade, latest.version, latest.artifacts), (False, None, ()))
        with self.assertRaises(RefusedError) as caught:
            self.client.check_for_update(fixture["key"], "not-semver")
        self.assertEqual(caught.exception.code, "INVALID")
        with self.assertRaises(RefusedError) as caught:
            self.client.check_for_update(fixture["otherKey"], "1.0.0")
        self.assertEqual(caught.exception.code, "FORBIDDEN")

    def test_download(self) -> None:
        artifact = self.newer()
        content = b"desk-clock-1.1.0-linux-x86_64.tar.gz bytes\n"
        path = self.client.download(fixture["key"], artifact, self.folder)
        self.assertEqual((path.name, path.read_bytes()), (artifact.file_name, content))
        path.unlink()
        (self.folder / f"{artifact.file_name}.part").write_bytes(content[:10])
        self.assertEqual(self.client.download(fixture["key"], artifact, self.folder).read_bytes(), content)
        self.assertEqual(sorted(p.name for p in self.folder.iterdir()), [artifact.file_name])

    def test_download_refuses_a_wrong_hash_and_a_hostile_name(self) -> None:
        artifact = self.newer()
        wrong = dataclasses.replace(artifact, sha512=base64.b64encode(b"\0" * 64).decode())
        with self.assertRaises(UnverifiableError):
            self.client.download(fixture["key"], wrong, self.folder)
        self.assertEqual(list(self.folder.iterdir()), [])
        hostile = dataclasses.replace(artifact, file_name="../desk-clock.tar.gz")
        with self.assertRaises(UnverifiableError):
            self.client.download(fixture["key"], hostile, self.folder / "inside")
        self.assertFalse((self.folder / "desk-clock.tar.gz").exists())
        with self.assertRaises(RefusedError) as caught:
            self.client.download("ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ", artifact, self.folder)
        self.assertIn(caught.exception.code, ("UNAUTHENTICATED", "FORBIDDEN"))


class LiveStatusTest(unittest.TestCase):
    """Online, then with depot paused (it accepts connections and never answers)."""

    def test_online_then_cache_then_license_file_then_none(self) -> None:
        state = tempfile.TemporaryDirectory()
        self.addCleanup(state.cleanup)
        now = time.time()

        def at(offset: float) -> Client:
            return client(state_dir=state.name, timeout=1, retries=0, clock=lambda: now + offset)

        online = at(0).status(fixture["key"])
        self.assertEqual((online.valid, online.source), (True, "online"))
        self.assertIsNotNone(at(0).checkout(fixture["key"], ttl=30 * 86400).license_file)

        os.kill(fixture["pid"], signal.SIGSTOP)
        try:
            cached = at(0).status(fixture["key"])
            self.assertEqual((cached.valid, cached.code, cached.source), (True, "VALID", "cache"))
            self.assertIn("timed out", str(cached.error))
            from_file = at(8 * 86400).status(fixture["key"])
            self.assertEqual((from_file.valid, from_file.source), (True, "licenseFile"))
            none = at(31 * 86400).status(fixture["key"])
            self.assertEqual((none.valid, none.code, none.source), (False, "UNREACHABLE", "none"))
            self.assertEqual(none.checked_at, cached.checked_at)
        finally:
            os.kill(fixture["pid"], signal.SIGCONT)


def load_tests(loader: unittest.TestLoader, tests: unittest.TestSuite, pattern: Any) -> unittest.TestSuite:
    ordered = [LiveValidateTest, LiveMachineTest, LiveLicenseFileTest, LiveUpdateTest, LiveStatusTest]
    return unittest.TestSuite(loader.loadTestsFromTestCase(case) for case in ordered)


if __name__ == "__main__":
    unittest.main()
