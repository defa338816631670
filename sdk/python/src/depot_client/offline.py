"""The activation request an air-gapped machine writes (docs/vendors.md, "Offline activation")."""

from __future__ import annotations

import base64
import json
from typing import Dict, Optional, Union


def offline_activation_request(
    key: str,
    fingerprint: str,
    *,
    name: Optional[str] = None,
    platform: Optional[str] = None,
    hostname: Optional[str] = None,
) -> str:
    """The request text the customer pastes into depot's dashboard (*Activate offline*).

    ``{"v":1,"key":…,"fingerprint":…,"name":…,"platform":…,"hostname":…}`` (absent fields left
    out), UTF-8, standard base64 without line breaks. The file the dashboard hands back is checked
    with :meth:`Client.verify_license_file` and the same fingerprint.
    """
    request: Dict[str, Union[int, str]] = {"v": 1, "key": key, "fingerprint": fingerprint}
    for field, value in (("name", name), ("platform", platform), ("hostname", hostname)):
        if value is not None:
            request[field] = value
    text = json.dumps(request, ensure_ascii=False, separators=(",", ":"))
    return base64.b64encode(text.encode("utf-8")).decode("ascii")
