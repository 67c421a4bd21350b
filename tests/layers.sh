#!/bin/sh
# The layers run one way: the library (lib/, mm/, include/lrulab/) never
# names the command, predict/'s lower layer never includes bench/, and
# liblrulab.a holds no symbol of the command.
set -u
LIB=${1:?usage: layers.sh path/to/liblrulab.a}
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

f=$(grep -l 'pred_' lib/* mm/* include/lrulab/* 2>/dev/null)
[ -z "$f" ] || fail "the library names the predictor: $f"
f=$(grep -l '#include *"\(bench\|predict\|replay\|tools\)/' lib/* mm/* include/lrulab/* 2>/dev/null)
[ -z "$f" ] || fail "the library includes a command header: $f"
f=$(grep -l '#include *<jansson.h>' include/lrulab/* 2>/dev/null)
[ -z "$f" ] || fail "a library header includes jansson: $f"
# predict/'s lower layer: the recorder, the profiles, the simulation, the twin
for p in predict/record.c predict/record_gather.c predict/record_file.c predict/record-internal.h \
	 predict/profile.c predict/engine.c predict/twin.c predict/predict.h; do
	! grep -q '#include *"\(bench/\|predict-internal.h\)' "$p" ||
		fail "$p (predict's lower layer) includes bench/ or the command layer"
done
# replay/ sits beside bench/, which uses it (host replay): never the other way
f=$(grep -l '#include *"bench/' replay/* 2>/dev/null)
[ -z "$f" ] || fail "replay/ includes bench/: $f"
# bench/ reaches the predictor through hooks only
f=$(grep -l '#include *"predict/' bench/* 2>/dev/null)
[ -z "$f" ] || fail "bench/ includes the predictor: $f"
syms=$(nm -g --defined-only "$LIB" | awk '{print $3}' | grep -E '^(bench_|repro_|replay_|pred_|cmd_)')
[ -z "$syms" ] || fail "liblrulab.a defines the command's symbols: $(echo $syms | head -c 200)"

if [ "$fails" -gt 0 ]; then
	echo "layers: $fails failed"
	exit 1
fi
echo "layers: all passed"
