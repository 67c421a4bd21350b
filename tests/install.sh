#!/bin/sh
# make install and make uninstall, into a scratch DESTDIR: the files
# listed land under PREFIX, pkg-config finds the library, a program built
# with its flags links and runs, and uninstall takes every file away.
# And the man page: man -l renders it, and it names every option, switch
# and JSON key the command has.
set -u
LRULAB=${1:?usage: install.sh path/to/lrulab}
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

make --no-print-directory -s install DESTDIR="$tmp/root" PREFIX=/opt/lrulab >"$tmp/log" 2>&1 ||
	{ cat "$tmp/log"; fail "make install: exit $?"; }
for f in bin/lrulab lib/liblrulab.a lib/pkgconfig/lrulab.pc share/man/man1/lrulab.1 \
	 include/lrulab/lrulab.h include/lrulab/switches.h include/lrulab/mm.h; do
	[ -f "$tmp/root/opt/lrulab/$f" ] || fail "make install: no $f"
done
"$tmp/root/opt/lrulab/bin/lrulab" --version | grep -q '^lrulab [0-9]' ||
	fail "installed lrulab --version"

# only the library's headers, and they need nothing but libc, liburcu and ck
for h in bench.h host.h replay.h predict.h parse.h commands.h; do
	[ ! -e "$tmp/root/opt/lrulab/include/lrulab/$h" ] || fail "make install: the command's $h installed"
done
! grep -l 'jansson\|"bench/\|"predict/\|"replay/\|"tools/' "$tmp/root/opt/lrulab/include/lrulab/"*.h ||
	fail "an installed header includes jansson or a command header"

# a program against the installed tree, as a user would build one: the
# model set up, a probe on a trace event, a lock taken ten times
cat >"$tmp/use.c" <<'PROG'
#include <stdio.h>
#include <lrulab/lrulab.h>
#include <lrulab/switches.h>
#include <lrulab/trace.h>

static int taken;

static void on_acquired(void *data, spinlock_t *l, struct lock_site *site)
{
	taken++;
}

int main(void)
{
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;
	enum lrulab_switch sw;
	spinlock_t l;
	int i;

	if (lrulab_switch_parse("lru-stat-batch", &sw) || lrulab_init(&cfg))
		return 1;
	spin_lock_init(&l);
	register_trace_lock_acquired(on_acquired, NULL);
	lockstat_set_mode(LOCKSTAT_SAMPLED);
	for (i = 0; i < 10; i++) {
		spin_lock(&l);
		spin_unlock(&l);
	}
	unregister_trace_lock_acquired(on_acquired, NULL);
	lrulab_exit();
	printf("%s %d\n", lrulab_switch_seed(sw), taken);
	return 0;
}
PROG
export PKG_CONFIG_PATH="$tmp/root/opt/lrulab/lib/pkgconfig"
export PKG_CONFIG_SYSROOT_DIR="$tmp/root"
flags=$(pkg-config --cflags --libs lrulab) || fail "pkg-config --cflags --libs lrulab"
# shellcheck disable=SC2086
${CC:-cc} -o "$tmp/use" "$tmp/use.c" $flags || fail "cc with pkg-config's flags"
[ "$("$tmp/use" 2>&1)" = "s0-lru-stat-batch 10" ] || fail "a program built against the install"

make --no-print-directory -s uninstall DESTDIR="$tmp/root" PREFIX=/opt/lrulab >"$tmp/log" 2>&1 ||
	{ cat "$tmp/log"; fail "make uninstall: exit $?"; }
left=$(find "$tmp/root" -type f | sed "s|^$tmp/root||")
[ -z "$left" ] || fail "make uninstall left: $left"

# the man page renders without a warning...
LC_ALL=C MANWIDTH=80 man -l lrulab.1 >"$tmp/man" 2>"$tmp/err" && [ ! -s "$tmp/err" ] &&
	grep -q '^EXIT STATUS' "$tmp/man" || fail "man -l lrulab.1"
