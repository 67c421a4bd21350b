#!/bin/sh
# Device run: the seed tables (`lrulab repro all`) on a bigger machine,
# from the static binaries that `make static` builds here, so that the
# machine needs no libraries.  On 16 processors the mails' 20 and 80 of
# 80 CPUs become 4 and 16 threads, and s1's 16 usemem processes 16
# threads; the whole run stays under 8 minutes (about 165 runs of 1-2 s
# each, and s1's 14 usemem runs of 3 s), and a timeout keeps it there:
# every table is written as soon as it is done, so a cut run keeps those.
#
#   make static
#   bench/scaling.sh RESULTS_DIR
#
# RESULTS_DIR gets SEED.json, SEED-runs.json, SEED.png (when gnuplot is
# there), repro.txt (the printed tables) and machine.txt.
set -eu

out=${1:?usage: bench/scaling.sh RESULTS_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
# s3 compares two builds of the same source: the pn-default layout and
# the pn-cold-pairing one (patch 1 of the mail is a struct layout).
bin=${LRULAB:-$root/build/static/lrulab}
cold=${LRULAB_PNCOLD:-$root/build/static-pncold/lrulab}
limit=${SCALING_TIMEOUT:-470}

for b in "$bin" "$cold"; do
	if [ ! -x "$b" ]; then
		echo "scaling.sh: $b is missing: run 'make static' first" >&2
		exit 2
	fi
done
mkdir -p "$out"

{
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "processors: $(getconf _NPROCESSORS_ONLN)"
	grep -m1 'model name' /proc/cpuinfo || true
	echo "kernel: $(uname -r)"
	echo "binaries: $bin ($("$bin" layout 2>/dev/null | sed -n '1s/:.*//p')), $cold ($("$cold" layout 2>/dev/null | sed -n '1s/:.*//p'))"
} >"$out/machine.txt"

# Longer runs and more of them than `make run` on 2 CPUs: a 16-CPU
# machine is where the contention of the mails shows, and the intervals
# should be narrow enough to say which way each row goes.
set -- "$bin" repro all --out "$out" --before-bin "$bin" --after-bin "$cold" \
	--reps 7 --seconds 1 --memcgs 7 --loops 50 --usemem-seconds 3
start=$(date +%s)
if command -v timeout >/dev/null 2>&1; then
	set -- timeout "$limit" "$@"
fi
rc=0
"$@" >"$out/repro.txt" 2>&1 || rc=$?
end=$(date +%s)
echo "scaling.sh: repro all exited $rc after $((end - start)) s" | tee -a "$out/repro.txt"
for seed in s0-lru-stat-batch s1-vmstat-scan-cost s3-memcg-pn-layout s4-mthp-lru-cache; do
	[ -s "$out/$seed.json" ] || echo "scaling.sh: no $seed.json (cut by the timeout?)" | tee -a "$out/repro.txt"
done
cat "$out/repro.txt"
exit "$rc"
