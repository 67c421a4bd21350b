/* SPDX-License-Identifier: MIT */
/* What predict/record.c shares with the lock statistics and the recording file code. */
#ifndef LRULAB_PREDICT_RECORD_INTERNAL_H
#define LRULAB_PREDICT_RECORD_INTERNAL_H

#include <lrulab/predict.h>

/* one lock the recording met: the site that first took it, its lines as addresses >> 6 */
struct rec_lock {
	int site;
	int nr_lines;
	uintptr_t lines[PRED_MAX_LINES];
};

/* an event as recorded: the addresses written, 0 for none */
struct rec_event {
	u32 op;			/* the CPU's slot of the acquisition */
	u8 kind, inside, threshold, step;
	u32 arg;
	uintptr_t addr, addr2;
};

extern bool pred_recording;
extern struct rec_lock rec_locks[];
extern u32 rec_nr_locks;
extern u32 rec_overhead_ns;

/* from lib/lockstat.c's slow paths, only while pred_recording */
void pred_record_acquired(spinlock_t *l, struct lock_site *site);
void pred_record_released(spinlock_t *l, u64 t_req, u64 hold, u64 now);
void pred_record_reset(void);
u32 pred_record_trace_len(int cpu);
void pred_record_trace_copy(int cpu, struct pred_op *out);
u32 pred_record_events_len(int cpu);
const struct rec_event *pred_record_event_at(int cpu, u32 i);

#endif
