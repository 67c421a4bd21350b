# lrulab build.  `make` builds the library and the command, `make check`
# runs every test (plain, then the stress tests under TSan and ASan),
# `make run` runs the main job, `make static` builds copyable binaries,
# `make fuzz` runs every fuzz target (tests/fuzz/, FUZZ_SECONDS each),
# `make install` (PREFIX, DESTDIR) installs the command and the library.

VARIANT ?= release
VERSION := 0.1
# the commit a binary was built from, "-dirty" with local changes: a
# measurement is only as good as knowing what was measured
GITREV := $(shell git describe --always --dirty 2>/dev/null)
CC ?= gcc
B := build/$(VARIANT)

LIB_PKGS := liburcu-memb ck libzstd
PKGS := $(LIB_PKGS) jansson zlib
# The library needs liburcu, ck and zstd (swap's compressed store), the
# command also jansson and zlib, the tests cmocka.  Installing is
# scripts/install-deps.sh's job, not make's.
DEPS_MISSING := $(shell for p in $(PKGS) cmocka; do pkg-config --exists $$p 2>/dev/null || echo $$p; done)
ifneq ($(strip $(DEPS_MISSING)),)
ifeq ($(filter deps clean,$(MAKECMDGOALS)),)
$(error missing libraries: $(strip $(DEPS_MISSING)); run ./scripts/install-deps.sh (as root) first)
endif
endif

CFLAGS_release := -O2 -g
CFLAGS_tsan := -O1 -g -fsanitize=thread -DLRULAB_SANITIZE
CFLAGS_asan := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer -DLRULAB_SANITIZE
# `make fuzz`'s build (clang): the library instrumented for libFuzzer
CFLAGS_fuzz := -O1 -g -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=undefined -fno-omit-frame-pointer -DLRULAB_SANITIZE
CFLAGS_static := -O2 -g
LDFLAGS_static := -static
# the pn-cold-pairing layout, static, for `repro s3` on another machine
CFLAGS_static-pncold := -O2 -g -DLRULAB_PN_COLD_PAIRING
LDFLAGS_static-pncold := -static
# s3 patch 1 is a struct layout, so a build variant: memcg_pn_cold right
# after memcg_pn_read_mostly in struct mem_cgroup_per_node.
CFLAGS_pncold := -O2 -g -DLRULAB_PN_COLD_PAIRING

CFLAGS := -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wshadow \
	-Iinclude -pthread -MMD -MP $(CFLAGS_$(VARIANT)) \
	$(shell pkg-config --cflags $(PKGS) 2>/dev/null) $(EXTRA_CFLAGS)
LDFLAGS := -pthread $(filter -fsanitize=%,$(CFLAGS_$(VARIANT))) $(LDFLAGS_$(VARIANT))
LDLIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm
TEST_LDLIBS := $(shell pkg-config --libs cmocka 2>/dev/null)

