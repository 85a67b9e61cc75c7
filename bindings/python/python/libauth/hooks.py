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

from typing import Any, Awaitable, Dict, Optional, Protocol, TypedDict, Union

__all__ = [
    "User", "Account", "Session", "JWT", "Request",
    "SignInCallback", "RedirectCallback", "JwtCallback", "SessionCallback", "Authorize",
    "SignInEvent", "SignOutEvent", "UserEvent", "LinkAccountEvent", "SessionEvent", "RateLimitedEvent",
    "RefreshTokenRevokedEvent",
]


class User(TypedDict, total=False):
    id: str
    name: Optional[str]
    email: Optional[str]
    image: Optional[str]
    emailVerified: Optional[str]


class Account(TypedDict, total=False):
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


class Session(TypedDict, total=False):
    user: User
    expires: str


#: The session token's claims (``name``, ``email``, ``picture``, ``sub``, and
#: whatever the jwt callback adds).
JWT = Dict[str, Any]


class Request(TypedDict):
    """The request a hook sees: method, absolute URL, headers (lowercase names)."""

    method: str
    url: str
    headers: Dict[str, str]


_R = Union[Any, Awaitable[Any]]


class SignInCallback(Protocol):
    def __call__(
        self, *, user: User, account: Optional[Account], profile: Optional[Dict[str, Any]],
        email: Optional[Dict[str, Any]], credentials: Optional[Dict[str, Any]],
    ) -> Union[bool, str, Awaitable[Union[bool, str]]]: ...


class RedirectCallback(Protocol):
    def __call__(self, *, url: str, base_url: str) -> Union[str, Awaitable[str]]: ...


class JwtCallback(Protocol):
    def __call__(
        self, *, token: JWT, user: Optional[User], account: Optional[Account], profile: Optional[Dict[str, Any]],
        trigger: Optional[str], is_new_user: Optional[bool], session: Optional[Any],
    ) -> Union[Optional[JWT], Awaitable[Optional[JWT]]]: ...


class SessionCallback(Protocol):
    def __call__(
        self, *, session: Session, token: Optional[JWT], user: Optional[User], new_session: Optional[Any],
        trigger: Optional[str],
    ) -> Union[Session, Dict[str, Any], Awaitable[Union[Session, Dict[str, Any]]]]: ...


class Authorize(Protocol):
    def __call__(
        self, *, credentials: Dict[str, Any], request: Request
    ) -> Union[Optional[Dict[str, Any]], Awaitable[Optional[Dict[str, Any]]]]: ...


class SignInEvent(Protocol):
    def __call__(
        self, *, user: User, account: Optional[Account], profile: Optional[Dict[str, Any]], is_new_user: Optional[bool]
    ) -> _R: ...


class SignOutEvent(Protocol):
    def __call__(self, *, session: Optional[Dict[str, Any]], token: Optional[JWT]) -> _R: ...


class UserEvent(Protocol):
    """``events.createUser`` and ``events.updateUser``."""

    def __call__(self, *, user: User) -> _R: ...


class LinkAccountEvent(Protocol):
    def __call__(self, *, user: User, account: Account, profile: Optional[Dict[str, Any]]) -> _R: ...


class SessionEvent(Protocol):
    def __call__(self, *, session: Session, token: Optional[JWT]) -> _R: ...


class RateLimitedEvent(Protocol):
    def __call__(self, *, route: str, key: str, limit: int, window: int, retry_after: int) -> _R: ...


class RefreshTokenRevokedEvent(Protocol):
    def __call__(self, *, user_id: str, provider: str, provider_account_id: str) -> _R: ...
