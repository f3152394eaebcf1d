"""A real SMTP server on loopback for the mail tests (aiosmtpd): every message it accepts is written to DIR as a JSON
file (envelope, headers, and the decoded text and HTML parts). Usage: smtp_sink.py DIR [PORT]; prints the port."""
import asyncio
import email
import email.policy
import json
import pathlib
import signal
import socket
import sys
import time

from aiosmtpd.controller import Controller


class Sink:
    def __init__(self, folder):
        self.folder = folder

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.startswith("refused"):
            return "550 5.1.1 No such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        parts = {part.get_content_type(): part.get_content() for part in message.walk() if not part.is_multipart()}
        record = {"from": envelope.mail_from, "to": envelope.rcpt_tos, "headers": {k: str(v) for k, v in message.items()},
                  "text": parts.get("text/plain", ""), "html": parts.get("text/html", "")}
        path = self.folder / f"{time.time_ns()}.json"
        path.with_suffix(".tmp").write_text(json.dumps(record))
        path.with_suffix(".tmp").rename(path)
        return "250 Message accepted"


def main():
    folder = pathlib.Path(sys.argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    if port == 0:
        # aiosmtpd checks its server by connecting to the port it was given: a free one is found first.
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
    controller = Controller(Sink(folder), hostname="127.0.0.1", port=port)
    controller.start()
    print(port, flush=True)
    signal.sigwait({signal.SIGTERM, signal.SIGINT})
    controller.stop()


if __name__ == "__main__":
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
    main()
