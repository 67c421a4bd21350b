// SPDX-License-Identifier: MIT
/*
 * `lrulab pathbench`: the cost of the add/free path itself, on one model
 * CPU with nothing else running: ns per folio_add_lru (its share of the
 * batch move included), ns per page in folios_put_refs, and lru_lock hold
 * time per 31-folio batch at each site.  Configurations (lock statistics
 * off, sampled and full; lru-stat-batch off and on) alternate run by run;
 * medians are quoted.  What the default, sampled statistics add to the
 * path is the price every other benchmark pays for its lock table.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/commands.h"
#include <lrulab/lrulab.h>
#include "tools/options.h"
#include "tools/parse.h"
#include <lrulab/switches.h>
#include "tools/util.h"

struct path_sample {
	double add_ns;		/* per folio_add_lru */
	double put_ns;		/* per page in folios_put_refs */
	double move_hold_ns;	/* per folio_batch_move_lru lru_lock hold */
	double put_hold_ns;	/* per folios_put_refs lru_lock hold */
	double add_locks;	/* lock acquisitions (every lock) per folio added */
	double put_locks;	/* and per page freed; 0 with statistics off */
};

/* Acquisitions of every lock so far. */
static u64 all_acquired(void)
{
	u64 n = 0;
	int i;

	for (i = 0; i < lockstat_nr_sites(); i++) {
		struct lock_stat st;

		lockstat_read(lockstat_site(i), &st);
		n += st.acquired;
	}
	return n;
}

static void site_hold(const char *caller, double *out)
{
	int i;

	for (i = 0; i < lockstat_nr_sites(); i++) {
		struct lock_site *s = lockstat_site(i);
		struct lock_stat st;

		if (strcmp(s->cls, "lru_lock") || strcmp(s->fn, caller))
			continue;
		lockstat_read(s, &st);
		*out = st.acquired ? (double)st.hold_total_ns / st.acquired : 0;
	}
}

/* One run in a fresh system; returns 0 or -errno. */
static int path_run(long nr, enum lockstat_mode lockstat, bool stat_batch,
		    struct path_sample *out)
{
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;
	unsigned long span = 1UL << MAX_PAGE_ORDER;
	struct mem_cgroup *memcg;
	struct folio **f;
	u64 t0, t1;
	long i;
	int err;

	cfg.nr_cpus = 1;
	cfg.node_pages = ((unsigned long)nr + 2048 + span - 1) / span * span;
	cfg.lockstat = lockstat;
	lrulab_switches_clear();
	lrulab_switches[SW_LRU_STAT_BATCH] = stat_batch;
	if ((err = lrulab_init(&cfg)))
		return err;
	f = calloc(nr, sizeof(*f));
	memcg = mem_cgroup_create(root_mem_cgroup, "pathbench");
	if (!f || !memcg || cpu_enter(0, true)) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nr; i++) {
		f[i] = folio_alloc(0, 0);
		if (!f[i] || mem_cgroup_charge(f[i], memcg)) {
			err = -ENOMEM;
			goto out_cpu;
		}
		folio_set_swapbacked(f[i]);
	}
	lockstat_reset();
	t0 = lrulab_now_ns();
	for (i = 0; i < nr; i++)
		folio_add_lru(f[i]);
	lru_add_drain();
	t1 = lrulab_now_ns();
	out->add_ns = (double)(t1 - t0) / nr;
	out->add_locks = (double)all_acquired() / nr;

	t0 = lrulab_now_ns();
	for (i = 0; i < nr; i += FOLIO_BATCH_SIZE) {
		struct folio_batch fb;
		long j;

		folio_batch_init(&fb);
		for (j = i; j < nr && j < i + FOLIO_BATCH_SIZE; j++)
			folio_batch_add(&fb, f[j]);
		folios_put(&fb);
	}
	t1 = lrulab_now_ns();
	out->put_ns = (double)(t1 - t0) / nr;
	out->put_locks = (double)all_acquired() / nr - out->add_locks;
	out->move_hold_ns = out->put_hold_ns = 0;
	site_hold("folio_batch_move_lru", &out->move_hold_ns);
	site_hold("folios_put_refs", &out->put_hold_ns);
	if (lrulab_check_invariants(true, stderr))
		err = -EUCLEAN;
