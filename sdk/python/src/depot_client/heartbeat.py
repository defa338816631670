"""The background heartbeat: keeps a floating lease alive on a daemon thread until stopped."""

from __future__ import annotations

import logging
import threading
from types import TracebackType
from typing import Callable, Optional, Type

from .errors import DepotError, RefusedError
from .models import Machine

log = logging.getLogger("depot_client")


class Heartbeat:
    """A running heartbeat (what :meth:`Client.start_heartbeat` returns).

    It sends one heartbeat at once, then one every ``interval_seconds``.
    A failure goes to ``on_error``; an unreachable or unverifiable answer is tried again at the
    next beat, a refusal (``HEARTBEAT_DEAD``, ``NOT_FOUND``, ``REVOKED`` …: the seat is gone, the
    app must activate again) stops it. Use it as a context manager, or call :meth:`stop`.
    """

    def __init__(
        self,
        beat: Callable[[], Machine],
        interval_seconds: float,
        on_error: Optional[Callable[[DepotError], None]] = None,
    ) -> None:
        if interval_seconds <= 0:
            raise ValueError("interval_seconds must be positive")
        self._beat = beat
        self.interval_seconds = interval_seconds
        self._on_error = on_error
        self._stopped = threading.Event()
        #: The machine as the last heartbeat that verified saw it.
        self.machine: Optional[Machine] = None
        #: The last failure, None after a heartbeat that verified.
        self.last_error: Optional[DepotError] = None
        self._thread = threading.Thread(target=self._run, name="depot-heartbeat", daemon=True)
        self._thread.start()

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def stop(self, timeout: Optional[float] = None) -> None:
        """Stops it, waiting for a heartbeat in flight to end (at most ``timeout`` seconds)."""
        self._stopped.set()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    def __enter__(self) -> Heartbeat:
        return self

    def __exit__(
        self,
        kind: Optional[Type[BaseException]],
        value: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        self.stop()

    def _run(self) -> None:
        # The first at once: a lease that died while the app was closed is known now, not later.
        while not self._stopped.is_set():
            try:
                self.machine = self._beat()
                self.last_error = None
            except DepotError as error:
                self.last_error = error
                self._report(error)
                if isinstance(error, RefusedError):
                    return
            self._stopped.wait(self.interval_seconds)

    def _report(self, error: DepotError) -> None:
        if self._on_error is None:
            log.warning("depot heartbeat failed: %s", error)
            return
        try:
            self._on_error(error)
        except Exception:  # the callback's own failure must not end the lease
            log.exception("depot heartbeat: on_error raised")
