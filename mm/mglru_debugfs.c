// SPDX-License-Identifier: MIT
/*
 * The lru_gen and lru_gen_full debugfs files (the kernel's mm/vmscan.c
 * "debugfs interface", v7.2): lru_gen_seq_show() prints them byte for
 * byte as the kernel does, lru_gen_seq_write() parses and runs the "+"
 * and "-" commands with the kernel's separators, field rules and error
 * codes.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <lrulab/lru_gen_debugfs.h>
#include <lrulab/memcontrol.h>
#include <lrulab/mglru.h>
#include <lrulab/mglru_walk.h>
#include <lrulab/vmscan.h>
#include <lrulab/workqueue.h>

/* ---- reading ---- */

/*
 * cgroup_path(): "/" for the root, "/a/b" below it; each name is put in
 * front of what is built so far, and a path longer than @len keeps its
 * tail (@len is at least 2).
 */
static void memcg_path(struct mem_cgroup *memcg, char *buf, size_t len)
{
	size_t used = 0;

	if (!memcg->parent) {
		snprintf(buf, len, "/");
		return;
	}
	buf[0] = '\0';
	for (; memcg->parent; memcg = memcg->parent) {
		size_t n = strlen(memcg->name) + 1;

		if (used + n >= len)
			break;
		memmove(buf + n, buf, used + 1);
		buf[0] = '/';
		memcpy(buf + 1, memcg->name, n - 1);
		used += n;
	}
}

static unsigned long gen_pages(const struct lru_gen_folio *lrugen, int gen, int type)
{
	unsigned long size = 0;
	int zone;

	for (zone = 0; zone < MAX_NR_ZONES; zone++) {
		long n = READ_ONCE(lrugen->nr_pages[gen][type][zone]);

		size += n > 0 ? (unsigned long)n : 0;
	}
	return size;
}

/* The tier lines and the walk-statistics line of one generation. */
static void show_full(FILE *f, struct lruvec *lruvec, unsigned long max_seq,
		      const unsigned long *min_seq, unsigned long seq)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	int hist = lru_hist_from_seq(seq);
	unsigned long stats[NR_MM_STATS];
	int tier, type, i;

	for (tier = 0; tier < (int)MAX_NR_TIERS; tier++) {
		fprintf(f, "            %10d", tier);
		for (type = 0; type < ANON_AND_FILE; type++) {
			/* the kernel's marks: x for a counter with no value here */
			const char *s = "xxx";
			unsigned long n[3] = { 0, 0, 0 };

			if (seq == max_seq) {
				s = "RTx";
				n[0] = READ_ONCE(lrugen->avg_refaulted[type][tier]);
				n[1] = READ_ONCE(lrugen->avg_total[type][tier]);
			} else if (seq == min_seq[type] || NR_HIST_GENS > 1) {
				s = "rep";
				n[0] = (unsigned long)atomic_long_read(&lrugen->refaulted[hist][type][tier]);
				n[1] = (unsigned long)atomic_long_read(&lrugen->evicted[hist][type][tier]);
				n[2] = READ_ONCE(lrugen->protected[hist][type][tier]);
			}
			for (i = 0; i < 3; i++)
				fprintf(f, " %10lu%c", n[i], s[i]);
		}
		fputc('\n', f);
	}
	lru_gen_read_mm_stats(lruvec, stats);
	fputs("                      ", f);
	for (i = 0; i < NR_MM_STATS; i++) {
		const char *s = "xxxx";
		unsigned long n = 0;

		if (seq == max_seq && NR_HIST_GENS == 1) {
			s = "TYFA";
			n = stats[i];
		} else if (seq != max_seq && NR_HIST_GENS > 1) {
			s = "tyfa";
			n = stats[i];
		}
		fprintf(f, " %10lu%c", n, s[i]);
	}
	fputc('\n', f);
}

