"""Checked by mypy (tests/test_types.py): the package's public surface as an app uses it."""

from typing import Any, Dict, Optional

import libauth


def authorize(credentials: Dict[str, Any], request: Any) -> Optional[Dict[str, Any]]:
    return None


auth = libauth.Auth({"secret": "s" * 32, "trustHost": True, "providers": [libauth.Credentials(authorize=authorize)]})
session: Optional[Dict[str, Any]] = auth.get_session("http://localhost/", None)
response: libauth.Response = auth.handle("GET", "http://localhost/auth/csrf", [])
status: int = response.status
wsgi = libauth.WSGIMiddleware(lambda environ, start_response: [b""], auth)
try:
    libauth.Auth({})
except libauth.InvalidConfig as e:
    option: str = e.option
    kind: str = e.type
except libauth.CredentialsSignin as e:
    code: str = e.code
