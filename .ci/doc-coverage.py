#!/usr/bin/env python3
"""Lists the public declarations of a module that have no documentation comment of their own.

Reads the symbol graph that `swift package generate-documentation --target MODULE` extracted (run it
first) and exits 1 when any public declaration written in the sources lacks a `///` summary: a comment
inherited from a protocol of another module does not count. Symbols the compiler synthesizes
(Equatable's `!=`, Codable's `init(from:)`) have no place in the sources and are not listed.

    python3 .ci/doc-coverage.py Rederive
"""
import glob
import json
import os
import sys


def main():
    module = sys.argv[1] if len(sys.argv) > 1 else "Rederive"
    directories = glob.glob(os.path.join(".build", "*", "extracted-symbols", "*", module))
    if not directories:
        sys.exit(f"no symbol graph for {module}: run swift package generate-documentation --target {module} first")
    newest = max(directories, key=os.path.getmtime)
    declared, missing = 0, []
    for path in sorted(glob.glob(os.path.join(newest, f"{module}*.symbols.json"))):
        with open(path) as file:
            graph = json.load(file)
        for symbol in graph["symbols"]:
            location = symbol.get("location")
            if location is None or symbol["accessLevel"] not in ("public", "open"):
                continue
            declared += 1
            comment = symbol.get("docComment")
            if comment is None or comment.get("module", module) != module:
                source = location["uri"].rsplit("/", 1)[-1]
                line = location["position"]["line"] + 1
                missing.append(f"{source}:{line}: {'.'.join(symbol['pathComponents'])}")
    for entry in sorted(missing):
        print(f"undocumented: {entry}")
    print(f"{module}: {declared - len(missing)} of {declared} public declarations documented")
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
