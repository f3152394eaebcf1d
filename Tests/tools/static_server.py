"""Serves a folder over HTTP on loopback (a static OPDS feed for the import tests); prints its port first.
Usage: static_server.py <folder> [port]. Requires Basic credentials user:secret for paths under /private/;
/redirect?to=URL answers 302 to URL."""
import base64
import functools
import http.server
import signal
import sys
import urllib.parse


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".json": "application/opds+json", ".xml": "application/atom+xml;profile=opds-catalog",
                      ".epub": "application/epub+zip"}

    def do_GET(self):
        if self.path.startswith("/redirect?"):
            target = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query).get("to", [""])[0]
            self.send_response(302)
            self.send_header("Location", target)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if self.path.startswith("/private/"):
            expected = "Basic " + base64.b64encode(b"user:secret").decode()
            if self.headers.get("Authorization") != expected:
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="feed"')
                self.end_headers()
                return
        super().do_GET()

    def log_message(self, *args):
        pass


def main():
    # The test runner's blocked signals are inherited: SIGTERM must end this server.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    folder = sys.argv[1]
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(Handler, directory=folder))
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
