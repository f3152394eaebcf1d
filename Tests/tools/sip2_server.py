"""A library's ILS as Bookmobile's tests meet it: a real SIP2 server (pysip2's ACS) on loopback with a few patrons.

    sip2_server.py --port 0 --login bookmobile --password secret [--ready-file F] [--tls-cert C --tls-key K]

Prints `listening PORT` (and writes PORT to --ready-file) once it accepts connections. A terminal logs in (93) with
the login and password; 63 (patron information) and 23 (patron status) answer for the patrons below: a valid card with
a good PIN, one blocked for fines, one expired, a child's card, and "no such patron" for the rest. The patron type
goes out as the `PC` field (Evergreen's and Sierra's extension; pysip2's models do not have it, so it is added to the
encoded frame). With --tls-cert and --tls-key it speaks TLS. Every exchange is logged to standard error, the PIN never.
"""
import argparse
import logging
import signal
import ssl
import sys
from datetime import datetime

import anyio
import pysip2
import pysip2.server
from pysip2 import LoginResponse, PatronInformationResponse, PatronStatusResponse
from pysip2.codec import calculate_checksum
from pysip2.routes import LOGIN, PATRON_INFORMATION, PATRON_STATUS

# card: (PIN, name, email, patron status flags (14), screen message, patron type)
PATRONS = {
    "23330000000001": ("1234", "Ada Lovelace", "ada@example.org", " " * 14, "", "adult"),
    "23330000000002": ("2222", "Charles Babbage", None, "Y" + " " * 9 + "Y" + " " * 3, "Fines over the limit: 25.00", "adult"),
    "23330000000003": ("3333", "Mary Somerville", None, "Y" + " " * 13, "Card expired", "adult"),
    "23330000000004": ("4444", "Tom Thumb", None, " " * 14, "", "child"),
    "23330000000005": ("5555", "Tess Teen", "tess@example.org", " " * 14, "", "teen"),
}


def now18():
    moment = datetime.now()
    return moment.strftime("%Y%m%d") + "    " + moment.strftime("%H%M%S")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--login", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--institution", default="bookmobile-test")
    parser.add_argument("--ready-file")
    parser.add_argument("--tls-cert")
    parser.add_argument("--tls-key")
    args = parser.parse_args()
    # A test runner may ignore or block SIGTERM, and its children inherit both: stop when told to.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="sip2: %(message)s")
    log = logging.getLogger("sip2")
    server = pysip2.SIP2Server(login_required=True, institution_id=args.institution)
    patron_types = {}

    @server.route(LOGIN)
    def login(request, context):
        ok = request.login_user_id == args.login and request.login_password == args.password
        log.info("93 login %s: %s", request.login_user_id, "ok" if ok else "refused")
        return LoginResponse(ok="1" if ok else "0")

    def lookup(command, card, pin):
        found = PATRONS.get(card)
        valid_pin = found is not None and pin == found[0]
        log.info("%s patron %s: %s", command, card, "unknown" if found is None else ("valid PIN" if valid_pin else "wrong PIN"))
        return found, valid_pin

    @server.route(PATRON_INFORMATION)
    def patron_information(request, context):
        found, valid_pin = lookup("63", request.patron_identifier, request.patron_password)
        _, name, email, flags, message, kind = found or (None, "", None, " " * 14, "", None)
        if found:
            patron_types[request.patron_identifier] = kind
        return PatronInformationResponse(
            patron_status=flags, language="000", transaction_date=now18(),
            hold_items_count="0000", overdue_items_count="0000", charged_items_count="0000", fine_items_count="0000",
            recall_items_count="0000", unavailable_holds_count="0000",
            institution_id=args.institution, patron_identifier=request.patron_identifier, personal_name=name,
            valid_patron="Y" if found else "N", valid_patron_password="Y" if valid_pin else "N",
            email_address=email, screen_message=(message,) if message and found else (),
        )

    @server.route(PATRON_STATUS)
    def patron_status(request, context):
        found, valid_pin = lookup("23", request.patron_identifier, request.patron_password)
        _, name, _, flags, message, _ = found or (None, "", None, " " * 14, "", None)
        return PatronStatusResponse(
            patron_status=flags, language="000", transaction_date=now18(), institution_id=args.institution,
            patron_identifier=request.patron_identifier, personal_name=name,
            valid_patron="Y" if found else "N", valid_patron_password="Y" if valid_pin else "N",
            screen_message=(message,) if message and found else (),
        )

    # The patron type as `PC`, after the last field and before the error-detection trailer.
    encode = pysip2.server.encode_message

    def encode_with_patron_type(message, **options):
        frame = encode(message, **options)
        kind = patron_types.pop(getattr(message, "patron_identifier", None), None) if isinstance(message, PatronInformationResponse) else None
        if not kind:
            return frame
        body = frame[:-1]
        trailer = body.rfind(b"AY")
        if options.get("checksum") and trailer > 0:
            head = body[:trailer] + f"PC{kind}|".encode() + body[trailer:body.rfind(b"AZ") + 2]
            return head + calculate_checksum(head).encode() + b"\r"
        return body + f"PC{kind}|".encode() + b"\r"

    pysip2.server.encode_message = encode_with_patron_type

    def ready(port):
        if args.ready_file:
            with open(args.ready_file, "w") as file:
                file.write(str(port))
        print(f"listening {port}", flush=True)

    async def serve():
        if args.tls_cert:
            from anyio.abc import SocketAttribute
            from anyio.streams.tls import TLSListener
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(args.tls_cert, args.tls_key)
            tcp = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=args.port)
            ready(tcp.extra(SocketAttribute.local_port))
            await TLSListener(tcp, context).serve(server._handle_connection)
            return
        async with server.start(host="127.0.0.1", port=args.port) as port:
            ready(port)
            await anyio.sleep_forever()

    anyio.run(serve)


if __name__ == "__main__":
    main()
