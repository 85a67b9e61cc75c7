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


def _builtin(name: str, options: Dict[str, Any]) -> Dict[str, Any]:
    """The engine's built-in provider ``name``, with these options."""
    return {"builtin": name, **_options(options)}


def TikTok(**options: Any) -> Dict[str, Any]:
    """TikTok Login Kit (the engine's built-in provider ``tiktok``);
    ``client_id`` is the app's Client Key. Without ``client_id`` and
    ``client_secret``, ``AUTH_TIKTOK_ID`` / ``AUTH_TIKTOK_SECRET`` are read."""
    return _builtin("tiktok", options)


def GitHub(**options: Any) -> Dict[str, Any]:
    """GitHub (the engine's built-in provider ``github``). Without
    ``client_id`` and ``client_secret``, ``AUTH_GITHUB_ID`` /
    ``AUTH_GITHUB_SECRET`` are read."""
    return _builtin("github", options)


# The other built-in providers: each is the engine's provider of the same
# name (ids, scopes and profile mapping as Auth.js's); every endpoint and
# option may be overridden, and without ``client_id``/``client_secret`` the
# engine reads AUTH_<ID>_ID / AUTH_<ID>_SECRET (and AUTH_<ID>_ISSUER).


def Google(**options: Any) -> Dict[str, Any]:
    """Google (OIDC). ``offline_access=True`` asks for a refresh token
    (``access_type=offline``, ``prompt=consent``)."""
    return _builtin("google", options)


def Apple(**options: Any) -> Dict[str, Any]:
    """Sign in with Apple (OIDC, ``form_post``). Give ``team_id``, ``key_id``
    and ``private_key`` (the ``.p8`` file's PEM) and the engine mints the
    client secret, or a pre-made ``client_secret``."""
    return _builtin("apple", options)


def MicrosoftEntraID(**options: Any) -> Dict[str, Any]:
    """Microsoft Entra ID (OIDC). ``issuer`` names the tenant:
    ``https://login.microsoftonline.com/<tenant id>/v2.0`` (default ``common``)."""
    return _builtin("microsoft-entra-id", options)


def Discord(**options: Any) -> Dict[str, Any]:
    """Discord (OAuth 2)."""
    return _builtin("discord", options)


def GitLab(**options: Any) -> Dict[str, Any]:
    """GitLab (OAuth 2). ``base_url`` for a self-managed instance (default
    ``https://gitlab.com``)."""
    return _builtin("gitlab", options)


def Twitter(**options: Any) -> Dict[str, Any]:
    """X / Twitter (OAuth 2.0 with PKCE, which cannot be turned off)."""
    return _builtin("twitter", options)


def Facebook(**options: Any) -> Dict[str, Any]:
    """Facebook Login (OAuth 2, a pinned Graph API version)."""
    return _builtin("facebook", options)


def LinkedIn(**options: Any) -> Dict[str, Any]:
    """LinkedIn (OIDC, issuer ``https://www.linkedin.com/oauth``)."""
    return _builtin("linkedin", options)


def Slack(**options: Any) -> Dict[str, Any]:
    """Sign in with Slack (OIDC)."""
    return _builtin("slack", options)


def Twitch(**options: Any) -> Dict[str, Any]:
    """Twitch (OIDC)."""
    return _builtin("twitch", options)


def Spotify(**options: Any) -> Dict[str, Any]:
    """Spotify (OAuth 2)."""
    return _builtin("spotify", options)


def Keycloak(**options: Any) -> Dict[str, Any]:
    """Keycloak (OIDC): ``issuer`` is the realm's."""
    return _builtin("keycloak", options)


def Auth0(**options: Any) -> Dict[str, Any]:
    """Auth0 (OIDC): ``issuer`` is the tenant's."""
    return _builtin("auth0", options)


def Okta(**options: Any) -> Dict[str, Any]:
    """Okta (OIDC): ``issuer`` is the org's or an authorization server's."""
    return _builtin("okta", options)


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


def Password(**options: Any) -> Dict[str, Any]:
    """Email + password accounts kept by the engine: sign-up, verification,
    forgotten password, change of password or address, deletion, with
    built-in pages under ``{basePath}/password/``. Needs an adapter. Mail
    goes through ``server`` (SMTP, with ``from_``) or
    ``send_email(params)`` (``params["kind"]``: ``verify-email``,
    ``reset-password``, ``account-exists``, ``confirm-new-email``,
    ``email-changing``; ``to``, ``url``, ``expires``, ``locale``).
    ``check_password(params)`` may refuse a new password by returning a
    message. Options: ``require_email_verification`` (default ``True``),
    ``min_length`` (8), ``max_length`` (256), ``argon2={"memory_kib",
    "iterations", "parallelism"}`` (OWASP's by default),
    ``max_concurrent``/``max_queued`` (the hashing bound),
    ``verification_max_age`` (24 h) and ``reset_max_age`` (1 h), in seconds."""
    return {"type": "password", "id": "password", "name": "Password", **_options(options)}


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


__all__ = [
    "Credentials",
    "Password",
    "TikTok",
    "GitHub",
    "Google",
    "Apple",
    "MicrosoftEntraID",
    "Discord",
    "GitLab",
    "Twitter",
    "Facebook",
    "LinkedIn",
    "Slack",
    "Twitch",
    "Spotify",
    "Keycloak",
    "Auth0",
    "Okta",
    "OAuth",
    "OIDC",
    "Email",
    "Passkey",
]
