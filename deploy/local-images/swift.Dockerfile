# A stand-in for the official `swift:6.3-bookworm` image where no registry answers (deploy/local-images/swift-image.sh):
# Debian bookworm with the official image's build dependencies, this machine's Swift 6.3 toolchain, and the local
# package mirror, which git reads in place of github.com (so `swift build` resolves without the network).
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      binutils git gnupg2 libc6-dev libcurl4-openssl-dev libedit2 libgcc-12-dev libpython3-dev libsqlite3-0 \
      libstdc++-12-dev libxml2-dev libncurses-dev libz3-dev pkg-config tzdata zlib1g-dev unzip ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY swift /opt/swift
COPY swift-packages /opt/swift-packages
RUN git config --system url./opt/swift-packages/.insteadOf https://github.com/
ENV PATH=/opt/swift/usr/bin:$PATH
