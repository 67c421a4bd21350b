// SPDX-License-Identifier: MIT
/*
 * SIGINT and SIGTERM.  A bench run that is stopped keeps what it measured
 * up to then: the signal ends the passes as the end of --seconds does,
 * the run reports them marked interrupted, and the command exits 128 +
 * the signal, as a shell reports a process the signal killed.  A second
 * signal kills at once, for a run that does not stop.
 *
 * `lrulab ab` and `lrulab repro` run each benchmark in a child of its own
 * process group, so that a terminal's ^C reaches the parent alone; the
 * parent passes the signal on to the child, waits for it, and exits the
 * same way.
 *
 * Every thread blocks both signals and one thread takes them with
 * sigwait(): no handler interrupts a model thread inside a lock, and the
 * reaction is ordinary code (a mutex keeps a phase from going away while
 * it is being stopped).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

#include "bench/bench.h"

volatile sig_atomic_t bench_interrupted;

static pthread_mutex_t bench_signal_lock = PTHREAD_MUTEX_INITIALIZER;
static int *bench_stop_flag;		/* the running phase's */
static sem_t *bench_wake;		/* what the phase's waiter sleeps on */
static pid_t bench_child;		/* ab's, repro's benchmark */

static void bench_signal_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
}

static void *bench_signal_thread(void *arg)
{
	sigset_t set;
	int sig;

	bench_signal_set(&set);
	if (sigwait(&set, &sig))
		return NULL;
	pthread_mutex_lock(&bench_signal_lock);
	bench_interrupted = sig;
	if (bench_stop_flag)
		__atomic_store_n(bench_stop_flag, 1, __ATOMIC_RELEASE);
	if (bench_wake)
		sem_post(bench_wake);
	if (bench_child > 0)
		kill(bench_child, sig);
	pthread_mutex_unlock(&bench_signal_lock);
	/* the next one is taken here, by default: it ends the process */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	for (;;)
		pause();
	return NULL;
}

int bench_signals_catch(void)
{
	pthread_t tid;
	sigset_t set;

	/* before any other thread: each inherits the mask */
	bench_signal_set(&set);
	if (pthread_sigmask(SIG_BLOCK, &set, NULL) ||
	    pthread_create(&tid, NULL, bench_signal_thread, NULL))
		return -1;
	pthread_detach(tid);
	return 0;
}

void bench_signals_phase(int *stop, sem_t *wake)
{
	pthread_mutex_lock(&bench_signal_lock);
	bench_stop_flag = stop;
	bench_wake = wake;
	/* a signal before the phase began ends it before it starts */
	if (stop && bench_interrupted)
		__atomic_store_n(stop, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&bench_signal_lock);
}

void bench_signals_child(pid_t pid)
{
	pthread_mutex_lock(&bench_signal_lock);
	bench_child = pid;
	/* a signal before the child existed is passed on now */
	if (pid > 0 && bench_interrupted)
		kill(pid, bench_interrupted);
	pthread_mutex_unlock(&bench_signal_lock);
}

const char *bench_signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

int bench_exit_status(int status)
{
	return bench_interrupted ? 128 + bench_interrupted : status;
}
