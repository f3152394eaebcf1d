#!/usr/bin/env python3
"""Validate OPDS documents against the official schemas in ../schemas.

usage: validate_opds.py KIND SOURCE [SOURCE ...]
  KIND    atom         OPDS 1.2 Atom feed or entry (RELAX NG, via xmllint from libxml2-utils)
          feed         OPDS 2.0 feed                 (JSON Schema)
          publication  OPDS 2.0 publication          (JSON Schema)
          auth         Authentication for OPDS 1.0   (JSON Schema)
          profile      OPDS User Profile 1.0         (JSON Schema)
          manifest     Readium Web Publication Manifest (JSON Schema)
  SOURCE  a file path, an http(s) URL, or - for standard input

Prints one line per source, "ok SOURCE" or "invalid SOURCE: reason", and exits 1 if any is
invalid. JSON checks need the Python packages jsonschema and referencing.
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import urllib.request

# The repository carries the schemas beside this copy of ../shared/tools/validate_opds.py (Tests/tools/opds/schemas).
SCHEMAS = pathlib.Path(__file__).resolve().parent / "schemas"
RNG = SCHEMAS / "opds-1.x" / "1.2" / "opds.rng"
ROOTS = {
    "feed": "https://drafts.opds.io/schema/feed.schema.json",
    "publication": "https://drafts.opds.io/schema/publication.schema.json",
    "auth": "https://drafts.opds.io/schema/authentication.schema.json",
    "profile": "https://drafts.opds.io/schema/profile.schema.json",
    "manifest": "https://readium.org/webpub-manifest/schema/publication.schema.json",
}
SPEC_ROOTS = {  # the same documents under the current specs.opds.io ids, checked as well
    "feed": "https://specs.opds.io/schema/feed.schema.json",
    "publication": "https://specs.opds.io/schema/publication.schema.json",
}


def read(source: str) -> bytes:
    if source == "-":
        return sys.stdin.buffer.read()
    if source.startswith(("http://", "https://")):
        accept = "application/atom+xml" if KIND == "atom" else "application/opds+json, application/json"
        req = urllib.request.Request(source, headers={"Accept": accept})
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.read()
    return pathlib.Path(source).read_bytes()


def registry():
    from referencing import Registry, Resource
    resources = []
    for path in SCHEMAS.rglob("*.schema.json"):
        text = path.read_text(encoding="utf-8")
        # Python's re lacks ECMAScript named groups (?<name>...); the Readium language map uses them.
        schema = json.loads(text.replace("(?<", "(?P<"))
        if "$id" in schema:
            resources.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(resources)


def check_json(data: bytes, kind: str, reg) -> str | None:
    from jsonschema import Draft7Validator
    try:
        doc = json.loads(data)
    except ValueError as error:
        return f"not JSON: {error}"
    for root in filter(None, (ROOTS[kind], SPEC_ROOTS.get(kind))):
        schema = reg.contents(root)
        errors = sorted(Draft7Validator(schema, registry=reg).iter_errors(doc), key=lambda e: list(e.path))
        if errors:
            first = errors[0]
            where = "/".join(map(str, first.path)) or "(root)"
            return f"{len(errors)} error(s) against {root}; first at {where}: {first.message[:300]}"
    return None


def check_atom(data: bytes) -> str | None:
    with tempfile.NamedTemporaryFile(suffix=".xml", delete=False) as tmp:
        tmp.write(data)
    try:
        run = subprocess.run(["xmllint", "--noout", "--relaxng", str(RNG), tmp.name],
                             capture_output=True, text=True)
    except FileNotFoundError:
        sys.exit("validate_opds: xmllint is missing (apt-get install -y libxml2-utils)")
    finally:
        os.unlink(tmp.name)
    if run.returncode == 0:
        return None
    lines = [l for l in run.stderr.splitlines() if "validity error" in l or "parser error" in l]
    return (lines[0] if lines else run.stderr.strip()[:300]).replace(tmp.name, "line")


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in {"atom", *ROOTS}:
        sys.exit(__doc__)
    KIND = sys.argv[1]
    reg = None if KIND == "atom" else registry()
    failed = 0
    for source in sys.argv[2:]:
        try:
            data = read(source)
        except Exception as error:  # unreadable source: report, go on
            problem = f"cannot read: {error}"
        else:
            problem = check_atom(data) if KIND == "atom" else check_json(data, KIND, reg)
        print(f"ok {source}" if problem is None else f"invalid {source}: {problem}")
        failed += problem is not None
    sys.exit(1 if failed else 0)
