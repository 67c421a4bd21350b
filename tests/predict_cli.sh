#!/bin/sh
# `lrulab predict`, `lrulab calibrate`, `lrulab bench --record` (usemem
# too) and `lrulab repro --predict`: bad options, profiles and recordings get one
# error line and a non-zero exit; a recording written by bench is read
# back by predict, whose JSON has the documented keys, one object per
# CPU count; the shipped profiles all load; calibrate writes a profile
# that predict reads; repro s1, s2, s3 and s4 --predict add their rows.
# Figures are not checked (they depend on the machine); shapes and counts are.
set -u
LRULAB=${1:?usage: predict_cli.sh path/to/lrulab}
fails=0
tmp=$(mktemp -d)
err=$tmp/err
out=$tmp/out
trap 'rm -rf "$tmp"' EXIT
cd "$(dirname "$0")/.." || exit 1

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

P="lrulab predict"
M=profiles/skylake-2s-80.profile
expect 2 "$P" "$LRULAB" predict
expect 2 "$P" "$LRULAB" predict fault-free --machine $M
expect 2 "$P" "$LRULAB" predict fault-free --cpus 1,2
expect 2 "$P" "$LRULAB" predict fault-free --cpus 0 --machine $M
expect 2 "$P" "$LRULAB" predict fault-free --cpus 2 --machine $M --draws 65
expect 2 "$P" "$LRULAB" predict fault-free --cpus 2 --machine $M --single-thread-rate x
expect 2 "$P" "$LRULAB" predict fault-free --cpus 2 --machine $M --core-speed 0
grep -qx "$P: --core-speed: 0 is out of range \[0.01, 100\]" "$err" || fail "--core-speed 0: wrong error"
expect 2 "$P" "$LRULAB" predict nosuch --cpus 2 --machine $M
expect 2 "$P" "$LRULAB" predict fault-free --cpus 2 --machine $M --bogus
expect 2 "$P" "$LRULAB" predict fault-free --cpus 2 --machine $M --threads 1,2
expect 2 "$P" "$LRULAB" predict mglru-age --cpus 2 --machine $M
grep -q 'cannot be recorded' "$err" || fail "mglru-age: wrong error"
expect 2 "$P" "$LRULAB" predict usemem --folio-size 16K --cpus 2 --machine $M
grep -q 'do not apply to usemem' "$err" || fail "usemem --folio-size: wrong error"
expect 2 "$P" "$LRULAB" predict fault-free --cpus 2 --machine $tmp/none.profile
expect 2 "$P" "$LRULAB" predict fault-free --cpus 2 --machine
# bad profiles: each names the file, the line and what is wrong
sed 's/^xfer_socket_ns = 48 \[44 51\]/xfer_socket_ns = 60 [44 51]/' $M >$tmp/range.profile
expect 2 "$P" "$LRULAB" predict fault-free --cpus 2 --machine $tmp/range.profile
grep -q 'range.profile:[0-9]*: xfer_socket_ns: value outside its range' "$err" ||
	fail "range: wrong error"
grep -v '^tas_beta' $M >$tmp/missing.profile
expect 2 "$P" "$LRULAB" predict fault-free --cpus 2 --machine $tmp/missing.profile
grep -q 'tas_beta missing' "$err" || fail "missing: wrong error"
grep -v '^adjacent_line_prefetch' $M >$tmp/old.profile
expect 2 "$P" "$LRULAB" predict fault-free --cpus 2 --machine $tmp/old.profile
grep -q 'old.profile: adjacent_line_prefetch missing (a profile older than the key' "$err" ||
	fail "old profile: wrong error"
