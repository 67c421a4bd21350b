#!/bin/sh
# Command-line behaviour of `lrulab bench`, `lrulab ab` and `lrulab repro`:
# every bad input gets exactly one error line on stderr, naming the
# command, and exit status 2; good runs exit 0 with what scripts read.
# No run is timed: what is checked holds on any machine.
set -u
LRULAB=${1:?usage: bench_cli.sh path/to/lrulab}
fails=0
tmp=$(mktemp -d)
err=$tmp/err
out=$tmp/out
trap 'umount "$tmp/rofs" "$tmp/fullfs" 2>/dev/null; rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*"
	sed 's/^/  | /' "$err"
	fails=$((fails + 1))
}

# bad PREFIX ARGS...: exit 2, one stderr line starting with PREFIX
bad() {
	prefix=$1
	shift
	"$LRULAB" "$@" >"$out" 2>"$err"
	rc=$?
	lines=$(wc -l <"$err")
	if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q "^$prefix: " "$err"; then
		fail "lrulab $*: exit $rc, $lines stderr lines"
	fi
}

# good PATTERN ARGS...: exit 0 and PATTERN in stdout
good() {
	want=$1
	shift
	"$LRULAB" "$@" >"$out" 2>"$err"
	rc=$?
	if [ "$rc" -ne 0 ] || ! grep -q -- "$want" "$out"; then
		fail "lrulab $*: exit $rc, '$want' not in output"
	fi
}

B="lrulab bench"
bad "$B" bench
bad "$B" bench no-such-workload
bad "$B" bench fault-free --with no-such-switch
bad "$B" bench fault-free --without no-such-switch
bad "$B" bench fault-free --with lru-stat-batch --without lru-stat-batch
# --lru-gen[=MASK]: the caps of /sys/kernel/mm/lru_gen/enabled, and the lru-gen switch
bad "$B" bench fault-free --lru-gen=8
bad "$B" bench fault-free --lru-gen=x
bad "$B" bench fault-free --lru-gen=
bad "$B" bench fault-free --lru-gen=-1
bad "$B" bench fault-free --with lru-gen --lru-gen=0x6
bad "$B" bench fault-free --folio-size 8K
bad "$B" bench fault-free --folio-size 2M
bad "$B" bench fault-free --folio-size big
bad "$B" bench fault-free --mem 0
bad "$B" bench fault-free --mem 3K
bad "$B" bench fault-free --mem 2G
bad "$B" bench fault-free --type anon --folio-size 64K --mem 16K
bad "$B" bench fault-free --type shmem --folio-size 16K
bad "$B" bench fault-free --threads 0
bad "$B" bench fault-free --threads -1
bad "$B" bench fault-free --threads 1,0,2
bad "$B" bench fault-free --threads 1,,2
bad "$B" bench fault-free --threads ,1
bad "$B" bench fault-free --threads x
bad "$B" bench fault-free --type hugetlb
bad "$B" bench fault-free --seconds 0
bad "$B" bench fault-free --seconds 1 --loops 1
bad "$B" bench fault-free --memcgs 0
bad "$B" bench fault-free --node-mem 0
bad "$B" bench fault-free --node-mem x
bad "$B" bench usemem --node-mem 8G
bad "$B" bench mglru-age --node-mem 8G
bad "$B" bench fault-free --lock spinny
bad "$B" bench fault-free --fault-work -5
bad "$B" bench fault-free --flush-ms -1
bad "$B" bench fault-free --flush-ms 60001
bad "$B" bench usemem --flush-ms x
bad "$B" bench usemem --drain-all-us 5
bad "$B" bench fault-free --drain-all-us 0
bad "$B" bench mmap-madvise --drain-all-us x
bad "$B" bench fault-free --bogus
bad "$B" bench fault-free extra
bad "$B" bench mmap-madvise --type shmem
bad "$B" bench mmap-madvise --folio-size 8K
bad "$B" bench fault-free --max 4M
bad "$B" bench usemem --threads 0
bad "$B" bench usemem --threads x
bad "$B" bench usemem --seconds 0
bad "$B" bench usemem --seconds 1 --loops 2
bad "$B" bench usemem --loops 2
bad "$B" bench usemem --memcgs 2
bad "$B" bench usemem --folio-size 16K
bad "$B" bench usemem --profile-hold
bad "$B" bench usemem --mem 3K
bad "$B" bench usemem --max 3K
bad "$B" bench usemem --max 0
bad "$B" bench usemem --max 64M --mem 1M
bad "$B" bench usemem --threads 2 --mem 1M
bad "$B" bench usemem --type hugetlb
bad "$B" bench fault-free --type file
bad "$B" bench fault-free --swap copy
bad "$B" bench usemem --swap lz4
bad "$B" bench usemem --swap-io disk
bad "$B" bench usemem --swap-latency 10
bad "$B" bench usemem --swap-io async --swap-latency -1
bad "$B" bench fault-free --swap-io async
bad "$B" bench usemem --with lru-stat-batch
bad "$B" bench usemem --with no-such-switch
bad "$B" bench usemem --with vmstat-scan-cost --without vmstat-scan-cost
bad "$B" bench usemem --lock spinny
bad "$B" bench usemem --bogus
bad "$B" bench usemem extra
bad "$B" bench fault-free --show lru_genx
bad "$B" bench usemem --show
bad "$B" bench fault-free --procs 2
bad "$B" bench usemem --passes 2
bad "$B" bench mglru-age --procs 0
bad "$B" bench mglru-age --procs 1,,2
bad "$B" bench mglru-age --passes 0
bad "$B" bench mglru-age --mem 3K
bad "$B" bench mglru-age --mem 5G
bad "$B" bench mglru-age --with lru-stat-batch
bad "$B" bench mglru-age --bogus
bad "$B" bench mglru-age --lru-gen=0x6
bad "$B" bench mglru-age --without lru-gen

A="lrulab ab"
bad "$A" ab
bad "$A" ab --reps 0 -- fault-free
bad "$A" ab --ab no-such-switch -- fault-free
bad "$A" ab --bogus -- fault-free
bad "$A" ab -- no-such-workload
bad "$A" ab -- fault-free --mem 0
bad "$A" ab -- fault-free --threads 0
bad "$A" ab --a-with lru-stat-batch -- fault-free --without lru-stat-batch

R="lrulab repro"
bad "$R" repro
bad "$R" repro s9
bad "$R" repro s0 s4
bad "$R" repro s0 --reps 0
bad "$R" repro s0 --cpus 0
bad "$R" repro s0 --mem 4K
bad "$R" repro s0 --bogus
bad "$R" repro s1 --usemem-seconds 0
bad "$R" repro s1 --swap-io disk
bad "$R" repro s2 --s2-mem 0
bad "$R" repro s2 --s2-mem 5G

# issue 21 item 6: bad input is found before any run, with exit 2
# bad_is LINE ARGS...: bad, and the one stderr line is exactly LINE
bad_is() {
	line=$1
	shift
	bad "${line%%: *}" "$@"
	[ "$(cat "$err")" = "$line" ] || fail "lrulab $*: stderr is not '$line'"
}
bad_is "lrulab repro: --before-bin /nonexistent: No such file or directory" \
	repro s3 --before-bin /nonexistent
bad_is "lrulab repro: --after-bin /etc/passwd: not executable" repro s3 --after-bin /etc/passwd
bad_is "lrulab repro: --before-bin: only s3 runs two builds (s4 is not s3 or all)" \
	repro s4 --before-bin "$LRULAB"