# The library is the model: lib/ and mm/, whose headers are include/lrulab/.
# The command (bench/, replay/, predict/, tools/) is built on it and keeps
# its headers beside its code, included as "dir/name.h" from the tree's
# root: only the command's objects and the tests get -I. for that.
LIB_SRC := $(wildcard lib/*.c mm/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o)
LIB := $(B)/liblrulab.a
CMD_SRC := $(filter-out tools/lrulab.c,$(wildcard bench/*.c replay/*.c predict/*.c tools/*.c))
CMD_OBJ := $(CMD_SRC:%.c=$(B)/%.o)
CMD_LIB := $(B)/liblrulab-cmd.a
TOOL := $(B)/lrulab
TEST_SRC := $(wildcard tests/test_*.c)
TESTS := $(TEST_SRC:tests/%.c=$(B)/tests/%)
STRESS_SRC := $(wildcard tests/stress_*.c)
STRESS := $(STRESS_SRC:tests/%.c=$(B)/tests/%)

.PHONY: all check check-unit check-sanitize run static deps clean
.SECONDARY:

all: $(LIB) $(TOOL)

# build/pncold/lrulab: the same command with the pn-cold-pairing layout,
# which `repro s3` runs beside build/release/lrulab; `make run` and
# `make check` build it, `make` alone does not.
.PHONY: pncold check-pncold pncold-run
pncold:
	$(MAKE) --no-print-directory VARIANT=pncold all

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(CMD_OBJ) $(B)/tools/lrulab.o $(TESTS:=.o) $(STRESS:=.o): CFLAGS += -I.
# The library's RCU read sections inline (liburcu's _LGPL_SOURCE): called
# in liburcu-memb.so, each reaches its thread's reader through
# __tls_get_addr, about a tenth of a replayed miss.  Same ABI either way,
# so a program using the installed library need not define it.  Not
# under TSan: liburcu's own benign races (the grace-period futex) would
# then be instrumented.
$(LIB_OBJ): CFLAGS += $(if $(filter tsan,$(VARIANT)),,-D_LGPL_SOURCE)

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(CMD_LIB): $(CMD_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

# rewritten only when the version changes, so that nothing else rebuilds
$(B)/version.h: FORCE
	@mkdir -p $(dir $@)
	@v='#define LRULAB_VERSION "$(VERSION)$(if $(GITREV), (git $(GITREV)))"'; \
	[ "$$(cat $@ 2>/dev/null)" = "$$v" ] || echo "$$v" >$@

$(B)/tools/lrulab.o: CFLAGS += -I$(B)
$(B)/tools/lrulab.o: $(B)/version.h

.PHONY: FORCE
FORCE:

$(TOOL): $(B)/tools/lrulab.o $(CMD_LIB) $(LIB)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(B)/tests/%: $(B)/tests/%.o $(CMD_LIB) $(LIB)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) $(TEST_LDLIBS) -o $@

# Unit tests, then the stress tests under ThreadSanitizer and AddressSanitizer.
# Every stage runs whatever failed before it (-k), each test is recorded
# under build/check, and the last line is the count over all of them.
CHECK_DIR := $(CURDIR)/build/check
STEP := ./tests/check-step.sh
NPROC := $(shell nproc 2>/dev/null || echo 1)
check:
	@rm -rf $(CHECK_DIR)
	@$(MAKE) --no-print-directory -j$(NPROC) check-build
	@$(MAKE) --no-print-directory -k check-unit check-pncold check-sanitize; rc=$$?; \
	$(MAKE) --no-print-directory check-fuzz || rc=1; \
	$(STEP) summary $(CHECK_DIR) $$rc

# repro s3's tests (predict_cli.sh) run both layouts' builds
check-unit: $(TESTS) $(STRESS) $(TOOL) pncold
	@$(STEP) begin $(CHECK_DIR) unit
	@for t in $(TESTS) $(STRESS); do \
		$(STEP) run $(CHECK_DIR) unit $$t $$t; done
	@$(STEP) run $(CHECK_DIR) unit tests/cli.sh ./tests/cli.sh $(TOOL)
	@$(STEP) run $(CHECK_DIR) unit tests/bench_cli.sh ./tests/bench_cli.sh $(TOOL)
	@$(STEP) run $(CHECK_DIR) unit tests/replay_cli.sh ./tests/replay_cli.sh $(TOOL)
	@$(STEP) run $(CHECK_DIR) unit tests/host_cli.sh ./tests/host_cli.sh $(TOOL)
	@$(STEP) run $(CHECK_DIR) unit tests/predict_cli.sh ./tests/predict_cli.sh $(TOOL)
	@$(STEP) run $(CHECK_DIR) unit tests/install.sh ./tests/install.sh $(TOOL)
	@$(STEP) run $(CHECK_DIR) unit tests/readme.sh ./tests/readme.sh $(TOOL)
	@$(STEP) run $(CHECK_DIR) unit tests/layers.sh ./tests/layers.sh $(LIB)
	@$(STEP) end $(CHECK_DIR) unit

# In the pn-cold-pairing build: the layout test and the memcg test, whose
# pn cache checks depend on the layout, the predictor's pair reads (whose
# partners are the layout's), and the layout command itself.
PNCOLD_TESTS := $(B)/tests/test_layout $(B)/tests/test_memcontrol $(B)/tests/test_predict_pair
check-pncold:
	$(MAKE) --no-print-directory VARIANT=pncold pncold-run

pncold-run: $(PNCOLD_TESTS) $(TOOL)
	@$(STEP) begin $(CHECK_DIR) pncold
	@for t in $(PNCOLD_TESTS); do \
		$(STEP) run $(CHECK_DIR) pncold $$t $$t; done
	@$(STEP) run $(CHECK_DIR) pncold "lrulab layout: pn-cold-pairing" \
		sh -c 'test "$$($(TOOL) layout | sed -n "s/:.*//p" | sed -n 1p)" = "layout pn-cold-pairing"'
	@$(STEP) end $(CHECK_DIR) pncold

# Everything the stages run, built first on every processor (the four
# builds are independent): built one file after another by the stages
# themselves, the builds took a quarter of make check's time on 2 cores.
.PHONY: check-build check-build-release check-build-pncold check-build-tsan check-build-asan \
	check-tests-built check-pncold-built check-stress-built
check-build: check-build-release check-build-pncold check-build-tsan check-build-asan
check-build-release:
	@$(MAKE) --no-print-directory check-tests-built
check-build-pncold:
	@$(MAKE) --no-print-directory VARIANT=pncold check-pncold-built
check-build-tsan:
	@$(MAKE) --no-print-directory VARIANT=tsan check-stress-built
check-build-asan:
	@$(MAKE) --no-print-directory VARIANT=asan check-stress-built fuzz-replay-built
check-tests-built: $(TESTS) $(STRESS) $(TOOL)
check-pncold-built: all $(PNCOLD_TESTS)
check-stress-built: $(TESTS) $(STRESS)

.PHONY: check-tsan check-asan
check-sanitize: check-tsan check-asan
check-tsan:
	$(MAKE) --no-print-directory VARIANT=tsan stress-run
check-asan:
	$(MAKE) --no-print-directory VARIANT=asan stress-run

# Under a sanitizer every test runs; the long ones in their --short form.
.PHONY: stress-run
stress-run: $(TESTS) $(STRESS)
	@$(STEP) begin $(CHECK_DIR) $(VARIANT)
	@for t in $(TESTS) $(STRESS); do \
		case $$t in */stress_*|*/test_spinlock) a=--short;; *) a=;; esac; \
		TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 $${TSAN_OPTIONS:-}" \
		ASAN_OPTIONS="detect_leaks=1 $${ASAN_OPTIONS:-}" \
		UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1 $${UBSAN_OPTIONS:-}" \
		$(STEP) run $(CHECK_DIR) $(VARIANT) "$$t $$a" $$t $$a; done
	@$(STEP) end $(CHECK_DIR) $(VARIANT)

