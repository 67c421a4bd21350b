/* SPDX-License-Identifier: MIT */
/* Subcommands of the `lrulab` command: each returns the exit status. */
#ifndef LRULAB_COMMANDS_H
#define LRULAB_COMMANDS_H

int cmd_demo(int argc, char **argv);
int cmd_lockbench(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_ab(int argc, char **argv);
int cmd_repro(int argc, char **argv);
int cmd_layout(int argc, char **argv);
int cmd_pathbench(int argc, char **argv);
int cmd_usemem(int argc, char **argv);
int cmd_host(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);

/*
 * The predictor's hooks into the commands below it (predict/record_hooks.c):
 * bench's recorder, repro's predicted rows.  Called once, before a command runs.
 */
void predict_hooks_register(void);
/* repro --predict's rows (predict/repro_predict.c) */
void repro_predict_hook(void);
/* ab --predict-cpus (predict/ab_predict.c) */
void ab_predict_hook(void);

#endif /* LRULAB_COMMANDS_H */
