"""What needs no server: license files, the fingerprint, the offline activation request, and the
small parsers (Retry-After)."""

from __future__ import annotations

import base64
import json
import time
import unittest
from datetime import datetime, timezone
from typing import Any, Dict, Optional

from depot_client import Client, DepotError, UnverifiableError, machine_fingerprint, offline_activation_request
from depot_client._http import retry_after_seconds
from support import TestKey

SERVER = "https://licenses.example.com"
KEY = "AAAAA-BBBBB-CCCCC-DDDDD-EEEEE"
NOW = 1_800_000_000


class LicenseFileTest(unittest.TestCase):
    def setUp(self) -> None:
        self.key = TestKey()
        self.client = Client(SERVER + "/", "1", jwks=self.key.jwks, clock=lambda: NOW)

    def claims(self, **override: Any) -> Dict[str, Any]:
        claims: Dict[str, Any] = {
            "iss": SERVER,
            "sub": "0190c3a2-0000-7000-8000-000000000001",
            "iat": NOW - 60,
            "exp": NOW + 86400,
            "key": KEY,
            "product_id": "1",
            "user_id": "1",
            "creator_id": "1",
            "max_ips": 3,
            "expires": None,
        }
        claims.update(override)
        return claims

    def assertRefused(self, reason: str, text: str, **options: Any) -> None:
        with self.assertRaises(UnverifiableError) as caught:
            self.client.verify_license_file(text, **options)
        self.assertIn(reason, caught.exception.reason)

    def test_a_good_file_gives_its_claims(self) -> None:
        file = self.client.verify_license_file(self.key.license_file(self.claims()), key=KEY.lower())
        self.assertEqual(file.key, KEY)
        self.assertEqual(file.product_id, "1")
        self.assertEqual(file.license_id, "0190c3a2-0000-7000-8000-000000000001")
        self.assertEqual(file.expires_at, datetime.fromtimestamp(NOW + 86400, tz=timezone.utc))
        self.assertEqual(file.kid, self.key.kid)
        self.assertEqual(file.max_ips, 3)
        self.assertIsNone(file.fingerprint)

    def test_a_tampered_payload_does_not_verify(self) -> None:
        text = self.key.license_file(self.claims())
        body = "".join(text.splitlines()[1:-1])
        header, payload, signature = body.split(".")
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        claims["exp"] = NOW + 10 * 365 * 86400
        forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
        self.assertRefused(
            "does not verify",
            f"-----BEGIN DEPOT LICENSE FILE-----\n{header}.{forged}.{signature}\n-----END DEPOT LICENSE FILE-----\n",
        )

    def test_the_header_must_be_depot_and_the_key_pinned(self) -> None:
        claims = self.claims()
        self.assertRefused("alg", self.key.license_file(claims, {"alg": "none", "typ": "depot-license+jwt", "kid": self.key.kid}))
        self.assertRefused("typ", self.key.license_file(claims, {"alg": "EdDSA", "typ": "JWT", "kid": self.key.kid}))
        self.assertRefused("not pinned", TestKey().license_file(claims))
        self.assertRefused("no -----BEGIN", "eyJhbGciOiJFZERTQSJ9.e30.AAAA")

    def test_another_issuer_is_named_in_the_reason(self) -> None:
        self.assertRefused(
            'the file was issued by "http://127.0.0.1:8080", expected "https://licenses.example.com"',
            self.key.license_file(self.claims(iss="http://127.0.0.1:8080")),
        )

    def test_expiry_and_grace(self) -> None:
        expired = self.key.license_file(self.claims(exp=NOW - 3600))
        self.assertRefused("expired", expired)
        self.assertEqual(self.client.verify_license_file(expired, grace_seconds=7200).key, KEY)
        self.assertRefused("expired", expired, grace_seconds=1800)
        good = self.key.license_file(self.claims())
        self.assertRefused("expired", good, now=NOW + 2 * 86400)
        self.assertRefused("expired", good, now=datetime.fromtimestamp(NOW + 2 * 86400, tz=timezone.utc))

    def test_a_file_from_the_future_is_refused(self) -> None:
        self.assertRefused("not valid before", self.key.license_file(self.claims(nbf=NOW + 3600)))
        self.assertRefused("in the future", self.key.license_file(self.claims(iat=NOW + 3600)))
        self.client.verify_license_file(self.key.license_file(self.claims(nbf=NOW + 200, iat=NOW + 200)))

    def test_product_key_and_fingerprint(self) -> None:
        self.assertRefused("product", self.key.license_file(self.claims(product_id="2")))
        self.assertRefused("another license key", self.key.license_file(self.claims()), key="ZZZZZ")
        unbound = self.key.license_file(self.claims())
        self.assertRefused("not bound to a machine", unbound, fingerprint="fp-1")
        bound = self.key.license_file(self.claims(fingerprint="fp-1", machine_id="m-1"))
        self.assertRefused("another machine", bound, fingerprint="fp-2")
        file = self.client.verify_license_file(bound, fingerprint="fp-1")
        self.assertEqual((file.fingerprint, file.machine_id), ("fp-1", "m-1"))


