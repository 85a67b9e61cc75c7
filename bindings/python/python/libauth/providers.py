"""Provider helpers. Each returns the provider's configuration as a dict with
the spec's field names; functions in it (``authorize``, ``profile``,
``send_verification_request``) become engine hooks. Keyword arguments are
snake_case and become camelCase keys (``client_id`` -> ``clientId``); the
engine refuses an option it does not know."""

from __future__ import annotations

from typing import Any, Dict


def _camel(name: str) -> str:
    # A trailing underscore escapes a keyword: ``from_`` -> ``from``.
    head, *rest = name.rstrip("_").split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


#: Options whose keys are data, not option names: kept as written
#: (authorization ``params`` such as ``access_type``, credentials field
#: names, the OAuth ``client`` metadata such as ``token_endpoint_auth_method``).
_VERBATIM = {"params", "credentials", "client"}


def _options(options: Dict[str, Any]) -> Dict[str, Any]:
    """Keyword arguments as the engine's camelCase options, at every level
    (``authorization={"url": ..., "params": {...}}``,
    ``server={"host": ..., "require_tls": True}``), but for maps of data."""
    out: Dict[str, Any] = {}
    for key, value in options.items():
        if value is None:
            continue
        name = _camel(key)
        if isinstance(value, dict) and name not in _VERBATIM:
            value = _options(value)
        out[name] = value
    return out


def Credentials(**options: Any) -> Dict[str, Any]:
    """Sign-in with a username/password (or any fields) checked by
    ``authorize(credentials, request)``, which returns a user dict, ``None``,
    or raises ``CredentialsSignin``; may be ``async def``."""
    out: Dict[str, Any] = {"type": "credentials", **_options(options)}
    out.setdefault("credentials", {})
    return out


def TikTok(**options: Any) -> Dict[str, Any]:
    """TikTok Login Kit (the engine's built-in provider ``tiktok``);
    ``client_id`` is the app's Client Key. Without ``client_id`` and
    ``client_secret``, ``AUTH_TIKTOK_ID`` / ``AUTH_TIKTOK_SECRET`` are read."""
    return {"builtin": "tiktok", **_options(options)}


def GitHub(**options: Any) -> Dict[str, Any]:
    """GitHub (the engine's built-in provider ``github``). Without
    ``client_id`` and ``client_secret``, ``AUTH_GITHUB_ID`` /
    ``AUTH_GITHUB_SECRET`` are read."""
    return {"builtin": "github", **_options(options)}


def OAuth(**options: Any) -> Dict[str, Any]:
    """A generic OAuth 2 provider: ``id``, ``name``, ``client_id``,
    ``client_secret``, ``authorization``, ``token``, ``userinfo``, and an
    optional ``profile(profile, tokens)`` function."""
    return {"type": "oauth", **_options(options)}


def OIDC(**options: Any) -> Dict[str, Any]:
    """An OpenID Connect provider found through its ``issuer``'s discovery
    document: ``id``, ``name``, ``issuer``, ``client_id``, ``client_secret``."""
    return {"type": "oidc", **_options(options)}


def Email(**options: Any) -> Dict[str, Any]:
    """Magic-link sign-in by email: ``send_verification_request(params)``
    sends the link (or ``server`` and ``from_`` for the engine's SMTP sender).
    Needs an adapter to store its tokens."""
    out = {"type": "email", "id": "email", "name": "Email", **_options(options)}
    return out


#: Option names ``_camel`` cannot spell (an acronym).
_SPELLED = {"enable_conditional_ui": "enableConditionalUI"}


def Passkey(**options: Any) -> Dict[str, Any]:
    """Passkeys (WebAuthn): register and sign in with a device's
    authenticator. Needs ``{"experimental": {"enableWebAuthn": True}}`` and an
    adapter that stores passkeys. Options: ``id`` (default ``"passkey"``),
    ``name``, ``relaying_party={"id": ..., "name": ..., "origin": ...}``
    (default: the request's host), ``timeout``, ``enable_conditional_ui``,
    ``user_verification`` (``"required"`` or ``"preferred"``) and
    ``get_user_info`` (a hook). The browser side is the engine's
    ``{basePath}/webauthn.js`` module."""
    spelled = {_SPELLED[k]: v for k, v in options.items() if k in _SPELLED and v is not None}
    rest = {k: v for k, v in options.items() if k not in _SPELLED}
    return {"type": "webauthn", "id": "passkey", "name": "Passkey", **_options(rest), **spelled}


__all__ = ["Credentials", "TikTok", "GitHub", "OAuth", "OIDC", "Email", "Passkey"]
