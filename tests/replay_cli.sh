#!/bin/sh
# `lrulab replay` on the command line: every bad flag, file or record gets
# exactly one error line on stderr and exit status 2; good runs print
# cachesim's lines and exit 0.  Runs from the repository's root.
set -u
LRULAB=${1:?usage: replay_cli.sh path/to/lrulab}
D=tests/data
fails=0
tmp=$(mktemp -d)
trap 'umount "$tmp/rofs" "$tmp/fullfs" 2>/dev/null; rm -rf "$tmp"' EXIT
err=$tmp/err
out=$tmp/out

bad() {
	"$LRULAB" replay "$@" >"$out" 2>"$err"
	rc=$?
	lines=$(wc -l <"$err")
	if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q '^lrulab replay: ' "$err"; then
		echo "FAIL: lrulab replay $*: exit $rc, $lines stderr lines:"
		cat "$err"
		fails=$((fails + 1))
	fi
}

# bad, and stderr is exactly $1
bad_is() {
	want=$1
	shift
	bad "$@"
	if [ "$(cat "$err")" != "$want" ]; then
		echo "FAIL: lrulab replay $*: stderr '$(cat "$err")', want '$want'"
		fails=$((fails + 1))
	fi
}

good() {
	want=$1
	shift
	"$LRULAB" replay "$@" >"$out" 2>"$err"
	rc=$?
	if [ "$rc" -ne 0 ] || ! grep -q -- "$want" "$out"; then
		echo "FAIL: lrulab replay $*: exit $rc, '$want' not in output"
		cat "$err"
		fails=$((fails + 1))
	fi
}

T=$D/cloudPhysicsIO.txt.zst
OG=$D/cloudPhysicsIO.oracleGeneral.bin.zst
printf '1\n2\nx\n' >"$tmp/bad.txt"
printf '1\n2\n1\n' >"$tmp/ok.txt"
head -c 100 "$OG" >"$tmp/cut.oracleGeneral.zst"

bad
bad "$T"
bad "$tmp/missing.txt" txt
bad "$T" vscsi
bad "$T" nosuchtype
bad "$T" txt --lru lirs
bad "$T" txt --lru fifo
bad "$T" txt --policy arc
bad "$T" txt --mode dax
bad "$T" txt --sizes 12q
bad "$T" txt --sizes 1mb
bad "$T" txt --sizes 1.5
bad "$T" txt --sizes ''
bad "$T" txt --ignore-obj-size 2
bad "$T" txt -t obj-id-col=1
bad "$T" txt -n 0
bad "$T" txt --jobs 0
bad "$T" txt extra
bad "$T" txt --bogus
bad "$T" txt --plot
# --trace-time: the trace's own stamps are the clock, in every format that has them
good 'misses=90840 .* clock_seconds=7200.00 clock_flushes=3600' "$OG" oracleGeneral --ignore-obj-size 1 \
	--sizes 4897 --lru classic --trace-time
good 'misses=90840 .* clock_seconds=7200.00 clock_flushes=3600' "$D/cloudPhysicsIO.csv.zst" csv \
	--ignore-obj-size 1 --sizes 4897 --lru classic --trace-time \
	-t "time-col=2, obj-id-col=5, obj-size-col=4, delimiter=,, has-header=true"
grep -q "^clock: the trace's own time stamps (--trace-time), 7200 s from its first request to its last" "$out" ||
	{ echo "FAIL: --trace-time: no clock line"; fails=$((fails + 1)); }
bad_is "lrulab replay: --trace-time: a txt trace has no time stamps (oracleGeneral, lcs and a csv's time-col have)" \
	"$T" txt --trace-time --sizes 100
bad_is "lrulab replay: --trace-time: the trace's own clock; not with --rate, --read-latency or --lru host" \
	"$T" txt --trace-time --rate 100