sed 's/ source: .*//' $M >$tmp/nosource.profile
expect 2 "$P" "$LRULAB" predict fault-free --cpus 2 --machine $tmp/nosource.profile
grep -q "no 'source:'" "$err" || fail "no source: wrong error"
# bad recordings: bad input, exit 2 (issue 21 item 6: a missing one was 1)
echo hello >$tmp/bad.rec
expect 2 "$P" "$LRULAB" predict --recording $tmp/bad.rec --cpus 2 --machine $M
grep -q 'not an lrulab recording' "$err" || fail "bad recording: wrong error"
printf 'LRULABRC\004' | zstd -q -c >$tmp/trunc.rec
expect 2 "$P" "$LRULAB" predict --recording $tmp/trunc.rec --cpus 2 --machine $M
grep -q 'truncated' "$err" || fail "truncated recording: wrong error"
printf 'LRULABRC\011' | zstd -q -c >$tmp/version.rec
expect 2 "$P" "$LRULAB" predict --recording $tmp/version.rec --cpus 2 --machine $M
grep -q 'version 9, this lrulab reads 4$' "$err" || fail "version: wrong error"
# a version 3 recording (before the address space's events): say so, once
printf 'LRULABRC\003' | zstd -q -c >$tmp/old.rec
expect 2 "$P" "$LRULAB" predict --recording $tmp/old.rec --cpus 2 --machine $M
grep -q "version 3, this lrulab reads 4 (an older recording, without the address space's events: record it again)$" "$err" ||
	fail "old recording: wrong error"
expect 2 "$P" "$LRULAB" predict --recording $tmp/none.rec --cpus 2 --machine $M
grep -qx "$P: $tmp/none.rec: No such file or directory" "$err" || fail "missing recording: wrong error"
expect 2 "$P" "$LRULAB" predict --recording $tmp/bad.rec fault-free --cpus 2 --machine $M

# issue 21 item 3: the magic is checked as soon as it is out (67 KB of
# zstd, 2 GB of zeros inside, took 2.1 GB before "bad magic"; 200 MB here), and a file
# that does not start a zstd frame is not read on (/dev/zero never ended)
head -c 200000000 /dev/zero | zstd -q -c >$tmp/zeros.rec
expect 2 "$P" timeout 20 "$LRULAB" predict --recording $tmp/zeros.rec --cpus 2 --machine $M
grep -qx "$P: $tmp/zeros.rec: not an lrulab recording (bad magic)" "$err" ||
	fail "zeros: wrong error"
expect 2 "$P" timeout 20 "$LRULAB" predict --recording /dev/zero --cpus 2 --machine $M
grep -qx "$P: /dev/zero: not an lrulab recording (no zstd frame)" "$err" || fail "/dev/zero: wrong error"

# exact_is RC LINE ARGS...: exit RC and stderr exactly LINE
exact_is() {
	want=$1
	line=$2
	shift 2
	"$@" >"$out" 2>"$err"
	rc=$?
	if [ "$rc" -ne "$want" ] || [ "$(cat "$err")" != "$line" ]; then
		fail "$*: exit $rc (want $want), stderr not '$line'"
	fi
}
# issue 21 item 5: a profile value that is not finite, a line over the
# reader's buffer and a name over its field are errors, not cut or read
# as something else
K=profiles/kvm-2vcpu.profile
# the line numbers as the shipped profile has them
fl=$(grep -n '^freq_one_busy_mhz = ' $K | cut -d: -f1)
tl=$(grep -n '^tas_beta = ' $K | cut -d: -f1)
sed 's/^freq_one_busy_mhz = 2600 \[2600 2600\]/freq_one_busy_mhz = nan/' $K >$tmp/nan.profile
exact_is 2 "$P: $tmp/nan.profile:$fl: freq_one_busy_mhz: not a finite number" \
	"$LRULAB" predict fault-free --cpus 2 --machine $tmp/nan.profile
sed 's/^freq_one_busy_mhz = 2600 \[2600 2600\]/freq_one_busy_mhz = 2600 [2600 inf]/' $K >$tmp/inf.profile
exact_is 2 "$P: $tmp/inf.profile:$fl: freq_one_busy_mhz: not a finite number" \
	"$LRULAB" predict fault-free --cpus 2 --machine $tmp/inf.profile
