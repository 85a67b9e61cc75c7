"""The built-in provider helpers: each names its engine provider with its
options as the engine's camelCase keys, the engine takes them all (its
sign-in page lists each with its logo), and an option a provider does not
take is a configuration error."""

from __future__ import annotations

import json
from typing import Any, Callable, Dict

import pytest

import libauth
from conftest import SECRET

HELPERS: Dict[str, Callable[..., Dict[str, Any]]] = {
    "google": libauth.Google,
    "apple": libauth.Apple,
    "microsoft-entra-id": libauth.MicrosoftEntraID,
    "discord": libauth.Discord,
    "gitlab": libauth.GitLab,
    "twitter": libauth.Twitter,
    "facebook": libauth.Facebook,
    "linkedin": libauth.LinkedIn,
    "slack": libauth.Slack,
    "twitch": libauth.Twitch,
    "spotify": libauth.Spotify,
    "keycloak": libauth.Keycloak,
    "auth0": libauth.Auth0,
    "okta": libauth.Okta,
}


def test_each_helper_is_its_builtin_with_camel_case_options() -> None:
    for name, helper in HELPERS.items():
        assert helper(client_id="c", client_secret="s") == {"builtin": name, "clientId": "c", "clientSecret": "s"}
    assert libauth.Google(offline_access=True)["offlineAccess"] is True
    assert libauth.GitLab(base_url="https://git.example.com")["baseUrl"] == "https://git.example.com"
    apple = libauth.Apple(team_id="T", key_id="K", private_key="pem")
    assert apple == {"builtin": "apple", "teamId": "T", "keyId": "K", "privateKey": "pem"}
    # Authorization params are data, kept as written.
    google = libauth.Google(authorization={"params": {"access_type": "offline"}})
    assert google["authorization"] == {"params": {"access_type": "offline"}}


def test_the_engine_takes_every_helper_and_shows_each_logo() -> None:
    issuer = "https://idp.example.com"
    providers = [
        helper(
            client_id=f"{name}-id", client_secret="s", issuer=issuer if name in ("keycloak", "auth0", "okta") else None
        )
        for name, helper in HELPERS.items()
    ]
    auth = libauth.Auth({"secret": SECRET, "trustHost": True, "providers": providers})
    listed = json.loads(auth.handle("GET", "http://localhost:3000/auth/providers", []).body)
    assert sorted(listed) == sorted(HELPERS)
    assert listed["microsoft-entra-id"]["name"] == "Microsoft Entra ID"
    page = auth.handle("GET", "http://localhost:3000/auth/signin", []).body.decode()
    assert page.count("data:image/svg+xml;base64,") == len(HELPERS)


def test_an_option_the_provider_does_not_take_is_refused() -> None:
    provider = libauth.Discord(client_id="c", client_secret="s", offline_access=True)
    with pytest.raises(libauth.InvalidConfig, match="offlineAccess"):
        libauth.Auth({"secret": SECRET, "trustHost": True, "providers": [provider]})