out_cpu:
	cpu_exit();
out:
	if (memcg)
		mem_cgroup_offline(memcg);
	free(f);
	lrulab_exit();
	lrulab_switches_clear();
	return err;
}

static double median_of(struct path_sample *s, int n, size_t off)
{
	double v[64];
	int i;

	for (i = 0; i < n; i++)
		v[i] = *(double *)((char *)&s[i] + off);
	return median_double(v, n);
}

#define NR_CONFIGS 6
static const struct {
	enum lockstat_mode lockstat;
	bool stat_batch;
	const char *name;
} configs[NR_CONFIGS] = {
	{ LOCKSTAT_OFF, false, "lockstat off,     lru-stat-batch off" },
	{ LOCKSTAT_SAMPLED, false, "lockstat sampled, lru-stat-batch off" },
	{ LOCKSTAT_FULL, false, "lockstat full,    lru-stat-batch off" },
	{ LOCKSTAT_OFF, true, "lockstat off,     lru-stat-batch on" },
	{ LOCKSTAT_SAMPLED, true, "lockstat sampled, lru-stat-batch on" },
	{ LOCKSTAT_FULL, true, "lockstat full,    lru-stat-batch on" },
};

enum { M_ADD, M_PUT, M_MOVE_HOLD, M_PUT_HOLD, NR_MEDIANS };

static void print_overhead(const char *what, double m[NR_CONFIGS][NR_MEDIANS],
			   int off, int on)
{
	printf("  %-38s %+6.1f ns (%+5.1f%%) per folio_add_lru, %+6.1f ns (%+5.1f%%) per page freed\n",
	       what, m[on][M_ADD] - m[off][M_ADD],
	       100.0 * (m[on][M_ADD] - m[off][M_ADD]) / m[off][M_ADD],
	       m[on][M_PUT] - m[off][M_PUT],
	       100.0 * (m[on][M_PUT] - m[off][M_PUT]) / m[off][M_PUT]);
}

static double change(double before, double after)
{
	return before ? 100.0 * (after - before) / before : 0;
}

