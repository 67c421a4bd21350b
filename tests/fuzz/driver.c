// SPDX-License-Identifier: MIT
/*
 * The corpus replay: a main() for a fuzz target built without libFuzzer
 * (gcc, ASan and UBSan), as `make check` runs it.  Each argument is a
 * file or a folder of files (read in name order); each file is one
 * input, run once.  An input that crashes, leaks, trips a sanitizer or
 * an invariant aborts with the sanitizer's report; one that runs past
 * FUZZ_INPUT_SECONDS (10 by default) is a hang: its name and exit 1.
 * The last line counts the inputs.
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

int __attribute__((weak)) LLVMFuzzerInitialize(int *argc, char ***argv)
{
	return 0;
}

static const char *current;

static void on_alarm(int sig)
{
	static const char msg[] = "fuzz replay: hang: still running after the time allowed: ";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0 ||
	    write(2, current, strlen(current)) < 0 || write(2, "\n", 1) < 0)
		_exit(1);
	_exit(1);
}

static int run_file(const char *path, unsigned int seconds)
{
	uint8_t *data = NULL;
	size_t size = 0, cap = 0, r;
	FILE *f = fopen(path, "rb");

	if (!f) {
		perror(path);
		return -1;
	}
	do {
		if (size == cap) {
			uint8_t *p = realloc(data, cap = cap ? cap * 2 : 4096);

			if (!p) {
				fprintf(stderr, "%s: out of memory\n", path);
				free(data);
				fclose(f);
				return -1;
			}
			data = p;
		}
		r = fread(data + size, 1, cap - size, f);
		size += r;
	} while (r);
	fclose(f);
	current = path;
	alarm(seconds);
	LLVMFuzzerTestOneInput(data, size);
	alarm(0);
	free(data);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, unsigned int seconds, int *nr)
{
	char **names = NULL, path[4096];
	int n = 0, i, ret = 0;
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d) {
		perror(dir);
		return -1;
	}
	while ((e = readdir(d))) {
		char **p;

		if (e->d_name[0] == '.')
			continue;
		p = realloc(names, (n + 1) * sizeof(*names));
		if (!p)
			break;
		names = p;
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (!ret && run_file(path, seconds))
			ret = -1;
		else if (!ret)
			(*nr)++;
		free(names[i]);
	}
	free(names);
	return ret;
}

int main(int argc, char **argv)
{
	const char *s = getenv("FUZZ_INPUT_SECONDS");
	unsigned int seconds = s && atoi(s) > 0 ? (unsigned int)atoi(s) : 10;
	int i, nr = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	signal(SIGALRM, on_alarm);
	LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st)) {
			perror(argv[i]);
			return 1;
		}
		if (S_ISDIR(st.st_mode) ? run_dir(argv[i], seconds, &nr) :
		    run_file(argv[i], seconds))
			return 1;
		if (!S_ISDIR(st.st_mode))
			nr++;
	}
	printf("%s: %d inputs replayed\n", argv[0], nr);
	return 0;
}