# --lru host: this machine's kernel, whose rate is the model's clock
bad_is "lrulab replay: --reps: the host's runs a size; only with --lru host" "$T" txt --reps 2
bad_is "lrulab replay: --lru host: the model runs at the host's request rate at each size; --read-latency does not apply (--rate paces the host)" \
	"$T" txt --lru classic,host --read-latency 100
bad_is "lrulab replay: --lru host: the host replays files only (--mode fd)" "$T" txt --lru host --mode mmap
bad_is "lrulab replay: --lru host: runs here, as root, not as --print-jobs or --merge jobs" \
	"$T" txt --lru classic,host --print-jobs
bad "$T" txt --lru host --reps 0
bad "$T" txt --lru host --reps 33
bad "$T" oracleGeneral
bad "$D/cloudPhysicsIO.csv.zst" csv
bad "$D/cloudPhysicsIO.csv.zst" csv -t obj-id-col=5
bad "$D/cloudPhysicsIO.csv.zst" csv -t "obj-id-col=5, has-header=true, ttl-col=2"
bad "$OG" oracleGeneral --sizes 100 --lru classic
bad "$tmp/bad.txt" txt
bad "$tmp/cut.oracleGeneral.zst" oracleGeneral
# issue 21 item 2: an access's size is bounded before its pages are requests
printf ' L 0,18446744073709551615\n' >"$tmp/h.lackey"
bad_is "lrulab replay: $tmp/h.lackey: line 1: access size 18446744073709551615 is over the bound of 65536 bytes" \
	"$tmp/h.lackey" lackey --policy lru -n 1 --sizes 10
# the kernel model's node is real memory: one that cannot fit is refused
# before any run (a 1 TiB object at half its size: 512 GiB)
printf '1,1099511627776\n2,4096\n' >"$tmp/huge.csv"
bad "$tmp/huge.csv" csv -t "obj-id-col=1, obj-size-col=2" --sizes 0.5
grep -q '^lrulab replay: cache size 549755815936: the kernel model needs 532496M for it, more than 3/4 of the [0-9]*M this machine has available$' "$err" ||
	{ echo "FAIL: replay of a 1 TiB object: '$(cat "$err")'"; fails=$((fails + 1)); }
# a replay reads every page of every request: a trace that would read
# more than 2^30 pages (4 TiB) in one is refused at the record that
# passes, before any run (five 1 TiB objects); the exact LRU, a request
# a step, replays it
awk 'BEGIN { for (i = 1; i <= 5; i++) printf "%d,1099511627776\n", i }' >"$tmp/tib.csv"
bad_is "lrulab replay: $tmp/tib.csv: line 5: a replay would read more than 1073741824 pages (4 TiB), the bound of one replay; -n 4 replays the requests before it" \
	"$tmp/tib.csv" csv -t "obj-id-col=1, obj-size-col=2" --sizes 1G
bad_is "lrulab replay: $tmp/tib.csv: line 5: a replay would read more than 1073741824 pages (4 TiB), the bound of one replay; -n 4 replays the requests before it" \
	"$tmp/tib.csv" csv -t "obj-id-col=1, obj-size-col=2" --sizes 1G --lru mglru --print-jobs
bad_is "lrulab replay: $tmp/tib.csv: line 5: a replay would read more than 1073741824 pages (4 TiB), the bound of one replay; -n 4 replays the requests before it" \
	"$tmp/tib.csv" csv -t "obj-id-col=1, obj-size-col=2" --sizes 1G --lru host
good 'lru cache size     1GiB,                5 req, miss ratio 1.0000' \
	"$tmp/tib.csv" csv -t "obj-id-col=1, obj-size-col=2" --sizes 1G --policy lru
# and -n stops inside one access: 17 pages, 3 of them requested
printf ' L 0,65536\n' >"$tmp/big.lackey"
good '3 req, miss ratio 1.0000' "$tmp/big.lackey" lackey --policy lru -n 3 --sizes 10

# libCacheSim's parity: LRU at 4,897 objects, 91,657 misses of 113,872, in every format
good 'cache size     4897,           113872 req, miss ratio 0.8049, throughput' \
	"$T" txt --sizes 4897 --policy lru