static int run_pathbench(long nr, long reps)
{
	static struct path_sample s[NR_CONFIGS][64];
	double m[NR_CONFIGS][NR_MEDIANS];
	long r;
	int c, err;

	printf("lrulab pathbench: %ld order-0 anon folios, one model CPU, %ld runs per configuration (alternated, in rotating order), lock %s, clock %s (%llu ns a read)\n",
	       nr, reps, lock_impl_name(LOCK_QSPINLOCK), lrulab_clock_source(),
	       (unsigned long long)lrulab_clock_cost_ns());
	/*
	 * Each round starts one configuration later, so that none always
	 * runs first (after the set-up of the round, in the same place of a
	 * neighbour's period).
	 */
	for (r = 0; r < reps; r++) {
		int k;

		for (k = 0; k < NR_CONFIGS; k++) {
			c = (int)((r + k) % NR_CONFIGS);
			err = path_run(nr, configs[c].lockstat, configs[c].stat_batch, &s[c][r]);
			if (err) {
				fprintf(stderr, "lrulab pathbench: run failed: %s\n", strerror(-err));
				return 1;
			}
		}
	}
	printf("\n%-38s %12s %12s %16s %16s\n", "medians", "add ns/folio",
	       "put ns/page", "move hold/batch*", "put hold/batch*");
	for (c = 0; c < NR_CONFIGS; c++) {
		m[c][M_ADD] = median_of(s[c], reps, offsetof(struct path_sample, add_ns));
		m[c][M_PUT] = median_of(s[c], reps, offsetof(struct path_sample, put_ns));
		m[c][M_MOVE_HOLD] = median_of(s[c], reps, offsetof(struct path_sample, move_hold_ns));
		m[c][M_PUT_HOLD] = median_of(s[c], reps, offsetof(struct path_sample, put_hold_ns));
		if (configs[c].lockstat != LOCKSTAT_OFF)
			printf("%-38s %12.1f %12.1f %13.0f ns %13.0f ns\n", configs[c].name,
			       m[c][M_ADD], m[c][M_PUT], m[c][M_MOVE_HOLD], m[c][M_PUT_HOLD]);
		else
			printf("%-38s %12.1f %12.1f %16s %16s\n", configs[c].name,
			       m[c][M_ADD], m[c][M_PUT], "-", "-");
	}
	printf("* sampled: 1 hold in %d timed per thread, mean x acquisitions; full: every hold timed (expensive: it lengthens the holds it measures); both less the clock's cost\n",
	       LOCKSTAT_HOLD_SAMPLE);

	printf("\nlock statistics overhead, lru-stat-batch off (on), medians:\n");
	print_overhead("sampled (default):", m, 0, 1);
	print_overhead("", m, 3, 4);
	print_overhead("full (--profile-hold), expensive:", m, 0, 2);
	print_overhead("", m, 3, 5);
	/* a count, the same in every run of a configuration: no noise in it */
	printf("lock acquisitions (every lock) per folio_add_lru %.3f, per page freed %.3f:\n"
	       "  what the statistics can add is that many times lockbench's overhead per acquisition\n",
	       s[1][0].add_locks, s[1][0].put_locks);
	printf("\nlru-stat-batch, holds timed in full mode: folio_batch_move_lru hold %.0f -> %.0f ns (%+.0f%%), folios_put_refs hold %.0f -> %.0f ns (%+.0f%%)\n",
	       m[2][M_MOVE_HOLD], m[5][M_MOVE_HOLD], change(m[2][M_MOVE_HOLD], m[5][M_MOVE_HOLD]),
	       m[2][M_PUT_HOLD], m[5][M_PUT_HOLD], change(m[2][M_PUT_HOLD], m[5][M_PUT_HOLD]));
	printf("lru-stat-batch, holds sampled 1/%d:       folio_batch_move_lru hold %.0f -> %.0f ns (%+.0f%%), folios_put_refs hold %.0f -> %.0f ns (%+.0f%%)\n",
	       LOCKSTAT_HOLD_SAMPLE,
	       m[1][M_MOVE_HOLD], m[4][M_MOVE_HOLD], change(m[1][M_MOVE_HOLD], m[4][M_MOVE_HOLD]),
	       m[1][M_PUT_HOLD], m[4][M_PUT_HOLD], change(m[1][M_PUT_HOLD], m[4][M_PUT_HOLD]));
	return 0;
}

enum { OPT_FOLIOS = 1, OPT_REPS };

static const struct cmd_opt path_opts[] = {
	{ "folios", "N", OPT_FOLIOS, "order-0 anon folios added and freed a run (default 31744)" },
	{ "reps", "N", OPT_REPS, "runs per configuration, alternated (default 7)" },
	{ NULL },
};

static const struct cmd_spec path_spec = {
	.prog = "lrulab pathbench",
	.about = "The add/free path's own cost on one model CPU: ns per folio_add_lru, ns per\n"
		 "page freed, lru_lock hold per batch, with lock statistics off, sampled and\n"
		 "full and lru-stat-batch off and on; medians.",
	.opts = path_opts,
};

int cmd_pathbench(int argc, char **argv)
{
	const char *p = path_spec.prog, *arg;
	long nr = 31 * 1024, reps = 7;
	struct cmd_parser cp;
	int c;

	cmd_parse_init(&cp, &path_spec, argc, argv);
	while ((c = cmd_parse_next(&cp, &arg)) != CMD_OPT_END) {
		switch (c) {
		case CMD_OPT_HELP:
			return 0;
		case CMD_OPT_ERROR:
			return 2;
		case OPT_FOLIOS:
			if (parse_long(p, "--folios", arg, 31, 1L << 20, &nr))
				return 2;
			break;
		case OPT_REPS:
			if (parse_long(p, "--reps", arg, 1, 63, &reps))
				return 2;
			break;
		}
	}
	if (cmd_parse_end(&cp))
		return 2;
	return run_pathbench(nr, reps);
}
