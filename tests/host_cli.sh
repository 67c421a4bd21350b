#!/bin/sh
# `lrulab host usemem`: bad options and a missing root or memory
# controller get one error line and a non-zero exit; as root with a
# memory controller, a short real run reports the kernel's counters and
# leaves no cgroup and no file behind, after a normal end and after
# SIGINT.  What is checked holds on any machine; the real runs are
# skipped (and said so) where the machine cannot make a memory cgroup.
set -u
LRULAB=${1:?usage: host_cli.sh path/to/lrulab}
fails=0
tmp=$(mktemp -d)
err=$tmp/err
out=$tmp/out
trap 'rm -rf "$tmp" "${files:-}"' EXIT

fail() {
	echo "FAIL: $*"
	sed 's/^/  | /' "$err"
	fails=$((fails + 1))
}

# expect RC PREFIX ARGS...: exit RC, one stderr line starting with PREFIX
expect() {
	want=$1
	prefix=$2
	shift 2
	"$@" >"$out" 2>"$err"
	rc=$?
	lines=$(wc -l <"$err")
	if [ "$rc" -ne "$want" ] || [ "$lines" -ne 1 ] || ! grep -q "^$prefix: " "$err"; then
		fail "$*: exit $rc, $lines stderr lines"
	fi
}

P="lrulab host usemem"
expect 2 "$P" "$LRULAB" host usemem
expect 2 "$P" "$LRULAB" host usemem --type shmem
expect 2 "$P" "$LRULAB" host usemem --type anon --compare
expect 2 "$P" "$LRULAB" host usemem --type anon --fadvise random
expect 2 "$P" "$LRULAB" host usemem --type file --pattern zipf:-1
expect 2 "$P" "$LRULAB" host usemem --type file --fadvise dontneed
expect 2 "$P" "$LRULAB" host usemem --type file --mem 4M --max 4M
expect 2 "$P" "$LRULAB" host usemem --type file --mem 5000
expect 2 "$P" "$LRULAB" host usemem --type file --reps 2
expect 2 "$P" "$LRULAB" host usemem --type file --compare --reps 0
R="lrulab host replay"
seq 0 99 >"$tmp/scan.txt"
expect 2 "$R" "$LRULAB" host replay
expect 2 "$R" "$LRULAB" host replay "$tmp/scan.txt"
expect 2 "$R" "$LRULAB" host replay "$tmp/scan.txt" txt --reps 0
expect 2 "$R" "$LRULAB" host replay "$tmp/scan.txt" txt --rate 0
expect 2 "$R" "$LRULAB" host replay "$tmp/scan.txt" txt --fadvise willneed
expect 2 "$R" "$LRULAB" host replay "$tmp/scan.txt" nosuchtype
expect 2 "$R" "$LRULAB" host replay "$tmp/nonexistent.txt" txt
expect 2 "$R" "$LRULAB" host replay "$tmp/scan.txt" txt extra
# every page of every request is read through the host's page cache: bounded
awk 'BEGIN { for (i = 1; i <= 5; i++) printf "%d,1099511627776\n", i }' >"$tmp/tib.csv"
expect 2 "$R" "$LRULAB" host replay "$tmp/tib.csv" csv --trace-type-params "obj-id-col=1, obj-size-col=2"
grep -q ': line 5: a replay would read more than 1073741824 pages (4 TiB)' "$err" ||
	fail "host replay of 5 TiB: not the page bound"
LRULAB_CGROUP_ROOT=$tmp expect 1 "$R" "$LRULAB" host replay "$tmp/scan.txt" txt
grep -q 'no memory controller' "$err" || fail "host replay, no controller: wrong error"
# no memory controller where cgroups are looked for
LRULAB_CGROUP_ROOT=$tmp expect 1 "$P" "$LRULAB" host usemem --type file
grep -q 'no memory controller' "$err" || fail "no controller: wrong error"

if [ "$(id -u)" -ne 0 ]; then
	expect 1 "$P" "$LRULAB" host usemem --type file
	grep -q 'needs root' "$err" || fail "not root: wrong error"
	echo "host_cli: not root: real runs skipped"
elif command -v setpriv >/dev/null 2>&1; then
	expect 1 "$P" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$LRULAB" host usemem --type file
	grep -q 'needs root' "$err" || fail "not root: wrong error"
fi

# what a run with pid $1 may leave: its cgroup (v2 or v1) and files
leftovers() {
	ls -d /sys/fs/cgroup/lrulab-"$1" /sys/fs/cgroup/memory/lrulab-"$1" 2>/dev/null
	ls -A "$files"
}