long=$(printf '%0600d' 0)
sed "s/^\(tas_beta = .*source: \)/\1$long /" $K >$tmp/long.profile
exact_is 2 "$P: $tmp/long.profile:$tl: line longer than the bound of 510 bytes" \
	"$LRULAB" predict fault-free --cpus 2 --machine $tmp/long.profile
sed "s/^name = .*/name = $(printf '%064d' 0)/" $K >$tmp/name.profile
exact_is 2 "$P: $tmp/name.profile:6: name: name longer than 63 bytes" \
	"$LRULAB" predict fault-free --cpus 2 --machine $tmp/name.profile
exact_is 2 "lrulab calibrate: --name '': 1 to 63 bytes on one line, without blanks at its ends" \
	"$LRULAB" calibrate --out $tmp/x.profile --name ''
# item 6: checked before the run, exit 2
exact_is 2 "lrulab calibrate: --out '': an empty file name" "$LRULAB" calibrate --out ''
exact_is 2 "lrulab calibrate: $tmp/no: No such file or directory" \
	"$LRULAB" calibrate --out $tmp/no/x.profile
exact_is 2 "$P: --save '': an empty file name" \
	"$LRULAB" predict fault-free --cpus 2 --machine $M --save ''
exact_is 2 "$P: --cpus: 2 given twice" "$LRULAB" predict fault-free --cpus 2,2 --machine $M

