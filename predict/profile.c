// SPDX-License-Identifier: MIT
/*
 * Machine profiles: a small text file per machine with its topology and
 * the costs the predictor needs, each value with the range it may be in
 * and where it came from, so that anyone can read, check and edit it:
 *
 *   # comment
 *   name = skylake-2s-80
 *   sockets = 2
 *   xfer_socket_ns = 48 [40 56] source: a table, a measurement, ...
 *
 * Every cost must be given, and every cost needs a source, but for the
 * optional ones (from PP_FIRST_OPTIONAL): a profile leaves out what no
 * published source gives, and the mechanism it costs is then left out
 * of the prediction, which says so.  Two keys of
 * older profiles are read and ignored: lock_local_ns and clock_read_ns
 * were never used (an uncontended lock+unlock and the clock reads are in
 * the recording, as this machine made them, and scale with its speed).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "predict/predict.h"

static const char *const param_names[NR_PRED_PARAMS] = {
	[PP_XFER_SMT] = "xfer_smt_ns",
	[PP_XFER_SOCKET] = "xfer_socket_ns",
	[PP_XFER_REMOTE] = "xfer_remote_ns",
	[PP_HANDOFF_QSPIN] = "handoff_qspinlock_ns",
	[PP_TICKET_SLOPE] = "ticket_slope_ns",
	[PP_TAS_BETA] = "tas_beta",
	[PP_FREQ_ONE] = "freq_one_busy_mhz",
	[PP_FREQ_ALL] = "freq_all_busy_mhz",
	[PP_SMT_SPEED] = "smt_speed",
	[PP_CORE_SPEED] = "core_speed",
	[PP_PAIR_PREFETCH] = "adjacent_line_prefetch",
	[PP_MEM_BW_SOCKET] = "mem_bw_socket_gbs",
	[PP_IPI_TARGET] = "ipi_target_ns",
	[PP_LOCKED_RMW] = "locked_rmw_ns",
	[PP_PAIR_RFO] = "pair_rfo",
	[PP_IPI_SEND] = "ipi_send_ns",
};

const char *pred_cpu_order_name(enum pred_cpu_order o)
{
	switch (o) {
	case PRED_ORDER_SMT_ADJACENT:
		return "smt-adjacent";
	case PRED_ORDER_SOCKET_RR:
		return "socket-interleaved";
	default:
		return "smt-last";
	}
}

const char *pred_param_name(enum pred_param p)
{
	return (unsigned int)p < NR_PRED_PARAMS ? param_names[p] : "?";
}

int pred_profile_cpus(const struct pred_profile *pf)
{
	return pf->sockets * pf->cores_per_socket * pf->threads_per_core;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* "V [LO HI] source: TEXT"; returns NULL or what is wrong */
static const char *parse_value(char *s, struct pred_value *v)
{
	char *end, *src = strstr(s, "source:");

	if (!src)
		return "no 'source:' (where the value came from)";
	*src = '\0';
	src = trim(src + 7);
	if (!*src)
		return "empty source";
	if (strlen(src) >= sizeof(v->source))
		return "source longer than 399 bytes";
	snprintf(v->source, sizeof(v->source), "%s", src);
	v->v = strtod(s, &end);
	if (end == s)
		return "not a number";
	s = trim(end);
	v->lo = v->hi = v->v;
	if (*s == '[') {
		v->lo = strtod(s + 1, &end);
		if (end == s + 1)
			return "range must be [LO HI]";
		s = end;
		v->hi = strtod(s, &end);
		if (end == s)
			return "range must be [LO HI]";
		s = trim(end);
		if (*s != ']')
			return "range must be [LO HI]";
		s = trim(s + 1);
	}
	if (*s)
		return "unexpected text after the value";
	/* strtod() reads "nan", "inf" and overflows to inf: none is a cost */
	if (!isfinite(v->v) || !isfinite(v->lo) || !isfinite(v->hi))
		return "not a finite number";
	if (v->v < 0 || v->lo < 0)
		return "negative value";
	if (v->lo > v->v || v->v > v->hi)
		return "value outside its range";
	v->given = true;
	return NULL;
}

static const char *parse_int(const char *s, int lo, int hi, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *trim(end))
		return "not a whole number";
	if (v < lo || v > hi)
		return "out of range";
	*out = (int)v;
	return NULL;
}

static const char *parse_line(char *key, char *val, struct pred_profile *pf,
			      unsigned int *seen)
{
	int i;

	if (!strcmp(key, "name")) {
		if (strlen(val) >= sizeof(pf->name))
			return "name longer than 63 bytes";
		snprintf(pf->name, sizeof(pf->name), "%s", val);
		return *val ? NULL : "empty name";
	}
	if (!strcmp(key, "description")) {
		if (strlen(val) >= sizeof(pf->description))
			return "description longer than 199 bytes";
		snprintf(pf->description, sizeof(pf->description), "%s", val);
		return NULL;
	}
	if (!strcmp(key, "sockets"))
		return parse_int(val, 1, 16, &pf->sockets);
	if (!strcmp(key, "cores_per_socket"))
		return parse_int(val, 1, 512, &pf->cores_per_socket);
	if (!strcmp(key, "threads_per_core"))
		return parse_int(val, 1, 8, &pf->threads_per_core);
	if (!strcmp(key, "cpu_order")) {
		if (!strcmp(val, "smt-last"))
			pf->order = PRED_ORDER_SMT_LAST;
		else if (!strcmp(val, "smt-adjacent"))
			pf->order = PRED_ORDER_SMT_ADJACENT;
		else if (!strcmp(val, "socket-interleaved"))
			pf->order = PRED_ORDER_SOCKET_RR;
		else
			return "cpu_order is smt-last, smt-adjacent or socket-interleaved";
		return NULL;
	}
	if (!strcmp(key, "lock_local_ns") || !strcmp(key, "clock_read_ns"))
		return NULL;
	for (i = 0; i < NR_PRED_PARAMS; i++) {
		if (strcmp(key, param_names[i]))
			continue;
		if (*seen & (1U << i))
			return "given twice";
		*seen |= 1U << i;
		return parse_value(val, &pf->p[i]);
	}
	return "unknown key";
}