# ---------------------------------------------------------------------
# Fuzzing (tests/fuzz/): one target per parser, each an
# LLVMFuzzerTestOneInput() over the library.
#
# `make fuzz` builds them with clang's libFuzzer, ASan and UBSan
# (VARIANT=fuzz: the library too, with -fsanitize=fuzzer-no-link) and
# runs each for FUZZ_SECONDS on its committed corpus plus what earlier
# runs found (build/fuzz-corpus/TARGET); crashes, leaks and hangs land
# in build/fuzz-artifacts/TARGET/, each target's log in
# build/fuzz-logs/, one line per target at the end.  When clang cannot
# link -fsanitize=fuzzer, scripts/install-deps.sh --fuzz installs it.
#
# `make check` (check-fuzz) needs no clang: the same targets are built
# with gcc under ASan and UBSan (VARIANT=asan) against
# tests/fuzz/driver.c's main(), which runs every file of
# tests/fuzz/corpus/TARGET/ (seeds and every reproducer) through its
# target once.  It runs after the other stages, not beside them: it
# shares build/asan with check-asan.
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_TARGETS := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)
FUZZ_SECONDS ?= 600
FUZZ_CC ?= clang
FUZZ_REPLAY := $(FUZZ_TARGETS:%=$(B)/tests/fuzz/replay_%)
FUZZ_BINS := $(FUZZ_TARGETS:%=$(B)/tests/fuzz/libfuzzer_%)

.PHONY: fuzz fuzz-run fuzz-deps check-fuzz fuzz-replay-run
$(B)/tests/fuzz/%.o: CFLAGS += -I.

$(B)/tests/fuzz/replay_%: $(B)/tests/fuzz/fuzz_%.o $(B)/tests/fuzz/common.o \
		$(B)/tests/fuzz/driver.o $(CMD_LIB) $(LIB)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(B)/tests/fuzz/libfuzzer_%: $(B)/tests/fuzz/fuzz_%.o $(B)/tests/fuzz/common.o $(CMD_LIB) $(LIB)
	$(CC) $(LDFLAGS) -fsanitize=fuzzer $^ $(LDLIBS) -o $@

check-fuzz:
	$(MAKE) --no-print-directory VARIANT=asan fuzz-replay-run

.PHONY: fuzz-replay-built
fuzz-replay-built: $(FUZZ_REPLAY)
fuzz-replay-run: $(FUZZ_REPLAY)
	@$(STEP) begin $(CHECK_DIR) fuzz
	@for t in $(FUZZ_TARGETS); do \
		ASAN_OPTIONS="detect_leaks=1 $${ASAN_OPTIONS:-}" \
		UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1 $${UBSAN_OPTIONS:-}" \
		$(STEP) run $(CHECK_DIR) fuzz "corpus $$t" \
			$(B)/tests/fuzz/replay_$$t tests/fuzz/corpus/$$t; done
	@$(STEP) end $(CHECK_DIR) fuzz

