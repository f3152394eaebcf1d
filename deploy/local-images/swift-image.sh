#!/usr/bin/env bash
# Makes `swift:6.3-bookworm` from this machine's toolchain (/opt/swift) and package mirror (/opt/swift-packages), for a
# full `docker build -f deploy/Dockerfile .` where no registry answers (docs/DEPLOY.md, "The image"). Needs
# `debian:bookworm-slim` (scripts/compose-test.sh makes it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
toolchain=${SWIFT_TOOLCHAIN_DIR:-/opt/swift}
mirror=${SWIFT_PACKAGES_DIR:-/opt/swift-packages}
# The context streamed as one tar: the Dockerfile, then the toolchain and the mirror under their image names.
tar -c -C "$here" --transform 's|^swift.Dockerfile$|Dockerfile|' swift.Dockerfile \
    -C "$(dirname "$toolchain")" --transform "s|^$(basename "$toolchain")|swift|" "$(basename "$toolchain")" \
    -C "$(dirname "$mirror")" --transform "s|^$(basename "$mirror")|swift-packages|" "$(basename "$mirror")" \
  | DOCKER_BUILDKIT=0 docker build -t swift:6.3-bookworm -
