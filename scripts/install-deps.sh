#!/bin/sh
# Install the Debian packages lrulab builds and tests with.
# Only packages that are missing are installed; needs root (or sudo).
set -eu

PKGS="build-essential pkg-config liburcu-dev libck-dev libcmocka-dev \
libjansson-dev libzstd-dev zlib1g-dev gnuplot-nox"

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
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
