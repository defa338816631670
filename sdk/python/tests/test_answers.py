"""Answers a real depot cannot be made to give, from a small server in the test that signs with a key
made here (and pinned by the client), so that only the one thing under test is wrong."""

from __future__ import annotations

import json
import tempfile
import threading
import time
import unittest
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, List

from depot_client import (
    Client,
    DepotError,
    RefusedError,
    UnreachableError,
    UnverifiableError,
)
from support import (
    COMPONENTS,
    FakeDepot,
    Reply,
    Request,
    TestKey,
    license_json,
    machine_json,
    signed_json,
    validation_json,
)

KEY = "AAAAA-BBBBB-CCCCC-DDDDD-EEEEE"


class FakeServerTest(unittest.TestCase):
    def setUp(self) -> None:
        self.key = TestKey()
        self.depot = FakeDepot()
        self.addCleanup(self.depot.close)
        self.sleeps: List[float] = []

    def client(self, **settings: Any) -> Client:
        settings.setdefault("jwks", self.key.jwks)
        settings.setdefault("sleep", self.sleeps.append)
        return Client(self.depot.url, "1", **settings)

    def answer_validate(self, **override: Any) -> None:
        self.depot.handler = lambda request: signed_json(self.key, 200, validation_json(request, **override))

    def assertUnverifiable(self, reason: str, call: Any, *args: Any, **kwargs: Any) -> UnverifiableError:
        with self.assertRaises(UnverifiableError) as caught:
            call(*args, **kwargs)
        self.assertIn(reason, caught.exception.reason)
        self.assertIsInstance(caught.exception, DepotError)
        return caught.exception


