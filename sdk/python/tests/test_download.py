"""download() against a server in the test: what a real depot cannot be made to do (more bytes than
announced, a resume from the wrong byte, a connection cut short, a redirect to another host)."""

from __future__ import annotations

import base64
import hashlib
import re
import tempfile
import unittest
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from depot_client import Artifact, Client, RefusedError, UnverifiableError
from support import FakeDepot, Reply, Request, TestKey

KEY = "AAAAA-BBBBB-CCCCC-DDDDD-EEEEE"
CONTENT = bytes(range(256)) * 40  # 10 KiB


def artifact(url: str, name: str = "app-1.1.0.tar.gz", content: bytes = CONTENT, **override: Any) -> Dict[str, Any]:
    value: Dict[str, Any] = {
        "id": 1,
        "platform": "linux",
        "arch": "x86_64",
        "file_name": name,
        "file_size": len(content),
        "sha256": hashlib.sha256(content).hexdigest(),
        "sha512": base64.b64encode(hashlib.sha512(content).digest()).decode(),
        "download_url": f"{url}/files/{name}",
    }
    value.update(override)
    return value


def serve_file(content: bytes) -> Any:
    """A handler that serves `content`, ranges included, as depot does."""

    def handler(request: Request) -> Reply:
        wanted = re.match(r"^bytes=(\d+)-$", request.headers.get("range", ""))
        if wanted:
            start = int(wanted.group(1))
            return Reply(206, content[start:], {"Content-Range": f"bytes {start}-{len(content) - 1}/{len(content)}"})
        return Reply(200, content)

    return handler