# every shipped profile loads
for p in profiles/*.profile; do
	"$LRULAB" predict --recording /dev/null --cpus 1 --machine "$p" >"$out" 2>"$err"
	grep -q 'not an lrulab recording' "$err" || fail "$p does not load"
done

# bench --record, then predict from the file
B="lrulab bench"
expect 2 "$B" "$LRULAB" bench fault-free --threads 1,2 --record $tmp/r.rec
expect 2 "$B" "$LRULAB" bench usemem --threads 1,2 --record $tmp/r.rec
expect 2 "$B" "$LRULAB" bench mglru-age --record $tmp/r.rec
"$LRULAB" bench fault-free --type anon --threads 1 --seconds 0.05 --mem 1M \
	--record $tmp/r.rec >"$out" 2>"$err" || fail "bench --record failed"
test -s $tmp/r.rec || fail "no recording written"
"$LRULAB" predict --recording $tmp/r.rec --cpus 1,4,80 --machine skylake-2s-80 \
	--draws 2 --json >"$out" 2>"$err" || fail "predict --recording failed"
test "$(wc -l <"$out")" -eq 3 || fail "predict --json: not one line per CPU count"
for k in workload type folio_size machine cpus switches predicted_pages_per_sec \
	band_low band_high lru_lock_wait_ns_per_page locks; do
	test "$(grep -c "\"$k\":" "$out")" -eq 3 || fail "predict --json: key $k"
done
grep -q '"cpus":80' "$out" || fail "predict --json: cpus"

grep -q '"machine":"skylake-2s-80"' "$out" || fail "predict --json: machine"
grep -q '"site":"lru_lock:folio_batch_move_lru"' "$out" || fail "predict --json: locks"
test "$(grep -c '"shared_line_events_per_page":{"vmstat_folds":' "$out")" -eq 3 ||
	fail "predict --json: shared_line_events_per_page"
grep -q '"cpus":80,.*"vmstat_threshold":' "$out" || fail "predict --json: vmstat_threshold"
# a run with ticket spinlocks is simulated with ticket spinlocks
"$LRULAB" bench fault-free --type anon --threads 1 --seconds 0.05 --mem 1M --lock ticket \
	--record $tmp/t.rec >"$out" 2>"$err" || fail "bench --lock ticket --record failed"
"$LRULAB" predict --recording $tmp/t.rec --cpus 4 --machine skylake-2s-80 --draws 0 \
	--json >"$out" 2>"$err" || fail "predict a ticket recording failed"
grep -q '"lock":"ticket"' "$out" || fail "predict: a ticket recording not simulated as ticket"
# the same seed gives the same prediction
"$LRULAB" predict --recording $tmp/r.rec --cpus 16 --machine skylake-2s-80 --draws 2 \
	--json >$tmp/a 2>"$err"
"$LRULAB" predict --recording $tmp/r.rec --cpus 16 --machine skylake-2s-80 --draws 2 \
	--json >$tmp/b 2>"$err"
cmp -s $tmp/a $tmp/b || fail "predict: same seed, different output"
# --core-speed 2: one CPU's holds and work take half the time, twice the
# pages/s, on a profile without a memory bandwidth (a clear's wait for
# DRAM, where one is given, does not shrink with the core)
r1=$("$LRULAB" predict --recording $tmp/r.rec --cpus 1 --machine kvm-2vcpu --draws 0 \
	--json 2>"$err" | jq .predicted_pages_per_sec)
r2=$("$LRULAB" predict --recording $tmp/r.rec --cpus 1 --machine kvm-2vcpu --draws 0 \
	--core-speed 2 --json 2>"$err" | jq .predicted_pages_per_sec)
awk -v a="$r1" -v b="$r2" 'BEGIN { exit !(a > 0 && b / a > 1.999 && b / a < 2.001) }' ||
	fail "predict --core-speed 2: $r2 pages/s against $r1"
# two recordings pooled: the median one's figures (the same file twice:
# its own), every recording's draws
"$LRULAB" predict --recording $tmp/r.rec --recording $tmp/r.rec --cpus 16 \
	--machine skylake-2s-80 --draws 2 --json >$tmp/c 2>"$err" || fail "predict: two recordings"
grep -q '"recordings":2' $tmp/c || fail "predict: recordings"
test "$(jq -r .predicted_pages_per_sec $tmp/c)" = "$(jq -r .predicted_pages_per_sec $tmp/a)" ||
	fail "predict: pooled central is not the median recording's"
test "$(jq '.draws_pages_per_sec | length' $tmp/c)" -eq 4 || fail "predict: pooled draws"
expect 2 "$P" "$LRULAB" predict --recording $tmp/r.rec --recordings 2 --cpus 2 --machine $M
expect 2 "$P" "$LRULAB" predict fault-free --recordings 0 --cpus 2 --machine $M
expect 2 "$P" "$LRULAB" predict fault-free --recordings 9 --cpus 2 --machine $M
# text: the table and a perf lock contention table per CPU count
"$LRULAB" predict --recording $tmp/r.rec --cpus 2,8 --machine xeon-16c-207 --draws 0 \
	>"$out" 2>"$err" || fail "predict text failed"
test "$(grep -c 'contended   total wait' "$out")" -eq 2 || fail "predict: lock tables"
grep -q 'busiest shared lock' "$out" || fail "predict: header"

# a workload recorded in place, with bench options and a switch
"$LRULAB" predict fault-free --type shmem --seconds 0.05 --mem 1M --with lru-stat-batch \
	--cpus 2 --machine i7-13700hx --draws 1 --json >"$out" 2>"$err" ||
	fail "predict fault-free failed"
grep -q '"switches":\["lru-stat-batch"\]' "$out" || fail "predict: switches"
# --save keeps every recording made
"$LRULAB" predict fault-free --seconds 0.05 --mem 1M --recordings 2 --save $tmp/s.rec \
	--cpus 2 --machine i7-13700hx --draws 0 >"$out" 2>"$err" || fail "predict --save failed"
test -s $tmp/s.rec && test -s $tmp/s.rec.2 && ! test -e $tmp/s.rec.3 ||
	fail "predict --save: not FILE and FILE.2"
grep -q '^2 recordings' "$out" || fail "predict: the header does not say 2 recordings"

# usemem records itself: its unit is an access, its sites reclaim's
"$LRULAB" bench usemem --threads 1 --mem 64M --seconds 0.2 --flush-ms 20 \
	--record $tmp/u.rec >"$out" 2>"$err" || fail "usemem --record failed"
"$LRULAB" predict --recording $tmp/u.rec --cpus 1,16 --machine skylake-2s-80 --draws 1 \
	--json >"$out" 2>"$err" || fail "predict of a usemem recording failed"
test "$(grep -c '"workload":"usemem"' "$out")" -eq 2 || fail "predict usemem: objects"
grep -q '"site":"lru_lock:shrink_inactive_list:isolate"' "$out" ||
	fail "predict usemem: reclaim's sites"
"$LRULAB" predict usemem --mem 64M --seconds 0.2 --flush-ms 20 --with vmstat-scan-cost \
	--cpus 4 --machine xeon-16c-207 --draws 1 --json >"$out" 2>"$err" ||
	fail "predict usemem failed"
grep -q '"switches":\["vmstat-scan-cost"\]' "$out" || fail "predict usemem: switches"
grep -q 'lru_note_cost' "$out" && fail "predict usemem: vmstat-scan-cost still notes costs"

# calibrate writes a profile predict reads
C="lrulab calibrate"
expect 2 "$C" "$LRULAB" calibrate
expect 2 "$C" "$LRULAB" calibrate --bogus
"$LRULAB" calibrate --out $tmp/me.profile >"$out" 2>"$err" || fail "calibrate failed"
"$LRULAB" predict --recording $tmp/r.rec --cpus 2 --machine $tmp/me.profile --draws 1 \
	>"$out" 2>"$err" || fail "calibrated profile does not load"
grep -q '^adjacent_line_prefetch = [01] \[[01] [01]\] source: lrulab calibrate: ' $tmp/me.profile ||
	fail "calibrate: no adjacent_line_prefetch"
# an IPI round, through membarrier's, where there is another processor to send one to
if [ "$(nproc)" -ge 2 ]; then
	for k in ipi_target_ns ipi_send_ns; do
		grep -q "^$k = [0-9.e+]* \[[0-9.e+]* [0-9.e+]*\] source: lrulab calibrate: " $tmp/me.profile ||
			fail "calibrate: no $k"
	done
fi
# the IPI's times: kvm-2vcpu's measured, skylake-2s-80 without any, which it says
"$LRULAB" predict --recording $tmp/r.rec --cpus 2 --machine skylake-2s-80 --draws 0 >"$out" 2>"$err" ||
	fail "predict skylake-2s-80 failed"
grep -q 'IPIs per 1000 pages, their line transfers only: no IPI time in the profile)' "$out" ||
	fail "predict: skylake-2s-80's IPI rounds not said to be their transfers only"
"$LRULAB" predict --recording $tmp/r.rec --cpus 2 --machine kvm-2vcpu --draws 0 >"$out" 2>"$err" ||
	fail "predict kvm-2vcpu failed"
grep -q 'IPIs per 1000 pages)' "$out" || fail "predict: kvm-2vcpu's IPI rounds not costed"
# an --out that cannot be written is bad input, found before the minutes of measuring
expect 2 "$C" "$LRULAB" calibrate --out /nonexistent/dir/x.profile
ls $tmp | grep -q "me.profile.tmp-" && fail "calibrate: a temporary file left"

# ab --predict-cpus: each side recorded, both predicted with the same
# draws, a verdict only where the paired band is on one side of zero
"$LRULAB" ab --ab lru-stat-batch --predict-cpus 2,4 --machine $M --json -- fault-free \
	--type anon --seconds 0.05 --memcgs 1 --threads 1 >"$out" 2>"$err" || fail "ab --predict-cpus: exit $?"
[ "$(wc -l <"$out")" -eq 2 ] && jq -s -e '[.[].cpus] == [2, 4] and all(.engine == "predict" and
	.a_pages_per_sec > 0 and .b_pages_per_sec > 0 and (.band_pct | length) == 2 and
	.band_pct[0] <= .band_pct[1] and .interval == "P10-P90 of paired draws" and
	(if .band_pct[0] > 0 then .verdict == "B higher" elif .band_pct[1] < 0 then
	 .verdict == "B lower" else .verdict == "no difference" end))' "$out" >/dev/null ||
	fail "ab --predict-cpus: $(cat "$out")"
exact_is 2 "lrulab ab: --predict-cpus and --machine go together" \
	"$LRULAB" ab --ab lru-stat-batch --predict-cpus 2 -- fault-free
exact_is 2 "lrulab ab: --predict-cpus: A and B are switches of this binary, not --a-bin/--b-bin" \
	"$LRULAB" ab --ab lru-stat-batch --predict-cpus 2 --machine $M --a-bin "$LRULAB" -- fault-free

# repro --predict in its quick form
"$LRULAB" repro s4 --quick --predict --out $tmp/results >"$out" 2>"$err" ||
	fail "repro s4 --predict failed"
test "$(grep -c 'predicted [0-9]*K: run time, 20 CPUs of skylake-2s-80' "$out")" -eq 3 &&
	test "$(grep -c 'predicted [0-9]*K: contended, 20 CPUs of skylake-2s-80' "$out")" -eq 3 &&
	grep -q 'the mail names no machine' "$out" ||
	fail "repro s4 --predict: rows"
# the plot: the predicted rows in their own block, colour and legend
# entry, which names their band; the JSON says which rows are predicted
grep -q '\.gp" line [0-9]*: warning' "$err" && fail "repro s4 --predict: gnuplot warned"
test "$(sed -n '/^# predicted (gnuplot index [0-9]): slot change_pct p10 p90 /,/^$/p' \
	$tmp/results/s4-mthp-lru-cache.dat | grep -c '"predicted [0-9]*K: [a-z ]*, 20 CPUs of skylake-2s-80"$')" -eq 6 ||
	fail "repro s4 --predict: the plot's predicted bars"
grep -q "title \"predicted by lrulab predict for the CPUs and profile named: the median recording's change, whisker P10-P90 of paired draws\"" \
	$tmp/results/s4-mthp-lru-cache.gp || fail "repro s4 --predict: the plot's legend"
test "$(tr -d ' \n' <$tmp/results/s4-mthp-lru-cache.json | grep -o '"predicted":true,"interval":"P10-P90"' | wc -l)" -eq 6 ||
	fail "repro s4 --predict: JSON rows not marked predicted"

# s0: the mail's 4 rows, the spin share at 80 shmem threads, what bounds 80;
# without --fit nothing is marked fitted and every row is a check
"$LRULAB" repro s0 --quick --predict --out $tmp/s0 >"$out" 2>"$err" ||
	fail "repro s0 --predict failed"
test "$(grep -c '^    predicted: [28]0 CPUs of skylake-2s-80 ' "$out")" -eq 4 &&
	grep -q '^    predicted: 80 CPUs, cycles spinning on lru_lock  ' "$out" &&
	test "$(grep -c '^   check: \(shmem\|anon\) [28]0 predicted/published [0-9.]* before, [0-9.]* after' "$out")" -eq 4 &&
	test "$(grep -c '^   check: \(shmem\|anon\) 80/20 threads predicted .*; at 80 before, \(lru_lock\|the VMA.s refcount line\) bounds it' "$out")" -eq 2 &&
	! grep -q 'fitted' "$out" ||
	fail "repro s0 --predict: rows"

# --fit: the one row fitted, marked so in the table and the JSON, the rest checks
"$LRULAB" repro s4 --quick --predict --fit --out $tmp/fit >"$out" 2>"$err" ||
	fail "repro s4 --predict --fit failed"
test "$(grep -c '\^ fitted on this row, not a check' "$out")" -eq 1 &&
	grep -A0 'predicted 16K: run time' "$out" | grep -q 'fitted on this row' &&
	grep -q "^   fitted: 16K, 20 threads: the target's one-thread speed, [0-9.]* x lrulab's here" "$out" &&
	grep -q '^   check: 16K real time predicted/published [0-9.]* before (after fitted); delta ' "$out" ||
	fail "repro s4 --predict --fit: rows"
test "$(tr -d ' \n' <$tmp/fit/s4-mthp-lru-cache.json | grep -o '"fitted":true' | wc -l)" -eq 1 ||
	fail "repro s4 --predict --fit: the JSON's fitted row"

# s1: pgsteal_direct/s, the five sites the mail reports and the total, predicted
"$LRULAB" repro s1 --quick --predict --out $tmp/results >"$out" 2>"$err" ||
	fail "repro s1 --predict failed"
test "$(grep -c 'predicted: 16 CPUs of skylake-2s-80' "$out")" -eq 7 &&
	grep -A1 '^  pgsteal_direct / s' "$out" | grep -q 'predicted: 16 CPUs' ||
	fail "repro s1 --predict: rows"

# s3: each cell's patch 1 and patch 1+2 rows, recorded by the two layout builds
"$LRULAB" repro s3 --quick --predict --out $tmp/results >"$out" 2>"$err" ||
	fail "repro s3 --predict failed"
test "$(grep -c 'predicted: [28]0 CPUs of skylake-2s-80' "$out")" -eq 6 ||
	fail "repro s3 --predict: rows"
test "$(grep -A1 'shmem, 80 threads (here [0-9]*): patch 1+2 ' "$out" |
	grep -c 'predicted: 80 CPUs of skylake-2s-80')" -eq 1 ||
	fail "repro s3 --predict: row order"

# s2: each process count's pass on the mail's desktop, after its measured row;
# the 1-process row is the fit, marked so, and only the others are checks
"$LRULAB" repro s2 --quick --predict --out $tmp/results >"$out" 2>"$err" ||
	fail "repro s2 --predict failed"
test "$(grep -c 'predicted: 1 CPU of i7-13700hx' "$out")" -eq 4 &&
	grep -A1 '^  8 processes: time per aging pass' "$out" | grep -q 'predicted: 1 CPU of i7' &&
	test "$(grep -c '\^ fitted on this row, not a check' "$out")" -eq 1 &&
	test "$(grep -c '^   check: [0-9]* processes predicted/published' "$out")" -eq 3 &&
	grep -q "the rest at the core speed the 1-process row fits" "$out" ||
	fail "repro s2 --predict: rows"
test "$(tr -d ' \n' <$tmp/results/s2-mglru-cmpxchg-skip.json | grep -o '"fitted":true' | wc -l)" -eq 1 ||
	fail "repro s2 --predict: the JSON's fitted row"

# calibrate (on two processors or more: it pins pairs): the profile it
# writes is one predict reads; pair_rfo is 0 or 1 from its probe, or left
# out with the one line that says why
if [ "$(nproc)" -ge 2 ]; then
	"$LRULAB" calibrate --out $tmp/c.profile --name ci >"$out" 2>"$err" || fail "calibrate failed"
	"$LRULAB" predict --recording $tmp/r.rec --cpus 2 --machine $tmp/c.profile --draws 0 \
		>"$out" 2>>"$err" || fail "predict does not read calibrate's profile"
	if grep -q '^pair_rfo' $tmp/c.profile; then
		grep -q "^pair_rfo = [01] \[[01] [01]\] source: lrulab calibrate: CPU " $tmp/c.profile ||
			fail "calibrate: pair_rfo line"
	elif grep -q '^adjacent_line_prefetch = 1' $tmp/c.profile; then
		grep -q '^lrulab calibrate: pair_rfo not measured: ' "$err" ||
			fail "calibrate: pair_rfo neither measured nor said why"
	fi
fi

if [ "$fails" -ne 0 ]; then
	echo "predict_cli: $fails failure(s)"
	exit 1
fi
echo "predict_cli: ok"
