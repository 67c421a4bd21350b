#!/bin/sh
# make install and make uninstall, into a scratch DESTDIR: the files
# listed land under PREFIX, pkg-config finds the library, a program built
# with its flags links and runs, and uninstall takes every file away.
set -u
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

make --no-print-directory -s install DESTDIR="$tmp/root" PREFIX=/opt/lrulab >"$tmp/log" 2>&1 ||
	{ cat "$tmp/log"; fail "make install: exit $?"; }
for f in bin/lrulab lib/liblrulab.a lib/pkgconfig/lrulab.pc \
	 include/lrulab/lrulab.h include/lrulab/switches.h include/lrulab/mm.h; do
	[ -f "$tmp/root/opt/lrulab/$f" ] || fail "make install: no $f"
done
"$tmp/root/opt/lrulab/bin/lrulab" --version | grep -q '^lrulab [0-9]' ||
	fail "installed lrulab --version"

# a program against the installed tree, as a user would build one
cat >"$tmp/use.c" <<'PROG'
#include <stdio.h>
#include <lrulab/switches.h>

int main(void)
{
	enum lrulab_switch sw;

	if (lrulab_switch_parse("lru-stat-batch", &sw))
		return 1;
	printf("%s\n", lrulab_switch_seed(sw));
	return 0;
}
PROG
export PKG_CONFIG_PATH="$tmp/root/opt/lrulab/lib/pkgconfig"
export PKG_CONFIG_SYSROOT_DIR="$tmp/root"
flags=$(pkg-config --cflags --libs lrulab) || fail "pkg-config --cflags --libs lrulab"
# shellcheck disable=SC2086
${CC:-cc} -o "$tmp/use" "$tmp/use.c" $flags || fail "cc with pkg-config's flags"
[ "$("$tmp/use" 2>&1)" = s0-lru-stat-batch ] || fail "a program built against the install"

make --no-print-directory -s uninstall DESTDIR="$tmp/root" PREFIX=/opt/lrulab >"$tmp/log" 2>&1 ||
	{ cat "$tmp/log"; fail "make uninstall: exit $?"; }
left=$(find "$tmp/root" -type f | sed "s|^$tmp/root||")
[ -z "$left" ] || fail "make uninstall left: $left"

if [ "$fails" -ne 0 ]; then
	echo "install: $fails failures"
	exit 1
fi
echo "install: all passed"