int pred_profile_read(const char *prog, const char *path, struct pred_profile *pf)
{
	char line[512];
	unsigned int seen = 0;
	int n = 0, i;
	FILE *f;

	memset(pf, 0, sizeof(*pf));
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		char *s, *eq;
		const char *why;

		n++;
		/* a line cut by the buffer is not read as two */
		if (len == sizeof(line) - 1 && line[len - 1] != '\n' && !feof(f)) {
			fprintf(stderr, "%s: %s:%d: line longer than the bound of %zu bytes\n",
				prog, path, n, sizeof(line) - 2);
			fclose(f);
			return -1;
		}
		s = trim(line);
		if (!*s || *s == '#')
			continue;
		eq = strchr(s, '=');
		if (!eq) {
			why = "not 'key = value'";
		} else {
			*eq = '\0';
			why = parse_line(trim(s), trim(eq + 1), pf, &seen);
		}
		if (why) {
			fprintf(stderr, "%s: %s:%d: %s: %s\n", prog, path, n,
				eq ? trim(s) : "line", why);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	if (!pf->name[0] || !pf->sockets || !pf->cores_per_socket || !pf->threads_per_core) {
		fprintf(stderr, "%s: %s: a profile needs name, sockets, cores_per_socket and threads_per_core\n",
			prog, path);
		return -1;
	}
	for (i = 0; i < PP_FIRST_OPTIONAL; i++) {
		if (!pf->p[i].given) {
			fprintf(stderr, "%s: %s: %s missing%s\n", prog, path, param_names[i],
				i == PP_PAIR_PREFETCH ? " (a profile older than the key: 1 for an "
				"Intel CPU, 0 for one that does not prefetch line pairs)" : "");
			return -1;
		}
	}
	if (pf->p[PP_FREQ_ONE].v <= 0 || pf->p[PP_FREQ_ALL].v <= 0 ||
	    pf->p[PP_SMT_SPEED].lo <= 0 || pf->p[PP_CORE_SPEED].lo <= 0) {
		fprintf(stderr, "%s: %s: frequencies and speeds must be above 0\n", prog, path);
		return -1;
	}
	return 0;
}

void pred_profile_write(FILE *f, const struct pred_profile *pf)
{
	int i;

	fprintf(f, "# lrulab machine profile (lrulab predict --machine); every cost is\n"
		   "# VALUE [LO HI] source: WHERE IT CAME FROM\n");
	fprintf(f, "name = %s\n", pf->name);
	if (pf->description[0])
		fprintf(f, "description = %s\n", pf->description);
	fprintf(f, "sockets = %d\ncores_per_socket = %d\nthreads_per_core = %d\n",
		pf->sockets, pf->cores_per_socket, pf->threads_per_core);
	fprintf(f, "cpu_order = %s\n", pred_cpu_order_name(pf->order));
	for (i = 0; i < NR_PRED_PARAMS; i++) {
		const struct pred_value *v = &pf->p[i];

		if (!v->given)
			continue;
		fprintf(f, "%s = %.4g [%.4g %.4g] source: %s\n", param_names[i], v->v,
			v->lo, v->hi, v->source);
	}
}

static bool readable(const char *p)
{
	return access(p, R_OK) == 0;
}

/* @dir/@sub/@name or @dir/@sub/@name.profile */
static int try_dir(const char *dir, const char *sub, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s/%s", dir, sub, name);
	if (readable(buf))
		return 0;
	snprintf(buf, len, "%s/%s/%s.profile", dir, sub, name);
	return readable(buf) ? 0 : -1;
}

int pred_profile_find(const char *path, char *buf, size_t len)
{
	char exe[PATH_MAX], *slash;
	ssize_t n;
	int i;

	snprintf(buf, len, "%s", path);
	if (readable(buf) || strchr(path, '/'))
		return readable(buf) ? 0 : -1;
	if (!try_dir(".", "profiles", path, buf, len))
		return 0;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	/* PREFIX/bin/lrulab: PREFIX/share/lrulab/profiles; build/VARIANT/lrulab: the tree's */
	for (i = 0; i < 3 && (slash = strrchr(exe, '/')); i++) {
		*slash = '\0';
		if (i == 1 && !try_dir(exe, "share/lrulab/profiles", path, buf, len))
			return 0;
	}
	return try_dir(exe, "profiles", path, buf, len);
}