[ -z "$(groff -man -ww -z lrulab.1 2>&1)" ] || fail "groff warns about lrulab.1"
# ...and names what the command has: options, switches, JSON keys
page=$(sed 's/\\-/-/g' lrulab.1)
for c in "bench fault-free" "bench mmap-madvise" "bench usemem" "bench mglru-age" usemem ab repro \
	"host fault-free" "host usemem" "host replay" replay demo layout pathbench lockbench predict calibrate; do
	# shellcheck disable=SC2086
	for o in $("$LRULAB" $c --help | grep -o -- '[[|] *--[a-z-]*' | tr -d '[| ' | sort -u); do
		echo "$page" | grep -q -- "$o" || fail "lrulab.1: no $o ($c)"
	done
done
for sw in $("$LRULAB" bench --help | sed -n 's/^switches: //p' | tr -d ,); do
	echo "$page" | grep -q "^.B $sw$" || fail "lrulab.1: no switch $sw"
done
# every key at any depth, but the kernel's own counter names (and the
# keys of layout's one indented document)
keys() {
	tr -d ' \n' | sed -E 's/"(vmstat|mthp|memory_stat)":\{[^}]*\}//g' | tr -d '}]"' |
		tr '{[,' '\n\n\n' | sed -n 's/^\([a-z_0-9]*\):.*/\1/p'
}
T=tests/data/cloudPhysicsIO.txt.zst
"$LRULAB" bench fault-free --threads 1 --loops 1 --mem 64K --json >"$tmp/j" 2>/dev/null
for ty in anon file mixed; do
	"$LRULAB" bench usemem --type $ty --threads 1 --mem 4M --seconds 0.05 --json >>"$tmp/j" 2>/dev/null
done
"$LRULAB" ab --ab lru-stat-batch --reps 1 --json -- fault-free --threads 1 --loops 1 --mem 64K \
	>>"$tmp/j" 2>/dev/null
"$LRULAB" host fault-free --threads 1 --seconds 0.05 --mem 1M --json >>"$tmp/j" 2>/dev/null
# the exact LRU and the kernel's classic one
"$LRULAB" replay "$T" txt -n 2000 --sizes 0.1 --json >>"$tmp/j" 2>/dev/null
# the multi-gen LRU's, on the trace's own clock
"$LRULAB" replay tests/data/cloudPhysicsIO.oracleGeneral.bin.zst oracleGeneral -n 2000 \
	--ignore-obj-size 1 --sizes 100 --lru mglru --trace-time --json >>"$tmp/j" 2>/dev/null
"$LRULAB" bench mglru-age --procs 2 --mem 64K --passes 1 --json >>"$tmp/j" 2>/dev/null
"$LRULAB" predict fault-free --type anon --cpus 1,4 --machine xeon-16c-207 --draws 2 --json \
	>>"$tmp/j" 2>/dev/null
[ "$(wc -l <"$tmp/j")" -eq 12 ] || fail "no JSON to compare lrulab.1 with"
"$LRULAB" layout --json >>"$tmp/j" 2>/dev/null || fail "no layout JSON to compare lrulab.1 with"
# host usemem needs root, a memory controller and a disk: where it runs
files=$(mktemp -d -p /var/tmp)
if TMPDIR=$files "$LRULAB" host usemem --type file --mem 4M --max 2M --seconds 0.05 --json \
	>"$tmp/h" 2>/dev/null; then
	cat "$tmp/h" >>"$tmp/j"
	TMPDIR=$files "$LRULAB" host usemem --type anon --mem 4M --max 2M --seconds 0.05 --json \
		>>"$tmp/j" 2>/dev/null ||
		echo "install: host usemem --type anon does not run here (no swap file?): its keys not checked"
	TMPDIR=$files "$LRULAB" replay "$T" txt -n 500 --sizes 64 --lru host --json \
		>>"$tmp/j" 2>/dev/null || fail "replay --lru host did not run where host usemem did"
else
	echo "install: host usemem does not run here: its keys not checked"
fi
rm -rf "$files"
for k in $(keys <"$tmp/j" | sort -u); do
	echo "$page" | grep -qw -- "$k" || fail "lrulab.1: no key $k"
done

if [ "$fails" -ne 0 ]; then
	echo "install: $fails failures"
	exit 1
fi
echo "install: all passed"
