/* SPDX-License-Identifier: MIT */
/*
 * What every part of the command shares and none owns: sorting and
 * summarising samples, temporary files, numbers out of JSON.  Below
 * bench/, replay/ and predict/, above nothing but libc and jansson.
 */
#ifndef LRULAB_TOOLS_UTIL_H
#define LRULAB_TOOLS_UTIL_H

#include <stddef.h>
#include <jansson.h>

/* qsort()'s comparison of doubles, ascending */
int cmp_double(const void *a, const void *b);
/* Median of @n values (@v is not changed); NAN when @n is 0. */
double median_double(const double *v, int n);
/* P(@q) of @n ascending values, interpolated between neighbours */
double quantile_sorted(const double *sorted, int n, double q);
/*
 * A new empty file $TMPDIR/lrulab-@stem-XXXXXX (/tmp without TMPDIR), its
 * name in @path: its descriptor, or -1 with errno set.
 */
int tmpfile_create(const char *stem, char *path, size_t len);
/*
 * Everything @fd gives until its end, NUL-terminated, its length in
 * *@len (when not NULL); NULL when out of memory.  To free.
 */
char *read_fd_all(int fd, size_t *len);
/* The JSON value @fd gives until its end; NULL if none or bad. */
json_t *read_fd_json(int fd);
/* MemAvailable and MemTotal of /proc/meminfo in bytes; 0 when unknown */
unsigned long host_mem_available(void);
unsigned long host_mem_total(void);
/* A numeric member of a JSON object; NAN when missing. */
double json_number(json_t *obj, const char *key);

#endif /* LRULAB_TOOLS_UTIL_H */
