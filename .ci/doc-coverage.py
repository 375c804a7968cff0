#!/usr/bin/env python3
"""Lists the public declarations of modules that have no documentation comment of their own.

Reads the symbol graphs that `swift package generate-documentation --target MODULE` extracted (run it
first; `--build-path` names the scratch path it used, `.build` by default) and exits 1 when any public
declaration written in the module's own sources lacks a `///` summary: a comment inherited from a
protocol of another module does not count. Symbols with no place in those sources are not listed:
what the compiler synthesizes (Equatable's `!=`, Codable's `init(from:)`) and what a protocol
extension of another module provides (ArgumentParser's `main()`, the engine's helpers).

    python3 .ci/doc-coverage.py Rederive RederiveSQLite
    python3 .ci/doc-coverage.py --build-path .build-pg RederivePostgres
"""
import glob
import json
import os
import sys


def coverage(module, build_path, sources):
    directories = glob.glob(os.path.join(build_path, "*", "extracted-symbols", "*", module))
    if not directories:
        sys.exit(f"no symbol graph for {module} in {build_path}: run swift package generate-documentation --target {module} first")
    newest = max(directories, key=os.path.getmtime)
    declared, missing = 0, []
    for path in sorted(glob.glob(os.path.join(newest, f"{module}*.symbols.json"))):
        with open(path) as file:
            graph = json.load(file)
        for symbol in graph["symbols"]:
            location = symbol.get("location")
            # An extension block is documented by its members.
            if location is None or symbol["accessLevel"] not in ("public", "open") or symbol["kind"]["identifier"] == "swift.extension":
                continue
            if not location["uri"].removeprefix("file://").startswith(sources):
                continue
            declared += 1
            comment = symbol.get("docComment")
            if comment is None or comment.get("module", module) != module:
                source = location["uri"].rsplit("/", 1)[-1]
                line = location["position"]["line"] + 1
                missing.append(f"{source}:{line}: {'.'.join(symbol['pathComponents'])}")
    for entry in sorted(missing):
        print(f"undocumented: {module}: {entry}")
    print(f"{module}: {declared - len(missing)} of {declared} public declarations documented")
    return not missing


def main():
    arguments = sys.argv[1:]
    build_path = ".build"
    if arguments[:1] == ["--build-path"]:
        build_path, arguments = arguments[1], arguments[2:]
    results = [
        coverage(module, build_path, tuple(os.path.join(os.getcwd(), folder, module) + os.sep for folder in ("Sources", "Pipelines")))
        for module in arguments or ["Rederive"]
    ]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