static void show_lruvec(FILE *f, struct mem_cgroup *memcg, int nid, bool full,
			unsigned long now)
{
	struct lruvec *lruvec = get_lruvec(memcg, nid);
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	unsigned long max_seq = __atomic_load_n(&lrugen->max_seq, __ATOMIC_ACQUIRE);
	unsigned long min_seq[ANON_AND_FILE], seq;
	int type;

	for (type = 0; type < ANON_AND_FILE; type++)
		min_seq[type] = READ_ONCE(lrugen->min_seq[type]);
	if (nid == 0) {
		char path[PATH_MAX];

		memcg_path(memcg, path, sizeof(path));
		fprintf(f, "memcg %llu %s\n", (unsigned long long)mem_cgroup_id(memcg), path);
	}
	fprintf(f, " node %5d\n", nid);
	if (!full)
		seq = evictable_min_seq(min_seq, MAX_SWAPPINESS / 2);
	else if (max_seq >= MAX_NR_GENS)
		seq = max_seq - MAX_NR_GENS + 1;
	else
		seq = 0;
	for (; seq <= max_seq; seq++) {
		int gen = lru_gen_from_seq(seq);
		unsigned long birth = READ_ONCE(lrugen->timestamps[gen]);

		/* jiffies are ms: jiffies_to_msecs() is the identity */
		fprintf(f, " %10lu %10u", seq, (unsigned int)(now - birth));
		for (type = 0; type < ANON_AND_FILE; type++) {
			char mark = full && seq < min_seq[type] ? 'x' : ' ';

			fprintf(f, " %10lu%c", gen_pages(lrugen, gen, type), mark);
		}
		fputc('\n', f);
		if (full)
			show_full(f, lruvec, max_seq, min_seq, seq);
	}
}

void lru_gen_seq_show_at(FILE *f, bool full, unsigned long now)
{
	struct mem_cgroup *memcg = mem_cgroup_iter(NULL, NULL);
	int nid;

	do {
		for_each_node(nid)
			show_lruvec(f, memcg, nid, full, now);
	} while ((memcg = mem_cgroup_iter(NULL, memcg)));
}

void lru_gen_seq_show(FILE *f, bool full)
{
	lru_gen_seq_show_at(f, full, lru_gen_jiffies());
}

int lru_gen_show_parse(const char *name, bool *full)
{
	if (!strcmp(name, "lru_gen"))
		*full = false;
	else if (!strcmp(name, "lru_gen_full"))
		*full = true;
	else
		return -EINVAL;
	return 0;
}

/* ---- writing ---- */

/*
 * The kernel's sscanf(cur, "%c %llu %u %lu %n %4s %n %lu %n", ...): a
 * blank in the format skips any blanks, a number must start with a
 * digit (no sign) and wraps silently on overflow, %4s takes up to four
 * non-blank characters, %n records the offset even at the end of the
 * input, and the scan stops at the first conversion that fails.
 * Returns the number of conversions made.
 */
struct lru_gen_cmd {
	char cmd;
	unsigned long long memcg_id;
	unsigned int nid;
	unsigned long seq;
	char swap[5];
	unsigned long opt;
	int end;
};

