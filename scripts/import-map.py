#!/usr/bin/env python3
"""The import map of core/src: which module uses which, its circles, and
the arrows that point up (from a foundation module to one built on it).

A module is a file (`routes::callback`, `store::sqlite`, `lib` for lib.rs);
a reference is any `crate::`, `super::` or `self::` path in a file naming
another file's module, or, in lib.rs, a `<module>::` path. A module's own
children and its ancestors are structure, not dependencies. Tests
(`#[cfg(test)]` blocks) are left out. A circle is a strongly connected
set of two or more modules. An upward arrow goes from a module in a lower
layer (LAYERS, first is lowest) to one in a higher layer.

Usage: scripts/import-map.py [core/src]   (prints edges, circles, upward arrows)
"""
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "core", "src")

# Lowest first: what a module may use is its own layer or a lower one.
LAYERS = [
    # Foundations: no engine concepts.
    {"time", "random", "error", "redirect", "outbound", "pool"},
    # The engine's vocabulary: hooks, requests, cookies, tokens, config, storage.
    {"host", "http", "cookies", "csrf", "jwt", "identity", "config", "session_cache", "store", "adapter", "redis_pool"},
    # What the routes are made of: providers, OAuth, email, pages, limits.
    {"providers", "oauth", "email", "pages", "webauthn", "ratelimit", "callbacks", "logger", "conventions"},
    # The engine itself: sessions, routes, and the `impl Auth` modules.
    {"session", "tokens", "passkeys", "admission", "setup", "routes", "lib"},
]
LAYER = {m: i for i, layer in enumerate(LAYERS) for m in layer}


def strip_tests(text):
    out, depth, skipping = [], 0, False
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if not skipping and line.strip().startswith("#[cfg(test)]"):
            skipping, depth, started = True, 0, False
            i += 1
            continue
        if skipping:
            depth += line.count("{") - line.count("}")
            if "{" in line:
                started = True
            if started and depth <= 0:
                skipping = False
            i += 1
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def module_of(path):
    """`routes::callback` for core/src/routes/callback.rs, `store` for
    core/src/store/mod.rs, `lib` for lib.rs."""
    rel = os.path.relpath(path, ROOT)[:-3].split(os.sep)
    if rel[-1] == "mod":
        rel = rel[:-1]
    return "::".join(rel) if rel != ["lib"] else "lib"


def resolve(path, modules):
    """The longest known module that `path` (a list of names) starts with."""
    for n in range(len(path), 0, -1):
        name = "::".join(path[:n])
        if name in modules:
            return name
    return None


def references(text, here, modules):
    """Every module the text names through `crate::`, `super::` or `self::`
    paths (with `{…}` groups expanded one level)."""
    found = set()
    parent = here.split("::")[:-1] if here != "lib" else []
    own = here.split("::") if here != "lib" else []
    for m in re.finditer(r"\b(crate|super|self)((?:::\w+)*)(?:::\{([^}]*)\})?", text):
        base = {"crate": [], "super": parent, "self": own}[m.group(1)]
        path = base + [p for p in m.group(2).split("::") if p]
        heads = [path]
        if m.group(3):
            heads = [path + re.findall(r"\w+", item)[:1] for item in m.group(3).split(",") if item.strip()]
        for h in heads:
            target = resolve(h, modules)
            if target:
                found.add(target)
    if here == "lib":
        for name in re.findall(r"\b(\w+)::", text):
            if name in modules:
                found.add(name)
    return found


def main():
    modules = set()
    for dirpath, _, files in os.walk(ROOT):
        for f in files:
            if f.endswith(".rs"):
                modules.add(module_of(os.path.join(dirpath, f)))
    edges = set()
    for dirpath, _, files in os.walk(ROOT):
        for f in files:
            if not f.endswith(".rs"):
                continue
            path = os.path.join(dirpath, f)
            src = module_of(path)
            text = strip_tests(open(path, encoding="utf-8").read())
            text = re.sub(r"//[^\n]*", "", text)
            for t in references(text, src, modules):
                # A module's own children and its parent's re-exports are
                # structure, not dependencies.
                if t != src and not t.startswith(src + "::") and not src.startswith(t + "::"):
                    edges.add((src, t))
    # Strongly connected components (Tarjan).
    graph = {m: sorted(t for s, t in edges if s == m) for m in modules}
    index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for m in sorted(modules):
        if m not in index:
            visit(m)
    def layer(m):
        return LAYER.get(m.split("::")[0])

    upward = sorted((s, t) for s, t in edges if layer(s) is not None and layer(t) is not None and layer(s) < layer(t))
    print(f"modules: {len(modules)}, arrows: {len(edges)}")
    for s, t in sorted(edges):
        print(f"  {s} -> {t}")
    print(f"circles: {len(sccs)}")
    for c in sccs:
        print("  " + " <-> ".join(c))
    print(f"upward arrows: {len(upward)}")
    for s, t in upward:
        print(f"  {s} -> {t}")


main()