class DownloadTest(unittest.TestCase):
    def setUp(self) -> None:
        self.depot = FakeDepot()
        self.addCleanup(self.depot.close)
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.folder = Path(folder.name)
        self.sleeps: List[float] = []
        self.client = Client(self.depot.url, "1", jwks=TestKey().jwks, sleep=self.sleeps.append)

    def files(self) -> List[str]:
        return sorted(p.name for p in self.folder.iterdir())

    def test_the_file_is_streamed_checked_and_renamed(self) -> None:
        self.depot.handler = serve_file(CONTENT)
        progress: List[Tuple[int, int]] = []
        path = self.client.download(KEY, artifact(self.depot.url), self.folder, on_progress=lambda a, b: progress.append((a, b)))
        self.assertEqual(path, self.folder / "app-1.1.0.tar.gz")
        self.assertEqual(path.read_bytes(), CONTENT)
        self.assertEqual(self.files(), ["app-1.1.0.tar.gz"])
        self.assertEqual(progress[-1], (len(CONTENT), len(CONTENT)))
        sent = self.depot.requests[0]
        self.assertEqual(sent.headers["x-license-key"], KEY)
        self.assertNotIn("range", sent.headers)

    def test_an_artifact_object_or_either_hash_alone(self) -> None:
        self.depot.handler = serve_file(CONTENT)
        only256 = Artifact.from_json(artifact(self.depot.url, sha512=None))
        self.assertEqual(self.client.download(KEY, only256, self.folder).read_bytes(), CONTENT)
        only512 = artifact(self.depot.url, name="b.bin", sha256=None)
        self.assertEqual(self.client.download(KEY, only512, self.folder).read_bytes(), CONTENT)
        self.assertRaises(UnverifiableError, self.client.download, KEY, artifact(self.depot.url, name="c.bin", sha256=None, sha512=None), self.folder)

    def test_a_part_is_resumed_with_range(self) -> None:
        self.depot.handler = serve_file(CONTENT)
        (self.folder / "app-1.1.0.tar.gz.part").write_bytes(CONTENT[:4000])
        path = self.client.download(KEY, artifact(self.depot.url), self.folder)
        self.assertEqual(path.read_bytes(), CONTENT)
        self.assertEqual(self.depot.requests[0].headers["range"], "bytes=4000-")
        self.assertEqual(self.files(), ["app-1.1.0.tar.gz"])

    def test_a_200_to_a_range_starts_over(self) -> None:
        self.depot.handler = lambda request: Reply(200, CONTENT)
        (self.folder / "app-1.1.0.tar.gz.part").write_bytes(b"x" * 4000)
        self.assertEqual(self.client.download(KEY, artifact(self.depot.url), self.folder).read_bytes(), CONTENT)

    def test_a_part_longer_than_the_file_starts_over(self) -> None:
        self.depot.handler = serve_file(CONTENT)
        (self.folder / "app-1.1.0.tar.gz.part").write_bytes(CONTENT + b"stale")
        self.assertEqual(self.client.download(KEY, artifact(self.depot.url), self.folder).read_bytes(), CONTENT)
        self.assertNotIn("range", self.depot.requests[0].headers)

    def test_a_complete_part_is_only_checked(self) -> None:
        (self.folder / "app-1.1.0.tar.gz.part").write_bytes(CONTENT)
        self.assertEqual(self.client.download(KEY, artifact(self.depot.url), self.folder).read_bytes(), CONTENT)
        self.assertEqual(self.depot.requests, [])

    def test_a_resume_from_another_byte_starts_over(self) -> None:
        replies = iter([Reply(206, CONTENT[10:], {"Content-Range": f"bytes 10-{len(CONTENT) - 1}/{len(CONTENT)}"})])
        self.depot.handler = lambda request: next(replies, None) or Reply(200, CONTENT)
        (self.folder / "app-1.1.0.tar.gz.part").write_bytes(CONTENT[:4000])
        self.assertEqual(self.client.download(KEY, artifact(self.depot.url), self.folder).read_bytes(), CONTENT)
        self.assertNotIn("range", self.depot.requests[1].headers)

    def test_a_connection_cut_short_is_resumed(self) -> None:
        cut = iter([Reply(200, CONTENT[:3000], length=len(CONTENT))])
        serve = serve_file(CONTENT)
        self.depot.handler = lambda request: next(cut, None) or serve(request)
        self.assertEqual(self.client.download(KEY, artifact(self.depot.url), self.folder).read_bytes(), CONTENT)
        self.assertEqual(self.depot.requests[1].headers["range"], "bytes=3000-")
        self.assertEqual(len(self.sleeps), 1)

    def test_a_wrong_hash_deletes_the_part(self) -> None:
        self.depot.handler = serve_file(CONTENT[::-1])
        with self.assertRaises(UnverifiableError) as caught:
            self.client.download(KEY, artifact(self.depot.url), self.folder)
        self.assertIn("sha512 and sha256", caught.exception.reason)
        self.assertEqual(self.files(), [])

    def test_more_bytes_than_announced_stop_at_once(self) -> None:
        self.depot.handler = lambda request: Reply(200, CONTENT + b"more")
        with self.assertRaises(UnverifiableError) as caught:
            self.client.download(KEY, artifact(self.depot.url), self.folder)
        self.assertIn("more than", caught.exception.reason)
        self.assertEqual(self.files(), [])

    def test_hostile_names_are_refused_before_a_byte_is_written(self) -> None:
        self.depot.handler = serve_file(CONTENT)
        hostile = ("../evil.sh", "a/b.bin", "a\\b.bin", ".bashrc", "..", "a\0b", "x..y", "", "tab\tname")
        for name in hostile + ("C:evil.exe", "app.exe:stream", "del\x7fname"):
            with self.assertRaises(UnverifiableError, msg=repr(name)):
                self.client.download(KEY, artifact(self.depot.url, name=name), self.folder / "in")
        self.assertEqual(self.depot.requests, [])
        self.assertFalse((self.folder / "evil.sh").exists())

    def test_refusals(self) -> None:
        for status, code in ((401, "UNAUTHENTICATED"), (403, "FORBIDDEN"), (404, "NOT_FOUND"), (410, "HTTP_410")):
            self.depot.handler = lambda request, s=status: Reply(s, b'{"message":"No."}')
            with self.assertRaises(RefusedError) as caught:
                self.client.download(KEY, artifact(self.depot.url), self.folder)
            self.assertEqual((caught.exception.code, caught.exception.message), (code, "No."))
        self.assertEqual(self.files(), [])

    def test_the_key_never_follows_a_redirect_to_another_host(self) -> None:
        store = FakeDepot()
        self.addCleanup(store.close)
        store.handler = serve_file(CONTENT)
        self.depot.handler = lambda request: (
            Reply(302, b"", {"Location": "/same-origin"})
            if request.path.startswith("/files/")
            else Reply(302, b"", {"Location": f"{store.url}/presigned?sig=1"})
        )
        path = self.client.download(KEY, artifact(self.depot.url), self.folder)
        self.assertEqual(path.read_bytes(), CONTENT)
        self.assertEqual([r.headers.get("x-license-key") for r in self.depot.requests], [KEY, KEY])
        self.assertEqual(store.requests[0].path, "/presigned")
        self.assertNotIn("x-license-key", store.requests[0].headers)


if __name__ == "__main__":
    unittest.main()
