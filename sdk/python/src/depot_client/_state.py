"""What status() keeps between calls: the last verified validation of a key (and fingerprint) and
the license file last checked out for it, in memory and, with ``state_dir``, in files.

An answer is kept as it came (status, the signed headers, the body bytes, the nonce sent), so it
is verified again when read back: a file edited on disk verifies no better than a forged answer.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import tempfile
import threading
from pathlib import Path
from typing import Any, Dict, Optional

from ._http import Answer
from .signature import SIGNED_HEADERS


class KeptAnswer:
    def __init__(self, answer: Answer, nonce: str) -> None:
        self.answer = answer
        self.nonce = nonce

    def to_json(self) -> Dict[str, Any]:
        return {
            "v": 1,
            "status": self.answer.status,
            "headers": {name: self.answer.headers.get(name, []) for name in SIGNED_HEADERS},
            "body": base64.b64encode(self.answer.body).decode("ascii"),
            "nonce": self.nonce,
        }

    @classmethod
    def from_json(cls, data: Any) -> Optional[KeptAnswer]:
        try:
            headers = {str(name): [str(v) for v in values] for name, values in data["headers"].items()}
            answer = Answer(int(data["status"]), headers, base64.b64decode(data["body"], validate=True))
            return cls(answer, str(data["nonce"]))
        except (KeyError, TypeError, ValueError, AttributeError):
            return None


class StateStore:
    """Kept answers and license files by (product, key, fingerprint)."""

    def __init__(self, directory: Optional[Path]) -> None:
        self.directory = directory
        self._answers: Dict[str, KeptAnswer] = {}
        self._files: Dict[str, str] = {}
        self._lock = threading.Lock()

    @staticmethod
    def slot(product_id: str, key: str, fingerprint: Optional[str]) -> str:
        text = f"{product_id}\n{key.strip().upper()}\n{fingerprint if fingerprint is not None else ''}"
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]

    def keep_answer(self, slot: str, kept: KeptAnswer) -> None:
        with self._lock:
            self._answers[slot] = kept
            self._write(f"{slot}.answer.json", json.dumps(kept.to_json()))

    def kept_answer(self, slot: str) -> Optional[KeptAnswer]:
        with self._lock:
            if slot in self._answers:
                return self._answers[slot]
            text = self._read(f"{slot}.answer.json")
        if text is None:
            return None
        try:
            return KeptAnswer.from_json(json.loads(text))
        except ValueError:
            return None

    def keep_license_file(self, slot: str, text: str) -> None:
        with self._lock:
            self._files[slot] = text
            self._write(f"{slot}.lic", text)

    def kept_license_file(self, slot: str) -> Optional[str]:
        with self._lock:
            if slot in self._files:
                return self._files[slot]
            return self._read(f"{slot}.lic")

    def _read(self, name: str) -> Optional[str]:
        if self.directory is None:
            return None
        try:
            return (self.directory / name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def _write(self, name: str, text: str) -> None:
        """Atomically (a reader never sees half a file), readable by this user only."""
        if self.directory is None:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(prefix=f".{name}.", dir=self.directory)
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as file:
                file.write(text)
            os.replace(temporary, self.directory / name)
        except BaseException:
            try:
                os.unlink(temporary)
            except OSError:
                pass
            raise
