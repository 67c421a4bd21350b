// SPDX-License-Identifier: MIT
/*
 * `lrulab repro s2`: the table of the s2 mail, "[RFC PATCH 2/3]
 * mm/mglru: skip the flags cmpxchg when nothing changes" (Ridong Chen),
 * rebuilt with `lrulab bench mglru-age` without and with the
 * mglru-skip-noop-cmpxchg switch, and the machine-independent rows: the
 * locked cmpxchgs on folio->flags per aging pass and those skipped.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"

#include "repro.h"

/*
 * shared/seeds/s2-mglru-cmpxchg-skip.txt: i7-13700HX, turbo off,
 * performance governor; N processes map one 2 GiB tmpfs file
 * (huge=never) and read every page, then one aging pass through
 * "+ <memcg_id> 0 <max_seq> 200 1"; ms per pass, median of 5 runs of 10
 * passes each, averaged over 2 boots of each kernel.  Data copied from
 * the mail, not results.
 */
static const struct s2_published {
	int procs;
	double base, patched;
} s2_published[] = {
	{ 1, 32.9, 31.7 },
	{ 8, 195.1, 160.2 },
	{ 32, 755.8, 592.2 },
	{ 64, 1597.2, 1260.6 },
};
#define S2_PASSES 10

int repro_s2(const struct repro_opts *ro, struct repro_table *t)
{
	const char *self = bench_self_exe();
	size_t i;

	t->seed = "s2-mglru-cmpxchg-skip";
	t->title = "mm/mglru: skip the flags cmpxchg when nothing changes";
	t->before_name = "mglru-skip-noop-cmpxchg off";
	t->after_name = "mglru-skip-noop-cmpxchg on";
	for (i = 0; i < ARRAY_SIZE(s2_published); i++) {
		const struct s2_published *p = &s2_published[i];
		struct repro_cell c;
		char what[96];
		int err;

		memset(&c, 0, sizeof(c));
		repro_cell_arg(&c, "mglru-age");
		repro_cell_arg(&c, "--mem");
		repro_cell_arg(&c, ro->s2_mem);
		repro_cell_arg(&c, "--procs");
		repro_cell_argf(&c, "%d", p->procs);
		repro_cell_arg(&c, "--passes");
		repro_cell_argf(&c, "%d", ro->quick ? 2 : S2_PASSES);
		repro_cell_switch(&c, self, "mglru-skip-noop-cmpxchg");
		snprintf(what, sizeof(what), "mglru-age, %d process%s, %s file", p->procs,
			 p->procs == 1 ? "" : "es", ro->s2_mem);
		if (repro_cell_run(ro, t, &c, what, ro->reps)) {
			repro_cell_free(&c);
			return -1;
		}
		err = repro_row_fill(repro_table_row(t, "ms", p->base, p->patched,
						     "%d process%s: time per aging pass",
						     p->procs, p->procs == 1 ? "" : "es"),
				     &c, 0, 1, "ms_per_pass");
		if (!err)
			err = repro_row_fill(repro_table_row(t, "cas/pass", NAN, NAN,
							     "%d: locked cmpxchgs per pass", p->procs),
					     &c, 0, 1, "cmpxchg_per_pass");
		if (!err)
			err = repro_row_fill(repro_table_row(t, "skip/pass", NAN, NAN,
							     "%d: cmpxchgs skipped per pass", p->procs),
					     &c, 0, 1, "cmpxchg_skipped_per_pass");
		repro_cell_free(&c);
		if (err)
			return -1;
	}
	repro_table_note(t, "mglru-age: N processes share one %s shmem file%s; %d passes per run, median pass; median of %ld runs per cell, alternating, fresh processes",
			 ro->s2_mem, ro->s2_mem_bytes < S2_MAIL_MEM ?
			 " (the mail's is 2G: --s2-mem 2G runs that)" : "",
			 ro->quick ? 2 : S2_PASSES, ro->reps);
	repro_table_note(t, "cmpxchg rows count locked cmpxchgs on folio->flags per pass; they hold on any machine, and with 1 process nothing can be skipped");
	return 0;
}
