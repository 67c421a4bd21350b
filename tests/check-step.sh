#!/bin/sh
# make check's bookkeeping, so that it ends on one line over every stage
# whatever failed on the way.  A stage (unit, pncold, tsan, asan, fuzz) records
# each test it runs in DIR/STAGE.log as "pass NAME SECONDSs" or "fail NAME ...":
#
#   check-step.sh begin DIR STAGE          forget the stage's last results
#   check-step.sh run DIR STAGE NAME CMD.. run one test, record it and its
#                                          wall time; exit 0
#   check-step.sh end DIR STAGE            "STAGE: N passed, M failed";
#                                          exit 1 if any failed
#   check-step.sh summary DIR RC           the line over every stage; exit 1
#                                          if a test failed, a stage is
#                                          missing or RC (make's) is not 0
set -u
cmd=${1:?usage: check-step.sh begin|run|end|summary DIR ...}
dir=${2:?no directory}
shift 2

count() {
	grep -c "^$1 " "$2" 2>/dev/null || true
}

case $cmd in
begin)
	mkdir -p "$dir"
	: >"$dir/$1.log"
	;;
run)
	stage=$1
	name=$2
	shift 2
	echo "== $name ($stage)"
	t0=$(date +%s.%N)
	"$@"
	rc=$?
	# each test's wall time beside it: what makes make check long
	secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	if [ "$rc" -eq 0 ]; then
		echo "pass $name ${secs}s" >>"$dir/$stage.log"
	else
		echo "FAIL: $name ($stage): exit $rc"
		echo "fail $name (exit $rc) ${secs}s" >>"$dir/$stage.log"
	fi
	exit 0
	;;
end)
	log=$dir/$1.log
	p=$(count pass "$log")
	f=$(count fail "$log")
	echo "$1: $p passed, $f failed"
	[ "$f" -eq 0 ]
	;;
summary)
	rc=${1:-0}
	p=0
	f=0
	stages=""
	missing=""
	# every stage make check runs, in its order
	for s in unit pncold tsan asan fuzz; do
		log=$dir/$s.log
		if [ ! -f "$log" ]; then
			missing="$missing $s"
			continue
		fi
		sp=$(count pass "$log")
		sf=$(count fail "$log")
		p=$((p + sp))
		f=$((f + sf))
		stages="$stages${stages:+, }$s $sp/$((sp + sf))"
		grep '^fail ' "$log" | sed "s/^fail /  failed ($s): /"
	done
	line="make check: $p passed, $f failed ($stages)"
	[ -n "$missing" ] && line="$line; stages that did not run:$missing"
	[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && line="$line; a build or stage failed (exit $rc, see above)"
	echo "$line"
	[ "$f" -eq 0 ] && [ -z "$missing" ] && [ "$rc" -eq 0 ]
	;;
*)
	echo "check-step.sh: unknown step '$cmd'" >&2
	exit 2
	;;
esac
