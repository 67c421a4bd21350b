// SPDX-License-Identifier: MIT
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "tools/util.h"

int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double median_double(const double *v, int n)
{
	double *s, m;

	if (n <= 0)
		return NAN;
	s = malloc(n * sizeof(*s));
	if (!s)
		return NAN;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return m;
}

double quantile_sorted(const double *sorted, int n, double q)
{
	double pos = q * (n - 1);
	int i = (int)pos;

	if (i >= n - 1)
		return sorted[n - 1];
	return sorted[i] + (pos - i) * (sorted[i + 1] - sorted[i]);
}

int tmpfile_create(const char *stem, char *path, size_t len)
{
	const char *tmp = getenv("TMPDIR");
	int n = snprintf(path, len, "%s/lrulab-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", stem);

	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return mkstemp(path);
}

double json_number(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

char *read_fd_all(int fd, size_t *lenp)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t n;

	while (buf) {
		if (len + 1 >= cap) {
			char *more = realloc(buf, cap * 2);

			if (!more) {
				free(buf);
				return NULL;
			}
			buf = more;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (buf)
		buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
}

json_t *read_fd_json(int fd)
{
	size_t len;
	char *buf = read_fd_all(fd, &len);
	json_t *j = buf && len ? json_loads(buf, 0, NULL) : NULL;

	free(buf);
	return j;
}

static unsigned long meminfo_bytes(const char *key)
{
	int fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
	char *text = fd >= 0 ? read_fd_all(fd, NULL) : NULL, *p;
	unsigned long v;

	if (fd >= 0)
		close(fd);
	p = text ? strstr(text, key) : NULL;
	v = p ? strtoul(p + strlen(key), NULL, 10) << 10 : 0;
	free(text);
	return v;
}

unsigned long host_mem_available(void)
{
	return meminfo_bytes("MemAvailable:");
}

unsigned long host_mem_total(void)
{
	return meminfo_bytes("MemTotal:");
}
