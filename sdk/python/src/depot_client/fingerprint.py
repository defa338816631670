"""A stable, privacy-preserving machine fingerprint (sdk/README.md, ``machineFingerprint``)."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from typing import Optional

from .errors import DepotError

_LINUX_FILES = ("/etc/machine-id", "/var/lib/dbus/machine-id")
_IOREG_UUID = re.compile(r'"IOPlatformUUID"\s*=\s*"([^"]+)"')


def machine_fingerprint(product_id: str, machine_id: Optional[str] = None) -> str:
    """64 lower-case hex characters: SHA-256 of ``depot:<product_id>:<machine id>``.

    The machine id is the operating system's (Windows ``MachineGuid``, macOS ``IOPlatformUUID``,
    Linux ``/etc/machine-id`` then ``/var/lib/dbus/machine-id``) unless ``machine_id`` is given.
    Hashing with the product id means two vendors never see the same value. Raises DepotError
    when the system has no id: pass your own ``machine_id`` then (e.g. a random id the app stores
    on its first start).
    """
    found = machine_id if machine_id is not None else system_machine_id()
    found = found.strip()
    if not found:
        raise DepotError("machine_fingerprint: the machine id is empty")
    return hashlib.sha256(f"depot:{product_id}:{found}".encode("utf-8")).hexdigest()


def system_machine_id() -> str:
    """The operating system's id for this installation, trimmed; DepotError when there is none."""
    found: Optional[str] = None
    if sys.platform == "win32":
        found = _windows_machine_guid()
    elif sys.platform == "darwin":
        found = _macos_platform_uuid()
    else:
        for path in _LINUX_FILES:
            try:
                with open(path, encoding="utf-8") as file:
                    found = file.read().strip() or None
            except OSError:
                continue
            if found:
                break
    if not found:
        raise DepotError(
            "machine_fingerprint: this system has no machine id (MachineGuid, IOPlatformUUID or "
            "/etc/machine-id); pass machine_id"
        )
    return found


def _windows_machine_guid() -> Optional[str]:
    if sys.platform != "win32":  # also tells type checkers on other systems to skip winreg
        return None
    import winreg

    try:

        # The 64-bit view: a 32-bit Python would otherwise read WOW6432Node, which has no MachineGuid.
        access = winreg.KEY_READ | getattr(winreg, "KEY_WOW64_64KEY", 0)
        with winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE, r"SOFTWARE\Microsoft\Cryptography", 0, access) as key:
            value, _ = winreg.QueryValueEx(key, "MachineGuid")
    except OSError:
        return None
    return str(value).strip() or None


def _macos_platform_uuid() -> Optional[str]:
    try:
        output = subprocess.run(
            ["ioreg", "-rd1", "-c", "IOPlatformExpertDevice"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    match = _IOREG_UUID.search(output)
    return match.group(1).strip() if match else None