files=$(mktemp -d -p /var/tmp)
if [ "$(id -u)" -eq 0 ] && [ "$(stat -f -c %T "$files")" != tmpfs ] &&
   { grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null ||
     [ -e /sys/fs/cgroup/memory/memory.limit_in_bytes ]; }; then
	TMPDIR=$files "$LRULAB" host usemem --type file --mem 16M --max 4M --seconds 0.2 \
		--fadvise random --json >"$out" 2>"$err" &
	pid=$!
	wait $pid || fail "host usemem: exit $?"
	grep -q '"engine":"host-kernel"' "$out" || fail "host usemem: no engine"
	grep -q '"pattern":"random","fadvise":"random"' "$out" || fail "host usemem: no pattern"
	grep -q '"memory_stat":{.*"workingset_refault_file":[1-9]' "$out" ||
		fail "host usemem: no refaults in memory_stat"
	grep -q '"vmstat":{.*"pgpgin":[1-9]' "$out" || fail "host usemem: no pgpgin"
	grep -q '"memcg_flush":"kernel"' "$out" || fail "host usemem: no flush timing"
	grep -q '"reads_waited":[1-9][0-9]*,"read_wait_us":[1-9]' "$out" ||
		fail "host usemem: no reads that waited for the disk"
	[ -z "$(leftovers $pid)" ] || fail "host usemem: left $(leftovers $pid)"

	# anon: swapping to a file of the run's own, page-cluster 0 for it;
	# after it the file is off and gone and page-cluster is back.  A
	# machine whose file system cannot hold a swap file says so at swapon.
	pc=$(cat /proc/sys/vm/page-cluster)
	TMPDIR=$files "$LRULAB" host usemem --type anon --mem 16M --max 4M --seconds 0.3 \
		--json >"$out" 2>"$err" &
	pid=$!
	if wait $pid; then
		grep -q '"type":"anon".*"swap_io":"disk","page_cluster":0' "$out" ||
			fail "host usemem --type anon: not its type and swap"
		grep -q '"vmstat":{.*"pswpin":[1-9]' "$out" || fail "host usemem --type anon: no pswpin"
		grep -q '"disk_reads":[1-9][0-9]*,"disk_read_us":[1-9]' "$out" ||
			fail "host usemem --type anon: no disk reads"
	elif grep -q 'swapon' "$err"; then
		echo "host_cli: $(cat "$err"): the anon run skipped" | tee "$tmp/anon-skipped"
	else
		fail "host usemem --type anon: exit $?"
	fi
	[ "$(cat /proc/sys/vm/page-cluster)" = "$pc" ] ||
		fail "host usemem --type anon: page-cluster left at $(cat /proc/sys/vm/page-cluster)"
	grep -q "lrulab-host-$pid" /proc/swaps && fail "host usemem --type anon: its swap file still on"
	[ -z "$(leftovers $pid)" ] || fail "host usemem --type anon: left $(leftovers $pid)"

	# --compare: host and model by turns, the model on the host's disk
	# figures, medians side by side; nothing left behind either
	TMPDIR=$files "$LRULAB" host usemem --type file --mem 16M --max 4M --seconds 0.2 \
		--fadvise random --compare --reps 2 --json >"$out" 2>"$err" &
	pid=$!
	wait $pid || fail "host usemem --compare: exit $?"
	grep -q '"engine":"compare"' "$out" || fail "host usemem --compare: no engine"
	[ "$(jq '.host_runs | length' "$out")" = 2 ] && [ "$(jq '.lrulab_runs | length' "$out")" = 2 ] ||
		fail "host usemem --compare: not two runs of each"
	[ "$(jq '.metrics["pgactivate per refault"].lrulab | length' "$out")" = 2 ] ||
		fail "host usemem --compare: no per-run pgactivate"
	for m in "pgpgin pages per read" "workingset_activate_file per refault" \
		"workingset_restore_file per refault" "pgdeactivate per refault" \
		"active share of the file LRU at the end"; do
		jq -e --arg m "$m" '.metrics[$m] | has("host_median") and has("lrulab_median") and
			has("ratio") and has("difference")' "$out" >/dev/null ||
			fail "host usemem --compare: no medians of $m"
	done
	jq -e '[.host_runs[0].read_ahead_kb, (.host_runs[0].read_wait_us + 0.5 | floor)] ==
		[.lrulab_runs[0].read_ahead_kb, .lrulab_runs[0].read_latency_us]' "$out" >/dev/null ||
		fail "host usemem --compare: the model did not get the host's disk"
	jq -e '.lrulab_runs[0].memcg_flush == "kernel" and .lrulab_runs[0].fadvise == "random"' \
		"$out" >/dev/null || fail "host usemem --compare: the model's options differ"
	[ -z "$(leftovers $pid)" ] || fail "host usemem --compare: left $(leftovers $pid)"

	# host replay: a scan of 100 objects misses each once whatever the
	# size; 40 objects read 10 times each fit a 256-page cgroup and miss
	# only their first reads, in each of two runs; nothing left behind
	TMPDIR=$files "$LRULAB" host replay "$tmp/scan.txt" txt --sizes 64 --json \
		>"$out" 2>"$err" &
	pid=$!
	wait $pid || fail "host replay: exit $?"
	jq -e '.engine == "host-kernel" and .lru == "host-kernel" and .requests == 100 and
		.misses == 100 and .memory_max == 64 and .fadvise == "random"' "$out" >/dev/null ||
		fail "host replay scan: $(cat "$out")"
	[ -z "$(leftovers $pid)" ] || fail "host replay: left $(leftovers $pid)"
	for i in 1 2 3 4 5 6 7 8 9 10; do seq 0 39; done >"$tmp/hot.txt"
	TMPDIR=$files "$LRULAB" host replay "$tmp/hot.txt" txt --sizes 256 --reps 2 --json \
		>"$out" 2>"$err" &
	pid=$!
	wait $pid || fail "host replay --reps 2: exit $?"
	[ "$(wc -l <"$out")" -eq 2 ] && jq -s -e '[.[].rep] == [0, 1] and
		all(.requests == 400 and .misses == 40 and .page_misses == 40)' "$out" >/dev/null ||
		fail "host replay hot: $(cat "$out")"
	[ -z "$(leftovers $pid)" ] || fail "host replay --reps 2: left $(leftovers $pid)"
	# the trace's file (3 TiB: within the page bound) must fit where it
	# goes: checked before it is written, not found out on a full disk
	awk 'BEGIN { for (i = 1; i <= 3; i++) printf "%d,1099511627776\n", i }' >"$tmp/tib3.csv"
	TMPDIR=$files "$LRULAB" host replay "$tmp/tib3.csv" csv --sizes 1G \
		--trace-type-params "obj-id-col=1, obj-size-col=2" >"$out" 2>"$err" &
	pid=$!
	wait $pid
	rc=$?
	[ "$rc" -eq 1 ] && [ "$(wc -l <"$err")" -eq 1 ] &&
		grep -q "^lrulab host replay: $files/lrulab-host-$pid-[^:]*: the trace's file is 3145728M, more than the [0-9]*M free there" "$err" ||
		fail "host replay of a 3 TiB file: exit $rc"
	[ -z "$(leftovers $pid)" ] || fail "host replay of a 3 TiB file: left $(leftovers $pid)"

	# --rate paces the reader: 400 requests at 2000 a second cannot end
	# before the 400th has started, 0.1995 s in
	TMPDIR=$files "$LRULAB" host replay "$tmp/hot.txt" txt --sizes 256 --rate 2000 --json \
		>"$out" 2>"$err" || fail "host replay --rate: exit $?"
	jq -e '.rate == 2000 and .requests_per_sec <= 2005.1 and .misses == 40' "$out" >/dev/null ||
		fail "host replay --rate 2000: $(cat "$out")"

	# replay --lru classic,host: the host's two runs a row of their own
	# (median, range, rate), the model beside it at the host's rate
	TMPDIR=$files "$LRULAB" replay "$tmp/hot.txt" txt --lru classic,host --sizes 256 \
		--reps 2 --json >"$out" 2>"$err" || fail "replay --lru classic,host: exit $?"
	[ "$(wc -l <"$out")" -eq 2 ] || fail "replay --lru classic,host: not 2 lines: $(cat "$out")"
	jq -s -e '.[1] | .lru == "host" and .engine == "host-kernel" and .runs == 2 and
		.requests == 400 and .misses == 40 and .miss_ratio == 0.1 and
		.miss_ratio_min == 0.1 and .miss_ratio_max == 0.1 and .requests_per_sec > 0' \
		"$out" >/dev/null || fail "replay --lru classic,host: host row: $(cat "$out")"
	jq -s -e '.[0].lru == "classic" and .[0].clock == "host" and .[0].misses == 40 and
		.[0].vs_host == 1 and .[0].rate == (.[1].requests_per_sec + 0.5 | floor)' \
		"$out" >/dev/null || fail "replay --lru classic,host: model row: $(cat "$out")"
	ls /sys/fs/cgroup/lrulab-* /sys/fs/cgroup/memory/lrulab-* >/dev/null 2>&1 &&
		fail "replay --lru classic,host: left a cgroup"
	[ -z "$(ls -A "$files")" ] || fail "replay --lru classic,host: left $(ls -A "$files")"

	# issue 21 item 8: SIGKILL leaves the cgroup and the files (no undo
	# can run); the next host command clears them, saying so
	TMPDIR=$files "$LRULAB" host usemem --type file --mem 16M --max 4M --seconds 60 \
		>"$out" 2>"$err" &
	pid=$!
	i=0
	while [ $i -lt 100 ] && [ -z "$(ls -A "$files")" ]; do
		sleep 0.05
		i=$((i + 1))
	done
	sleep 0.5
	kill -KILL $pid
	wait $pid 2>/dev/null
	left=$(leftovers $pid | wc -l)
	[ "$left" -ge 2 ] || fail "host usemem SIGKILL: $left leftovers, not a cgroup and a folder"
	TMPDIR=$files "$LRULAB" host usemem --type file --mem 16M --max 4M --seconds 0.1 \
		>"$out" 2>"$err" || fail "host usemem after a SIGKILL: exit $?"
	grep -q "^lrulab host: removed the memory cgroup /sys/fs/cgroup/\(memory/\)\{0,1\}lrulab-$pid, left by lrulab process $pid, which is gone$" "$err" ||
		fail "host usemem after a SIGKILL: the cgroup's removal not said"
	grep -q "^lrulab host: removed the folder ([0-9]* KiB) $files/lrulab-host-$pid-[A-Za-z0-9]*, left by lrulab process $pid, which is gone$" "$err" ||
		fail "host usemem after a SIGKILL: the folder's removal not said"
	[ -z "$(leftovers $pid)" ] || fail "host usemem after a SIGKILL: left $(leftovers $pid)"

	env --default-signal=INT true 2>/dev/null ||
		{ echo "host_cli: env has no --default-signal: SIGINT run skipped"; exit $fails; }
	# SIGINT while it reads: the same clean-up (a background job starts
	# with SIGINT ignored, and lrulab leaves an ignored signal so)
	TMPDIR=$files env --default-signal=INT "$LRULAB" host usemem --type file --mem 16M \
		--max 4M --seconds 60 >"$out" 2>"$err" &
	pid=$!
	i=0
	while [ $i -lt 100 ] && [ -z "$(ls -A "$files")" ]; do
		sleep 0.05
		i=$((i + 1))
	done
	sleep 0.5
	[ -n "$(ls -d /sys/fs/cgroup/lrulab-$pid /sys/fs/cgroup/memory/lrulab-$pid 2>/dev/null)" ] ||
		fail "host usemem: no cgroup while running"
	kill -INT $pid
	wait $pid
	rc=$?
	[ "$rc" -eq 130 ] || fail "host usemem SIGINT: exit $rc, not 130"
	# item 9: a stopped host run says so
	grep -qx "lrulab host: stopped by SIGINT; what it set up is undone" "$err" ||
		fail "host usemem SIGINT: printed nothing"
	[ -z "$(leftovers $pid)" ] || fail "host usemem SIGINT: left $(leftovers $pid)"

	# SIGINT while an anon run swaps: its swap file off and gone, page-cluster back
	if grep -q 'the anon run skipped' "$tmp/anon-skipped" 2>/dev/null; then
		echo "host_cli: no swap file here: anon SIGINT run skipped"
	else
		TMPDIR=$files env --default-signal=INT "$LRULAB" host usemem --type anon --mem 16M \
			--max 4M --seconds 60 >"$out" 2>"$err" &
		pid=$!
		i=0
		while [ $i -lt 100 ] && ! grep -q "lrulab-host-$pid" /proc/swaps; do
			sleep 0.05
			i=$((i + 1))
		done
		sleep 0.5
		grep -q "lrulab-host-$pid" /proc/swaps || fail "host usemem --type anon: no swap file while running"
		kill -INT $pid
		wait $pid
		rc=$?
		[ "$rc" -eq 130 ] || fail "host usemem --type anon SIGINT: exit $rc, not 130"
		[ "$(cat /proc/sys/vm/page-cluster)" = "$pc" ] ||
			fail "host usemem --type anon SIGINT: page-cluster left at $(cat /proc/sys/vm/page-cluster)"
		grep -q "lrulab-host-$pid" /proc/swaps && fail "host usemem --type anon SIGINT: its swap file still on"
		[ -z "$(leftovers $pid)" ] || fail "host usemem --type anon SIGINT: left $(leftovers $pid)"
	fi
else
	echo "host_cli: no root, no memory controller or /var/tmp on tmpfs: real runs skipped"
fi

if [ "$fails" -ne 0 ]; then
	echo "host_cli: $fails failures"
	exit 1
fi
echo "host_cli: all passed"
