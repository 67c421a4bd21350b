#!/bin/sh
# lrulab after --calibrate against the host kernel, fault-free 4K, anon
# and shmem: the one-thread rate, the 2-thread/1-thread ratio, and (with
# perf) contended lru_lock acquisitions per 1000 pages.  Each type is
# calibrated once, then host and lrulab runs alternate, RUNS times, and
# medians are compared.  Run on a quiet machine: every figure is a rate.
#
#   bench/calibration.sh [RUNS [SECONDS]]        (5 runs of 1 s by default)
#
# LRULAB names the binary (build/release/lrulab).  --perf-lock needs root.
set -eu

runs=${1:-5}
secs=${2:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${LRULAB:-$root/build/release/lrulab}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ ! -x "$bin" ]; then
	echo "calibration.sh: $bin is missing: run 'make' first" >&2
	exit 2
fi

# the first (top-level) KEY of every JSON line on stdin, one per line
field() {
	while IFS= read -r line; do
		printf '%s\n' "$line" | grep -o "\"$1\":[-0-9.e+]*" | head -n 1 | cut -d: -f2
	done
}

median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
		else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# the rates of thread count $2 in the JSON lines of file $1
rates() {
	grep "\"threads\":$2," "$1" | field pages_per_sec
}

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(getconf _NPROCESSORS_ONLN) processors, Linux $(uname -r)"
echo "runs: $runs alternating of $secs s each, threads 1,2, 16M per thread, 4K folios"
for type in anon shmem; do
	"$bin" bench fault-free --type $type --threads 1 --seconds "$secs" --calibrate \
		--json >"$tmp/calib" 2>&1
	work=$(grep '^{' "$tmp/calib" | field fault_work_ns)
	calib=$(grep -o '"calibration":{"status":"[a-z-]*","host_pages_per_sec":[0-9.e+]*' \
		"$tmp/calib" | sed 's/"calibration":{//')
	: >"$tmp/host" && : >"$tmp/model"
	i=0
	while [ $i -lt "$runs" ]; do
		"$bin" host fault-free --type $type --threads 1,2 --seconds "$secs" --json >>"$tmp/host"
		"$bin" bench fault-free --type $type --threads 1,2 --seconds "$secs" \
			--fault-work "$work" --json >>"$tmp/model"
		i=$((i + 1))
	done
	h1=$(rates "$tmp/host" 1 | median)
	h2=$(rates "$tmp/host" 2 | median)
	m1=$(rates "$tmp/model" 1 | median)
	m2=$(rates "$tmp/model" 2 | median)
	echo
	echo "$type: --fault-work $work from --calibrate ($calib)"
	awk -v h1="$h1" -v h2="$h2" -v m1="$m1" -v m2="$m2" 'BEGIN {
		printf "  1 thread   host %9.0f  lrulab %9.0f pages/s  lrulab/host %.3f\n", h1, m1, m1 / h1
		printf "  2 threads  host %9.0f  lrulab %9.0f pages/s  lrulab/host %.3f\n", h2, m2, m2 / h2
		printf "  2T/1T      host %9.3f  lrulab %9.3f          lrulab/host %.3f\n", h2 / h1, m2 / m1, (m2 / m1) / (h2 / h1)
	}'
	if [ "$(id -u)" -eq 0 ] && command -v perf >/dev/null; then
		: >"$tmp/perf"
		i=0
		while [ $i -lt "$runs" ]; do
			"$bin" host fault-free --type $type --threads 2 --seconds "$secs" --perf-lock \
				--fault-work "$work" --json >>"$tmp/perf" || break
			i=$((i + 1))
		done
		# host: perf_lock's figure; lrulab's is the last one on the line
		hc=$(grep -o '"lru_lock_contended_per_1k_pages":[-0-9.e+]*' "$tmp/perf" |
			awk -F: 'NR % 2 == 1 { print $2 }' | median)
		mc=$(grep -o '"lru_lock_contended_per_1k_pages":[-0-9.e+]*' "$tmp/perf" |
			awk -F: 'NR % 2 == 0 { print $2 }' | median)
		awk -v h="$hc" -v m="$mc" 'BEGIN {
			printf "  2 threads, lru_lock contended per 1000 pages: host %.2f  lrulab %.2f  lrulab/host %.2f\n",
				h, m, (h > 0 ? m / h : 0) }'
	fi
done
