/* SPDX-License-Identifier: MIT */
/*
 * What every fuzz target shares (tests/fuzz/): the libFuzzer entry
 * points, and a scratch file for the readers that take a path.
 *
 * A target is built two ways: with clang's -fsanitize=fuzzer for
 * `make fuzz`, and with gcc under ASan and UBSan against driver.c's
 * main(), which runs each file of a committed corpus through it once,
 * for `make check` (no clang needed there).
 */
#ifndef LRULAB_FUZZ_H
#define LRULAB_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Write @size bytes of @data to this process's scratch file, whose name
 * ends in @suffix (".zst", ".gz", ".profile" or ""), and return its
 * name; the file is removed at exit.  Aborts when it cannot be written:
 * a fuzz run without its input is no run.
 */
const char *fuzz_file(const uint8_t *data, size_t size, const char *suffix);

/* Report an invariant the target checks and abort, so the input is kept. */
void __attribute__((noreturn, format(printf, 1, 2))) fuzz_fail(const char *fmt, ...);

#endif /* LRULAB_FUZZ_H */
