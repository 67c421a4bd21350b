#!/bin/sh
# Command-line behaviour of the lrulab command: every bad input gets
# exactly one error line on stderr and exit status 2; good runs exit 0.
set -u
LRULAB=${1:?usage: cli.sh path/to/lrulab}
fails=0
err=$(mktemp)
out=$(mktemp)
trap 'rm -f "$err" "$out"' EXIT

bad() {
	"$LRULAB" "$@" >"$out" 2>"$err"
	rc=$?
	lines=$(wc -l <"$err")
	if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q '^lrulab' "$err"; then
		echo "FAIL: lrulab $*: exit $rc, $lines stderr lines:"
		cat "$err"
		fails=$((fails + 1))
	fi
}

# bad, and stderr is exactly the line given
says() {
	want=$1
	shift
	bad "$@"
	if [ "$(cat "$err")" != "$want" ]; then
		echo "FAIL: lrulab $*: said '$(cat "$err")', not '$want'"
		fails=$((fails + 1))
	fi
}

good() {
	want=$1
	shift
	"$LRULAB" "$@" >"$out" 2>"$err"
	rc=$?
	if [ "$rc" -ne 0 ] || ! grep -q -- "$want" "$out"; then
		echo "FAIL: lrulab $*: exit $rc, '$want' not in output"
		cat "$err"
		fails=$((fails + 1))
	fi
}

bad
bad frobnicate
bad demo --threads 0
bad demo --threads abc
bad demo --threads 100000
bad demo --type hugetlb
bad demo --mem 3K
bad demo --mem 12Q
bad demo --mem -4M
bad demo --loops
bad demo --lock spinny
bad demo --bogus
bad demo extra
bad lockbench --impl nope
bad lockbench --iters x
bad lockbench --what
bad pathbench --folios 3
bad pathbench --reps x
bad pathbench more
bad layout --bogus
bad usemem --threads 0
bad usemem --mem 3K
bad usemem --type hugetlb
bad usemem --with lru-stat-batch
bad usemem --max 64M --mem 1M
bad usemem --threads 2 --mem 1M
bad usemem extra
bad bench usemem --seconds 0

# every size past its limit says so alike, whatever its suffix
says 'lrulab bench: --mem: 2G is too big (at most 1G per thread)' bench fault-free --mem 2G
says 'lrulab bench: --mem: 1T is too big (at most 1G per thread)' bench fault-free --mem 1T
says 'lrulab bench: --mem: 99999999999999999999G is too big (at most 1G per thread)' \
	bench fault-free --mem 99999999999999999999G
says 'lrulab bench: --max: 2G is too big (at most 1G)' bench usemem --max 2G
says 'lrulab demo: --mem: 1T is too big (at most 1G per thread)' demo --mem 1T
# one option table per command (tools/options.c): its errors worded alike
says "lrulab lockbench: unknown or incomplete option '--iters'" lockbench --iters
says "lrulab layout: unknown or incomplete option '--bogus'" layout --bogus
says "lrulab layout: unexpected argument 'x'" layout x
says "lrulab pathbench: unexpected argument 'more'" pathbench more
good '  --reps N    runs per configuration, alternated (default 7)' pathbench --help
good 'usage: lrulab lockbench \[--impl NAME\] \[--iters N\]' lockbench --help
says 'lrulab repro: --mem: 1T is too big (at most 1G per thread)' repro s0 --mem 1T
says "lrulab bench: --mem: invalid size '1.5G' (expected e.g. 4K, 16M, 1G)" \
	bench fault-free --mem 1.5G

good 'commands:' help
good 'lru-stat-batch, holds timed in full mode:' pathbench --folios 310 --reps 1
good 'sampled (default):' pathbench --folios 310 --reps 1
good 'full (--profile-hold): two clock reads' lockbench --impl ticket --iters 1000
good 'usage: lrulab demo' demo --help
good 'invariants: ok' demo --threads 2 --loops 2 --mem 256K
good 'invariants: ok' demo --threads 2 --loops 2 --mem 256K --type anon --lock ticket
good 'invariants: ok' demo --threads 1 --loops 1 --mem 64K --no-lockstat
good 'workingset_refault_anon' usemem --threads 2 --mem 4M --seconds 0.2
good 'cost sites' bench usemem --threads 1 --mem 4M --seconds 0.2 --with vmstat-scan-cost --type shmem

bad help nope
bad help bench demo
bad --version extra
good '^lrulab [0-9][0-9.]* ' --version

# 'lrulab help CMD' prints just what 'lrulab CMD --help' prints
for c in demo pathbench bench ab repro usemem replay lockbench host layout; do
	"$LRULAB" help "$c" >"$out" 2>"$err"
	rc=$?
	if [ "$rc" -ne 0 ] || ! "$LRULAB" "$c" --help | cmp -s - "$out" ||
	   ! grep -q "^usage: lrulab" "$out"; then
		echo "FAIL: lrulab help $c: exit $rc, not what 'lrulab $c --help' prints"
		fails=$((fails + 1))
	fi
done

# a result that cannot be written fails the run, with one line saying why
for args in "bench fault-free --threads 1 --mem 64K --seconds 0.05" \
	    "bench fault-free --threads 1 --mem 64K --seconds 0.05 --json" \
	    "--version" "help bench"; do
	# shellcheck disable=SC2086
	"$LRULAB" $args >/dev/full 2>"$err"
	rc=$?
	if [ "$rc" -ne 1 ] || [ "$(wc -l <"$err")" -ne 1 ] ||
	   ! grep -q '^lrulab: write error on standard output' "$err"; then
		echo "FAIL: lrulab $args >/dev/full: exit $rc, said '$(cat "$err")'"
		fails=$((fails + 1))
	fi
done

if [ "$fails" -ne 0 ]; then
	echo "cli: $fails failures"
	exit 1
fi
echo "cli: all passed"