static const char *skip_blanks(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* simple_strntoull(): digits in base 10, wrapping; false without a digit */
static bool scan_ull(const char **s, unsigned long long *v)
{
	const char *p = skip_blanks(*s);
	unsigned long long n = 0;

	if (!isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		n = n * 10 + (unsigned long long)(*p++ - '0');
	*s = p;
	*v = n;
	return true;
}

static int scan_cmd(const char *cur, struct lru_gen_cmd *c)
{
	const char *s = cur;
	unsigned long long v;
	int i;

	if (!*s)
		return 0;
	c->cmd = *s++;
	s = skip_blanks(s);
	if (!*s || !scan_ull(&s, &c->memcg_id))
		return 1;
	s = skip_blanks(s);
	if (!*s || !scan_ull(&s, &v))
		return 2;
	c->nid = (unsigned int)v;
	s = skip_blanks(s);
	if (!*s || !scan_ull(&s, &v))
		return 3;
	c->seq = (unsigned long)v;
	s = skip_blanks(s);
	c->end = (int)(s - cur);
	if (!*s)
		return 4;
	for (i = 0; i < 4 && *s && !isspace((unsigned char)*s); i++)
		c->swap[i] = *s++;
	c->swap[i] = '\0';
	s = skip_blanks(s);
	c->end = (int)(s - cur);
	if (!*s || !scan_ull(&s, &v))
		return 5;
	c->opt = (unsigned long)v;
	s = skip_blanks(s);
	c->end = (int)(s - cur);
	return 6;
}

/* kstrtouint(s, 0, &v): C base notation, an optional '+', one trailing newline */
static int kstrtouint(const char *s, unsigned int *res)
{
	unsigned long long v = 0;
	unsigned int base = 10;
	bool overflow = false;
	const char *p;

	if (*s == '+')
		s++;
	if (s[0] == '0' && tolower((unsigned char)s[1]) == 'x' &&
	    isxdigit((unsigned char)s[2])) {
		base = 16;
		s += 2;
	} else if (s[0] == '0') {
		base = 8;
	}
	for (p = s; *p; p++) {
		unsigned int d;

		if (isdigit((unsigned char)*p))
			d = (unsigned int)(*p - '0');
		else if (isxdigit((unsigned char)*p))
			d = (unsigned int)(tolower((unsigned char)*p) - 'a' + 10);
		else
			break;
		if (d >= base)
			break;
		if (v > (ULLONG_MAX - d) / base)
			overflow = true;
		v = v * base + d;
	}
	if (p == s)
		return -EINVAL;
	if (overflow)
		return -ERANGE;
	if (*p == '\n')
		p++;
	if (*p)
		return -EINVAL;
	if (v > UINT_MAX)
		return -ERANGE;
	*res = (unsigned int)v;
	return 0;
}

static int run_aging(struct lruvec *lruvec, unsigned long seq, int swappiness,
		     bool force_scan)
{
	unsigned long max_seq = __atomic_load_n(&lruvec->lrugen.max_seq, __ATOMIC_ACQUIRE);

	if (seq > max_seq)
		return -EINVAL;
	/* v7.2 ages from the current max_seq; v6.12 ignored a stale @seq */
	return try_to_inc_max_seq(lruvec, max_seq, swappiness, force_scan) ? 0 : -EEXIST;
}

static int run_eviction(struct lruvec *lruvec, unsigned long seq, struct scan_control *sc,
			int swappiness, unsigned long nr_to_reclaim)
{
	unsigned long max_seq = __atomic_load_n(&lruvec->lrugen.max_seq, __ATOMIC_ACQUIRE);

	if (seq + MIN_NR_GENS > max_seq)
		return -EINVAL;
	sc->nr_reclaimed = 0;
	/* the model has no signals: a request runs to one of its ends */
	for (;;) {
		unsigned long min_seq[ANON_AND_FILE];
		unsigned long nr_batch;
		int type;

		for (type = 0; type < ANON_AND_FILE; type++)
			min_seq[type] = READ_ONCE(lruvec->lrugen.min_seq[type]);
		if (seq < evictable_min_seq(min_seq, swappiness))
			return 0;
		if (sc->nr_reclaimed >= nr_to_reclaim)
			return 0;
		nr_batch = nr_to_reclaim - sc->nr_reclaimed;
		if (nr_batch > MAX_LRU_BATCH)
			nr_batch = MAX_LRU_BATCH;
		if (!evict_folios(nr_batch, lruvec, sc, swappiness))
			return 0;
		cond_resched();
	}
}

static int run_cmd(const struct lru_gen_cmd *c, struct scan_control *sc, int swappiness)
{
	struct mem_cgroup *memcg;
	struct lruvec *lruvec;
	int err = -EINVAL;

	if ((int)c->nid < 0 || (int)c->nid >= nr_node_ids)
		return -EINVAL;
	memcg = mem_cgroup_get_from_id(c->memcg_id);
	if (!memcg)
		return -EINVAL;
	sc->target_mem_cgroup = memcg;
	lruvec = get_lruvec(memcg, (int)c->nid);
	if (swappiness < MIN_SWAPPINESS)
		swappiness = get_swappiness(lruvec, sc);
	else if (swappiness > SWAPPINESS_ANON_ONLY)
		goto done;
	switch (c->cmd) {
	case '+':
		err = run_aging(lruvec, c->seq, swappiness, c->opt != 0);
		break;
	case '-':
		err = run_eviction(lruvec, c->seq, sc, swappiness, c->opt);
		break;
	}
done:
	css_put(memcg);
	return err;
}

ssize_t lru_gen_seq_write(const char *src, size_t len)
{
	struct scan_control sc = {
		.may_writepage = 1,
		.may_unmap = 1,
		.may_swap = 1,
		.reclaim_idx = MAX_NR_ZONES - 1,
		.proactive = 1,
		.priority = DEF_PRIORITY,
	};
	char *buf, *next, *cur;
	int err = -EINVAL;

	buf = malloc(len + 1);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, src, len);
	buf[len] = '\0';
	if (!set_mm_walk(NULL, true)) {
		free(buf);
		return -ENOMEM;
	}
	next = buf;
	while ((cur = strsep(&next, ",;\n"))) {
		struct lru_gen_cmd c = { .opt = -1UL };
		unsigned int swappiness;
		int n;

		cur = (char *)skip_blanks(cur);
		if (!*cur)
			continue;
		n = scan_cmd(cur, &c);
		if (n < 4 || cur[c.end]) {
			err = -EINVAL;
			break;
		}
		if (n == 4) {
			swappiness = -1U;
		} else if (!strcmp(c.swap, "max")) {
			swappiness = SWAPPINESS_ANON_ONLY;
		} else {
			err = kstrtouint(c.swap, &swappiness);
			if (err)
				break;
		}
		err = run_cmd(&c, &sc, (int)swappiness);
		if (err)
			break;
	}
	clear_mm_walk();
	free(buf);
	return err ? err : (ssize_t)len;
}