good 'misses=91657' "$OG" oracleGeneral --ignore-obj-size 1 --sizes 0.1 --policy lru
good 'misses=91657' "$D/cloudPhysicsIO.csv.zst" csv --ignore-obj-size 1 --sizes 4897 --policy lru \
	-t "time-col=2, obj-id-col=5, obj-size-col=4, delimiter=,, has-header=true"
good 'lru cache size      489, 113872 req, miss ratio 0.8380, byte miss ratio 0.8380' \
	"$T" txt --policy lru
# the kernel model, both modes, in parallel processes, JSON and a plot
good 'lru cache size        2, 3 req, miss ratio 0.6667' "$tmp/ok.txt" txt --sizes 2,3
good '"lru":"classic"' "$T" txt -n 5000 --sizes 0.1,0.5 --json --jobs 2
good 'pswpin=' "$T" txt -n 5000 --sizes 100 --mode mmap --lru classic
good 'lru_lock' "$T" txt -n 2000 --sizes 100 --lru classic --locks
# a sweep as GNU parallel runs it (one command per size and LRU, each a
# JSON line) merges into the table one local run gives, timings aside
A="$T txt -n 5000 --sizes 50,100,200 --lru classic,mglru --policy lru"
untimed() { sed 's/ req_per_sec=[0-9]*//; s/, throughput [0-9.]* MQPS//; s/loaded in [0-9.]* s//' "$@"; }
# shellcheck disable=SC2086
"$LRULAB" replay $A --print-jobs >"$tmp/jobs" 2>"$err"
[ "$(wc -l <"$tmp/jobs")" -eq 9 ] || { echo "FAIL: --print-jobs: $(wc -l <"$tmp/jobs") jobs, not 9"; fails=$((fails + 1)); }
if command -v parallel >/dev/null 2>&1; then
	parallel --will-cite -j 2 <"$tmp/jobs" >"$tmp/sweep.jsonl" 2>"$err"
else
	echo "replay_cli: no GNU parallel (scripts/install-deps.sh installs it): the jobs run by sh"
	sh "$tmp/jobs" >"$tmp/sweep.jsonl" 2>"$err"
fi
# shellcheck disable=SC2086
"$LRULAB" replay $A --merge "$tmp/sweep.jsonl" >"$tmp/merged" 2>"$err" &&
	"$LRULAB" replay $A >"$tmp/local" 2>>"$err" &&
	[ "$(untimed "$tmp/merged")" = "$(untimed "$tmp/local")" ] ||
	{ echo "FAIL: a sweep's --merge differs from the local run"; diff "$tmp/merged" "$tmp/local"; fails=$((fails + 1)); }
head -3 "$tmp/sweep.jsonl" >"$tmp/part.jsonl"
# shellcheck disable=SC2086
"$LRULAB" replay $A --merge "$tmp/part.jsonl" >"$out" 2>"$err"
[ $? -eq 2 ] && [ "$(cat "$err")" = "lrulab replay: --merge: no result for linux-classic at size 50" ] ||
	{ echo "FAIL: --merge of a part: $(cat "$err")"; fails=$((fails + 1)); }
bad "$T" txt --merge "$tmp/none.jsonl"
bad "$T" txt --print-jobs --merge "$tmp/part.jsonl"

# the multi-gen LRU beside the classic one: both curves, MGLRU's seqs at the end
good 'linux-mglru cache size      100,  *5000 req' "$T" txt -n 5000 --sizes 100 --lru classic,mglru
grep -q 'linux-classic cache size      100,  *5000 req' "$out" || { echo "FAIL: --lru classic,mglru: no classic line"; fails=$((fails + 1)); }
grep -q 'linux-mglru .* max_seq=[0-9]* min_seq_anon=[0-9]* min_seq_file=[0-9]* gen_pages_anon=0 gen_pages_file=[1-9]' "$out" ||
	{ echo "FAIL: --lru mglru: no generations"; fails=$((fails + 1)); }
