#!/bin/sh
# Done-when check (a) of the predictor: from one-thread recordings alone,
# the predicted two-thread pages/s against lrulab's measured two-thread
# rate, and the predicted 2T/1T scaling against the host kernel's
# (`lrulab host fault-free`), ROUNDS rounds alternating the runs of each
# shape.  Each run is taken under the measurement lock.
#
# The host check is predicted twice: at lrulab's own speed and holds
# (pred1, pred2), and at the kernel's (kpred1, kpred2): the work set for
# the host's measured one-thread rate that round (--single-thread-rate),
# lru_lock's holds times the kernel/lrulab ratio `host fault-free
# --perf-hold` measures once per shape before the rounds (the hold
# column; empty where perf could not, and the holds stay lrulab's).  The
# kernel runs a page several times slower than lrulab, so its lock is a
# smaller share of a page and it scales better at two threads than
# lrulab does: only the second is the kernel's scaling predicted.
#
#   predict/validate.sh [LRULAB] [ROUNDS] > out.tsv
#
# On a machine shared with other work two threads do not always get two
# processors, so every measured rate comes twice: pages per second of
# wall time, and pages per second of the CPU time the threads got
# ((user + sys) / threads), which is what the prediction (whose
# recording drops the stretches its thread was descheduled) stands for.
#
# The model's node gets this machine's memory (MemTotal, or NODE_MEM,
# e.g. 4G): its watermarks decide how much the per-CPU page lists keep,
# and so whether 16K frees go back under zone->lock, as on the host.
# The profile of the machine the predictions are for is this machine's,
# measured by `lrulab calibrate` before the rounds (its line transfer,
# handoffs and IPI times move from one machine of a kind to the next, and
# the kernel it is checked against is this one's); PREDICT_MACHINE (a
# file or a name under profiles/) replays a profile measured before.
# SHAPES (e.g. "anon-16K shmem-4K") runs only those shapes.  A shape
# TYPE-SIZE-own gives each thread's anon range a VMA of its own (--vma
# own): beside TYPE-SIZE in the same round, host2 over host2 and kpred2
# over kpred2 are what one VMA for all the threads costs the kernel and
# the model (the VMA refcount line).  TYPE-SIZE-memM frees every M
# (--mem M a thread): a MADV_DONTNEED, and so a TLB flush's IPI round to
# the other CPU, every M of faults.
#
# Columns: shape round bench1 bench2 bench1_cpu bench2_cpu pred1 pred2
#          band2_lo band2_hi host1 host2 host1_cpu host2_cpu hold kpred1 kpred2
set -u
L=${1:-build/release/lrulab}
R=${2:-5}
S=${SHAPES:-anon-4K anon-4K-own anon-4K-mem64K anon-4K-mem16K anon-16K shmem-4K}
N=${NODE_MEM:-$(awk '/^MemTotal:/ { print $2 "K" }' /proc/meminfo)}
lock=/tmp/lrulab-measure.lock
if [ -n "${PREDICT_MACHINE:-}" ]; then
	M=$PREDICT_MACHINE
else
	M=$(mktemp /tmp/lrulab-validate.XXXXXX.profile) || exit 1
	trap 'rm -f "$M"' EXIT
	trap 'exit 1' INT TERM
	flock $lock $L calibrate --name this-machine --out "$M" >/dev/null || {
		echo "validate.sh: lrulab calibrate failed" >&2
		exit 1
	}
fi
# the profile's figures the 2-CPU predictions turn on, for the record
# (a name is the file of that name under profiles/, as --machine reads it)
F=$M
[ -f "$F" ] || F=profiles/$M.profile
grep -E '^(description|xfer_socket_ns|handoff_qspinlock_ns|freq_all_busy_mhz|pair_rfo|ipi_target_ns|ipi_send_ns) =' "$F" |
	sed 's/ source:.*//; s/^/# machine: /' >&2

# a shape's third part as options: own, or memM
extra() { case ${1:-} in own) echo "--vma own";; mem*) echo "--mem ${1#mem}";; esac; }
# FILTER [LINE]: jq FILTER of the LINE-th JSON object read
num() { jq -r "$1" | sed -n "${2:-1}p"; }
cpu='.pages / ((.user_s + .sys_s) / .threads)'

printf 'shape\tround\tbench1\tbench2\tbench1_cpu\tbench2_cpu\tpred1\tpred2\tband2_lo\tband2_hi\thost1\thost2\thost1_cpu\thost2_cpu\thold\tkpred1\tkpred2\n'
# the kernel/lrulab hold ratio of each shape, once: "hold_anon_4K=2.5 ..."
holds=
for shape in $S; do
	set -- $(echo "$shape" | tr - ' ')
	x=$(flock $lock $L host fault-free --type $1 --folio-size $2 $(extra ${3:-}) --perf-hold --seconds 1 2>/dev/null |
		sed -n 's/^lru_lock hold per page, kernel \/ lrulab: \([0-9.]*\) .*/\1/p')
	holds="$holds hold_$1_$2${3:+_$3}=$x"
done
for r in $(seq 1 "$R"); do
	for shape in $S; do
		set -- $(echo "$shape" | tr - ' ')
		o="--type $1 --folio-size $2 $(extra ${3:-})"
		b=$(for t in 1 2; do
			flock $lock $L bench fault-free $o --node-mem $N --threads $t --seconds 0.5 \
				--memcgs 1 --json
		    done)
		p=$(flock $lock $L predict fault-free $o --node-mem $N --cpus 1,2 --machine $M \
			--draws 8 --json)
		h=$(flock $lock $L host fault-free $o --threads 1,2 --seconds 0.5 --json 2>/dev/null)
		hold=$(for kv in $holds; do case $kv in "hold_$1_$2${3:+_$3}="*) echo "${kv#*=}";; esac; done)
		rate=$(echo "$h" | num "$cpu" 1)
		k=$(flock $lock $L predict fault-free $o --node-mem $N --cpus 1,2 --machine $M \
			--draws 0 --single-thread-rate "${rate%.*}" ${hold:+--lru-hold-ratio $hold} --json)
		printf '%s\t%d' "$shape" "$r"
		printf '\t%.0f' "$(echo "$b" | num .pages_per_sec 1)" "$(echo "$b" | num .pages_per_sec 2)" \
			"$(echo "$b" | num "$cpu" 1)" "$(echo "$b" | num "$cpu" 2)" \
			"$(echo "$p" | num .predicted_pages_per_sec 1)" \
			"$(echo "$p" | num .predicted_pages_per_sec 2)" \
			"$(echo "$p" | num .band_low 2)" "$(echo "$p" | num .band_high 2)" \
			"$(echo "$h" | num .pages_per_sec 1)" "$(echo "$h" | num .pages_per_sec 2)" \
			"$(echo "$h" | num "$cpu" 1)" "$(echo "$h" | num "$cpu" 2)"
		printf '\t%s' "${hold:-}"
		printf '\t%.0f' "$(echo "$k" | num .predicted_pages_per_sec 1)" \
			"$(echo "$k" | num .predicted_pages_per_sec 2)"
		printf '\n'
	done
done