class ValidateTest(FakeServerTest):
    def test_a_signed_answer_about_this_request_is_returned(self) -> None:
        self.answer_validate()
        result = self.client().validate(KEY, fingerprint=None)
        self.assertTrue(result.valid)
        self.assertEqual(result.code, "VALID")
        self.assertEqual(result.license.key if result.license else None, KEY)
        self.assertEqual(result.ips.max if result.ips else None, 100)
        sent = self.depot.requests[0]
        self.assertEqual(sent.path, "/api/v1/licenses/validate")
        self.assertEqual(sent.headers["content-type"], "application/json")
        self.assertEqual(sent.headers["user-agent"], "depot-client-python/0.1.0")
        self.assertEqual(sent.json["productId"], "1")
        self.assertRegex(sent.json["nonce"], r"^[A-Za-z0-9_-]{22}$")

    def test_every_request_has_a_fresh_nonce(self) -> None:
        self.answer_validate()
        client = self.client()
        client.validate(KEY)
        client.validate(KEY)
        first, second = (r.json["nonce"] for r in self.depot.requests)
        self.assertNotEqual(first, second)

    def test_an_unsigned_answer_is_unverifiable(self) -> None:
        self.depot.handler = lambda request: Reply(
            200, json.dumps(validation_json(request)).encode(), {"Content-Type": "application/json"}
        )
        self.assertUnverifiable("Content-Digest", self.client().validate, KEY)

    def test_a_body_changed_after_signing_is_unverifiable(self) -> None:
        def tampered(request: Request) -> Reply:
            reply = signed_json(self.key, 200, validation_json(request, code="NOT_FOUND"))
            reply.body = reply.body.replace(b'"valid":false,"code":"NOT_FOUND"', b'"valid":true,"code":"VALID"')
            return reply

        self.depot.handler = tampered
        self.assertUnverifiable("does not match its Content-Digest", self.client().validate, KEY)

    def test_a_key_that_is_not_pinned_is_unverifiable(self) -> None:
        other = TestKey()
        self.depot.handler = lambda request: signed_json(other, 200, validation_json(request))
        self.assertUnverifiable("not pinned", self.client().validate, KEY)

    def test_a_pinned_kid_with_another_key_signature_is_unverifiable(self) -> None:
        other = TestKey()
        self.depot.handler = lambda request: signed_json(other, 200, validation_json(request), kid=self.key.kid)
        self.assertUnverifiable("does not verify", self.client().validate, KEY)

    def test_created_outside_the_skew_is_unverifiable(self) -> None:
        for created in (int(time.time()) - 400, int(time.time()) + 400):
            self.depot.handler = lambda request, c=created: signed_json(
                self.key, 200, validation_json(request), created=c
            )
            self.assertUnverifiable("more than 300 s", self.client().validate, KEY)
        self.depot.handler = lambda request: signed_json(
            self.key, 200, validation_json(request), created=int(time.time()) - 250
        )
        self.assertTrue(self.client().validate(KEY).valid)

    def test_the_skew_is_a_setting(self) -> None:
        self.depot.handler = lambda request: signed_json(
            self.key, 200, validation_json(request), created=int(time.time()) - 60
        )
        self.assertUnverifiable("more than 30 s", self.client(max_clock_skew=30).validate, KEY)

    def test_parameters_in_another_order_verify(self) -> None:
        params = f'{COMPONENTS};alg="ed25519";keyid="{self.key.kid}";created={int(time.time())}'
        self.depot.handler = lambda request: signed_json(self.key, 200, validation_json(request), params=params)
        self.assertTrue(self.client().validate(KEY).valid)

    def test_other_components_or_labels_are_unverifiable(self) -> None:
        now = int(time.time())
        for params, reason in (
            (f'("@status" "content-digest");created={now};keyid="{self.key.kid}";alg="ed25519"', "not depot's"),
            (f'{COMPONENTS};created={now};keyid="{self.key.kid}";alg="rsa-v1_5-sha256"', "alg"),
            (f'{COMPONENTS};created={now};keyid="{self.key.kid}";alg="ed25519";nonce="x"', "does not send"),
            (f'{COMPONENTS};created={now};keyid="{self.key.kid}";alg="ed25519";expires={now + 60}', "does not send"),
            (f'{COMPONENTS};keyid="{self.key.kid}";alg="ed25519"', "no created"),
        ):
            self.depot.handler = lambda request, p=params: signed_json(self.key, 200, validation_json(request), params=p)
            self.assertUnverifiable(reason, self.client().validate, KEY)

        def relabelled(request: Request) -> Reply:
            reply = signed_json(self.key, 200, validation_json(request))
            reply.headers["Signature-Input"] = reply.headers["Signature-Input"].replace("depot=", "other=")
            return reply

        self.depot.handler = relabelled
        self.assertUnverifiable("not depot's signature", self.client().validate, KEY)

    def test_a_signature_over_another_status_is_unverifiable(self) -> None:
        def restatused(request: Request) -> Reply:
            reply = signed_json(self.key, 200, validation_json(request))
            reply.status = 201
            return reply

        self.depot.handler = restatused
        self.assertUnverifiable("does not verify", self.client().validate, KEY)

    def test_the_wrong_nonce_is_unverifiable(self) -> None:
        self.answer_validate(nonce="recorded-earlier")
        self.assertUnverifiable("nonce", self.client().validate, KEY)
        self.answer_validate(nonce=None)
        self.assertUnverifiable("nonce", self.client().validate, KEY)

    def test_another_license_key_echoed_is_unverifiable(self) -> None:
        self.answer_validate(license=license_json("ZZZZZ-BBBBB-CCCCC-DDDDD-EEEEE"))
        self.assertUnverifiable("another license key", self.client().validate, KEY)

    def test_the_key_is_compared_upper_cased_and_trimmed(self) -> None:
        self.answer_validate()
        self.assertTrue(self.client().validate(KEY.lower()).valid)
        self.depot.handler = lambda request: signed_json(
            self.key, 200, validation_json(request, license=license_json(KEY))
        )
        self.assertTrue(self.client().validate(f"  {KEY.lower()} ").valid)

    def test_another_product_is_unverifiable_unless_the_code_says_so(self) -> None:
        self.depot.handler = lambda request: signed_json(
            self.key, 200, validation_json(request, license=license_json(request.json["key"], "2"))
        )
        self.assertUnverifiable("product 2", self.client().validate, KEY)
        self.depot.handler = lambda request: signed_json(
            self.key,
            200,
            validation_json(request, code="PRODUCT_MISMATCH", license=license_json(request.json["key"], "2")),
        )
        result = self.client().validate(KEY)
        self.assertEqual((result.valid, result.code), (False, "PRODUCT_MISMATCH"))

    def test_revoked_and_expired_may_name_another_product(self) -> None:
        # depot decides them before it compares products: a genuine answer about this key.
        for code in ("REVOKED", "EXPIRED"):
            self.depot.handler = lambda request, c=code: signed_json(
                self.key, 200, validation_json(request, code=c, license=license_json(request.json["key"], "2"))
            )
            result = self.client().validate(KEY)
            self.assertEqual((result.valid, result.code), (False, code))

    def test_product_mismatch_about_this_very_product_is_unverifiable(self) -> None:
        self.answer_validate(code="PRODUCT_MISMATCH")
        self.assertUnverifiable("PRODUCT_MISMATCH", self.client().validate, KEY)

    def test_a_valid_answer_without_a_license_is_unverifiable(self) -> None:
        self.answer_validate(license=None)
        self.assertUnverifiable("names no license", self.client().validate, KEY)

    def test_another_machine_is_unverifiable(self) -> None:
        self.answer_validate(machine=machine_json("someone-else"), machines={"count": 1, "max": 3})
        self.assertUnverifiable("another machine", self.client().validate, KEY, fingerprint="mine")
        self.answer_validate(machine=machine_json("mine"), machines={"count": 1, "max": 3})
        result = self.client().validate(KEY, fingerprint="mine")
        self.assertEqual(result.machine.fingerprint if result.machine else None, "mine")
        self.assertEqual(self.depot.requests[-1].json["fingerprint"], "mine")

    def test_a_validation_with_a_fingerprint_must_name_the_machine(self) -> None:
        # depot names the machine (or null) whenever a fingerprint came: without it, the request lost it.
        self.answer_validate(machines={"count": 1, "max": 3})
        self.assertUnverifiable("no machine", self.client().validate, KEY, fingerprint="mine")
        self.answer_validate(code="NOT_ACTIVATED", machine=None, machines={"count": 0, "max": 3})
        self.assertEqual(self.client().validate(KEY, fingerprint="mine").code, "NOT_ACTIVATED")

    def test_an_unknown_code_is_kept(self) -> None:
        self.answer_validate(code="SOMETHING_NEW")
        result = self.client().validate(KEY)
        self.assertEqual((result.valid, result.code), (False, "SOMETHING_NEW"))

    def test_a_body_that_is_not_json_is_unverifiable(self) -> None:
        def not_json(request: Request) -> Reply:
            body = b"<html>valid</html>"
            return Reply(200, body, self.key.sign_headers(200, body, content_type="text/html"))

        self.depot.handler = not_json
        self.assertUnverifiable("not JSON", self.client().validate, KEY)

    def test_a_redirect_is_not_followed(self) -> None:
        self.depot.handler = lambda request: Reply(302, b"", {"Location": "http://127.0.0.1:9/elsewhere"})
        self.assertUnverifiable("Content-Digest", self.client().validate, KEY)
        self.assertEqual(len(self.depot.requests), 1)

    def test_a_signed_refusal_is_refused_with_its_errors(self) -> None:
        self.depot.handler = lambda request: signed_json(
            self.key, 422, {"message": "The given data was invalid.", "errors": {"fingerprint": ["Bad."]}}
        )
        with self.assertRaises(RefusedError) as caught:
            self.client().validate(KEY, fingerprint="\x01")
        self.assertEqual(caught.exception.code, "INVALID")
        self.assertEqual(caught.exception.status, 422)
        self.assertEqual(caught.exception.errors, {"fingerprint": ["Bad."]})

    def test_refusals_without_a_code_are_named_by_their_status(self) -> None:
        for status, code in (
            (400, "INVALID"),
            (401, "UNAUTHENTICATED"),
            (403, "FORBIDDEN"),
            (404, "NOT_FOUND"),
            (409, "HTTP_409"),
            (410, "HTTP_410"),
            (422, "INVALID"),
            (429, "TOO_MANY_REQUESTS"),
        ):
            self.depot.handler = lambda request, s=status: signed_json(self.key, s, {"message": "No."})
            with self.assertRaises(RefusedError) as caught:
                self.client().validate(KEY)
            self.assertEqual((caught.exception.code, caught.exception.status), (code, status))

    def test_machine_file_valid_carries_the_file_expiry(self) -> None:
        self.depot.handler = lambda request: signed_json(
            self.key,
            409,
            {"code": "MACHINE_FILE_VALID", "message": "Held.", "fileExpiresAt": "2026-12-04T23:12:21.000Z"},
        )
        with self.assertRaises(RefusedError) as caught:
            self.client().deactivate(KEY, "m-1")
        self.assertEqual((caught.exception.code, caught.exception.status), ("MACHINE_FILE_VALID", 409))
        self.assertEqual(caught.exception.file_expires_at, datetime(2026, 12, 4, 23, 12, 21, tzinfo=timezone.utc))
        self.depot.handler = lambda request: signed_json(self.key, 404, {"code": "NOT_FOUND", "message": "No."})
        with self.assertRaises(RefusedError) as other:
            self.client().deactivate(KEY, "m-1")
        self.assertIsNone(other.exception.file_expires_at)

    def test_a_refusal_echoing_another_nonce_is_unverifiable(self) -> None:
        self.depot.handler = lambda request: signed_json(
            self.key, 409, {"code": "TOO_MANY_MACHINES", "message": "Full.", "nonce": "old"}
        )
        self.assertUnverifiable("nonce", self.client().activate, KEY, "fp")


