#!/usr/bin/env python3
"""Check the documentation: every relative link and #anchor in README.md,
docs/*.md, bench/RESULTS.md and the packages' READMEs must resolve to an
existing file or directory, and an anchor to a heading (or an explicit
<a id>/<a name>) of the page it points at, named as GitHub names it. And
every Rust example (a ```rust block) must be in a page that core/src/lib.rs
includes as doctests, so that it is compiled and run.

    python3 scripts/check-docs.py          (run by scripts/test.sh)

Prints each broken link as path:line, then "docs: N passed, N failed" (one
check per page, plus the doctest check); exits 1 on any failure.
Standard library only.
"""

from __future__ import annotations

import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import Dict, Iterator, List, Set, Tuple
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parent.parent
PAGES = ["README.md", "docs/*.md", "docs/providers/*.md", "bench/RESULTS.md", "bindings/node/README.md", "bindings/python/README.md"]
DOCTEST_SOURCE = ROOT / "core/src/lib.rs"

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
INLINE_CODE = re.compile(r"(`+)(.+?)\1")
LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")  # http:, https:, mailto:, …


def walk(text: str) -> Iterator[Tuple[int, str, str, str]]:
    """(line number, line, kind, the block's language) of every line: kind is
    "text" outside fenced code blocks, "open" on a block's opening fence,
    "code" inside a block or on its closing fence."""
    fence = None
    lang = ""
    for number, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if fence is None and m:
            fence, lang = m.group(1), m.group(2)
            yield number, line, "open", lang
        elif fence is not None:
            stripped = line.strip()
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                fence = None
            yield number, line, "code", lang
        else:
            yield number, line, "text", ""


def lines_outside_code(text: str) -> List[Tuple[int, str]]:
    return [(number, line) for number, line, kind, _ in walk(text) if kind == "text"]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text (links and code reduced to
    their text), lowercased, punctuation dropped, spaces made hyphens."""
    text = LINK.sub(lambda m: m.group(1), heading)
    text = INLINE_CODE.sub(lambda m: m.group(2), text)
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


@lru_cache(maxsize=None)
def anchors(path: Path) -> Set[str]:
    seen: Dict[str, int] = {}
    found: Set[str] = set()
    for _, line in lines_outside_code(path.read_text(encoding="utf-8")):
        found.update(HTML_ANCHOR.findall(line))
        m = HEADING.match(line)
        if not m:
            continue
        base = slug(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def check_page(page: Path) -> List[str]:
    errors = []
    rel = page.relative_to(ROOT)
    for number, line in lines_outside_code(page.read_text(encoding="utf-8")):
        # Links inside inline code are examples, not links.
        for m in LINK.finditer(INLINE_CODE.sub(lambda c: "x" * len(c.group(0)), line)):
            target = m.group(2)
            if not target or EXTERNAL.match(target):
                continue
            path_part, _, anchor = target.partition("#")
            dest = (page.parent / unquote(path_part)).resolve() if path_part else page
            where = f"{rel}:{number}: ({target})"
            try:
                dest.relative_to(ROOT)
            except ValueError:
                errors.append(f"{where} points outside the repository")
                continue
            if not dest.exists():
                errors.append(f"{where} no such file or directory: {dest.relative_to(ROOT)}")
                continue
            if anchor and dest.suffix == ".md" and unquote(anchor).lower() not in anchors(dest):
                errors.append(f"{where} no heading #{anchor} in {dest.relative_to(ROOT)}")
            elif anchor and dest.suffix != ".md":
                errors.append(f"{where} an anchor into a file that is not Markdown cannot be checked")
    return errors


def rust_examples_outside_doctests(pages: List[Path]) -> List[str]:
    included = {
        (DOCTEST_SOURCE.parent / p).resolve()
        for p in re.findall(r'include_str!\("([^"]+\.md)"\)', DOCTEST_SOURCE.read_text(encoding="utf-8"))
    }
    return [
        f"{page.relative_to(ROOT)}:{number}: a Rust example in a page that core/src/lib.rs "
        f"does not include as doctests: include the page there"
        for page in pages
        if page not in included
        for number, _, kind, lang in walk(page.read_text(encoding="utf-8"))
        if kind == "open" and lang == "rust"
    ]


def main() -> int:
    pages = sorted({p.resolve() for pattern in PAGES for p in ROOT.glob(pattern)})
    results = [check_page(page) for page in pages] + [rust_examples_outside_doctests(pages)]
    for errors in results:
        for e in errors:
            print(e)
    failed = sum(1 for errors in results if errors)
    print(f"docs: {len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
