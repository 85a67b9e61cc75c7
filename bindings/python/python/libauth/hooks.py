"""Types for the functions a config holds: each callback, event and
``authorize`` as a ``Protocol`` (called with keyword arguments, Auth.js's
names in snake_case, absent ones ``None``), and the values they see as
``TypedDict``s. For annotations and type checkers only: the engine reads
nothing here.

    from libauth.hooks import JWT, Session

    def jwt(*, token: JWT, trigger: str | None = None, **_: object) -> JWT: ...
    def session(*, session: Session, token: JWT, **_: object) -> Session: ...
"""

from __future__ import annotations

import datetime as _dt
import typing as _t

__all__ = [
    "User",
    "Account",
    "Session",
    "Authenticator",
    "JWT",
    "Request",
    "SignInCallback",
    "RedirectCallback",
    "JwtCallback",
    "SessionCallback",
    "Authorize",
    "SignInEvent",
    "SignOutEvent",
    "UserEvent",
    "LinkAccountEvent",
    "SessionEvent",
    "RateLimitedEvent",
    "RefreshTokenRevokedEvent",
]


class User(_t.TypedDict, total=False):
    id: str
    name: _t.Optional[str]
    email: _t.Optional[str]
    image: _t.Optional[str]
    emailVerified: _t.Optional[str]


class Account(_t.TypedDict, total=False):
    userId: str
    type: str
    provider: str
    providerAccountId: str
    access_token: str
    refresh_token: str
    expires_at: int
    token_type: str
    scope: str
    id_token: str


class Session(_t.TypedDict, total=False):
    user: User
    expires: str


class Authenticator(_t.TypedDict, total=False):
    """A passkey as a host adapter's passkey methods take and return it
    (``get_authenticator``, ``create_authenticator``,
    ``list_authenticators_by_user_id``, ``update_authenticator_counter``,
    ``rename_authenticator``, ``delete_authenticator``): Auth.js's
    ``AdapterAuthenticator`` plus ``name``, ``createdAt`` and ``lastUsedAt``
    (``None`` in rows Auth.js wrote)."""

    credentialID: str
    userId: str
    providerAccountId: str
    credentialPublicKey: str
    counter: int
    credentialDeviceType: str
    credentialBackedUp: bool
    transports: _t.Optional[str]
    name: _t.Optional[str]
    createdAt: _t.Optional[_dt.datetime]
    lastUsedAt: _t.Optional[_dt.datetime]


#: The session token's claims (``name``, ``email``, ``picture``, ``sub``, and
#: whatever the jwt callback adds).
JWT = _t.Dict[str, _t.Any]


class Request(_t.TypedDict):
    """The request a hook sees: method, absolute URL, headers (lowercase names)."""

    method: str
    url: str
    headers: _t.Dict[str, str]


_R = _t.Union[_t.Any, _t.Awaitable[_t.Any]]


class SignInCallback(_t.Protocol):
    def __call__(
        self,
        *,
        user: User,
        account: _t.Optional[Account],
        profile: _t.Optional[_t.Dict[str, _t.Any]],
        email: _t.Optional[_t.Dict[str, _t.Any]],
        credentials: _t.Optional[_t.Dict[str, _t.Any]],
    ) -> _t.Union[bool, str, _t.Awaitable[_t.Union[bool, str]]]: ...


class RedirectCallback(_t.Protocol):
    def __call__(self, *, url: str, base_url: str) -> _t.Union[str, _t.Awaitable[str]]: ...


class JwtCallback(_t.Protocol):
    def __call__(
        self,
        *,
        token: JWT,
        user: _t.Optional[User],
        account: _t.Optional[Account],
        profile: _t.Optional[_t.Dict[str, _t.Any]],
        trigger: _t.Optional[str],
        is_new_user: _t.Optional[bool],
        session: _t.Optional[_t.Any],
    ) -> _t.Union[_t.Optional[JWT], _t.Awaitable[_t.Optional[JWT]]]: ...


class SessionCallback(_t.Protocol):
    def __call__(
        self,
        *,
        session: Session,
        token: _t.Optional[JWT],
        user: _t.Optional[User],
        new_session: _t.Optional[_t.Any],
        trigger: _t.Optional[str],
    ) -> _t.Union[Session, _t.Dict[str, _t.Any], _t.Awaitable[_t.Union[Session, _t.Dict[str, _t.Any]]]]: ...


class Authorize(_t.Protocol):
    def __call__(
        self, *, credentials: _t.Dict[str, _t.Any], request: Request
    ) -> _t.Union[_t.Optional[_t.Dict[str, _t.Any]], _t.Awaitable[_t.Optional[_t.Dict[str, _t.Any]]]]: ...


class SignInEvent(_t.Protocol):
    def __call__(
        self,
        *,
        user: User,
        account: _t.Optional[Account],
        profile: _t.Optional[_t.Dict[str, _t.Any]],
        is_new_user: _t.Optional[bool],
    ) -> _R: ...


class SignOutEvent(_t.Protocol):
    def __call__(self, *, session: _t.Optional[_t.Dict[str, _t.Any]], token: _t.Optional[JWT]) -> _R: ...


class UserEvent(_t.Protocol):
    """``events.createUser`` and ``events.updateUser``."""

    def __call__(self, *, user: User) -> _R: ...


class LinkAccountEvent(_t.Protocol):
    def __call__(self, *, user: User, account: Account, profile: _t.Optional[_t.Dict[str, _t.Any]]) -> _R: ...


class SessionEvent(_t.Protocol):
    def __call__(self, *, session: Session, token: _t.Optional[JWT]) -> _R: ...


class RateLimitedEvent(_t.Protocol):
    def __call__(self, *, route: str, key: str, limit: int, window: int, retry_after: int) -> _R: ...


class RefreshTokenRevokedEvent(_t.Protocol):
    def __call__(self, *, user_id: str, provider: str, provider_account_id: str) -> _R: ...