class RetryTest(FakeServerTest):
    def test_503_then_200_is_retried(self) -> None:
        replies = iter([Reply(503, b"busy"), None])
        self.depot.handler = lambda request: next(replies) or signed_json(self.key, 200, validation_json(request))
        self.assertTrue(self.client().validate(KEY).valid)
        self.assertEqual(len(self.depot.requests), 2)
        self.assertEqual(len(self.sleeps), 1)
        self.assertGreaterEqual(self.sleeps[0], 0.2)
        self.assertLessEqual(self.sleeps[0], 0.3)
        first, second = (r.json["nonce"] for r in self.depot.requests)
        self.assertEqual(first, second, "a retry is the same request")

    def test_backoff_doubles_and_ends_unreachable(self) -> None:
        self.depot.handler = lambda request: Reply(502, b"bad gateway")
        with self.assertRaises(UnreachableError) as caught:
            self.client(retries=3).validate(KEY)
        self.assertIn("HTTP 502", caught.exception.reason)
        self.assertEqual(len(self.depot.requests), 4)
        self.assertEqual(len(self.sleeps), 3)
        for n, slept in enumerate(self.sleeps):
            self.assertGreaterEqual(slept, 0.25 * 2**n * 0.8)
            self.assertLessEqual(slept, 0.25 * 2**n * 1.2)

    def test_a_500_is_unreachable_at_once(self) -> None:
        self.depot.handler = lambda request: signed_json(self.key, 500, {"message": "Server Error"})
        self.assertRaises(UnreachableError, self.client().validate, KEY)
        self.assertEqual(len(self.depot.requests), 1)

    def test_429_with_retry_after_is_retried_after_it(self) -> None:
        replies = iter([Reply(429, b"slow down", {"Retry-After": "2"}), None])
        self.depot.handler = lambda request: next(replies) or signed_json(self.key, 200, validation_json(request))
        self.assertTrue(self.client().validate(KEY).valid)
        self.assertEqual(self.sleeps, [2.0])

    def test_429_with_an_http_date_is_retried(self) -> None:
        from email.utils import formatdate

        replies = iter([Reply(429, b"", {"Retry-After": formatdate(time.time() + 5, usegmt=True)}), None])
        self.depot.handler = lambda request: next(replies) or signed_json(self.key, 200, validation_json(request))
        self.assertTrue(self.client().validate(KEY).valid)
        self.assertTrue(3 <= self.sleeps[0] <= 5, self.sleeps)

    def test_429_past_max_retry_wait_is_a_refusal_with_retry_after(self) -> None:
        def full(request: Request) -> Reply:
            reply = signed_json(self.key, 429, {"code": "TOO_MANY_ACTIVATIONS", "message": "Too many today."})
            reply.headers["Retry-After"] = "3600"
            return reply

        self.depot.handler = full
        with self.assertRaises(RefusedError) as caught:
            self.client().activate(KEY, "fp")
        self.assertEqual(caught.exception.code, "TOO_MANY_ACTIVATIONS")
        self.assertEqual(caught.exception.retry_after, 3600)
        self.assertEqual(caught.exception.status, 429)
        self.assertEqual(self.sleeps, [])

    def test_a_timeout_is_unreachable(self) -> None:
        self.depot.handler = lambda request: Reply(200, b"{}", delay=1.0)
        started = time.monotonic()
        with self.assertRaises(UnreachableError) as caught:
            self.client(timeout=0.3, retries=1).validate(KEY)
        self.assertIn("timed out", caught.exception.reason)
        self.assertEqual(len(self.depot.requests), 2)
        self.assertLess(time.monotonic() - started, 1.5)

    def test_an_answer_that_dribbles_past_the_timeout_is_unreachable(self) -> None:
        self.depot.handler = lambda request: Reply(200, b"x" * 40, drip=0.05)
        started = time.monotonic()
        with self.assertRaises(UnreachableError) as caught:
            self.client(timeout=0.5, retries=0).validate(KEY)
        self.assertIn("timed out", caught.exception.reason)
        self.assertLess(time.monotonic() - started, 1.5)

    def test_a_refused_connection_is_unreachable(self) -> None:
        client = Client("http://127.0.0.1:9", "1", jwks=self.key.jwks, sleep=self.sleeps.append)
        self.assertRaises(UnreachableError, client.validate, KEY)
        self.assertEqual(len(self.sleeps), 2)


