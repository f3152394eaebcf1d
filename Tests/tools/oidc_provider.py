"""A library's identity provider as Bookmobile's tests meet it: a real OpenID Connect provider on loopback
(oidc-provider-mock, built on Authlib), with PKCE required.

    oidc_provider.py --port 0 [--ready-file F]

Prints `listening PORT` (and writes PORT to --ready-file) once it answers. Its issuer is `http://127.0.0.1:PORT`,
with discovery, JWKS (RS256), the authorization code flow, nonces carried into the ID token and a sign-in form where a
user is picked by subject. Any client id and secret are accepted; an authorization request without an S256
`code_challenge` is refused, and a code is exchanged only with its `code_verifier`. The users below carry a
`patron_type` claim; any other subject typed in the form signs in with only an email claim.
"""
import argparse
import os
import signal
import sys

import authlib.integrations.flask_oauth2 as flask_oauth2
from authlib.oauth2.rfc6749 import InvalidRequestError
from authlib.oauth2.rfc7636 import CodeChallenge
from werkzeug.serving import make_server

import oidc_provider_mock
from oidc_provider_mock import _app
from oidc_provider_mock._storage import User

USERS = [
    User(sub="oidc-ann", claims={"name": "Ann Single", "email": "ann@idp.example", "patron_type": "Adult"}),
    User(sub="oidc-kit", claims={"name": "Kit Young", "email": "kit@idp.example", "patron_type": "Juvenile"}),
]

# The challenge each code was issued for (the mock's codes do not keep it).
CHALLENGES = {}


class RequiredCodeChallenge(CodeChallenge):
    def validate_code_challenge(self, grant, redirect_uri):
        data = grant.request.payload.data
        if data.get("code_challenge_method") != "S256" or not data.get("code_challenge"):
            raise InvalidRequestError("PKCE with S256 is required")
        super().validate_code_challenge(grant, redirect_uri)

    def get_authorization_code_challenge(self, authorization_code):
        return CHALLENGES.get(authorization_code.code, (None, None))[0]

    def get_authorization_code_challenge_method(self, authorization_code):
        return CHALLENGES.get(authorization_code.code, (None, None))[1]


class PKCEAuthorizationServer(flask_oauth2.AuthorizationServer):
    def register_grant(self, grant_cls, extensions=None):
        if grant_cls is _app.AuthorizationCodeGrant:
            extensions = list(extensions or []) + [RequiredCodeChallenge(required=True)]
        super().register_grant(grant_cls, extensions)


_save_code = _app.AuthorizationCodeGrant.save_authorization_code


def save_code_with_challenge(self, code, request):
    CHALLENGES[code] = (request.payload.data.get("code_challenge"), request.payload.data.get("code_challenge_method"))
    return _save_code(self, code, request)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--ready-file")
    args = parser.parse_args()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"  # loopback only, plain HTTP
    flask_oauth2.AuthorizationServer = PKCEAuthorizationServer
    _app.AuthorizationCodeGrant.save_authorization_code = save_code_with_challenge
    app = oidc_provider_mock.app(require_nonce=True, user_claims=USERS)
    server = make_server("127.0.0.1", args.port, app, threaded=True)
    port = server.server_port
    print(f"listening {port}", flush=True)
    if args.ready_file:
        with open(args.ready_file, "w") as ready:
            ready.write(str(port))
    server.serve_forever()


if __name__ == "__main__":
    main()
