"""The documentation's Python, checked where it is written: the Flask
examples of the README and of this package's README run as written (under
Flask's test client) and sign in or answer; every ```python block of
README.md, docs/*.md and this package's README compiles."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

from conftest import SECRET

ROOT = Path(__file__).resolve().parents[3]
PAGES = ["README.md", *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")), "bindings/python/README.md"]


def blocks(page: str) -> List[Tuple[int, str]]:
    """(line, code) of every ```python block of a page."""
    found: List[Tuple[int, str]] = []
    open_at: Optional[int] = None
    lang = ""
    lines: List[str] = []
    for number, text in enumerate((ROOT / page).read_text(encoding="utf-8").split("\n"), 1):
        if open_at is None:
            m = re.match(r"^```(\w*)\s*$", text)
            if m:
                open_at, lang, lines = number, m.group(1), []
        elif re.match(r"^```\s*$", text):
            if lang == "python":
                found.append((open_at, "\n".join(lines)))
            open_at = None
        else:
            lines.append(text)
    return found


def example(page: str, marker: str) -> str:
    matching = [code for _, code in blocks(page) if marker in code]
    assert len(matching) == 1, f"{page}: one python block containing {marker!r}"
    return matching[0]


def run(code: str) -> Dict[str, Any]:
    namespace: Dict[str, Any] = {"__name__": "docs_example"}
    exec(compile(code, "<example>", "exec"), namespace)
    return namespace


@pytest.mark.parametrize("page,line,code", [(p, line, code) for p in PAGES for line, code in blocks(p)])
def test_python_blocks_compile(page: str, line: int, code: str) -> None:
    compile(code, f"{page}:{line}", "exec")


def sign_in(client: Any, username: str, password: str) -> Any:
    token = client.get("/auth/csrf").get_json()["csrfToken"]
    return client.post(
        "/auth/callback/credentials", data={"csrfToken": token, "username": username, "password": password}
    )


def test_readme_flask_example(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUTH_SECRET", SECRET)
    monkeypatch.delenv("AUTH_TRUST_HOST", raising=False)  # the example's own trustHost
    app = run(example("README.md", "import flask"))["app"]

    visitor = app.test_client()
    before = visitor.get("/dashboard")
    assert before.status_code == 302 and before.headers["location"] == "/auth/signin"

    wrong = app.test_client()
    sign_in(wrong, "demo", "not-the-password")
    assert wrong.get("/dashboard").status_code == 302

    user = app.test_client()
    assert sign_in(user, "demo", "demo").status_code == 302
    page = user.get("/dashboard")
    assert page.status_code == 200 and page.get_data(as_text=True) == "Hello Demo"


def test_package_readme_example(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUTH_SECRET", SECRET)
    monkeypatch.setenv("AUTH_URL", "http://localhost")
    monkeypatch.setenv("AUTH_GITHUB_ID", "readme-client-id")
    monkeypatch.setenv("AUTH_GITHUB_SECRET", "readme-client-secret")
    monkeypatch.delenv("AUTH_TRUST_HOST", raising=False)
    app = run(example("bindings/python/README.md", "import flask"))["app"]

    client = app.test_client()
    home = client.get("/")
    assert home.status_code == 200 and 'href="/auth/signin"' in home.get_data(as_text=True)
    providers = client.get("/auth/providers").get_json()
    assert providers["github"]["signinUrl"] == "http://localhost/auth/signin/github"
