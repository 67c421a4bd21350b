#!/bin/sh
# Install the Debian packages lrulab builds and tests with.
# Only packages that are missing are installed; needs root (or sudo).
set -eu

# man-db and groff-base: make check renders lrulab.1 (man -l, groff -ww);
# jq: tests/host_cli.sh reads host usemem --compare's JSON; parallel (GNU
# parallel): tests/replay_cli.sh runs a replay sweep through it
PKGS="build-essential pkg-config liburcu-dev libck-dev libcmocka-dev \
libjansson-dev libzstd-dev zlib1g-dev gnuplot-nox man-db groff-base jq parallel"
# --fuzz: only what `make fuzz` needs besides: clang and its runtime
# libraries (libFuzzer, ASan, UBSan: libclang-rt-dev).  make check does
# not need them: it replays the corpus through gcc builds.
if [ "${1:-}" = "--fuzz" ]; then
	PKGS="clang libclang-rt-dev"
elif [ $# -gt 0 ]; then
	echo "usage: install-deps.sh [--fuzz]" >&2
	exit 2
fi

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
if [ -z "$missing" ]; then
	echo "install-deps: all packages present"
	exit 0
fi

echo "install-deps: installing:$missing"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	if ! command -v sudo >/dev/null 2>&1; then
		echo "install-deps: not root and no sudo: run it as root (su -c ./scripts/install-deps.sh), or install:$missing" >&2
		exit 1
	fi
	SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
