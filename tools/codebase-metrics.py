#!/usr/bin/env python3
"""The shape of the tuner's source: what a newcomer meets first.

Prints, for tuner/ (or the folder given):
  - files and lines per folder;
  - the largest files (lines);
  - the largest functions (lines, from Universal Ctags' start and end lines; lambdas folded
    into the function that holds them) and the median function length;
  - classes with the most methods;
  - include layers: each folder's quoted includes of other folders (a folder that includes
    nothing above its layer is a layer), and any include cycle between folders.

Usage: python3 tools/codebase-metrics.py [ROOT]   (ROOT defaults to tuner/src)
Needs: universal-ctags (Debian: universal-ctags). Figures are line counts, not statements.
"""
import collections
import json
import os
import re
import statistics
import subprocess
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else "tuner/src"
SOURCES = sorted(
    os.path.join(d, f)
    for d, _, fs in os.walk(ROOT)
    for f in fs
    if f.endswith((".cpp", ".hpp", ".h"))
)


def folder(path):
    rel = os.path.relpath(os.path.dirname(path), ROOT)
    return "." if rel == "." else rel


def lines(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return sum(1 for _ in f)


sizes = {p: lines(p) for p in SOURCES}
per_folder = collections.defaultdict(lambda: [0, 0])
for p, n in sizes.items():
    per_folder[folder(p)][0] += 1
    per_folder[folder(p)][1] += n
print(f"# {ROOT}: {len(SOURCES)} files, {sum(sizes.values())} lines, {len(per_folder)} folders")
for f, (count, n) in sorted(per_folder.items()):
    print(f"  {f:<12} {count:>3} files {n:>6} lines")

print("\n# largest files (lines)")
for p, n in sorted(sizes.items(), key=lambda kv: -kv[1])[:10]:
    print(f"  {n:>5}  {os.path.relpath(p, ROOT)}")

tags = subprocess.run(
    ["ctags", "--output-format=json", "--c++-kinds=fp", "--fields=+neS", "--kinds-c++=+f", "-o", "-"] + SOURCES,
    capture_output=True, text=True, check=True).stdout
functions = []
methods = collections.Counter()
for line in tags.splitlines():
    t = json.loads(line)
    if t.get("kind") != "function" or "end" not in t or t["name"].startswith("__anon"):
        continue
    scope = t.get("scope", "")
    if t.get("scopeKind") == "function":
        continue  # a lambda or local function: counted in its enclosing function
    functions.append((t["end"] - t["line"] + 1, f"{os.path.relpath(t['path'], ROOT)}:{t['line']} {t['name']}"))
    if t.get("scopeKind") in ("class", "struct"):
        methods[scope.split("::")[-1] if "__anon" not in scope.split("::")[-1] else scope] += 1
functions.sort(reverse=True)
print(f"\n# functions: {len(functions)}, median {statistics.median(n for n, _ in functions):.0f} lines; largest")
for n, where in functions[:12]:
    print(f"  {n:>4}  {where}")
print("\n# classes with the most methods defined in their body or out of line")
for cls, n in methods.most_common(6):
    print(f"  {n:>3}  {cls}")

include = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
edges = collections.defaultdict(set)
names = {os.path.relpath(p, ROOT): p for p in SOURCES}
by_base = collections.defaultdict(list)
for rel in names:
    by_base[os.path.basename(rel)].append(rel)
for rel, p in names.items():
    with open(p, encoding="utf-8", errors="replace") as f:
        for text in f:
            m = include.match(text)
            if not m:
                continue
            target = m.group(1)
            hit = target if target in names else (by_base.get(os.path.basename(target)) or [None])[0]
            if hit and folder(names[hit]) != folder(p):
                edges[folder(p)].add(folder(names[hit]))
print("\n# folders and the folders they include")
for f in sorted(per_folder):
    print(f"  {f:<12} -> {', '.join(sorted(edges.get(f, ()))) or '(none)'}")
# Layers: repeatedly peel the folders whose includes are all already placed.
placed, layers, left = set(), [], set(per_folder)
while left:
    layer = {f for f in left if edges.get(f, set()) - {f} <= placed}
    if not layer:
        print(f"  include cycle among: {', '.join(sorted(left))}")
        break
    layers.append(sorted(layer))
    placed |= layer
    left -= layer
print("\n# include layers, bottom first")
for i, layer in enumerate(layers):
    print(f"  {i}: {', '.join(layer)}")