# lru_gen_full's per-tier figures of the leaf at the end (deterministic)
good ' misses=2853 .* tier_evicted=13,4,1,0 tier_refaulted=0,0,0,0 tier_protected=0,0,0,0 tier_avg_refaulted=4,0,0,0 tier_avg_total=67,5,4,2$' \
	"$T" txt -n 5000 --sizes 100 --lru mglru
"$LRULAB" replay "$T" txt -n 5000 --sizes 100,200 --lru mglru --json >"$out" 2>"$err"
jq -s -e 'all(.tier_evicted | length == 4) and .[0].tier_evicted == [13, 4, 1, 0] and
	.[0].tier_avg_total == [67, 5, 4, 2]' "$out" >/dev/null ||
	{ echo "FAIL: --lru mglru --json: tier figures: $(head -c 300 "$out")"; fails=$((fails + 1)); }
[ "$(grep -c '"lru":"mglru","cache":"linux-mglru"' "$out")" -eq 2 ] && ! grep -q '"lru":"classic"' "$out" ||
	{ echo "FAIL: --lru mglru --json: $(cat "$out" | head -c 300)"; fails=$((fails + 1)); }
good 'linux-classic' "$T" txt -n 5000 --sizes 0.1,0.5 --plot "$tmp/mrc.png"
if [ ! -s "$tmp/mrc.png" ] || [ ! -s "$tmp/mrc.dat" ] || [ ! -s "$tmp/mrc.gp" ]; then
	echo "FAIL: --plot wrote no $tmp/mrc.png (or its .dat, .gp)"
	fails=$((fails + 1))
