#!/bin/sh
# SPDX-License-Identifier: MIT
# setup.sh - installs the Debian packages foretell needs, only those missing.
# Idempotent: a second run installs nothing and does not touch apt's lists.
# chromium (headless) renders `foretell report --html` pages in
# tests/report, so that the page is checked as a browser builds it.
set -eu
pkgs="build-essential cmake pkg-config clang libz3-dev
      libmsgpack-dev libcmocka-dev libdw-dev libelf-dev libcapstone-dev python3
      libsqlite3-dev libssl-dev libjansson-dev python3-jsonschema libzstd-dev
      slurm-wlm munge procps time chromium valgrind"
missing=""
for p in $pkgs; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -z "$missing" ]; then
    echo "setup: all packages present"
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "setup: missing packages:$missing; run as root (or install them)" >&2
    exit 2
fi
echo "setup: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
