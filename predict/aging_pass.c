// SPDX-License-Identifier: MIT
/*
 * An MGLRU aging pass on another machine.  The s2 mail's pass is one
 * task's walk of every mm on the memcg's list: no other CPU takes a
 * lock or a line while it runs, so there is no queue for the engine to
 * simulate, and its time on the target is the walk's own, in two parts.
 *
 * The locked read-modify-writes: one lock btr a young PTE (x86's
 * ptep_test_and_clear_young()), and the lock cmpxchg of folio->flags in
 * folio_update_gen() unless the mglru-skip-noop-cmpxchg switch skips it.
 * Their number is the recording's, exact on any machine; each costs the
 * target's locked_rmw_ns, which instruction tables give per core, since
 * a locked op costs a fixed number of cycles on a line the core holds
 * whatever else the core is doing (it waits for the store buffer too).
 *
 * Everything else, lrulab's walk measured here less its locked ops at
 * this machine's cost, runs at the target's speed over this machine's.
 * That speed is the one figure no table gives (the profile's core_speed
 * band is wide), so repro fits it on one row and shows the rest as its
 * check.
 */
#include <math.h>

#include "predict-internal.h"

/*
 * ms a pass on the target: ((@ms_here - @locked x @x_here) / @speed +
 * @locked x @x_target) x @page_scale, the last the mail's pages over the
 * recorded ones.  NAN where the walk less its locked ops is not positive:
 * the recording is shorter than its locked ops at this machine's cost.
 */
double pred_aging_pass_ms(const struct pred_aging_pass *a, double speed)
{
	double walk = a->ms_here - a->locked * a->x_here_ns * 1e-6;

	if (walk <= 0 || speed <= 0)
		return NAN;
	return (walk / speed + a->locked * a->x_target_ns * 1e-6) * a->page_scale;
}

/*
 * The speed at which @a's pass takes @ms_target on the target: the
 * inverse of the above.  NAN where no positive speed gives it (the
 * target's locked ops alone take longer).
 */
double pred_aging_pass_speed(const struct pred_aging_pass *a, double ms_target)
{
	double walk = a->ms_here - a->locked * a->x_here_ns * 1e-6;
	double rest = ms_target / a->page_scale - a->locked * a->x_target_ns * 1e-6;

	if (walk <= 0 || rest <= 0 || a->page_scale <= 0)
		return NAN;
	return walk / rest;
}
