#!/usr/bin/env python3
"""Parses OPDS 2.0 documents and Readium manifests with Palace's parser (palace-webpub-manifest-parser), the one
a production library system imports feeds with, and prints every error it reports.

    palace_parse.py feed|publication|manifest FILE...

Prints "ok FILE" for a document without errors and "FILE: error" for each error; exits 1 when any file has one.
A single publication is parsed as the only publication of a feed, as an importer meets it."""
import json
import sys

from webpub_manifest_parser.opds2 import OPDS2FeedParserFactory
from webpub_manifest_parser.rwpm import RWPMManifestParserFactory


def errors(kind, document):
    if kind == "publication":
        document = {
            "metadata": {"title": "One publication"},
            "links": [{"rel": "self", "href": "https://example.org/feed", "type": "application/opds+json"}],
            "publications": [document],
        }
    factory = RWPMManifestParserFactory() if kind == "manifest" else OPDS2FeedParserFactory()
    result = factory.create().parse_json(document)
    return [str(error) for error in result.errors]


def main():
    kind, files = sys.argv[1], sys.argv[2:]
    failed = False
    for path in files:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
        found = errors(kind, document)
        if found:
            failed = True
            for error in found:
                print(f"{path}: {error}")
        else:
            print(f"ok {path}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