class MachineTest(FakeServerTest):
    def activation(self, request: Request, status: int = 201, **override: Any) -> Reply:
        body = request.json
        answer = {"machine": machine_json(body["fingerprint"]), "license": license_json(body["key"]), "nonce": body["nonce"]}
        answer.update(override)
        return signed_json(self.key, status, answer)

    def test_activate_sends_the_machine_and_checks_the_answer(self) -> None:
        self.depot.handler = self.activation
        activation = self.client().activate(KEY, "fp-1", name="Ada's laptop", platform="linux-x64", hostname="ada")
        self.assertTrue(activation.created)
        self.assertEqual(activation.machine.fingerprint, "fp-1")
        sent = self.depot.requests[0].json
        self.assertEqual(
            {k: v for k, v in sent.items() if k != "nonce"},
            {"key": KEY, "fingerprint": "fp-1", "name": "Ada's laptop", "platform": "linux-x64", "hostname": "ada"},
        )
        self.depot.handler = lambda request: self.activation(request, 200)
        self.assertFalse(self.client().activate(KEY, "fp-1").created)

    def test_an_activation_of_another_machine_or_key_is_unverifiable(self) -> None:
        self.depot.handler = lambda request: self.activation(request, machine=machine_json("fp-other"))
        self.assertUnverifiable("another machine", self.client().activate, KEY, "fp-1")
        self.depot.handler = lambda request: self.activation(request, license=license_json("ZZZZZ"))
        self.assertUnverifiable("another license key", self.client().activate, KEY, "fp-1")

    def test_an_activation_of_another_product_license_is_refused(self) -> None:
        self.depot.handler = lambda request: self.activation(request, license=license_json(KEY, "2"))
        with self.assertRaises(RefusedError) as caught:
            self.client().activate(KEY, "fp-1")
        self.assertEqual(caught.exception.code, "PRODUCT_MISMATCH")

    def test_coded_refusals_are_typed(self) -> None:
        for status, code in ((409, "TOO_MANY_MACHINES"), (403, "REVOKED"), (404, "NOT_FOUND")):
            self.depot.handler = lambda request, s=status, c=code: signed_json(self.key, s, {"code": c, "message": "No."})
            with self.assertRaises(RefusedError) as caught:
                self.client().activate(KEY, "fp")
            self.assertEqual((caught.exception.code, caught.exception.status), (code, status))

    def heartbeat(self, request: Request, **override: Any) -> Reply:
        answer = {"machine": machine_json("fp-1", request.path.split("/")[4]), "nonce": request.query.get("nonce")}
        answer.update(override)
        return signed_json(self.key, 200, answer)

    def test_heartbeat_sends_the_key_and_a_nonce_and_checks_the_machine(self) -> None:
        self.depot.handler = self.heartbeat
        machine = self.client().heartbeat(KEY, "m-1")
        self.assertEqual(machine.id, "m-1")
        sent = self.depot.requests[0]
        self.assertEqual((sent.method, sent.path), ("POST", "/api/v1/machines/m-1/heartbeat"))
        self.assertEqual(sent.headers["authorization"], f"License {KEY}")
        self.assertRegex(sent.query["nonce"], r"^[A-Za-z0-9_-]{22}$")

    def test_a_heartbeat_without_the_nonce_or_of_another_machine_is_unverifiable(self) -> None:
        self.depot.handler = lambda request: self.heartbeat(request, nonce=None)
        self.assertUnverifiable("nonce", self.client().heartbeat, KEY, "m-1")
        self.depot.handler = lambda request: self.heartbeat(request, machine=machine_json("fp-1", "m-2"))
        self.assertUnverifiable("another machine", self.client().heartbeat, KEY, "m-1")

    def test_a_dead_machine_is_refused(self) -> None:
        self.depot.handler = lambda request: signed_json(self.key, 410, {"code": "HEARTBEAT_DEAD", "message": "Dead."})
        with self.assertRaises(RefusedError) as caught:
            self.client().heartbeat(KEY, "m-1")
        self.assertEqual(caught.exception.code, "HEARTBEAT_DEAD")

    def test_start_heartbeat_beats_until_stopped(self) -> None:
        self.depot.handler = self.heartbeat
        with self.client().start_heartbeat(KEY, "m-1", interval_seconds=0.05) as beating:
            deadline = time.monotonic() + 5
            while len(self.depot.requests) < 3 and time.monotonic() < deadline:
                time.sleep(0.02)
        self.assertFalse(beating.running)
        self.assertGreaterEqual(len(self.depot.requests), 3)
        count = len(self.depot.requests)
        time.sleep(0.2)
        self.assertEqual(len(self.depot.requests), count)
        self.assertEqual(beating.machine.id if beating.machine else None, "m-1")

    def test_start_heartbeat_beats_at_once_then_every_minute_by_default(self) -> None:
        self.depot.handler = self.heartbeat
        with self.client().start_heartbeat(KEY, "m-1") as beating:
            deadline = time.monotonic() + 5
            while not self.depot.requests and time.monotonic() < deadline:
                time.sleep(0.02)
            self.assertEqual(len(self.depot.requests), 1, "the first heartbeat goes at once")
            self.assertEqual(beating.interval_seconds, 60)

    def test_start_heartbeat_reports_failures_and_stops_on_a_refusal(self) -> None:
        replies = iter([Reply(200, b"unsigned"), None])
        self.depot.handler = lambda request: next(replies, None) or signed_json(
            self.key, 410, {"code": "HEARTBEAT_DEAD", "message": "Dead."}
        )
        errors: List[DepotError] = []
        done = threading.Event()

        def on_error(error: DepotError) -> None:
            errors.append(error)
            if isinstance(error, RefusedError):
                done.set()

        beating = self.client().start_heartbeat(KEY, "m-1", interval_seconds=0.05, on_error=on_error)
        self.assertTrue(done.wait(5))
        beating.stop(5)
        self.assertEqual([type(e) for e in errors], [UnverifiableError, RefusedError])
        self.assertEqual(len(self.depot.requests), 2, "a refusal stops the heartbeat")

    def test_deactivate_takes_an_unsigned_204_and_verifies_refusals(self) -> None:
        self.depot.handler = lambda request: Reply(204)
        self.assertIsNone(self.client().deactivate(KEY, "m-1"))
        self.assertEqual(self.depot.requests[0].method, "DELETE")
        self.assertEqual(self.depot.requests[0].headers["authorization"], f"License {KEY}")
        self.depot.handler = lambda request: signed_json(self.key, 404, {"message": "Machine not found."})
        with self.assertRaises(RefusedError) as caught:
            self.client().deactivate(KEY, "m-1")
        self.assertEqual(caught.exception.code, "NOT_FOUND")
        self.depot.handler = lambda request: Reply(404, b'{"message":"Machine not found."}')
        self.assertRaises(UnverifiableError, self.client().deactivate, KEY, "m-1")