fuzz-deps:
	@echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' | \
		$(FUZZ_CC) -x c -fsanitize=fuzzer,address,undefined - -o /dev/null 2>/dev/null || \
		./scripts/install-deps.sh --fuzz

fuzz: fuzz-deps
	$(MAKE) --no-print-directory VARIANT=fuzz CC=$(FUZZ_CC) fuzz-run

fuzz-run: $(FUZZ_BINS)
	@mkdir -p build/fuzz-logs; rc=0; \
	for t in $(FUZZ_TARGETS); do \
		mkdir -p build/fuzz-corpus/$$t build/fuzz-artifacts/$$t; \
		echo "fuzz $$t: $(FUZZ_SECONDS) s (log build/fuzz-logs/$$t.log)"; \
		$(B)/tests/fuzz/libfuzzer_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
			-rss_limit_mb=2560 -print_final_stats=1 -close_fd_mask=3 \
			-artifact_prefix=build/fuzz-artifacts/$$t/ \
			build/fuzz-corpus/$$t tests/fuzz/corpus/$$t >build/fuzz-logs/$$t.log 2>&1 || rc=1; \
	done; \
	for t in $(FUZZ_TARGETS); do \
		l=build/fuzz-logs/$$t.log; \
		echo "fuzz $$t: $$(sed -n 's/^stat::number_of_executed_units: *//p' $$l) executions," \
			"$$(grep -o 'cov: [0-9]*' $$l | tail -1), corpus $$(ls build/fuzz-corpus/$$t | wc -l) files," \
			"artifacts $$(ls build/fuzz-artifacts/$$t | wc -l)"; \
	done; exit $$rc

run: all pncold
	$(TOOL) demo
	$(TOOL) repro all --predict

static:
	$(MAKE) VARIANT=static all
	$(MAKE) VARIANT=static-pncold all
	@echo "static binaries: build/static/lrulab, build/static-pncold/lrulab (s3's layout)"

# The command, the library, the library's headers (include/lrulab/ only:
# the command's stay in the tree) and a pkg-config file.  The library is
# static, so lrulab.pc names what it links against.
PREFIX ?= /usr/local
BINDIR := $(PREFIX)/bin
LIBDIR := $(PREFIX)/lib
INCDIR := $(PREFIX)/include
PCDIR := $(LIBDIR)/pkgconfig
MANDIR := $(PREFIX)/share/man/man1
HEADERS := $(wildcard include/lrulab/*.h)

.PHONY: install uninstall
install: $(LIB) $(TOOL)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCDIR)/lrulab \
		$(DESTDIR)$(PCDIR) $(DESTDIR)$(MANDIR)
	install -m 644 lrulab.1 $(DESTDIR)$(MANDIR)/lrulab.1
	install -d $(DESTDIR)$(PREFIX)/share/lrulab/profiles
	install -m 644 profiles/*.profile $(DESTDIR)$(PREFIX)/share/lrulab/profiles/
	install -m 755 $(TOOL) $(DESTDIR)$(BINDIR)/lrulab
	install -m 644 $(LIB) $(DESTDIR)$(LIBDIR)/liblrulab.a
	install -m 644 $(HEADERS) $(DESTDIR)$(INCDIR)/lrulab/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' \
		-e 's|@REQUIRES@|$(LIB_PKGS)|' lrulab.pc.in >$(DESTDIR)$(PCDIR)/lrulab.pc

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/lrulab $(DESTDIR)$(LIBDIR)/liblrulab.a \
		$(DESTDIR)$(PCDIR)/lrulab.pc $(DESTDIR)$(MANDIR)/lrulab.1 \
		$(addprefix $(DESTDIR)$(INCDIR)/lrulab/,$(notdir $(HEADERS)))
	rm -rf $(DESTDIR)$(PREFIX)/share/lrulab
	rmdir $(DESTDIR)$(INCDIR)/lrulab 2>/dev/null || true

deps:
	./scripts/install-deps.sh

clean:
	rm -rf build

-include $(LIB_OBJ:.o=.d) $(CMD_OBJ:.o=.d) $(TESTS:=.d) $(STRESS:=.d) $(B)/tools/lrulab.d \
	$(wildcard $(B)/tests/fuzz/*.d)