bad_is "lrulab repro: --fit fits the predicted rows: it needs --predict" repro s4 --fit
bad_is "lrulab repro: --fit: only s0 and s4 fit a speed (s3 is not s0, s4 or all)" \
	repro s3 --predict --fit
bad_is "lrulab ab: --a-bin /nonexistent: No such file or directory" \
	ab --a-bin /nonexistent -- fault-free
bad_is "lrulab ab: --b-bin /: not a regular file" ab --b-bin / -- fault-free
bad_is "lrulab bench: --record '': an empty file name" bench fault-free --record ''
bad_is "lrulab bench: $tmp/no/such: No such file or directory" \
	bench fault-free --record "$tmp/no/such/r.rec"
bad_is "lrulab bench: --node-mem: '1K' is too small (at least 16M)" bench fault-free --node-mem 1K
# item 7: --out is made and written to before the first run
: >"$tmp/afile"
bad_is "lrulab repro: $tmp/afile/x: cannot create the folder: Not a directory" \
	repro s4 --quick --out "$tmp/afile/x"
# a read-only and a full file system need a mount (root): when one can
# be made here, nothing runs on a read-only --out, and a full one leaves
# no partial result under its final name
mkdir -p "$tmp/rofs" "$tmp/fullfs"
if mount -t tmpfs -o ro,size=64k tmpfs "$tmp/rofs" 2>/dev/null; then
	bad_is "lrulab repro: $tmp/rofs: cannot write there: Read-only file system" \
		repro s4 --quick --out "$tmp/rofs"
	grep -q 'runs:' "$out" && fail "repro s4 on a read-only --out: ran"
	umount "$tmp/rofs"
	mount -t tmpfs -o size=64k tmpfs "$tmp/fullfs"
	head -c 61000 /dev/zero >"$tmp/fullfs/fill" 2>/dev/null
	"$LRULAB" repro s4 --quick --out "$tmp/fullfs" >"$out" 2>"$err"
	rc=$?
	[ "$rc" -eq 1 ] || fail "repro s4 on a full --out: exit $rc, not 1"
	# the file named, whether the dump (cannot write PATH) or the commit (PATH:) found it full
	grep -q "^lrulab repro: \(cannot write \)\?$tmp/fullfs/s4-mthp-lru-cache[^ ]*: No space left on device$" "$err" ||
		fail "repro s4 on a full --out: no error naming the file"
	ls "$tmp/fullfs" | grep -q 'json' && ! python3 -c 'import json,sys; [json.load(open(f)) for f in sys.argv[1:]]' "$tmp/fullfs"/*.json 2>/dev/null &&
		fail "repro s4 on a full --out: a partial JSON file under its final name"
	ls "$tmp/fullfs" | grep -q '\.tmp-' && fail "repro s4 on a full --out: a temporary file left"
	umount "$tmp/fullfs"
else
	echo "bench_cli: read-only and full --out not checked (no mount here)"
fi

# item 9: one of a thing is not "1 things" (one processor: taskset)
if command -v taskset >/dev/null 2>&1 && taskset -c 0 true 2>/dev/null; then
	"$LRULAB" bench fault-free --threads 1 --loops 1 --mem 64K >"$out" 2>"$err"
	grep -q '^lrulab bench fault-free: shmem, 1 thread on [0-9]* processors*, 64K each, 4K folios, 1 loop, ' "$out" ||
		fail "bench fault-free: '1 thread', '1 loop'"
	taskset -c 0 "$LRULAB" bench fault-free --threads 1 --loops 1 --mem 64K >"$out" 2>"$err"
	grep -q '^lrulab bench fault-free: shmem, 1 thread on 1 processor, 64K each, 4K folios, 1 loop, ' "$out" ||
		fail "bench fault-free on one processor: '1 processor'"
	taskset -c 0 "$LRULAB" bench usemem --threads 1 --mem 4M --seconds 0.02 >"$out" 2>"$err"
	grep -q '^lrulab bench usemem: 1 thread x 4096 KiB anon, ' "$out" || fail "bench usemem: '1 thread'"
	grep -q '1 threads\|1 processors\|[^0-9]1 loops' "$out" && fail "bench usemem: a plural of one"
fi

good 'usage: lrulab bench' bench --help
good 'usage: lrulab bench fault-free' bench fault-free --help
good 'usage: lrulab bench usemem' bench usemem --help
good 'usage: lrulab bench mglru-age' bench mglru-age --help

# mglru-age (s2): with the switch, every visit after a folio's first in a
# pass is skipped: 3 of 4 with 4 processes; with 1 process none.
good 'per pass 256 locked cmpxchgs (1.000 per page), 768 skipped' bench mglru-age --procs 4 --mem 1M --passes 2 --with mglru-skip-noop-cmpxchg
good 'per pass 1024 locked cmpxchgs (4.000 per page), 0 skipped' bench mglru-age --procs 4 --mem 1M --passes 2
good '"cmpxchg_skipped_per_pass":0.0' bench mglru-age --procs 1 --mem 1M --passes 2 --with mglru-skip-noop-cmpxchg --json
good '"ptes_walked_per_pass":512.0' bench mglru-age --procs 2 --mem 1M --passes 1 --json
# without 0x0002 the aging pass walks no page table
good '"ptes_walked_per_pass":0.0' bench mglru-age --procs 2 --mem 1M --passes 1 --lru-gen=0x1 --json
# --show prints the lru_gen file after any bench's report
good '^memcg [0-9]* /mglru-age$' bench mglru-age --procs 1 --mem 64K --passes 1 --show lru_gen
good '^                     3 ' bench mglru-age --procs 1 --mem 64K --passes 1 --show lru_gen_full
good '^ node     0$' bench fault-free --threads 1 --loops 1 --mem 64K --show lru_gen
good '^ node     0$' bench usemem --threads 1 --mem 4M --seconds 0.02 --show lru_gen
# the leaf's generations as the run left them, before the teardown offlines it
good '^memcg [0-9]* /usemem/leaf$' bench usemem --threads 1 --mem 4M --seconds 0.02 --show lru_gen
good 'usage: lrulab ab' ab --help
good 'usage: lrulab repro' repro --help

# A short run of each workload: the lock table, the figures, the memcgs'
# offsets and the invariant check are all there.
good 'invariants: ok' bench fault-free --threads 1,2 --loops 2 --mem 256K --memcgs 2
# --node-mem: the node's size, in the header only when given
good ', node 8192 MiB' bench fault-free --threads 1 --loops 1 --mem 64K --memcgs 1 --node-mem 8G
good 'pn offset % 128' bench fault-free --threads 1 --loops 1 --mem 256K
good 'lru_lock acquisitions per 1000 pages' bench fault-free --type anon --folio-size 16K --threads 2 --loops 2 --mem 256K
good 'invariants: ok' bench mmap-madvise --threads 2 --loops 2 --mem 256K --with mthp-lru-cache
good 'real ' bench mmap-madvise --threads 1 --loops 1 --mem 256K
good 'lru_lock hold time by section' bench fault-free --threads 1 --loops 1 --mem 256K --profile-hold
# Hold times say how they were taken: sampled by default, every one (and
# expensive) with --profile-hold; and whether waiters yield.
good '\* hold times sampled 1/64' bench fault-free --threads 1 --loops 1 --mem 256K
good 'full lock statistics are expensive' bench fault-free --threads 1 --loops 1 --mem 256K --profile-hold
good 'waiters spin until served, never yield' bench fault-free --threads 1 --loops 1 --mem 256K
good '"hold_sampled":64' bench fault-free --threads 1 --loops 1 --mem 256K --json
good '"hold_sampled":1' bench fault-free --threads 1 --loops 1 --mem 256K --json --profile-hold

# More threads than processors says so, in text and JSON.
over=$(( $(getconf _NPROCESSORS_ONLN) + 1 ))
good 'OVERSUBSCRIBED' bench fault-free --threads "$over" --loops 1 --mem 64K --memcgs 1
good '"oversubscribed":true' bench fault-free --threads "$over" --loops 1 --mem 64K --memcgs 1 --json
good 'waiters yield the processor after' bench fault-free --threads "$over" --loops 1 --mem 64K --memcgs 1
good '"spin_yield":true' bench fault-free --threads "$over" --loops 1 --mem 64K --memcgs 1 --json

# --seconds bounds a run with many more threads than processors: a pass
# ends at the run's end, not after 16M per thread (29 s for 0.3 s once).
# The stated slack: 1 s, and 20 ms per thread for the warm-up and each
# memcg, for the threads to see the end and free what they faulted.
many=$(( $(getconf _NPROCESSORS_ONLN) * 32 ))
[ "$many" -gt 256 ] && many=256
t0=$(date +%s%N)
"$LRULAB" bench fault-free --threads "$many" --seconds 0.3 --memcgs 1 --json >"$out" 2>"$err" ||
	fail "bench --threads $many --seconds 0.3: exit $?"
t1=$(date +%s%N)
awk -v ns=$((t1 - t0)) -v n="$many" 'BEGIN { exit !(ns / 1e9 <= 0.3 + 1 + 2 * n * 0.02) }' ||
	fail "bench --threads $many --seconds 0.3 --memcgs 1: ran $(( (t1 - t0) / 1000000 )) ms"
grep -q '"oversubscribed":true' "$out" || fail "bench --threads $many: not oversubscribed in JSON"

# --threads x --mem against the machine's memory, before anything is
# allocated: 256 x 1G (and the model's page entries) is more than most
# machines have.
avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
if [ "${avail_kb:-0}" -gt 0 ] && [ "$avail_kb" -lt $((250 << 20)) ]; then
	for cmd in "bench fault-free" "bench mmap-madvise" "bench usemem" "usemem"; do
		# shellcheck disable=SC2086
		bad "lrulab ${cmd%% *}" $cmd --threads 1,256 --mem 1G --seconds 0.01
		grep -q -- "--threads 256 x --mem 1G needs 260G (the working set and the model's page entries), more than the [0-9.]*[GM] this machine has available (MemAvailable in /proc/meminfo)$" "$err" ||
			fail "lrulab $cmd --threads 256 --mem 1G: not the memory error"
	done
	bad "lrulab ab" ab --ab lru-stat-batch -- fault-free --threads 256 --mem 1G
else
	echo "note: MemAvailable ${avail_kb:-?} kB: 256 x 1G fits, memory check not exercised"
fi

# usemem's prefault is bounded too (20 s for a 0.3 s run once): it gets
# --seconds, at least 1 s, + 20 ms per thread; then the window; then 1 s
# + 40 ms per thread for the threads to finish the fault they are in at
# the cut and at the end (behind preempted lock holders), and the teardown.
# A cut prefault says how far it got.  8M a thread: with 256M leaves a
# fault in flight can sit in reclaim for seconds, which no cut shortens.
t0=$(date +%s%N)
"$LRULAB" bench usemem --threads "$many" --mem 8M --seconds 0.3 --json >"$out" 2>"$err" ||
	fail "bench usemem --threads $many --seconds 0.3: exit $?"
t1=$(date +%s%N)
awk -v ns=$((t1 - t0)) -v n="$many" 'BEGIN { exit !(ns / 1e9 <= 0.3 + (1 + n * 0.02) + (1 + n * 0.04)) }' ||
	fail "bench usemem --threads $many --seconds 0.3: ran $(( (t1 - t0) / 1000000 )) ms"
grep -q '"prefault_complete":\(true\|false\)' "$out" && grep -q '"prefault_pages":[0-9]' "$out" ||
	fail "bench usemem --threads $many: no prefault keys in JSON"
if grep -q '"prefault_complete":false' "$out"; then
	"$LRULAB" bench usemem --threads "$many" --mem 8M --seconds 0.3 >"$out" 2>"$err"
	grep -q "^prefault cut at [0-9.]* s, its bound .*: [0-9]* of $((many * 2048)) pages written" "$out" ||
		fail "bench usemem --threads $many: a cut prefault not in the text"
fi
# a run the bound does not reach prefaults every page: 1 x 8M
good '"prefault_pages":2048,"prefault_complete":true' bench usemem --threads 1 --mem 8M --seconds 0.05 --json
# the LRU a usemem run used: classic by default, MGLRU with --lru-gen, --with lru-gen or a mask
good '"lru":"classic","lru_gen_enabled":0' bench usemem --threads 1 --mem 4M --seconds 0.05 --json
good '"lru":"mglru","lru_gen_enabled":7' bench usemem --threads 1 --mem 4M --seconds 0.05 --json --lru-gen
good '"lru":"mglru","lru_gen_enabled":7' bench usemem --threads 1 --mem 4M --seconds 0.05 --json --with lru-gen
good '"lru":"mglru","lru_gen_enabled":3' bench usemem --threads 1 --mem 4M --seconds 0.05 --json --lru-gen=0x3
good '"lru":"classic","lru_gen_enabled":0' bench usemem --threads 1 --mem 4M --seconds 0.05 --json --lru-gen=0x3 --without lru-gen
good 'multi-gen LRU 0x0007' bench usemem --threads 1 --mem 4M --seconds 0.05 --lru-gen

# --json: one object per run, each with the keys scripts read.
"$LRULAB" bench fault-free --threads 1,2 --loops 1 --mem 256K --json >"$out" 2>"$err" ||
	fail "bench --json: exit $?"
[ "$(wc -l <"$out")" -eq 2 ] || fail "bench --json --threads 1,2: not two lines"
for key in workload type threads cpus oversubscribed folio_size switches pages_per_sec \
	lru_lock_acquisitions_per_1k_pages lru_lock_hold_ns_per_page locks site acquired \
	contended wait_total_ns wait_max_ns hold_total_ns hold_timed pn_offset128 invariants_ok \
	lockstat hold_sampled clock_cost_ns spin_yield; do
	[ "$(grep -c "\"$key\":" "$out")" -eq 2 ] || fail "bench --json: key $key missing"
done
good '"switches":\["lru-stat-batch"\]' bench fault-free --threads 1 --loops 1 --mem 256K --with lru-stat-batch --json

# usemem through the harness: one object per thread count, the s1 keys.
"$LRULAB" bench usemem --threads 1,2 --mem 8M --seconds 0.05 --with vmstat-scan-cost \
	--json >"$out" 2>"$err" || fail "bench usemem --json: exit $?"
[ "$(wc -l <"$out")" -eq 2 ] || fail "bench usemem --json --threads 1,2: not two lines"
for key in workload pgscan_per_sec pgsteal_per_sec workingset_refault_anon_per_sec \
	lru_lock_wait_total_ns lru_lock_acquisitions_per_1k_reclaimed locks site \
	wait_total_ns invariants_ok hold_sampled spin_yield; do
	[ "$(grep -c "\"$key\":" "$out")" -eq 2 ] || fail "bench usemem --json: key $key missing"
done
grep -q '"switches":\["vmstat-scan-cost"\]' "$out" || fail "bench usemem --json: switch not on"
# the kernel's flush timing unless asked otherwise, said in JSON
[ "$(grep -c '"memcg_flush_ms":2000,"memcg_flush":"kernel",' "$out")" -eq 2 ] ||
	fail "bench usemem --json: not the kernel's flush timing by default"
grep -q '"leaf_turnovers_per_flush_period":[0-9.e+-]*,"stale_stats_samples":[0-9]*,"stale_stats_corner_share":' "$out" ||
	fail "bench usemem --json: no staleness figures"
# a drainer: every call counted, the CPUs it drained by work in JSON
"$LRULAB" bench mmap-madvise --threads 2 --loops 5 --drain-all-us 200 --json >"$out" 2>"$err" ||
	fail "bench mmap-madvise --drain-all-us 200: exit $?"
grep -q '"lru_add_drain_all":[1-9]' "$out" ||
	fail "bench mmap-madvise --drain-all-us 200: no lru_add_drain_all counted"
"$LRULAB" bench usemem --threads 1 --mem 4M --seconds 0.05 --flush-ms 5 >"$out" 2>"$err"
grep -q 'memcg flush every 5 ms' "$out" || fail "bench usemem --flush-ms 5: period not in the header"
good 'no verdict: 1 run a side' ab --ab vmstat-scan-cost --reps 1 --metric threads -- \
	usemem --threads 1 --mem 2M --seconds 0.05
good 'swap copy' bench usemem --threads 1 --mem 4M --seconds 0.05 --swap copy
# the disk-like device: writes end later and rotate; pages copied unless --swap says
good 'swap copy (async I/O)' bench usemem --threads 1 --mem 4M --seconds 0.05 --swap-io async
good 'swap zstd (async I/O)' bench usemem --threads 1 --mem 4M --seconds 0.05 --swap-io async \
	--swap zstd --swap-latency 0
"$LRULAB" bench usemem --threads 1 --mem 4M --seconds 0.05 --swap-io async --json >"$out" 2>"$err" ||
	fail "bench usemem --swap-io async: exit $?"
grep -q '"swap_io":"async"' "$out" || fail "bench usemem --swap-io async: not async"
grep -q '"swap_async_writes":0,' "$out" && fail "bench usemem --swap-io async: no async write"
# the swap-ins read the disk
grep -q '"swap_async_reads":0,' "$out" && fail "bench usemem --swap-io async: no swap-in read the disk"
# anon writes and file reads: reclaim takes from both lists
"$LRULAB" bench usemem --type mixed --threads 1 --mem 8M --seconds 0.1 --json >"$out" 2>"$err" ||
	fail "bench usemem --type mixed: exit $?"
grep -q '"type":"mixed"' "$out" || fail "bench usemem --type mixed: type not mixed"
grep -q '"pgsteal_anon":0,' "$out" && fail "bench usemem --type mixed: no anon reclaimed"
grep -q '"pgsteal_file":0,' "$out" && fail "bench usemem --type mixed: no file reclaimed"
# a regular file read at random: clean page cache dropped and refaulted, nothing swapped
"$LRULAB" bench usemem --type file --threads 1 --mem 4M --seconds 0.05 --json >"$out" 2>"$err" ||
	fail "bench usemem --type file: exit $?"
grep -q '"type":"file"' "$out" || fail "bench usemem --type file: type not file"
grep -q '"pswpout_per_sec":0' "$out" || fail "bench usemem --type file: it swapped"
grep -q '"workingset_refault_file_per_sec":0[,.]' "$out" && fail "bench usemem --type file: no file refaults"
# --pattern and --fadvise: a file's reads only, checked values, the deltas in the kernel's keys
bad "lrulab bench" bench usemem --pattern seq
bad "lrulab bench" bench usemem --type mixed --fadvise random
bad "lrulab bench" bench fault-free --pattern random
bad "lrulab bench" bench usemem --type file --pattern zipf:0
bad "lrulab bench" bench usemem --type file --pattern zipf:x
bad "lrulab bench" bench usemem --type file --pattern sequential
bad "lrulab bench" bench usemem --type file --fadvise willneed
"$LRULAB" bench usemem --type file --threads 1 --mem 4M --seconds 0.05 --pattern zipf:0.8 \
	--fadvise random --json >"$out" 2>"$err" || fail "bench usemem --pattern zipf: exit $?"
grep -q '"pattern":"zipf:0.8","fadvise":"random"' "$out" || fail "bench usemem --pattern zipf: no pattern"
grep -q '"vmstat":{.*"pgpgin":[1-9]' "$out" || fail "bench usemem --type file: no vmstat pgpgin"
grep -q '"memory_stat":{.*"workingset_refault_file":[1-9]' "$out" ||
	fail "bench usemem --type file: no memory_stat refaults"
bad "lrulab bench" bench usemem --type file --read-ahead-kb 6
bad "lrulab bench" bench usemem --type file --read-ahead-kb 0
bad "lrulab bench" bench usemem --read-ahead-kb 8192
good '"read_ahead_kb":8192' bench usemem --type file --threads 1 --mem 4M --seconds 0.05 \
	--read-ahead-kb 8192 --json
good 'pattern seq, fadvise sequential, readahead up to 256 KiB' bench usemem --type file \
	--threads 1 --mem 4M --seconds 0.05 --pattern seq --fadvise sequential
# a miss waits for a device by default (an SSD's 100 us), and says so
good 'device read latency 100 us (default, an SSD' bench usemem --type file \
	--threads 1 --mem 4M --seconds 0.05
good '"read_latency_us":100,"read_latency_default":true' bench usemem --type file \
	--threads 1 --mem 4M --seconds 0.05 --json
good '"read_latency_us":0,"read_latency_default":false' bench usemem --type file \
	--threads 1 --mem 4M --seconds 0.05 --read-latency 0 --json
good 'device read latency 0 us (--read-latency)' bench usemem --type file \
	--threads 1 --mem 4M --seconds 0.05 --read-latency 0

# ab on a switch that leaves the figure alone, the same run to run (lock
# acquisitions per 1000 pages of a fixed number of passes): "no difference".
good 'no difference' ab --ab memcg-direct-stat --reps 4 \
	--metric lru_lock_acquisitions_per_1k_pages -- fault-free --threads 1 --loops 2 --mem 256K
good '"no_difference":true' ab --ab memcg-direct-stat --reps 4 --json \
	--metric lru_lock_acquisitions_per_1k_pages -- fault-free --threads 1,2 --loops 1 --mem 256K
[ "$(grep -c '"no_difference":true' "$out")" -eq 2 ] || fail "ab --json --threads 1,2: not two verdicts"
# too few runs for any verdict: none, and how many it needs (text and JSON)
"$LRULAB" ab --ab lru-stat-batch --reps 3 -- fault-free --threads 1 --loops 1 --mem 64K \
	>"$out" 2>"$err" || fail "ab --reps 3: exit $?"
grep -q '   no verdict: 3 runs a side, a verdict needs --reps 4 or more$' "$out" ||
	fail "ab --reps 3: no 'no verdict' line"
grep -q 'B higher\|B lower\|no difference' "$out" && fail "ab --reps 3: a verdict"
"$LRULAB" ab --ab lru-stat-batch --reps 1 --json -- fault-free --threads 1 --loops 1 --mem 64K \
	>"$out" 2>"$err" || fail "ab --reps 1 --json: exit $?"
grep -q '"min_reps_for_verdict":4' "$out" || fail "ab --json: no min_reps_for_verdict"
grep -q '"no_difference"\|"ci_low"' "$out" && fail "ab --reps 1 --json: a verdict"

# repro --quick: the whole path (runs, tables, JSON, plots) in seconds.
# s3 compares two builds; the same binary twice must say its layout is
# not the patched one rather than fail.
good 'lru_lock acquisitions' repro s4 --quick --out "$tmp/res"
[ -s "$tmp/res/s4-mthp-lru-cache.json" ] || fail "repro s4: no s4-mthp-lru-cache.json"
# issue 21 item 7, the plot: on a file system with room for the tables,
# the .dat and the .gp (as the run above wrote them, and 16K more) but not
# for the PNG, gnuplot cuts the PNG short and exits 0: no PNG under its
# name, nor a temporary file, one line naming it, exit 1
if command -v gnuplot >/dev/null 2>&1 && mount -t tmpfs -o size=1m tmpfs "$tmp/fullfs" 2>/dev/null; then
	room=$(ls -l "$tmp/res"/s4-mthp-lru-cache*.json "$tmp/res"/s4-mthp-lru-cache.dat \
		"$tmp/res"/s4-mthp-lru-cache.gp | awk '{ k += int(($5 + 4095) / 4096) * 4 } END { print k + 16 }')
	umount "$tmp/fullfs"
	mount -t tmpfs -o size=$((room + 64))k tmpfs "$tmp/fullfs"
	head -c $((64 * 1024)) /dev/zero >"$tmp/fullfs/fill"
	"$LRULAB" repro s4 --quick --out "$tmp/fullfs" >"$out" 2>"$err"
	rc=$?
	[ "$rc" -eq 1 ] || fail "repro s4 with no room for its PNG: exit $rc, not 1"
	[ -e "$tmp/fullfs/s4-mthp-lru-cache.png" ] && fail "repro s4 with no room for its PNG: a PNG cut short"
	ls "$tmp/fullfs" | grep -q '\.tmp-' && fail "repro s4 with no room for its PNG: a temporary file left"
	[ "$(wc -l <"$err")" -eq 1 ] &&
		grep -q "^lrulab repro: cannot write $tmp/fullfs/s4-mthp-lru-cache.png: gnuplot left it cut short" "$err" ||
		fail "repro s4 with no room for its PNG: not one line naming it"
	umount "$tmp/fullfs"
fi
good 'WARNING: patch 1 ran layout' repro s3 --quick --out "$tmp/res" \
	--before-bin "$LRULAB" --after-bin "$LRULAB"
"$LRULAB" repro s0 --quick --json --out "$tmp/res" >"$out" 2>"$err" || fail "repro s0 --json: exit $?"
for key in seed rows label published_before published_after before after delta_pct \
	ci_low_pct ci_high_pct resolution below_resolution better any_machine; do
	grep -q "\"$key\":" "$out" || fail "repro --json: key $key missing"
done
good 'lruvec_cost_sample' repro s1 --quick --swap-io sync --out "$tmp/res"
# Noise is not a result: with sync swap pgrotated is 0 before and after,
# below its resolution: "~0", no percentage (JSON null), no bar; each row
# says which way is better and whether it holds on any machine.
grep -q '^  pgrotated / s  *\/s  *neither *|  *-  *-  *- |  *0  *0  *~0  below resolution (1 /s)$' "$out" ||
	fail "repro s1: pgrotated 0 -> 0 not ~0"
grep -q '^# acquisitions, every lru_lock site  *\/1k recl  *lower ' "$out" ||
	fail "repro s1: acquisitions per 1000 reclaimed pages not marked as holding on any machine"
grep -q '^   # holds on any machine: ' "$out" || fail "repro s1: no note on what holds on any machine"
dat=$tmp/res/s1-vmstat-scan-cost-sync.dat
gp=$tmp/res/s1-vmstat-scan-cost-sync.gp
[ "$(grep -c 'pgrotated' "$dat")" -eq 1 ] && grep -q '^[0-9.]* "pgrotated / s (/s, should not change)"$' "$dat" &&
	grep -q '^set label "~0: below the row.s resolution (1 /s)" at first 0, ' "$gp" ||
	fail "repro s1: pgrotated plotted"
grep -q '\.gp" line [0-9]*: warning' "$err" && fail "repro s1: gnuplot warned"
grep -q '"label": "pgrotated / s",' "$tmp/res/s1-vmstat-scan-cost-sync.json" &&
	tr -d ' \n' <"$tmp/res/s1-vmstat-scan-cost-sync.json" |
	grep -q '"label":"pgrotated/s","unit":"/s",[^}]*"delta_pct":null,[^}]*"below_resolution":true,"better":"neither","any_machine":false' ||
	fail "repro s1 JSON: pgrotated not below resolution"
# a row that sums several of bench's lock sites names them as bench's
# JSON does; the mail's perf offsets are marked as the mail's
tr -d ' \n' <"$tmp/res/s1-vmstat-scan-cost-sync.json" |
	grep -q '"label":"waitlru_note_cost_unlock_irq(mail:shrink_lruvec+0x770)",[^}]*"sites":\["lru_lock:shrink_inactive_list:lru_note_cost","lru_lock:lru_note_cost_unlock_irq"\]' ||
	fail "repro s1 JSON: the sites of a row"
# the plot: horizontal bars with the rows' names beside them, the legend
# below, an x label with its unit, a range that holds every bar (-100%
# here), and which way is better in every row's name
grep -q "^set key bmargin left vertical Left reverse samplen 3$" "$gp" &&
	grep -q "^set xlabel 'change, % of before (0: none)'$" "$gp" &&
	grep -q "^set ytics scale 0 nomirror$" "$gp" &&
	sed -n 's/^set xrange \[\(-[0-9]*\):[0-9]*\]$/\1/p' "$gp" | grep -q '^-1[0-9][0-9]\|^-[2-9][0-9][0-9]' ||
	fail "repro s1: plot settings"
sed '/^$/q' "$dat" | grep -q '^[0-9.]* "' || fail "repro s1: no row names in the plot's data"
[ "$(sed '/^$/q' "$dat" | grep -vc 'is better)"$\|should not change)"$\|^#\|^$')" -eq 0 ] ||
	fail "repro s1: a plotted row does not say which way is better"
# s2: the mail's four rows of time per pass, each with its cmpxchg rows
good '^# 64: cmpxchgs skipped per pass *skip/pass' repro s2 --quick --out "$tmp/res"
good 'the mail.s is 2G: --s2-mem 2G runs that' repro s2 --quick --reps 1 --out "$tmp/res"
# --calibrate: each fault-free shape calibrated once against this kernel,
# the work found named in the table's notes
good 'fault work matched to this machine.s kernel: shmem 4K [0-9]* ns, anon 4K [0-9]* ns' \
	repro s0 --quick --calibrate --out "$tmp/res"
# --fit with --calibrate fits the core's speed once, on shmem's row, and
# anon's rows take it (where perf can measure the kernel's hold here)
if "$LRULAB" repro s0 --quick --predict --fit --calibrate --out "$tmp/res" >"$out" 2>"$err" &&
	grep -q "lru_lock's holds x [0-9.]*, the kernel's over lrulab's" "$out"; then
	grep -q "^   fitted: shmem, 20 threads: the target's core speed, [0-9.]* x this machine's" "$out" &&
		grep -q "^   fitted: anon takes the core speed fitted on shmem's row, [0-9.]* x this machine's (one machine)" "$out" ||
		fail "repro s0 --fit --calibrate: no core speed fitted once"
fi
[ -s "$tmp/res/s1-vmstat-scan-cost-sync.json" ] || fail "repro s1 --swap-io sync: no s1-vmstat-scan-cost-sync.json"
# the mail's swap file on a disk is the default; its writes' ends rotate
good 'swap: async, a disk as the mail.s swap file' repro s1 --quick --reps 1 --out "$tmp/res"
[ -s "$tmp/res/s1-vmstat-scan-cost.json" ] || fail "repro s1: no s1-vmstat-scan-cost.json"
tr -d ' \n' <"$tmp/res/s1-vmstat-scan-cost.json" |
	grep -q '"label":"pgrotated/s","unit":"/s",[^}]*"below_resolution":false' ||
	fail "repro s1: the default device's writes rotate nothing"
# --quick writes beside a full run (results/quick), says so, and never
# replaces a full run's table
abs=$(cd "$(dirname "$LRULAB")" && pwd)/lrulab
mkdir "$tmp/cwd" "$tmp/full"
(cd "$tmp/cwd" && "$abs" repro s4 --quick >"$out" 2>"$err") || fail "repro s4 --quick: exit $?"
grep -q '^writing under results/quick (--quick: tiny runs whose figures mean nothing)$' "$out" ||
	fail "repro --quick: does not say where it writes"
[ "$(ls "$tmp/cwd/results")" = quick ] && [ -s "$tmp/cwd/results/quick/s4-mthp-lru-cache.json" ] ||
	fail "repro --quick: not under results/quick"
echo '{"seed": "s4-mthp-lru-cache", "quick": false}' >"$tmp/full/s4-mthp-lru-cache.json"
cp "$tmp/full/s4-mthp-lru-cache.json" "$tmp/full.json"
"$LRULAB" repro s4 --quick --out "$tmp/full" >"$out" 2>"$err"
rc=$?
[ "$rc" -eq 1 ] && [ "$(cat "$err")" = "lrulab repro: $tmp/full/s4-mthp-lru-cache.json holds a full run's table: --quick does not replace it (give --out another DIR)" ] ||
	fail "repro --quick over a full run: exit $rc"
cmp -s "$tmp/full/s4-mthp-lru-cache.json" "$tmp/full.json" || fail "repro --quick replaced a full run"
[ -e "$tmp/full/s4-mthp-lru-cache-runs.json" ] && fail "repro --quick wrote the runs beside a full table"
good "note: replacing the full run's table in $tmp/full/s4-mthp-lru-cache.json" \
	repro s4 --reps 1 --seconds 0.02 --loops 1 --memcgs 1 --mem 256K --out "$tmp/full"
if [ -x "$(dirname "$LRULAB")/../pncold/lrulab" ]; then
	"$LRULAB" repro all --quick --json --out "$tmp/res" >"$out" 2>"$err" ||
		fail "repro all --quick: exit $?"
	grep -q '\.gp" line [0-9]*: warning' "$err" && fail "repro all: gnuplot warned"
	[ "$(ls "$tmp/res"/*.png | wc -l)" -ge 5 ] || fail "repro all: not a PNG per table"
	[ "$(grep -c '"seed":' "$out")" -eq 5 ] || fail "repro all --json: not five tables"
	# every table says which rows hold on any machine; s3's none
	[ "$(grep -c '"any_machine":true' "$out")" -eq 4 ] ||
		fail "repro all --json: a table without a row that holds on any machine"
	grep '"seed":"s3' "$out" | grep -q '"any_machine":true' &&
		fail "repro s3: a pages/s row said to hold on any machine"
	grep '"seed":"s3' "$out" | grep -q 'what holds on any machine here is the layout itself' ||
		fail "repro s3: no note on what holds on any machine"
fi

# ---- SIGINT and SIGTERM ----

# running PATTERN: a process whose command line has PATTERN runs
running() {
	ps -eo args | grep -v grep | grep -q -- "$1"
}

# wait_for PATTERN: until one does (10 s at most)
wait_for() {
	n=0
	while ! running "$1"; do
		n=$((n + 1))
		[ "$n" -gt 100 ] && return 1
		sleep 0.1
	done
}

# a bench stopped by a signal reports the passes so far, marked, and
# exits 128 + the signal; later thread counts do not run
"$LRULAB" bench fault-free --threads 1,2 --seconds 60 --mem 1044K --json >"$out" 2>"$err" &
pid=$!
wait_for 'bench fault-free --threads 1,2 --seconds 60 --mem 1044K' && sleep 1
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 130 ] || fail "bench, SIGINT: exit $rc"
[ "$(wc -l <"$out")" -eq 1 ] && grep -q '"interrupted":true,"signal":"SIGINT"' "$out" &&
	grep -q '"threads":1,' "$out" || fail "bench --json, SIGINT: no partial object marked interrupted"
[ -s "$err" ] && fail "bench, SIGINT: said something on stderr"
"$LRULAB" bench fault-free --threads 1 --seconds 60 --mem 1044K >"$out" 2>"$err" &
pid=$!
wait_for 'bench fault-free --threads 1 --seconds 60 --mem 1044K' && sleep 1
kill -TERM "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 143 ] || fail "bench, SIGTERM: exit $rc"
grep -q '^INTERRUPTED by SIGTERM: the figures are those of the passes before it$' "$out" &&
	grep -q '^pages faulted and freed: [1-9]' "$out" || fail "bench, SIGTERM: no partial report"
"$LRULAB" bench usemem --threads 1 --mem 4M --seconds 60 --json >"$out" 2>"$err" &
pid=$!
wait_for 'bench usemem --threads 1 --mem 4M --seconds 60' && sleep 1
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 130 ] && grep -q '"interrupted":true,"signal":"SIGINT"' "$out" ||
	fail "bench usemem, SIGINT: exit $rc, no partial object marked interrupted"

# ab and repro pass the signal on to their benchmark, wait for it, and
# exit the same way, leaving no process behind
"$LRULAB" ab --ab lru-stat-batch -- fault-free --threads 1 --seconds 60 --mem 1052K >"$out" 2>"$err" &
pid=$!
wait_for 'bench fault-free --threads 1 --seconds 60 --mem 1052K' && sleep 0.5
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 130 ] && [ "$(cat "$err")" = "$A: interrupted by SIGINT during run 1 of A" ] ||
	fail "ab, SIGINT: exit $rc"
running '--mem 1052K' && fail "ab, SIGINT: its benchmark still runs"
mkdir "$tmp/sig"
"$LRULAB" repro s4 --reps 3 --loops 100000 --mem 1088K --out "$tmp/sig" >"$out" 2>"$err" &
pid=$!
wait_for 'bench mmap-madvise.*--mem 1088K' && sleep 0.5
kill -TERM "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 143 ] && grep -q "^$R: interrupted by SIGTERM during run 1 of " "$err" ||
	fail "repro, SIGTERM: exit $rc"
running '--mem 1088K' && fail "repro, SIGTERM: its benchmark still runs"

# ---- lrulab host: the same workload on this machine's kernel ----

# exact RC LINE ARGS...: exit RC and LINE as the only stderr line
exact() {
	want_rc=$1
	want=$2
	shift 2
	"$LRULAB" "$@" >"$out" 2>"$err"
	rc=$?
	if [ "$rc" -ne "$want_rc" ] || [ "$(wc -l <"$err")" -ne 1 ] || [ "$(cat "$err")" != "$want" ]; then
		fail "lrulab $*: exit $rc (want $want_rc), stderr not '$want'"
	fi
}

# ab refuses, before any run, what cannot give an answer: A and B alike
# (one binary under any name, the same switches in effect), or a figure
# the runs do not report (--profile-hold's share without --profile-hold)
same="$A: A and B are the same configuration (one binary, the same switches): give --ab SWITCH, --a-with/--b-with SWITCH or --a-bin/--b-bin PATH"
exact 2 "$same" ab -- fault-free --threads 1 --loops 1 --mem 64K
exact 2 "$same" ab --a-without lru-stat-batch -- fault-free --threads 1 --loops 1 --mem 64K
exact 2 "$same" ab --a-with lru-stat-batch --b-with lru-stat-batch -- fault-free
exact 2 "$same" ab --a-bin "$LRULAB" --b-bin "$(cd "$(dirname "$LRULAB")" && pwd)/lrulab" -- fault-free
exact 2 "$A: --metric: a fault-free run reports no number 'no_such_metric' (e.g. pages_per_sec; see bench --json)" \
	ab --ab lru-stat-batch --metric no_such_metric -- fault-free --threads 1 --loops 1 --mem 64K
[ -s "$out" ] && fail "ab --metric no_such_metric: it ran"
exact 2 "$A: --metric: a fault-free run reports no number 'lru_lock_stat_hold_pct' (e.g. pages_per_sec; see bench --json)" \
	ab --ab lru-stat-batch --metric lru_lock_stat_hold_pct -- fault-free
exact 2 "$A: --metric: a usemem run reports no number 'swap_io_irqs' (e.g. pages_per_sec; see bench --json)" \
	ab --ab vmstat-scan-cost --metric swap_io_irqs -- usemem
good 'no verdict' ab --ab lru-stat-batch --reps 1 --metric lru_lock_stat_hold_pct -- \
	fault-free --threads 1 --loops 1 --mem 64K --profile-hold

H="lrulab host"
F="host fault-free"
exact 2 "$H: no workload given (fault-free, usemem, replay)" host
exact 2 "$H: unknown workload 'nope' (fault-free, usemem, replay)" host nope
exact 2 "$H: --type: unknown type 'hugetlb' (shmem or anon)" $F --type hugetlb
exact 2 "$H: --type: unknown type 'file' (shmem or anon)" $F --type file
exact 2 "$H: --threads: 0 is out of range [1, 256]" $F --threads 0
exact 2 "$H: --threads: -1 is out of range [1, 256]" $F --threads 1,-1
exact 2 "$H: --threads: invalid list '1,,2'" $F --threads 1,,2
exact 2 "$H: --threads: invalid list ',1'" $F --threads ,1
exact 2 "$H: --threads: invalid list '1,'" $F --threads 1,
exact 2 "$H: --threads: 'x' is not a number" $F --threads x
exact 2 "$H: --seconds: 0 is out of range [0.001, 3600]" $F --seconds 0
exact 2 "$H: --seconds: -1 is out of range [0.001, 3600]" $F --seconds -1
exact 2 "$H: --seconds: 'soon' is not a number" $F --seconds soon
exact 2 "$H: --mem: invalid size '0' (expected e.g. 4K, 16M, 1G)" $F --mem 0
exact 2 "$H: --mem: 2G is too big (at most 1G per thread)" $F --mem 2G
exact 2 "$H: --mem: 3072 bytes is not a multiple of the 4K folio size" $F --mem 3K
exact 2 "$H: --mem: 16384 bytes is not a multiple of the 64K folio size" $F --type anon --folio-size 64K --mem 16K
exact 2 "$H: --folio-size: 8K is not a folio size here (4K, 16K, 32K or 64K)" $F --folio-size 8K
exact 2 "$H: --folio-size: invalid size 'big' (expected e.g. 4K, 16M, 1G)" $F --folio-size big
exact 2 "$H: --fault-work: only with --perf-lock or --perf-hold, for lrulab's side of the comparison" \
	$F --fault-work 100
exact 2 "$H: --fault-work: -1 is out of range [0, 1000000]" $F --perf-lock --fault-work -1
exact 2 "$H: --perf-lock: lrulab's shmem has 4K folios only, so it has no table for shmem 16K" \
	$F --perf-lock --type shmem --folio-size 16K
exact 2 "$H: --perf-hold: lrulab's shmem has 4K folios only, so it has no table for shmem 16K" \
	$F --perf-hold --type shmem --folio-size 16K
exact 2 "$H: --perf-hold: one thread only (with more, the wait for lru_lock would count as its hold)" \
	$F --perf-hold --threads 2
exact 2 "$H: --perf-hold: one thread only (with more, the wait for lru_lock would count as its hold)" \
	$F --perf-hold --threads 1,2
exact 2 "$H: --perf-hold and --perf-lock: one at a time (each runs the host under its own perf)" \
	$F --perf-hold --perf-lock
exact 2 "$H: unknown or incomplete option '--bogus'" $F --bogus
exact 2 "$H: unknown or incomplete option '--threads'" $F --threads
exact 2 "$H: unknown or incomplete option '--lock'" $F --lock ticket
exact 2 "$H: unexpected argument 'extra'" $F extra
# the host's memory is real: 256 threads of 1G are more than any test machine has
bad "$H" $F --threads 256 --mem 1G
exact 2 "lrulab bench: --calibrate chooses --fault-work itself: give one or the other" \
	bench fault-free --calibrate --fault-work 5
exact 2 "lrulab bench: --calibrate: usemem has no host workload to match" bench usemem --calibrate
good 'usage: lrulab host fault-free' host --help
good 'usage: lrulab host fault-free' $F --help
good '--calibrate' bench fault-free --help
# without perf: one line, exit 1, before anything runs
env PATH=/nonexistent "$LRULAB" $F --perf-lock --threads 1 --seconds 0.01 >"$out" 2>"$err"
rc=$?
[ "$rc" -eq 1 ] && [ "$(wc -l <"$err")" -eq 1 ] &&
	[ "$(cat "$err")" = "$H: --perf-lock: perf is not installed (no perf in PATH)" ] ||
	fail "host --perf-lock without perf: exit $rc"
env PATH=/nonexistent "$LRULAB" $F --perf-hold --seconds 0.01 >"$out" 2>"$err"
rc=$?
[ "$rc" -eq 1 ] && [ "$(wc -l <"$err")" -eq 1 ] &&
	[ "$(cat "$err")" = "$H: --perf-hold: perf is not installed (no perf in PATH)" ] ||
	fail "host --perf-hold without perf: exit $rc"

# A short real run of each type: the keys bench has, marked host-kernel.
for type in anon shmem; do
	"$LRULAB" $F --type $type --threads 1,2 --seconds 0.02 --mem 256K --json >"$out" 2>"$err" ||
		fail "host --type $type --json: exit $?"
	[ "$(wc -l <"$out")" -eq 2 ] || fail "host --type $type --json --threads 1,2: not two lines"
	for key in workload type threads cpus oversubscribed folio_size mem_per_thread seconds \
		user_s sys_s pages warmup_pages pages_per_sec pages_per_sec_per_thread vmstat mthp; do
		[ "$(grep -c "\"$key\":" "$out")" -eq 2 ] || fail "host --type $type --json: key $key missing"
	done
	[ "$(grep -c '"engine":"host-kernel"' "$out")" -eq 2 ] || fail "host --type $type: engine not host-kernel"
	grep -q "\"type\":\"$type\"" "$out" || fail "host --type $type: type not $type"
	grep -q '"warmup_pages":64,' "$out" || fail "host --type $type: warm-up not 64 pages"
done
good 'engine host-kernel' $F --type anon --threads 1 --seconds 0.02 --mem 256K
good 'pages faulted and freed' $F --threads 1 --seconds 0.02 --mem 256K
good 'OVERSUBSCRIBED' $F --threads "$over" --seconds 0.02 --mem 64K
good '"oversubscribed":true' $F --threads "$over" --seconds 0.02 --mem 64K --json
good '"engine":"lrulab"' bench fault-free --threads 1 --loops 1 --mem 64K --json
# --vma: anon's threads' regions one VMA (as /proc/self/maps shows it) or one each
good '"vma":"shared","vmas":1,' $F --type anon --threads 2 --seconds 0.02 --mem 256K --json
good '"vma":"own","vmas":2,' $F --type anon --vma own --threads 2 --seconds 0.02 --mem 256K --json
good 'pages faulted and freed' bench fault-free --type anon --vma own --threads 2 --loops 1 --mem 256K
good 'pages faulted and freed' bench mmap-madvise --vma own --threads 2 --loops 1
exact 2 "$H: --vma: anon only (a shmem file's mapping is a VMA of its own)" $F --vma own
exact 2 "$H: --vma: unknown layout 'x' (shared or own)" $F --type anon --vma x
exact 2 "lrulab bench: --vma: anon only (a shmem file's mapping is a VMA of its own)" \
	bench fault-free --vma own
exact 2 "lrulab bench: --vma: unknown layout 'x' (shared or own)" bench fault-free --type anon --vma x
exact 2 "lrulab bench: --vma: usemem maps no anonymous ranges of its threads" bench usemem --vma own

# --calibrate: the host's rate, the work chosen, in text and in the JSON of each run
good 'host kernel ' bench fault-free --type anon --threads 1 --seconds 0.02 --mem 256K --calibrate
"$LRULAB" bench mmap-madvise --folio-size 4K --threads 1,2 --seconds 0.02 --mem 256K --calibrate \
	--json >"$out" 2>"$err" || fail "bench mmap-madvise --calibrate --json: exit $?"
[ "$(grep -c '"calibration":{' "$out")" -eq 2 ] || fail "bench --calibrate --json: no calibration"
for key in status host_pages_per_sec lrulab_pages_per_sec fault_work_ns off_pct steps; do
	grep -q "\"$key\":" "$out" || fail "bench --calibrate --json: key $key missing"
done

# What needs root: an mTHP size set for the run and put back, also when
# a signal ends the run; perf's lock table beside lrulab's.
thp=/sys/kernel/mm/transparent_hugepage/hugepages-16kB/enabled
T16="$F --type anon --folio-size 16K --threads 1 --mem 256K"
if [ "$(id -u)" -ne 0 ] || [ ! -w "$thp" ] || grep -q '\[always\]' "$thp"; then
	echo "bench_cli: skipping the mTHP host checks (needs root and $thp not always)"
elif ! "$LRULAB" $T16 --seconds 0.02 --json >"$out" 2>"$err"; then
	# a machine whose settings rule the run out says why, in one line
	[ "$(wc -l <"$err")" -eq 1 ] && grep -q "^$H: --folio-size 16K: " "$err" ||
		fail "host --folio-size 16K: failed without one clear line"
	echo "bench_cli: skipping the mTHP host checks: $(cat "$err")"
else
	before=$(cat "$thp")
	grep -q '"hugepages-16kB/anon_fault_alloc":' "$out" || fail "host --folio-size 16K: no 16K faults"
	[ "$(cat "$thp")" = "$before" ] || fail "host --folio-size 16K: $thp left as $(cat "$thp")"
	for sig in TERM HUP; do
		"$LRULAB" $T16 --seconds 30 >"$out" 2>"$err" &
		pid=$!
		# under load the run may take a while to set it: wait up to 10 s
		i=0
		while ! grep -q '\[always\]' "$thp" && [ $i -lt 200 ]; do
			sleep 0.05
			i=$((i + 1))
		done
		grep -q '\[always\]' "$thp" || fail "host --folio-size 16K: not always during the run"
		kill -$sig $pid
		wait $pid 2>/dev/null
		[ "$(cat "$thp")" = "$before" ] || fail "host SIG$sig: $thp left as $(cat "$thp")"
	done
	if command -v setpriv >/dev/null; then
		setpriv --reuid=65534 --regid=65534 --clear-groups "$LRULAB" $T16 --seconds 0.01 \
			>"$out" 2>"$err"
		rc=$?
		[ "$rc" -eq 1 ] && [ "$(wc -l <"$err")" -eq 1 ] &&
			[ "$(cat "$err")" = "$H: --folio-size 16K: cannot set $thp: Permission denied (needs root)" ] ||
			fail "host --folio-size 16K as nobody: exit $rc"
	fi
fi
if [ "$(id -u)" -eq 0 ] && command -v perf >/dev/null; then
	# a TMPDIR of its own: other runs on the machine make and remove theirs
	mkdir "$tmp/perf"
	if TMPDIR=$tmp/perf "$LRULAB" $F --type anon --threads 1 --seconds 0.05 --mem 256K --perf-lock \
		>"$out" 2>"$err"; then
		grep -q 'perf lock contention -E 10 (by caller)' "$out" || fail "host --perf-lock: no perf table"
		grep -q '^lru_lock contended acquisitions per 1000 pages: host ' "$out" ||
			fail "host --perf-lock: no lru_lock figure"
	else
		# perf is there but cannot trace locks here: one line saying so
		[ "$(wc -l <"$err")" -eq 1 ] && grep -q "^$H: --perf-lock: " "$err" ||
			fail "host --perf-lock: failed without one clear line"
	fi
	[ -z "$(ls -A "$tmp/perf")" ] ||
		fail "host --perf-lock: left a perf directory behind"
	if TMPDIR=$tmp/perf "$LRULAB" $F --type anon --seconds 0.2 --mem 1M --perf-hold --json \
		>"$out" 2>"$err"; then
		[ "$(jq -r '.perf_hold.period_ns' "$out")" = 250000 ] &&
			[ "$(jq -r '.threads' "$out")" = 1 ] &&
			jq -e '.perf_hold.samples > 0 and .lrulab.pages > 0' "$out" >/dev/null ||
			fail "host --perf-hold --json: $(head -c 300 "$out")"
	else
		[ "$(wc -l <"$err")" -eq 1 ] && grep -q "^$H: --perf-hold: " "$err" ||
			fail "host --perf-hold: failed without one clear line"
	fi
	[ -z "$(ls -A "$tmp/perf")" ] ||
		fail "host --perf-hold: left a perf directory behind"
fi

if [ "$fails" -ne 0 ]; then
	echo "bench_cli: $fails failures"
	exit 1
fi
echo "bench_cli: all passed"