class UpgradeTest(FakeServerTest):
    def upgrade(self, request: Request, **override: Any) -> Reply:
        query = request.query
        answer = {
            "upgrade": False,
            "current": query["version"],
            "product_id": "1",
            "platform": query.get("platform", "any"),
            "arch": query.get("arch", "any"),
            "channel": query.get("channel", "stable"),
            "nonce": query.get("nonce"),
            "version": None,
        }
        answer.update(override)
        return signed_json(self.key, 200, answer)

    def test_the_question_is_sent_and_the_answer_checked(self) -> None:
        self.depot.handler = self.upgrade
        result = self.client().check_for_update(KEY, "1.0.0", platform="linux", arch="x86_64", staging_id="s-1")
        self.assertFalse(result.upgrade)
        self.assertIsNone(result.version)
        sent = self.depot.requests[0]
        self.assertEqual(sent.path, "/api/v1/products/1/upgrade")
        self.assertEqual(sent.query["version"], "1.0.0")
        self.assertEqual(sent.headers["authorization"], f"License {KEY}")
        self.assertEqual(sent.headers["x-user-staging-id"], "s-1")
        self.assertEqual((result.platform, result.arch, result.channel), ("linux", "x86_64", "stable"))

    def test_a_wrong_subject_is_unverifiable(self) -> None:
        for field, value in (("platform", "windows"), ("arch", "aarch64"), ("channel", "beta"), ("product_id", "2")):
            self.depot.handler = lambda request, f=field, v=value: self.upgrade(request, **{f: v})
            self.assertUnverifiable(field, self.client().check_for_update, KEY, "1.0.0", platform="linux", arch="x86_64")
        self.depot.handler = lambda request: self.upgrade(request, platform="linux")
        self.assertUnverifiable("platform", self.client().check_for_update, KEY, "1.0.0")

    def test_an_upgrade_carries_its_version_and_artifacts(self) -> None:
        version = {
            "id": 2,
            "version_number": "1.1.0",
            "artifacts": [
                {"id": 3, "platform": "linux", "arch": "x86_64", "file_name": "a.tar.gz", "file_size": 4,
                 "sha256": "0" * 64, "sha512": None, "download_url": "http://x/a"}
            ],
        }
        self.depot.handler = lambda request: self.upgrade(request, upgrade=True, version=version)
        result = self.client().check_for_update(None, "1.0.0")
        self.assertTrue(result.upgrade)
        self.assertEqual(result.version.version_number if result.version else None, "1.1.0")
        self.assertEqual([a.file_name for a in result.artifacts], ["a.tar.gz"])
        self.assertNotIn("authorization", self.depot.requests[0].headers)


