"""``Auth``: one engine per configuration, built once and shared by every
thread and every request."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import threading
import collections.abc
from dataclasses import dataclass
import typing
from typing import Any, Dict, List, Literal, Optional, Tuple

from . import _native
from ._errors import CallbackRouteError, InvalidConfig, from_engine
from ._host import Dispatcher, compile_config, set_loop

Headers = List[Tuple[str, str]]

#: The password provider's steps host code may call (``Auth.password_action``).
PasswordAction = Literal[
    "signUp", "requestPasswordReset", "resetPassword", "changePassword", "changeEmail", "deleteAccount"
]


class ActionResult(typing.NamedTuple):
    """What a server-side step answers: where the built-in flow goes next,
    and the ``Set-Cookie`` header values to send with your response."""

    url: str
    cookies: List[str]


class Response:
    """An engine response: ``status``, ``headers`` (several ``set-cookie``
    allowed) and ``body`` (bytes: JSON or HTML)."""

    __slots__ = ("status", "headers", "body")

    def __init__(self, status: int, headers: Headers, body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    def __repr__(self) -> str:
        return f"Response(status={self.status}, headers={self.headers!r}, body=<{len(self.body)} bytes>)"


@dataclass(frozen=True)
class Identity:
    """Who a session belongs to, as the engine established it at sign-in:
    ``subject`` (unique per libauth user: the stored user's id, or without
    an adapter ``"<provider>:<account id>"``), ``email``, and
    ``email_verified``: whether that address was ever proven (an email
    link, the provider's own verified claim, ``authorize`` saying so; never
    a passkey sign-up). Match or link host users by email only when
    ``email_verified`` is true."""

    subject: str
    email: Optional[str]
    email_verified: bool


class SessionWithIdentity(Dict[str, Any]):
    """A session dict (exactly what ``get_session`` returns) that also knows
    its ``identity`` (``None`` for a cookie issued without one: by Auth.js,
    or before libauth carried it). Built by the native module, which leaves
    the identity's fields in ``_identity``: the ``Identity`` is made on
    first use, so a request that never asks pays nothing for it."""

    __slots__ = ("_identity",)

    @property
    def identity(self) -> Optional[Identity]:
        raw = getattr(self, "_identity", None)
        if raw is None or isinstance(raw, Identity):
            return raw
        self._identity = found = Identity(*raw)
        return found


def _engine_call(fn: Any, *args: Any) -> Any:
    """Call the native module; engine errors (and a panic, should one slip
    through) become ``AuthError`` subclasses."""
    try:
        return fn(*args)
    except BaseException as e:
        raise _host_error(e) from None


def _host_error(e: BaseException) -> BaseException:
    """What a native call's exception is raised as: engine errors as
    ``AuthError`` subclasses, a panic (should one slip through) as
    ``CallbackRouteError``, anything else as itself."""
    if isinstance(e, _native.EngineError):
        return from_engine(str(e.args[0]) if e.args else "")
    if type(e).__name__ == "PanicException":
        return CallbackRouteError(f"libauth: internal error: {e}")
    return e


class Auth:
    """The engine for one configuration (a dict with the spec's field names:
    ``secret``, ``trustHost``, ``providers``, ``session``, ``callbacks``, …).
    Functions in it (callbacks, events, ``authorize``, a logger, an adapter
    object) become hooks and may be plain functions or ``async def``.

    Raises ``InvalidConfig`` (a ``ValueError``) naming the refused option."""

    def __init__(self, config: collections.abc.Mapping[str, Any]) -> None:
        data, hooks = compile_config(config, _native.compile_config)
        built = _engine_call(_native.create_auth, json.dumps(data), sorted(hooks), Dispatcher(hooks))
        if isinstance(built, tuple):
            option, message, kind = built
            raise InvalidConfig(option, message, kind)
        self._native: Any = built
        self.base_path: str = built.base_path
        self._base_prefix = built.base_path + "/"
        self.max_in_flight: int = built.max_in_flight
        self.session_is_hookless: bool = built.session_is_hookless
        # The read every protected request makes: the native method itself,
        # no Python frame between (it raises the AuthError subclasses
        # itself). The method below documents it.
        self.get_session = built.get_session  # type: ignore[method-assign]
        self.get_session_with_identity = built.get_session_with_identity  # type: ignore[method-assign]
        self._executor: Optional[concurrent.futures.ThreadPoolExecutor] = None
        self._executor_pid = os.getpid()
        self._executor_lock = threading.Lock()

    # -- routes ------------------------------------------------------------

    def is_auth_path(self, path: str) -> bool:
        """Whether ``path`` is under basePath (the engine answers it)."""
        return path == self.base_path or path.startswith(self._base_prefix)

    def handle(
        self,
        method: str,
        url: str,
        headers: Headers,
        body: Optional[bytes] = None,
        remote_address: Optional[str] = None,
    ) -> Response:
        """Answer a request under basePath on this thread (the GIL is
        released while the engine works). ``url`` is absolute, as the client
        saw it. A request that may reach host code is admitted first
        (``hooks.maxInFlight``); past the bound the answer is 503."""
        return Response(*_engine_call(self._native.handle, method, url, headers, body, remote_address))

    def get_session(self, url: str, cookie: Optional[str] = None) -> Optional[Dict[str, Any]]:
        """The session for this request URL and ``Cookie`` header, or ``None``
        for a missing, expired or tampered cookie; on this thread. Raises
        ``AdapterError`` when the database fails, ``Overloaded`` past
        ``hooks.maxInFlight``."""
        # Replaced in __init__ by the native method, which does the same;
        # kept for the documentation and the type.
        return _engine_call(self._native.get_session, url, cookie)  # type: ignore[no-any-return]

    def get_session_with_identity(self, url: str, cookie: Optional[str] = None) -> Optional[SessionWithIdentity]:
        """``get_session``, with the session's ``identity`` beside it (for
        framework integrations that map sessions onto their own users)."""
        # Replaced in __init__ by the native method, as ``get_session``.
        return _engine_call(self._native.get_session, url, cookie, True)  # type: ignore[no-any-return]

    # -- asyncio -------------------------------------------------------------

    def executor(self) -> concurrent.futures.ThreadPoolExecutor:
        """The worker threads for engine work off the event loop, sized by
        ``hooks.maxInFlight`` (threads start on demand)."""
        # A pool made before a fork has no threads in the child: make a new one.
        if self._executor is not None and self._executor_pid != os.getpid():
            self._executor = None
        if self._executor is None:
            with self._executor_lock:
                if self._executor is None:
                    self._executor_pid = os.getpid()
                    self._executor = concurrent.futures.ThreadPoolExecutor(
                        max_workers=self.max_in_flight, thread_name_prefix="libauth"
                    )
        return self._executor

    async def _run_job(self, job: Any) -> Any:
        """Run admitted engine work (a ``NativeJob``) on a worker thread;
        ``async`` hooks are scheduled back on this loop."""
        loop = asyncio.get_running_loop()

        def work() -> Any:
            set_loop(loop)
            try:
                return _engine_call(job.run)
            finally:
                set_loop(None)

        return await loop.run_in_executor(self.executor(), work)

    async def handle_async(
        self,
        method: str,
        url: str,
        headers: Headers,
        body: Optional[bytes] = None,
        remote_address: Optional[str] = None,
    ) -> Response:
        """``handle`` for asyncio, in one engine call on the loop: the
        engine answers at once when no host code can be reached (or with
        503 past ``hooks.maxInFlight``); the rest runs on a worker thread."""
        begun = _engine_call(self._native.begin, method, url, headers, body, remote_address)
        if isinstance(begun, tuple):
            return Response(*begun)
        return Response(*await self._run_job(begun))

    async def get_session_async(self, url: str, cookie: Optional[str] = None) -> Optional[Dict[str, Any]]:
        """``get_session`` for asyncio: inline when hookless, else on a
        worker thread; ``Overloaded`` past ``hooks.maxInFlight``."""
        if self.session_is_hookless:
            return _engine_call(self._native.get_session, url, cookie)  # type: ignore[no-any-return]
        return await self._run_job(_engine_call(self._native.begin_session, url, cookie))  # type: ignore[no-any-return]

    async def get_session_with_identity_async(
        self, url: str, cookie: Optional[str] = None
    ) -> Optional[SessionWithIdentity]:
        """``get_session_with_identity`` for asyncio."""
        if self.session_is_hookless:
            return _engine_call(self._native.get_session, url, cookie, True)  # type: ignore[no-any-return]
        job = _engine_call(self._native.begin_session, url, cookie, True)
        return await self._run_job(job)  # type: ignore[no-any-return]

    def sign_in_url(self, callback_url: str) -> str:
        """The sign-in page's path, sending the user back to ``callback_url``
        afterwards (``/auth/signin?callbackUrl=%2Fdashboard``)."""
        return self._native.sign_in_url(callback_url)  # type: ignore[no-any-return]

    def get_access_token(self, user_id: str, provider: str) -> Optional[Dict[str, Any]]:
        """A valid access token for the user's account with ``provider``, for
        calling the provider's API: ``{"accessToken", "expiresAt",
        "tokenType", "scope"}``, or ``None`` when not linked. Refreshed first
        when it expires within ``tokenRefresh.skew`` (60 s), once however
        many threads (and, with a shared rate-limit store, processes) ask.
        Raises ``RefreshTokenRevoked`` when the provider refuses the stored
        refresh token. Blocks while it refreshes: from asyncio, use
        ``get_access_token_async``."""
        return _engine_call(self._native.get_access_token, user_id, provider)  # type: ignore[no-any-return]

    def list_passkeys(self, user_id: str) -> List[Dict[str, Any]]:
        """The user's passkeys, oldest first (``id``, ``name``, ``createdAt``,
        ``lastUsedAt``, ``deviceType``, ``backedUp``, ``transports``)."""
        return self._passkeys(user_id, {"action": "list"})  # type: ignore[no-any-return]

    def rename_passkey(self, user_id: str, passkey_id: str, name: Optional[str]) -> Dict[str, Any]:
        """Name one of the user's passkeys (``None`` clears it); the renamed passkey."""
        return self._passkeys(user_id, {"action": "rename", "id": passkey_id, "name": name})  # type: ignore[no-any-return]

    def delete_passkey(self, user_id: str, passkey_id: str) -> None:
        """Delete one of the user's passkeys. Raises ``LastSignInMethod`` for
        the user's last way to sign in."""
        self._passkeys(user_id, {"action": "delete", "id": passkey_id})

    def list_sessions(
        self, user_id: str, url: Optional[str] = None, cookie: Optional[str] = None
    ) -> List[Dict[str, Any]]:
        """The user's database sessions, the current one first, then the most
        recently active (``id``, ``createdAt``, ``lastActiveAt``,
        ``expires``, ``userAgent``, ``device``, ``ip`` as its network,
        ``current``). The request's ``url`` and ``Cookie`` header, when
        given, say which session is the caller's. Raises
        ``UnsupportedStrategy`` for JWT sessions."""
        return self._sessions(user_id, {"action": "list"}, url, cookie)  # type: ignore[no-any-return]

    def end_session(self, user_id: str, session_id: str) -> None:
        """End one of the user's sessions by its listed ``id``. Raises
        ``SessionTokenError`` when it is not one of theirs."""
        self._sessions(user_id, {"action": "end", "id": session_id})

    def end_other_sessions(self, user_id: str, url: str, cookie: Optional[str]) -> int:
        """End every session of the user but the one this request's
        ``Cookie`` header carries; how many ended."""
        return int(self._sessions(user_id, {"action": "endOthers"}, url, cookie)["ended"])

    def end_all_sessions(self, user_id: str) -> int:
        """End every session of the user (sign out everywhere); how many ended."""
        return int(self._sessions(user_id, {"action": "endAll"})["ended"])

    def two_factor_status(self, user_id: str) -> Dict[str, Any]:
        """The user's second factor: ``enabled``, ``pending`` (an enrolment
        waits for its first code), ``enabledAt``, ``recoveryCodesLeft``."""
        return self._two_factor(user_id, {"action": "status"})  # type: ignore[no-any-return]

    def begin_totp(self, user_id: str, label: str = "") -> Dict[str, str]:
        """Start turning a TOTP authenticator on: ``uri``, ``secret`` (base32)
        and ``qrSvg`` to show the user (``label``: what the app shows, e.g.
        their address). Nothing is on until ``confirm_totp`` gets a code.
        Raises ``TwoFactorError`` while one is on."""
        return self._two_factor(user_id, {"action": "begin", "label": label})  # type: ignore[no-any-return]

    def confirm_totp(self, user_id: str, code: str) -> List[str]:
        """Turn TOTP on with the app's first code: the ten recovery codes,
        to show once. Raises ``TwoFactorError`` for a wrong code."""
        return list(self._two_factor(user_id, {"action": "confirm", "code": code})["recoveryCodes"])

    def verify_second_factor(self, user_id: str, code: str) -> str:
        """Check a code from the app or a recovery code (used up):
        ``"totp"`` or ``"recoveryCode"``; each is accepted once. Raises
        ``TwoFactorError``."""
        return str(self._two_factor(user_id, {"action": "verify", "code": code})["factor"])

    def regenerate_recovery_codes(self, user_id: str, code: str) -> List[str]:
        """New recovery codes after a code (the unused ones stop working)."""
        return list(self._two_factor(user_id, {"action": "recoveryCodes", "code": code})["recoveryCodes"])

    def disable_totp(self, user_id: str, code: str) -> None:
        """Turn TOTP off, after a code from the app or a recovery code."""
        self._two_factor(user_id, {"action": "disable", "code": code})

    def _two_factor(self, user_id: str, call: Dict[str, Any]) -> Any:
        return _engine_call(self._native.two_factor, user_id, json.dumps(call))

    def _sessions(
        self, user_id: str, call: Dict[str, Any], url: Optional[str] = None, cookie: Optional[str] = None
    ) -> Any:
        if cookie is not None:
            call = {**call, "url": url, "cookie": cookie}
        return _engine_call(self._native.sessions, user_id, json.dumps(call))

    def sign_in(
        self,
        provider: str,
        url: str,
        headers: collections.abc.Sequence[Tuple[str, str]],
        fields: collections.abc.Mapping[str, str],
        remote_address: Optional[str] = None,
    ) -> ActionResult:
        """Sign in from server code (a form of your own), as the sign-in route
        would: ``fields`` are what the form submitted (``email`` and
        ``password`` for the password provider, the credentials provider's
        fields, ``callbackUrl``). Returns where to go next and the
        ``Set-Cookie`` values to send; raises ``CredentialsSignin`` (with its
        ``code``) or another ``AuthError``. No CSRF token is asked for (use
        your framework's); a request from another site is refused. Pass the
        client's ``remote_address``: rate limits count failed sign-ins by it."""
        redirect, cookies = _engine_call(
            self._native.sign_in, provider, json.dumps(dict(fields)), "POST", url, list(headers), remote_address
        )
        return ActionResult(redirect, cookies)

    def password_action(
        self,
        action: PasswordAction,
        url: str,
        headers: collections.abc.Sequence[Tuple[str, str]],
        fields: collections.abc.Mapping[str, str],
        remote_address: Optional[str] = None,
    ) -> ActionResult:
        """A step of the password provider from server code (a form of your
        own): ``"signUp"`` (``email``, ``password``, ``name``),
        ``"requestPasswordReset"`` (``email``), ``"resetPassword"``
        (``token``, ``email``, ``password``), ``"changePassword"``
        (``currentPassword``, ``newPassword``), ``"changeEmail"``
        (``currentPassword``, ``newEmail``) and ``"deleteAccount"``
        (``currentPassword``). ``url`` and ``headers`` are the request's (its
        cookies name the signed-in user). Returns where the built-in flow goes
        next and the ``Set-Cookie`` values to send. Raises
        ``PasswordRefused``, ``InvalidEmail``, ``CredentialsSignin`` (a wrong
        current password), ``Verification`` (a bad reset token) or
        ``RateLimited``; no CSRF token is asked for (use your framework's)."""
        redirect, cookies = _engine_call(
            self._native.password_action,
            action,
            json.dumps(dict(fields)),
            "POST",
            url,
            list(headers),
            remote_address,
        )
        return ActionResult(redirect, cookies)

    def _passkeys(self, user_id: str, call: Dict[str, Any]) -> Any:
        return _engine_call(self._native.passkeys, user_id, json.dumps(call))

    async def get_access_token_async(self, user_id: str, provider: str) -> Optional[Dict[str, Any]]:
        """``get_access_token`` on a worker thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor(), self.get_access_token, user_id, provider)

    def close(self) -> None:
        """Stop the worker threads (they also stop with the process)."""
        if self._executor is not None:
            self._executor.shutdown(wait=False)
