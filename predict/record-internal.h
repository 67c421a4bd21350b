/* SPDX-License-Identifier: MIT */
/* What predict/record.c shares with the recording's gathering and file code. */
#ifndef LRULAB_PREDICT_RECORD_INTERNAL_H
#define LRULAB_PREDICT_RECORD_INTERNAL_H

#include <lrulab/cpu.h>

#include "predict/predict.h"

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

/* the recorder's probes on (recording) or off; at quiescent points */
void pred_record_probes(bool on);
void pred_record_reset(void);
u32 pred_record_trace_len(int cpu);
void pred_record_trace_copy(int cpu, struct pred_op *out);
u32 pred_record_events_len(int cpu);
const struct rec_event *pred_record_event_at(int cpu, u32 i);

#endif