class KeySetTest(FakeServerTest):
    def test_fetch_jwks_fetches_once_and_again_on_an_unknown_kid(self) -> None:
        keys = [self.key]

        def handler(request: Request) -> Reply:
            if request.path == "/.well-known/jwks.json":
                return Reply(200, keys[0].jwks.encode(), {"Content-Type": "application/json"})
            return signed_json(keys[-1], 200, validation_json(request))

        self.depot.handler = handler
        client = Client(self.depot.url, "1", fetch_jwks=True)
        client.validate(KEY)
        client.validate(KEY)
        fetched = [r for r in self.depot.requests if r.path == "/.well-known/jwks.json"]
        self.assertEqual(len(fetched), 1)
        keys.append(TestKey())  # rotated: the answers are signed by a key the fetched set lacks
        self.assertUnverifiable("lacks", client.validate, KEY)
        keys[0] = keys[-1]  # now published
        self.assertTrue(client.validate(KEY).valid)

    def test_a_pinned_set_never_takes_the_server_keys(self) -> None:
        other = TestKey()
        self.depot.handler = lambda request: (
            Reply(200, other.jwks.encode()) if request.path.endswith("jwks.json") else signed_json(other, 200, validation_json(request))
        )
        self.assertUnverifiable("not pinned", self.client(fetch_jwks=True).validate, KEY)

    def test_configuration_mistakes_are_value_errors(self) -> None:
        self.assertRaises(ValueError, Client, "licenses.example.com", "1", jwks=self.key.jwks)
        self.assertRaises(ValueError, Client, "https://x", "one", jwks=self.key.jwks)
        self.assertRaises(ValueError, Client, "https://x", "1")
        self.assertRaises(ValueError, Client, "https://x", "1", jwks="depot-keys.json")
        self.assertRaises(ValueError, Client, "https://x", "1", jwks='{"keys":[{"kty":"RSA","kid":"k"}]}')
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "keys.json"
            path.write_text(self.key.jwks)
            Client("https://x/", "1", jwks=path)