class FingerprintTest(unittest.TestCase):
    def test_the_contract_vector(self) -> None:
        self.assertEqual(
            machine_fingerprint("1", "0123456789abcdef0123456789abcdef"),
            "bee1603142b8ed5996fe832fa4faa1d37b91f33a63af6e45c18f9fbee1adaf78",
        )
        self.assertEqual(
            machine_fingerprint("1", " 0123456789abcdef0123456789abcdef\n"),
            machine_fingerprint("1", "0123456789abcdef0123456789abcdef"),
        )

    def test_two_products_never_share_a_value(self) -> None:
        self.assertNotEqual(machine_fingerprint("1", "abc"), machine_fingerprint("2", "abc"))

    def test_this_machine(self) -> None:
        try:
            value = machine_fingerprint("1")
        except DepotError:
            self.skipTest("this system has no machine id")
        self.assertRegex(value, r"^[0-9a-f]{64}$")
        self.assertEqual(value, machine_fingerprint("1"))

    def test_an_empty_id_is_an_error(self) -> None:
        self.assertRaises(DepotError, machine_fingerprint, "1", "  ")


class OfflineRequestTest(unittest.TestCase):
    def decode(self, text: str) -> Any:
        self.assertNotIn("\n", text)
        return json.loads(base64.b64decode(text, validate=True).decode("utf-8"))

    def test_the_request_is_base64_of_the_object(self) -> None:
        text = offline_activation_request(KEY, "fp-1", name="Vault", hostname="vault")
        self.assertEqual(self.decode(text), {"v": 1, "key": KEY, "fingerprint": "fp-1", "name": "Vault", "hostname": "vault"})
        self.assertTrue(base64.b64decode(text).startswith(b'{"v":1,"key":'))

    def test_utf8_names(self) -> None:
        client = Client(SERVER, "1", jwks=TestKey().jwks)
        self.assertEqual(self.decode(client.offline_activation_request(KEY, "fp", name="Ada’s Mac"))["name"], "Ada’s Mac")


class RetryAfterTest(unittest.TestCase):
    def test_seconds_and_dates(self) -> None:
        now = time.time()
        self.assertEqual(retry_after_seconds("120", now), 120)
        self.assertIsNone(retry_after_seconds(None, now))
        self.assertIsNone(retry_after_seconds("soon", now))
        date = datetime.fromtimestamp(int(now) + 90, tz=timezone.utc).strftime("%a, %d %b %Y %H:%M:%S GMT")
        seconds: Optional[float] = retry_after_seconds(date, now)
        self.assertIsNotNone(seconds)
        assert seconds is not None
        self.assertTrue(88 <= seconds <= 90, seconds)


if __name__ == "__main__":
    unittest.main()
