"""The library's version and the depot API it speaks."""

__version__ = "0.1.0"

#: The depot HTTP API this library speaks: the license API ``/api/v1``, the signed upgrade check
#: and the RFC 9421 signing scheme of docs/integrators.md, as of depot 0.1.
API_VERSION = "depot 0.1 (/api/v1)"

USER_AGENT = f"depot-client-python/{__version__}"
