#!/usr/bin/env bash
# The Python tools the tests use (pysip2, whose SIP2 server plays the library's ILS; oidc-provider-mock (Authlib), a
# real OpenID Connect provider that plays the library's identity provider; Palace's OPDS 2.0 / Readium manifest parser; jsonschema for the OPDS schemas; kubernetes-validate for deploy/k8s; Playwright, which drives Debian's
# Chromium for the web app's browser tests: no browser is downloaded), in a virtual environment of the repository's
# own (.venv-test, not committed), never in the system. Prints the environment's python.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/apt-ensure.sh python3-venv chromium >&2
venv=.venv-test
if ! "$venv/bin/python" -c "import webpub_manifest_parser, playwright, jsonschema, referencing, kubernetes_validate, yaml, aiosmtpd, pymarc, pysip2, oidc_provider_mock" 2>/dev/null; then
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet --disable-pip-version-check "palace-webpub-manifest-parser==4.1.*" "playwright==1.65.*" "jsonschema>=4.18" "referencing" "kubernetes-validate==1.*" "pyyaml" "aiosmtpd==1.4.*" "pymarc==5.*" "pysip2==0.1.*" "oidc-provider-mock==0.3.*" >&2
fi
echo "$(pwd)/$venv/bin/python"
