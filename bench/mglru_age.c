// SPDX-License-Identifier: MIT
/*
 * `lrulab bench mglru-age`: the s2 mail's benchmark.  N processes (each
 * an mm_struct on the memcg's mm list) map one shmem file and read every
 * page; then one aging pass is triggered through the lru_gen debugfs
 * write "+ <memcg_id> 0 <max_seq> 200 1" and timed; the processes read
 * every page again (the young bits the pass cleared are set anew) and
 * the next pass runs, --passes times.  The mail's figure is the time per
 * aging pass; the figures that hold on any machine are the locked
 * cmpxchgs on folio->flags per pass, the ones the mglru-skip-noop-cmpxchg
 * switch skipped, and the PTEs walked per pass.
 *
 * One model CPU does everything (the mail's pass runs on the writing
 * task), so the pass is timed without other threads in the model.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench.h"
#include <lrulab/lru_gen_debugfs.h>
#include <lrulab/mglru.h>
#include <lrulab/mglru_walk.h>

#define MGLRU_AGE_MAX_DEFAULT_MEM	(2UL << 30)	/* the mail's file */

struct mglru_age_pass {
	double ms;
	unsigned long cas, skipped, ptes;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Every process reads every page: a fault the first time, then a young bit. */
static int read_all(struct vm_area_struct **vma, long procs, unsigned long pages)
{
	unsigned long p;
	long i;

	for (i = 0; i < procs; i++)
		for (p = 0; p < pages; p++)
			if (mm_access(vma[i], vma[i]->vm_start + p * PAGE_SIZE, false))
				return -ENOMEM;
	return 0;
}

/* One aging pass through the debugfs file, as the mail's script does. */
static int age_once(struct mem_cgroup *memcg, struct mglru_age_pass *p)
{
	struct lruvec *lruvec = get_lruvec(memcg, 0);
	unsigned long s0[NR_MM_STATS], s1[NR_MM_STATS];
	struct lru_gen_cas_stat c0, c1;
	char cmd[96];
	ssize_t ret;
	double t0;
	int len;

	len = snprintf(cmd, sizeof(cmd), "+ %llu 0 %lu 200 1\n",
		       (unsigned long long)mem_cgroup_id(memcg),
		       READ_ONCE(lruvec->lrugen.max_seq));
	lru_gen_read_mm_stats(lruvec, s0);
	lru_gen_cas_read(&c0);
	t0 = now_ms();
	ret = lru_gen_seq_write(cmd, (size_t)len);
	p->ms = now_ms() - t0;
	lru_gen_cas_read(&c1);
	lru_gen_read_mm_stats(lruvec, s1);
	p->cas = c1.done - c0.done;
	p->skipped = c1.skipped - c0.skipped;
	p->ptes = s1[MM_LEAF_TOTAL] - s0[MM_LEAF_TOTAL];
	return ret < 0 ? (int)ret : 0;
}

static double median_of(const struct mglru_age_pass *p, long n,
			double (*get)(const struct mglru_age_pass *))
{
	double *v, m;
	long i;

	if (n <= 0)
		return 0;
	v = calloc((size_t)n, sizeof(double));
	if (!v)
		return 0;
	for (i = 0; i < n; i++)
		v[i] = get(&p[i]);
	m = median_double(v, (int)n);
	free(v);
	return m;
}

static double get_ms(const struct mglru_age_pass *p) { return p->ms; }
static double get_cas(const struct mglru_age_pass *p) { return (double)p->cas; }
static double get_skipped(const struct mglru_age_pass *p) { return (double)p->skipped; }
static double get_ptes(const struct mglru_age_pass *p) { return (double)p->ptes; }

struct mglru_age_model {
	struct mem_cgroup *memcg;
	struct address_space *file;
	struct mm_struct **mm;
	struct vm_area_struct **vma;
	long procs;
};

static void model_free(struct mglru_age_model *m)
{
	long i;

	for (i = 0; m->mm && i < m->procs; i++)
		mmput(m->mm[i]);
	if (m->file)
		shmem_file_free(m->file);
	if (m->memcg)
		mem_cgroup_offline(m->memcg);
	free(m->mm);
	free(m->vma);
}

static int model_setup(struct mglru_age_model *m, long procs, unsigned long pages)
{
	long i;

	m->procs = procs;
	m->memcg = mem_cgroup_create(root_mem_cgroup, "mglru-age");
	m->file = shmem_file_setup(pages, 0);
	m->mm = calloc((size_t)procs, sizeof(*m->mm));
	m->vma = calloc((size_t)procs, sizeof(*m->vma));
	if (!m->memcg || !m->file || !m->mm || !m->vma)
		return -ENOMEM;
	for (i = 0; i < procs; i++) {
		m->mm[i] = mm_alloc(m->memcg);
		m->vma[i] = m->mm[i] ? mmap_shmem(m->mm[i], m->file, 0, pages * PAGE_SIZE) : NULL;
		if (!m->vma[i])
			return -ENOMEM;
	}
	return 0;
}

static json_t *mglru_age_json(const struct bench_opts *o, long procs,
			      const struct mglru_age_pass *p)
{
	json_t *j = json_object(), *sw = json_array();
	int i;

	for (i = 0; i < NR_LRULAB_SWITCHES; i++)
		if (lrulab_switch_on(i))
			json_array_append_new(sw, json_string(lrulab_switch_name(i)));
	json_object_set_new(j, "workload", json_string("mglru-age"));
	json_object_set_new(j, "procs", json_integer(procs));
	json_object_set_new(j, "mem", json_integer((json_int_t)o->mem));
	json_object_set_new(j, "passes", json_integer(o->passes));
	json_object_set_new(j, "switches", sw);
	json_object_set_new(j, "ms_per_pass", json_real(median_of(p, o->passes, get_ms)));
	json_object_set_new(j, "cmpxchg_per_pass", json_real(median_of(p, o->passes, get_cas)));
	json_object_set_new(j, "cmpxchg_skipped_per_pass",
			    json_real(median_of(p, o->passes, get_skipped)));
	json_object_set_new(j, "ptes_walked_per_pass",
			    json_real(median_of(p, o->passes, get_ptes)));
	return j;
}

static void mglru_age_text(FILE *f, const struct bench_opts *o, long procs,
			   unsigned long pages, const struct mglru_age_pass *p)
{
	long i;

	fprintf(f, "lrulab bench mglru-age: %ld process%s map one %lu KiB shmem file (%lu pages) and read every page, then one aging pass (\"+ <memcg_id> 0 <max_seq> 200 1\"); %ld passes; lru_gen enabled 0x%04x; mglru-skip-noop-cmpxchg %s\n",
		procs, procs == 1 ? "" : "es", o->mem >> 10, pages, o->passes,
		o->lru_gen_given ? o->lru_gen : LRU_GEN_CAPS_ALL,
		lrulab_switch_on(SW_MGLRU_SKIP_NOOP_CMPXCHG) ? "on" : "off");
	fprintf(f, "%6s %10s %14s %14s %14s\n", "pass", "ms", "cmpxchg", "skipped", "ptes walked");
	for (i = 0; i < o->passes; i++)
		fprintf(f, "%6ld %10.3f %14lu %14lu %14lu\n", i + 1, p[i].ms, p[i].cas,
			p[i].skipped, p[i].ptes);
	fprintf(f, "median: %.3f ms per aging pass; per pass %.0f locked cmpxchgs (%.3f per page), %.0f skipped (%.3f per page), %.0f PTEs walked\n",
		median_of(p, o->passes, get_ms), median_of(p, o->passes, get_cas),
		median_of(p, o->passes, get_cas) / (double)pages,
		median_of(p, o->passes, get_skipped),
		median_of(p, o->passes, get_skipped) / (double)pages,
		median_of(p, o->passes, get_ptes));
}

/* One run with @procs processes: 0, or -errno when the model could not be set up. */
static int mglru_age_run(const struct bench_opts *o, long procs, FILE *text, json_t **json)
{
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;
	unsigned long pages = o->mem / PAGE_SIZE, span = 1UL << MAX_PAGE_ORDER;
	struct mglru_age_model m = { 0 };
	struct mglru_age_pass *p;
	char *show = NULL;
	long i;
	int err;

	*json = NULL;
	p = calloc((size_t)o->passes, sizeof(*p));
	if (!p)
		return -ENOMEM;
	cfg.nr_cpus = 1;
	cfg.node_pages = (pages + 4096 + span - 1) / span * span;
	cfg.lock = o->lock;
	cfg.lru_gen = o->lru_gen_given ? o->lru_gen : LRU_GEN_CAPS_ALL;
	lrulab_switches_clear();
	lrulab_switches[SW_MGLRU_SKIP_NOOP_CMPXCHG] = o->sw[SW_MGLRU_SKIP_NOOP_CMPXCHG] == 1;
	err = lrulab_init(&cfg);
	if (err)
		goto out_free;
	err = cpu_enter(0, true);
	if (err)
		goto out_exit;
	err = model_setup(&m, procs, pages);
	for (i = 0; !err && i < o->passes && !bench_interrupted; i++) {
		/* the first read faults the file in; later ones set young bits */
		err = read_all(m.vma, procs, pages);
		/* folios still in this CPU's batch have no generation yet */
		lru_add_drain();
		if (!err)
			err = age_once(m.memcg, &p[i]);
	}
	if (!err) {
		if (text)
			mglru_age_text(text, o, procs, pages, p);
		*json = mglru_age_json(o, procs, p);
		show = bench_show_capture(o);
	}
	model_free(&m);
	cpu_exit();
out_exit:
	lrulab_exit();
out_free:
	lrulab_switches_clear();
	free(p);
	if (!err)
		bench_show_print(o, show);
	return err;
}

static unsigned long mglru_age_default_mem(void)
{
	long phys = sysconf(_SC_PHYS_PAGES);
	unsigned long mem = MGLRU_AGE_MAX_DEFAULT_MEM;

	/* an eighth of the machine: room for the PTE arrays of 64 processes */
	while (phys > 0 && mem > (16UL << 20) && mem > (unsigned long)phys * PAGE_SIZE / 8)
		mem >>= 1;
	return mem;
}

static void mglru_age_defaults(struct bench_opts *o)
{
	o->shmem = true;
	o->procs[0] = 8;
	o->nr_procs = 1;
	o->passes = 10;
	o->mem = mglru_age_default_mem();
}

static int mglru_age_main(const struct bench_workload *w, const char *prog,
			  struct bench_opts *o)
{
	int i, sw, err;

