#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# Every path a document or a comment cites names a file or folder that
# exists: in the repository, or MPICH's own in the prepared MPICH tree.
# Our folders are copied to other places in that tree (autogen.sh's
# overlay_map); a path there is cited by its repository path, except on a
# line that names both (the tables that map one to the other). Makefile
# fragments, subconfigure.m4 and the patches cite the tree, and
# docs/CHANGES.md the paths of its time: they are not read.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
exec python3 - "$top" <<'EOF'
import os, re, subprocess, sys

top = sys.argv[1]
tree = os.path.join(top, "build", "mpich-4.0.2")
have_tree = os.path.isdir(tree)

# repository folder -> its place in the MPICH tree, as autogen.sh maps them
overlay = []
text = open(os.path.join(top, "autogen.sh")).read()
m = re.search(r'overlay_map="([^"]*)"', text)
for pair in m.group(1).split():
    repo, dest = pair.split(":")
    if repo != dest:
        overlay.append((repo, dest))

files = subprocess.run(["git", "-C", top, "ls-files"], capture_output=True, text=True,
                       check=True).stdout.split()
skip = re.compile(r"(\.patch$|(^|/)Makefile\.mk$|(^|/)subconfigure\.m4$|^docs/CHANGES\.md$|"
                  r"^autogen\.sh$|^mpich-patches/series$|^test/fuzz/corpus/|\.(png|svg|gz|xz)$)")
built = re.compile(r"^(build[^/]*|install[^/]*|test/ftmpi/bin[^/]*|bench/(bin|results)|"
                   r"examples/bin|test/soak/logs|test/fuzz/(bin|out))(/|$)")
cited = re.compile(r"(?<![A-Za-z0-9_./$-])((?:src|test|docs|examples|bench|toolkit|mpich-patches)"
                   r"/[A-Za-z0-9_.+/-]*[A-Za-z0-9_])")

def exists(path):
    return os.path.exists(os.path.join(top, path))

stale = []
checked = 0
for f in files:
    if skip.search(f):
        continue
    try:
        lines = open(os.path.join(top, f), encoding="utf-8").read().split("\n")
    except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
        continue
    for n, line in enumerate(lines, 1):
        for match in cited.finditer(line):
            p = match.group(1).rstrip(".")
            after = line[match.start(1) + len(p):match.start(1) + len(p) + 2].lstrip("-")[:1]
            # a pattern (attack_*.sh, run-{a,b}), a placeholder (PROGRAM.c),
            # or what was built
            if after in ("*", "<", "{", "[") or re.search(r"(^|/)[A-Z]{3,}(\.|/|$)", p) or \
                    built.search(p):
                continue
            checked += 1
            moved = [r for r, d in overlay if p == d or p.startswith(d + "/")]
            if moved:
                if not any(r in line for r in moved):
                    stale.append(f"{f}:{n}: {p} (in the repository: {moved[0]})")
                continue
            # a program is cited by the name of its source
            if any(exists(p + ext) for ext in ("", ".c", ".cxx", ".f90", ".f")):
                continue
            if not have_tree or os.path.exists(os.path.join(tree, p)):
                continue
            stale.append(f"{f}:{n}: {p}")

for s in stale:
    print("stale:", s)
print(f"{checked} cited paths, {len(stale)} stale" + ("" if have_tree else
      " (no MPICH tree: its own paths were taken on trust)"))
sys.exit(1 if stale else 0)
EOF
