#!/usr/bin/env python3
"""Checks that the house is as Package.swift and docs/ARCHITECTURE.md say (issue 31).

1. Every target's `import` lines name exactly its declared dependencies: an import that is not
   declared (it compiles only because a lower target brings the module in) and a dependency
   that nothing imports both fail.
2. docs/ARCHITECTURE.md names every target in its table of targets.
3. The executable parses arguments and prints: its Swift files stay under
   `EXECUTABLE_LINES` lines, so logic goes to the libraries that tests and pages share.

Run by `make test`; exits 1 with one line per difference.
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Modules of the toolchain and the system: not dependencies a manifest declares.
TOOLCHAIN = {
    "Glibc", "Darwin", "Foundation", "FoundationEssentials", "FoundationNetworking", "FoundationXML",
    "Dispatch", "Synchronization", "XCTest", "Testing", "_Concurrency", "Observation", "RegexBuilder",
    "_StringProcessing", "Swift", "os", "PackageDescription",
}

LAZY_HEADERS = {"CProj", "CCairo", "CArchive", "CZstd", "CQREncode"}

# The executable's budget (issue 31): argument parsing and printing fit in it; work does not.
EXECUTABLE_LINES = 3000

IMPORT = re.compile(r"^\s*(?:@[\w()]+\s+)*(?:(?:public|package|internal|private|fileprivate)\s+)?import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_]\w*)", re.M)


def load_manifest():
    out = subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def target_folder(target):
    if target.get("path"):
        return os.path.join(ROOT, target["path"])
    kind = "Tests" if target["type"] == "test" else "Sources"
    return os.path.join(ROOT, kind, target["name"])


def declared(target):
    names = set()
    for dependency in target["dependencies"]:
        for key in ("byName", "target", "product"):
            if key in dependency:
                names.add(dependency[key][0])
    return names


def imported(folder):
    names = set()
    for directory, _, files in os.walk(folder):
        for name in files:
            if name.endswith(".swift"):
                with open(os.path.join(directory, name), encoding="utf-8") as f:
                    text = f.read()
                # Text in multi-line string literals (scripts a test runs) and in comments
                # is not Swift's.
                text = re.sub(r'"""(?:.|\n)*?"""', "", text)
                text = re.sub(r"//.*", "", text)
                names.update(IMPORT.findall(text))
    return names - TOOLCHAIN


def main():
    manifest = load_manifest()
    problems = []
    swift_targets = [t for t in manifest["targets"] if t["type"] in ("regular", "executable", "test")]
    c_targets = {t["name"] for t in manifest["targets"] if t["type"] == "system"}
    for target in swift_targets:
        folder = target_folder(target)
        has_swift = any(n.endswith(".swift") for _, _, fs in os.walk(folder) for n in fs)
        if not has_swift:
            continue  # a C target: its includes are its own business
        wanted = declared(target)
        used = imported(folder)
        # A test target may depend on the executable to have it built first without importing it.
        if target["type"] == "test":
            wanted -= {t["name"] for t in manifest["targets"] if t["type"] == "executable"} - used
        # The PROJ, Cairo, libarchive, Zstandard and libqrencode headers are headers only: CMapbookLazy supplies their
        # functions at link time, so whoever imports one of them needs it without importing it.
        if used & LAZY_HEADERS:
            used.add("CMapbookLazy")
        for name in sorted(used - wanted):
            problems.append(f"{target['name']}: imports {name}, which Package.swift does not declare")
        for name in sorted(wanted - used):
            problems.append(f"{target['name']}: Package.swift declares {name}, which nothing in {os.path.relpath(folder, ROOT)} imports")
    architecture = open(os.path.join(ROOT, "docs", "ARCHITECTURE.md"), encoding="utf-8").read()
    for target in manifest["targets"]:
        name = target["name"]
        if target["type"] == "test" or name in c_targets:
            continue
        if f"`{name}`" not in architecture:
            problems.append(f"docs/ARCHITECTURE.md: the target {name} is missing from the table of targets")
    for target in swift_targets:
        if target["type"] != "executable":
            continue
        folder = target_folder(target)
        lines = sum(open(os.path.join(d, n), encoding="utf-8").read().count("\n")
                    for d, _, fs in os.walk(folder) for n in fs if n.endswith(".swift"))
        if lines >= EXECUTABLE_LINES:
            problems.append(f"{target['name']}: {lines} lines of Swift, over the executable's {EXECUTABLE_LINES}; move the work (and "
                            "what it prints, when a viewer or page shows the same) into the library that owns it")
    for line in problems:
        print(line)
    if problems:
        print(f"{len(problems)} differences between the code, Package.swift and docs/ARCHITECTURE.md", file=sys.stderr)
        return 1
    print(f"the house is as Package.swift and docs/ARCHITECTURE.md say ({len(swift_targets)} Swift targets)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