	for (sw = 0; sw < NR_LRULAB_SWITCHES; sw++) {
		if (sw != SW_MGLRU_SKIP_NOOP_CMPXCHG && sw != SW_LRU_GEN && o->sw[sw] >= 0) {
			fprintf(stderr, "%s: --with/--without %s: only mglru-skip-noop-cmpxchg applies to mglru-age\n",
				prog, lrulab_switch_name(sw));
			return 2;
		}
	}
	if (o->sw[SW_LRU_GEN] == 0 || (o->lru_gen_given && !(o->lru_gen & BIT(LRU_GEN_CORE)))) {
		fprintf(stderr, "%s: --lru-gen: mglru-age ages the multi-gen LRU: it needs the main bit 0x1\n",
			prog);
		return 2;
	}
	if (!o->mem || o->mem % PAGE_SIZE) {
		fprintf(stderr, "%s: --mem: must be a positive multiple of 4K\n", prog);
		return 2;
	}
	for (i = 0; i < o->nr_procs; i++) {
		json_t *j;

		if (i && !o->json)
			printf("\n");
		err = mglru_age_run(o, o->procs[i], o->json ? NULL : stdout, &j);
		if (err) {
			fprintf(stderr, "%s: mglru-age with %ld processes failed: %s\n", prog,
				o->procs[i], strerror(-err));
			return bench_exit_status(1);
		}
		if (o->json)
			bench_json_line(j);
		json_decref(j);
		fflush(stdout);
		if (bench_interrupted)
			break;
	}
	return bench_exit_status(0);
}

const struct bench_workload mglru_age_workload = {
	.name = "mglru-age",
	.summary = "s2: N processes (--procs, default 8) map one shmem file (--mem, default the\n"
		   "mail's 2G or an eighth of this machine's memory) and read every page; then one\n"
		   "MGLRU aging pass runs through the lru_gen debugfs write \"+ <memcg_id> 0\n"
		   "<max_seq> 200 1\" and is timed; the pages are read again before each of the\n"
		   "--passes passes (default 10).  Prints the median time per pass and, per pass,\n"
		   "the locked cmpxchgs on folio flags, those mglru-skip-noop-cmpxchg skipped, and\n"
		   "the PTEs walked.  The model runs the multi-gen LRU with every capability\n"
		   "(--lru-gen=0x3: without non-leaf PMD young bits; 0x1: no page-table walk).",
	.opts = BENCH_OPT_PROCS,
	.defaults = mglru_age_defaults,
	.main = mglru_age_main,
};
