#!/usr/bin/env bash
# Installs the Debian packages named on the command line that are not installed yet (as root; otherwise says what to run).
#   scripts/apt-ensure.sh libvips-dev libxml2-utils
set -euo pipefail
missing=()
for package in "$@"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "missing Debian packages: ${missing[*]}; run 'sudo apt-get install -y ${missing[*]}'" >&2
  exit 1
fi
echo "Installing ${missing[*]} with apt-get..." >&2
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 || { apt-get update -qq >/dev/null && apt-get install -y -qq "${missing[@]}" >/dev/null; }
