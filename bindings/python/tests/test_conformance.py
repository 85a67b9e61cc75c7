"""The host conventions, checked against the vectors every language shares
(tests/fixtures/hook-conformance.json): each hook kind receives the same
arguments (``datetime``, the request record, an ``AuthError`` where the
engine says), and its answer (or its error) has the same effect on what the
engine reads."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any, Dict, List

import pytest

import libauth
from libauth import _native

VECTORS = json.loads((Path(__file__).parents[3] / "tests" / "fixtures" / "hook-conformance.json").read_text())
CASES: List[Dict[str, Any]] = VECTORS["cases"]


def normalise(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return {"$date": value.astimezone(dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")}
    if isinstance(value, libauth.AuthError):
        cause = value.__cause__
        return {"$error": {"type": value.type, "message": str(value), "cause": str(cause) if cause else None}}
    if isinstance(value, list):
        return [normalise(v) for v in value]
    if isinstance(value, dict):
        if set(value) == {"method", "url", "headers"}:
            return {"$request": value}
        return {k: normalise(v) for k, v in value.items()}
    return value


def revive(value: Any) -> Any:
    if isinstance(value, list):
        return [revive(v) for v in value]
    if isinstance(value, dict):
        if isinstance(value.get("$date"), str):
            return dt.datetime.fromisoformat(value["$date"].replace("Z", "+00:00"))
        return {k: revive(v) for k, v in value.items()}
    return value


def snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def expected_keywords(case: Dict[str, Any]) -> Dict[str, Any]:
    """What a ``**kwargs`` hook receives: every parameter by its snake_case
    name (absent ones ``None``), and any other key the engine sent."""
    received = case["received"]
    keywords = case["keywords"]
    values = (
        dict(received[0]) if len(received) == 1 and isinstance(received[0], dict) else dict(zip(keywords, received))
    )
    out = {snake(k): values.pop(k, None) for k in keywords}
    out.update({snake(k): v for k, v in values.items()})
    return out


class Recorder:
    case: Dict[str, Any] = {}
    received: Any = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        Recorder.received = normalise(kwargs) if kwargs else normalise(list(args))
        throws = self.case.get("throws")
        if throws:
            cls = libauth.CredentialsSignin if throws["type"] == "CredentialsSignin" else libauth.AuthError
            error = cls(throws["message"])
            if throws.get("code"):
                error.code = throws["code"]
            raise error
        return revive(self.case["reply"])


@pytest.fixture(scope="module")
def native() -> Any:
    hook = Recorder()
    config: Dict[str, Any] = {
        "secret": "libauth-conformance-secret-0123456789",
        "trustHost": True,
        "callbacks": {},
        "events": {},
        "logger": {},
        "jwt": {},
        "session": {},
    }
    adapter: Dict[str, Any] = {}
    for name in {c["hook"] for c in CASES}:
        group, rest = name.split(".", 1)
        if group == "adapter":
            adapter[rest] = hook
        elif group != "providers":
            config[group][rest] = hook
    config["adapter"] = adapter
    config["providers"] = [
        {"type": "credentials", "credentials": {}, "authorize": hook},
        {"type": "email", "sendVerificationRequest": hook},
        {"builtin": "github", "clientId": "id", "clientSecret": "secret", "profile": hook},
        {"type": "webauthn", "getUserInfo": hook},
    ]
    config["experimental"] = {"enableWebAuthn": True}
    return libauth.Auth(config)._native


@pytest.mark.parametrize("case", CASES, ids=[c["hook"] + (" throws" if c.get("throws") else "") for c in CASES])
def test_every_hook_kind_as_the_vectors_say(native: Any, case: Dict[str, Any]) -> None:
    Recorder.case = case
    Recorder.received = None
    try:
        decoded = json.loads(native.call_hook(case["hook"], json.dumps(case["engineArgs"])))
    except _native.EngineError as e:
        assert case.get("throws"), e
        error = json.loads(e.args[0])
        assert {k: error.get(k) for k in ("type", "message", "code")} == {
            k: case["throws"].get(k) for k in ("type", "message", "code")
        }
    else:
        assert not case.get("throws")
        assert decoded == case["decoded"]
    if case.get("keywords"):
        assert Recorder.received == expected_keywords(case)
    else:
        assert Recorder.received == case["received"]
