#!/usr/bin/env python3
"""A patron's journey through the published gateway of a running stack (scripts/compose-test.sh).

    compose_journey.py GATEWAY ADMIN_TOKEN BOOK.epub
        ingests the book (POST /admin/books), signs up, borrows, downloads it (the same bytes), reads the first
        resource of its reading order and loads the web app; prints {"book", "token"} as JSON.
    compose_journey.py GATEWAY ADMIN_TOKEN BOOK.epub --again BOOK_ID TOKEN --books N
        after a restart: the book and its file are served as before, and the catalog lists N books.
"""
import argparse
import hashlib
import json
import sys
import time
import urllib.error
import urllib.request


def call(method, url, token=None, body=None, content_type=None, accept=None):
    request = urllib.request.Request(url, data=body, method=method)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    if content_type:
        request.add_header("Content-Type", content_type)
    if accept:
        request.add_header("Accept", accept)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def expect(condition, what):
    if not condition:
        sys.exit(f"compose journey: {what}")
    print(f"  ok: {what.split(': ')[0]}", file=sys.stderr)


def eventually(what, check, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if check():
            return
        time.sleep(0.5)
    sys.exit(f"compose journey: {what} (waited {seconds} s)")


def download(gateway, book, token, epub):
    status, _, body = call("GET", f"{gateway}/books/{book}/fulfill", token)
    expect(status == 200, f"the loan's EPUB downloads: {status}")
    expect(hashlib.sha256(body).digest() == hashlib.sha256(epub).digest(), "the download is the ingested file, byte for byte")
    status, _, manifest = call("GET", f"{gateway}/books/{book}/manifest.json", token)
    expect(status == 200, f"the Readium manifest: {status} {manifest[:200]!r}")
    first = json.loads(manifest)["readingOrder"][0]["href"]
    status, headers, resource = call("GET", first if first.startswith("http") else f"{gateway}{first}", token)
    expect(status == 200 and len(resource) > 0, f"a publication resource, {status} for {first}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("gateway")
    parser.add_argument("admin_token")
    parser.add_argument("epub")
    parser.add_argument("--again", nargs=2, metavar=("BOOK", "TOKEN"))
    parser.add_argument("--books", type=int)
    arguments = parser.parse_args()
    gateway, admin = arguments.gateway.rstrip("/"), arguments.admin_token
    epub = open(arguments.epub, "rb").read()

    if arguments.again:
        book, token = arguments.again
        status, _, _ = call("GET", f"{gateway}/opds/books/{book}", accept="application/opds+json")
        expect(status == 200, f"the book's entry after the restart: {status}")
        download(gateway, book, token, epub)
        status, _, body = call("GET", f"{gateway}/admin/books?size=100", admin)
        listed = json.loads(body).get("books", []) if status == 200 else []
        expect(len(listed) == arguments.books, f"the catalog lists {arguments.books} books (the bulk ingest's too): {status} {len(listed)}")
        return

    status, _, body = call("POST", f"{gateway}/admin/books?copies=2", admin, epub, "application/epub+zip")
    expect(status == 201, f"POST /admin/books ingests the EPUB: {status} {body[:300]!r}")
    book = json.loads(body)["id"]
    status, _, body = call("POST", f"{gateway}/auth/signup", body=b'{"pin": "8642"}', content_type="application/json")
    expect(status == 201, f"sign-up: {status} {body[:300]!r}")
    token = json.loads(body)["tokens"]["access_token"]
    eventually("patron learns of the book's licence", lambda: call("GET", f"{gateway}/me/books/{book}", token)[0] == 200)
    status, _, body = call("POST", f"{gateway}/me/books/{book}/borrow", token)
    expect(status == 201, f"borrow: {status} {body[:300]!r}")
    download(gateway, book, token, epub)
    status, headers, page = call("GET", f"{gateway}/")
    expect(status == 200 and b"<html" in page.lower() and "text/html" in headers.get("Content-Type", ""), f"the web app's page: {status}")
    status, _, _ = call("GET", f"{gateway}/opds", accept="application/opds+json")
    expect(status == 200, f"the OPDS 2.0 root feed: {status}")
    print(json.dumps({"book": book, "token": token}))


if __name__ == "__main__":
    main()