class StatusTest(FakeServerTest):
    def setUp(self) -> None:
        super().setUp()
        self.now = time.time()
        self.state = tempfile.TemporaryDirectory()
        self.addCleanup(self.state.cleanup)

    def client(self, **settings: Any) -> Client:
        settings.setdefault("clock", lambda: self.now)
        settings.setdefault("retries", 0)
        return super().client(**settings)

    def test_online_then_the_cache_within_grace_then_none(self) -> None:
        self.answer_validate()
        client = self.client(state_dir=self.state.name)
        online = client.status(KEY)
        self.assertEqual((online.valid, online.code, online.source), (True, "VALID", "online"))
        self.depot.handler = lambda request: Reply(503, b"down")
        cached = client.status(KEY)
        self.assertEqual((cached.valid, cached.code, cached.source), (True, "VALID", "cache"))
        self.assertIsInstance(cached.error, UnreachableError)
        self.assertEqual(cached.checked_at, online.checked_at)
        self.now += 6 * 86400
        self.assertEqual(client.status(KEY).source, "cache")
        self.now += 2 * 86400
        gone = client.status(KEY)
        self.assertEqual((gone.valid, gone.code, gone.source), (False, "UNREACHABLE", "none"))
        self.assertEqual(gone.checked_at, online.checked_at)

    def test_the_cache_is_per_key_and_fingerprint(self) -> None:
        self.answer_validate()
        client = self.client()
        client.status(KEY)
        self.depot.handler = lambda request: Reply(503, b"down")
        self.assertEqual(client.status(KEY, fingerprint="fp").source, "none")
        self.assertEqual(client.status("OTHER-KEY").source, "none")

    def test_an_unverifiable_answer_falls_back_too(self) -> None:
        self.answer_validate(code="NOT_FOUND", license=None)
        client = self.client()
        self.assertEqual(client.status(KEY).code, "NOT_FOUND")
        self.depot.handler = lambda request: Reply(200, b'{"valid":true,"code":"VALID"}')
        cached = client.status(KEY)
        self.assertEqual((cached.valid, cached.code, cached.source), (False, "NOT_FOUND", "cache"))
        self.assertIsInstance(cached.error, UnverifiableError)

    def test_state_dir_survives_a_restart_and_is_verified_again(self) -> None:
        self.answer_validate()
        self.client(state_dir=self.state.name).status(KEY)
        self.depot.handler = lambda request: Reply(503, b"down")
        restarted = self.client(state_dir=self.state.name)
        self.assertEqual(restarted.status(KEY).source, "cache")
        (kept,) = Path(self.state.name).glob("*.answer.json")
        record = json.loads(kept.read_text())
        import base64

        body = json.loads(base64.b64decode(record["body"]))
        body["code"], body["valid"] = "VALID", True
        body["license"]["maxIps"] = 1000
        record["body"] = base64.b64encode(json.dumps(body).encode()).decode()
        kept.write_text(json.dumps(record))
        edited = self.client(state_dir=self.state.name).status(KEY)
        self.assertEqual((edited.valid, edited.source), (False, "none"))

    def test_the_license_file_from_checkout_is_the_last_resort(self) -> None:
        def checkout(request: Request) -> Reply:
            claims = {"iss": self.depot.url, "sub": "l-1", "iat": int(self.now), "exp": int(self.now) + 30 * 86400,
                      "key": request.json["key"], "product_id": "1", "expires": None}
            return signed_json(self.key, 200, validation_json(request, license_file=self.key.license_file(claims)))

        self.depot.handler = checkout
        client = self.client(state_dir=self.state.name)
        self.assertIsNotNone(client.checkout(KEY, ttl=30 * 86400).license_file)
        self.assertEqual(self.depot.requests[0].json["ttl"], 30 * 86400)
        self.depot.handler = lambda request: Reply(503, b"down")
        self.now += 10 * 86400
        from_file = self.client(state_dir=self.state.name).status(KEY)
        self.assertEqual((from_file.valid, from_file.code, from_file.source), (True, "VALID", "licenseFile"))
        self.assertEqual(from_file.license_file.license_id if from_file.license_file else None, "l-1")
        self.now += 25 * 86400
        self.assertEqual(client.status(KEY).source, "none")

    def test_a_refusal_is_an_online_answer(self) -> None:
        self.depot.handler = lambda request: signed_json(self.key, 422, {"message": "Invalid.", "errors": {}})
        status = self.client().status(KEY, fingerprint="\x01")
        self.assertEqual((status.valid, status.code, status.source), (False, "INVALID", "online"))


if __name__ == "__main__":
    unittest.main()