fi
# the x range: the sizes replayed and a fifth of a decade each side (not
# gnuplot's whole decades, whose last label the image cut), SI prefixes,
# the legend below the axis; gnuplot says nothing
range=$(awk 'NF == 3 && $1 ~ /^[0-9]+$/ { if (lo == "" || $1 < lo) lo = $1; if ($1 > hi) hi = $1 }
	END { printf "set xrange [%g:%g]", lo / 1.585, hi * 1.585 }' "$tmp/mrc.dat")
if ! grep -qxF "$range" "$tmp/mrc.gp" || ! grep -qxF "set format x '%.0s%c'" "$tmp/mrc.gp" ||
	! grep -qxF 'set key bmargin center horizontal' "$tmp/mrc.gp" || [ -s "$err" ]; then
	echo "FAIL: --plot: not '$range', its format or legend, or gnuplot said:"
	cat "$err"
	fails=$((fails + 1))
fi
# the plot's script redraws it on its own, to the same name
rm -f "$tmp/mrc.png"
if command -v gnuplot >/dev/null 2>&1 && { ! gnuplot "$tmp/mrc.gp" || [ ! -s "$tmp/mrc.png" ]; }; then
	echo "FAIL: gnuplot $tmp/mrc.gp: no $tmp/mrc.png"
	fails=$((fails + 1))
fi
# issue 21 item 7: the plot's folder is checked before anything runs
bad_is "lrulab replay: $tmp/no/such: No such file or directory" \
	"$T" txt -n 5000 --sizes 0.1 --plot "$tmp/no/such/mrc.png"
[ -s "$out" ] && { echo "FAIL: --plot into no folder: it ran"; fails=$((fails + 1)); }
bad_is "lrulab replay: --plot $tmp: a folder, not a file" "$T" txt --sizes 0.1 --plot "$tmp"
# a read-only and a full file system need a mount (root): nothing runs
# on a read-only one; on a full one the PNG gnuplot cuts short (and
# exits 0) is not left under its name, nor any temporary file
mkdir -p "$tmp/rofs" "$tmp/fullfs"
if mount -t tmpfs -o ro,size=64k tmpfs "$tmp/rofs" 2>/dev/null; then
	bad_is "lrulab replay: $tmp/rofs: cannot write there: Read-only file system" \
		"$T" txt -n 5000 --sizes 0.1 --plot "$tmp/rofs/mrc.png"
	[ -s "$out" ] && { echo "FAIL: --plot on a read-only folder: it ran"; fails=$((fails + 1)); }
	umount "$tmp/rofs"
	mount -t tmpfs -o size=64k tmpfs "$tmp/fullfs"
	head -c 50000 /dev/zero >"$tmp/fullfs/fill" 2>/dev/null
	"$LRULAB" replay "$T" txt -n 2000 --sizes 0.1,0.5 --policy lru --plot "$tmp/fullfs/mrc.png" \
		>"$out" 2>"$err"
	rc=$?
	if [ "$rc" -ne 1 ] || [ -e "$tmp/fullfs/mrc.png" ] || ls "$tmp/fullfs" | grep -q '\.tmp-' ||
		[ "$(wc -l <"$err")" -ne 1 ] ||
		! grep -q "^lrulab replay: cannot write $tmp/fullfs/mrc.png: gnuplot left it cut short" "$err"; then
		echo "FAIL: --plot on a full file system: exit $rc, $(ls "$tmp/fullfs"):"
		cat "$err"
		fails=$((fails + 1))
	fi
	umount "$tmp/fullfs"
else
	echo "replay_cli: read-only and full --plot folders not checked (no mount here)"
fi
# no size replayed: no curve to draw, one line, exit 1
"$LRULAB" replay "$tmp/ok.txt" txt --sizes 5 --lru classic --plot "$tmp/none.png" >"$out" 2>"$err"
rc=$?
if [ "$rc" -ne 1 ] || [ "$(cat "$err")" != "lrulab replay: --plot: no size was replayed: no PNG" ] ||
	[ -e "$tmp/none.png" ] || [ -e "$tmp/none.gp" ] || [ -e "$tmp/none.dat" ]; then
	echo "FAIL: --plot with no size replayed: exit $rc:"
	cat "$err"
	fails=$((fails + 1))
fi
good 'linux-classic cache size 5: not replayed: memory.max 5 pages is below 32' \
	"$tmp/ok.txt" txt --sizes 5 --lru classic
good 'usage: lrulab replay' --help

# issue 21 item 4: a signal to replay reaches its per-size processes:
# each is stopped and waited for, then replay exits 128 + the signal.
# The trace is all misses and long (a size takes seconds), so neither
# worker can finish before the signal: cloudPhysicsIO's sizes take 0.1 s.
seq 1 6000000 | awk '{ print $1 % 50000 }' >"$tmp/cyclic.txt"
for sig in TERM:15 INT:2; do
	num=${sig#*:}
	sig=${sig%:*}
	ln -s "$tmp/cyclic.txt" "$tmp/sig-$sig.txt"
	"$LRULAB" replay "$tmp/sig-$sig.txt" txt --lru classic --sizes 0.1,0.5 --jobs 2 \
		>"$out" 2>"$err" &
	pid=$!
	i=0
	while [ "$(pgrep -f "replay $tmp/sig-$sig.txt" | wc -l)" -lt 3 ] && [ $i -lt 400 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	kill -$sig $pid
	wait $pid
	rc=$?
	want=$((128 + num))
	[ "$rc" -eq "$want" ] || { echo "FAIL: replay --jobs 2, SIG$sig: exit $rc, not $want"; fails=$((fails + 1)); }
	[ "$(cat "$err")" = "lrulab replay: stopped by SIG$sig: 2 replay processes stopped" ] ||
		{ echo "FAIL: replay --jobs 2, SIG$sig: stderr '$(cat "$err")'"; fails=$((fails + 1)); }
	left=$(pgrep -f "replay $tmp/sig-$sig.txt" | wc -l)
	[ "$left" -eq 0 ] || { echo "FAIL: replay --jobs 2, SIG$sig: $left processes left running"; fails=$((fails + 1)); }
done

if [ "$fails" -ne 0 ]; then
	echo "replay cli: $fails failures"
	exit 1
fi
echo "replay cli: all passed"
