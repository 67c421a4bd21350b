// SPDX-License-Identifier: MIT
/*
 * `lrulab host` and `--calibrate` (bench/host*.c, bench/calibrate.c):
 * the calibration search against rate functions whose answer is known,
 * noise and outliers included; reading sysfs settings and perf's table;
 * which mTHP sizes a region would fault; the undo of machine changes at
 * exit and on a signal; and one short real run on the host kernel,
 * whose page counts are exact.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <signal.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "bench/host.h"

/* ---- the calibration search ---- */

/* A rate whose per-page time is @base_ns plus @fpp faults' work. */
struct fake_rate {
	double base_ns;
	double fpp;
	int calls;
	int outlier_every;	/* > 0: every n-th call is half the rate */
	int slow_after;		/* > 0: calls after the n-th are half the rate */
	double noise;		/* relative, from a fixed sequence */
	bool fail;
};

static double fake(unsigned long work, void *arg)
{
	struct fake_rate *f = arg;
	double rate = 1e9 / (f->base_ns + f->fpp * work);

	f->calls++;
	if (f->fail)
		return -1;
	if (f->outlier_every && f->calls % f->outlier_every == 0)
		rate /= 2;
	if (f->slow_after && f->calls > f->slow_after)
		rate /= 2;
	if (f->noise)
		rate *= 1 + f->noise * sin(f->calls * 2.39996);
	return rate;
}

/* The host: 1000000 pages/s (1000 ns a page), as the fake's rates are. */
static struct fake_rate host_1m(void)
{
	return (struct fake_rate){ .base_ns = 1000, .fpp = 0 };
}

static void search(struct fake_rate *host, struct fake_rate *model, unsigned long max_work,
		   struct calib_result *res)
{
	struct calib_sources src = {
		.host = fake, .host_arg = host, .host_reps = 5,
		.model = fake, .model_arg = model, .model_reps = 3,
	};

	calib_search(&src, 1, max_work, res);
}

/* The linear model is the truth: the second probe lands on the answer. */
static void test_calib_exact(void **state)
{
	struct fake_rate h = host_1m(), f = { .base_ns = 400, .fpp = 1 };
	struct calib_result res;

	search(&h, &f, 1000000, &res);
	assert_int_equal(res.status, CALIB_MATCHED);
	assert_int_equal(res.work_ns, 600);
	assert_int_equal(res.nr_steps, 2);
	assert_int_equal(f.calls, 6);
	/* five host runs first, one more before the second probe */
	assert_int_equal(h.calls, 6);
	assert_int_equal(res.nr_host, 6);
	assert_true(res.target == 1e6);
	assert_true(res.steps[0].work_ns == 0 && res.steps[0].rate == 2.5e6);
	assert_true(fabs(res.rate - 1e6) < 1);
}

/* One run in three is an outlier at half the rate: the medians ignore it. */
static void test_calib_outliers(void **state)
{
	struct fake_rate h = host_1m(), f = { .base_ns = 400, .fpp = 1, .outlier_every = 3 };
	struct calib_result res;

	h.outlier_every = 4;
	search(&h, &f, 1000000, &res);
	assert_int_equal(res.status, CALIB_MATCHED);
	assert_true(res.target == 1e6);
	assert_int_equal(res.work_ns, 600);
	assert_int_equal(res.nr_steps, 2);
}

/*
 * The hint says one fault per page, the truth is one per four (16K
 * folios): the guess is a quarter of the answer, doubling finds it.
 */
static void test_calib_wrong_hint(void **state)
{
	struct fake_rate h = host_1m(), f = { .base_ns = 400, .fpp = 0.25 };
	struct calib_result res;

	search(&h, &f, 1000000, &res);
	assert_int_equal(res.status, CALIB_MATCHED);
	assert_int_equal(res.work_ns, 2400);
	/* 0, 600, 1200, 2400 */
	assert_int_equal(res.nr_steps, 4);
}

/* A bracket found by overshooting is closed by interpolation. */
static void test_calib_bracket(void **state)
{
	struct fake_rate h = host_1m(), f = { .base_ns = 400, .fpp = 3 };
	struct calib_result res;

	/* guess 600 gives 1e9/2200; the answer is 200 */
	search(&h, &f, 1000000, &res);
	assert_int_equal(res.status, CALIB_MATCHED);
	assert_true(fabs(res.rate / 1e6 - 1) <= CALIB_AIM);
	assert_true(res.work_ns >= 190 && res.work_ns <= 210);
	assert_true(res.nr_steps <= 4);
}

/*
 * The machine slows to half speed after two host runs (a neighbour's
 * load): the target is the median of every host run, so it follows.
 */
static void test_calib_host_drift(void **state)
{
	struct fake_rate h = host_1m(), f = { .base_ns = 400, .fpp = 1 };
	struct calib_result res;

	h.slow_after = 2;
	search(&h, &f, 1000000, &res);
	assert_int_equal(res.status, CALIB_MATCHED);
	assert_true(res.target == 5e5);
	assert_int_equal(res.work_ns, 1600);
	assert_int_equal(res.nr_host, 6);
	assert_true(res.host[0] == 1e6 && res.host[1] == 1e6 && res.host[2] == 5e5 &&
		    res.host[5] == 5e5);
}

/* Every probe within ±15% noise: bounded, and the best probe is chosen. */
static void test_calib_noise_bounded(void **state)
{
	struct fake_rate h = host_1m(), f = { .base_ns = 400, .fpp = 1, .noise = 0.15 };
	struct calib_result res;
	int i;

	h.noise = 0.05;
	search(&h, &f, 1000000, &res);
	assert_true(res.nr_steps <= CALIB_MAX_STEPS);
	assert_true(res.nr_host <= CALIB_MAX_HOST_RUNS);
	assert_true(res.status == CALIB_MATCHED || res.status == CALIB_UNMATCHED);
	for (i = 0; i < res.nr_steps; i++)
		assert_true(fabs(res.rate / res.target - 1) <=
			    fabs(res.steps[i].rate / res.target - 1));
}

static void test_calib_slower(void **state)
{
	struct fake_rate h = host_1m(), f = { .base_ns = 1250, .fpp = 1 };	/* 800000 pages/s */
	struct calib_result res;

	search(&h, &f, 1000000, &res);
	assert_int_equal(res.status, CALIB_SLOWER);
	assert_int_equal(res.work_ns, 0);
	assert_int_equal(res.nr_steps, 1);
	assert_int_equal(res.nr_host, 5);
	assert_true(res.rate == 8e5);
}

/* Within the aim at zero work: matched, nothing added. */
static void test_calib_match_at_zero(void **state)
{
	struct fake_rate h = host_1m(), f = { .base_ns = 990, .fpp = 1 };
	struct calib_result res;

	search(&h, &f, 1000000, &res);
	assert_int_equal(res.status, CALIB_MATCHED);
	assert_int_equal(res.work_ns, 0);
	assert_int_equal(res.nr_steps, 1);
}

/* The work limit is reached before the target: the closest, reported. */
static void test_calib_limit(void **state)
{
	struct fake_rate h = host_1m(), f = { .base_ns = 400, .fpp = 1 };
	struct calib_result res;

	search(&h, &f, 100, &res);
	assert_int_equal(res.status, CALIB_UNMATCHED);
	assert_int_equal(res.work_ns, 100);
	assert_int_equal(res.nr_steps, 2);
}

static void test_calib_failed(void **state)
{
	struct fake_rate h = host_1m(), f = { .base_ns = 400, .fpp = 1, .fail = true };
	struct calib_result res;

	search(&h, &f, 1000000, &res);
	assert_int_equal(res.status, CALIB_FAILED);
	assert_int_equal(f.calls, 1);
	/* a host that fails stops the search before any model run */
	f = (struct fake_rate){ .base_ns = 400, .fpp = 1 };
	h.fail = true;
	search(&h, &f, 1000000, &res);
	assert_int_equal(res.status, CALIB_FAILED);
	assert_int_equal(f.calls, 0);
	assert_string_equal(calib_status_name(CALIB_SLOWER), "slower-without-work");
}

/* ---- sysfs and perf text ---- */

static void test_sysfs_choice(void **state)
{
	char v[16];

	assert_int_equal(host_sysfs_choice("always inherit madvise [never]\n", v, sizeof(v)), 0);
	assert_string_equal(v, "never");
	assert_int_equal(host_sysfs_choice("[always] within_size advise never deny force",
					   v, sizeof(v)), 0);
	assert_string_equal(v, "always");
	assert_int_equal(host_sysfs_choice("always never", v, sizeof(v)), -1);
	assert_int_equal(host_sysfs_choice("always [] never", v, sizeof(v)), -1);
	assert_int_equal(host_sysfs_choice("[unterminated", v, sizeof(v)), -1);
	/* a value longer than the buffer is no value */
	assert_int_equal(host_sysfs_choice("[within_size]", v, 8), -1);
}

static void test_thp_size_active(void **state)
{
	/* anon, no MADV_HUGEPAGE */
	assert_true(host_thp_size_active(false, "always", "never"));
	assert_true(host_thp_size_active(false, "inherit", "always"));
	assert_false(host_thp_size_active(false, "inherit", "madvise"));
	assert_false(host_thp_size_active(false, "madvise", "always"));
	assert_false(host_thp_size_active(false, "never", "always"));
	/* anonymous shared memory */
	assert_true(host_thp_size_active(true, "always", "never"));
	assert_true(host_thp_size_active(true, "within_size", "never"));
	assert_true(host_thp_size_active(true, "inherit", "within_size"));
	assert_true(host_thp_size_active(true, "inherit", "always"));
	assert_false(host_thp_size_active(true, "inherit", "advise"));
	assert_false(host_thp_size_active(true, "advise", "always"));
	assert_false(host_thp_size_active(true, "always", "deny"));
	assert_true(host_thp_size_active(true, "inherit", "force"));
	assert_false(host_thp_size_active(true, "always", "force"));
}

static void test_perf_parse_row(void **state)
{
	struct host_perf_row r;

	assert_int_equal(host_perf_parse_row("      4615      6.51 ms     49.38 us      1.41 us     spinlock   __page_cache_release.part.0+0x58", &r), 0);
	assert_true(r.contended == 4615);
	assert_true(fabs(r.wait_total_ns - 6.51e6) < 1e-3);
	assert_true(fabs(r.wait_max_ns - 49380) < 1e-6);
	assert_true(fabs(r.wait_avg_ns - 1410) < 1e-6);
	assert_string_equal(r.type, "spinlock");
	assert_string_equal(r.caller, "__page_cache_release.part.0+0x58");

	assert_int_equal(host_perf_parse_row("         1    512 ns    512 ns    512 ns      rwsem:W   do_madvise+0xda", &r), 0);
	assert_true(r.wait_total_ns == 512);
	assert_string_equal(r.type, "rwsem:W");
	assert_int_equal(host_perf_parse_row("         2      1.50 s      1.00 s   750.00 ms     spinlock   f+0x1", &r), 0);
	assert_true(r.wait_total_ns == 1.5e9 && r.wait_avg_ns == 750e6);

	assert_int_equal(host_perf_parse_row(" contended   total wait     max wait     avg wait         type   caller", &r), -1);
	assert_int_equal(host_perf_parse_row("", &r), -1);
	assert_int_equal(host_perf_parse_row("  3  1.0 parsec  1.0 us  1.0 us  spinlock  f", &r), -1);
}

static void test_perf_lru_caller(void **state)
{
	assert_true(host_perf_lru_caller("__page_cache_release.part.0+0x58"));
	assert_true(host_perf_lru_caller("folio_batch_move_lru+0x88"));
	assert_true(host_perf_lru_caller("folios_put_refs"));
	assert_true(host_perf_lru_caller("lru_add_drain_cpu+0x34"));
	assert_true(host_perf_lru_caller("shrink_active_list.isra.0+0x120"));
	assert_false(host_perf_lru_caller("do_anonymous_page+0x463"));
	assert_false(host_perf_lru_caller("folio_batch_move_lru_x+0x1"));
	assert_false(host_perf_lru_caller("irqentry_exit_to_user_mode+0x110"));
	assert_false(host_perf_lru_caller("+0x10"));
	assert_false(host_perf_lru_caller(""));
}

static const char hold_script[] =
	" 250000 \n"
	"\t ffffffff8226dfcd _raw_spin_unlock_irqrestore\n"
	"\t ffffffff815ba608 folio_batch_move_lru\n"
	"\n"
	" 250000 \n"
	"\t ffffffff8226dfcd _raw_spin_unlock_irqrestore\n"
	"\t ffffffff815ba566 folios_put_refs.part.0\n"
	"\n"
	" 250000 \n"
	"\t ffffffff8226e7b1 _raw_spin_unlock_irq\n"
	"\t ffffffff816ad84b shmem_add_to_page_cache\n"
	"\n"
	" 250000 \n"
	"\t ffffffff815ba608 folio_batch_move_lru\n"
	"\t ffffffff815ba733 __folio_batch_add_and_move\n"
	"\n"
	" 125000 \n"
	"\t ffffffff8226dfcd _raw_spin_unlock_irqrestore\n"
	"\t ffffffff815ba608 folio_batch_move_lru\n"
	"\n"
	" 250000 \n"
	"\t ffffffff8226dfcd _raw_spin_unlock_irqrestore\n"
	"\n"
	" 250000 \n"
	"\t           153e0 update_active.constprop.0\n";

static void test_hold_parse(void **state)
{
	struct host_hold h;
	char many[4096] = "";
	static const char *const callers[] = {
		"folio_batch_move_lru", "__page_cache_release", "page_cache_release",
		"folios_put_refs", "release_pages", "__folio_put", "folio_lruvec_lock",
		"folio_lruvec_lock_irq", "folio_lruvec_lock_irqsave", "lru_add_drain_cpu",
		"lru_note_cost", "lru_note_cost_unlock_irq", "folio_isolate_lru",
		"isolate_lru_folios", "shrink_inactive_list", "shrink_active_list",
		"move_folios_to_lru",
	};
	size_t i;

	assert_int_equal(host_hold_parse(hold_script, &h), 0);
	assert_true(h.samples == 7);
	assert_true(h.ns == 1625000);
	assert_int_equal(h.nr_sites, 2);
	assert_string_equal(h.site[0].caller, "folio_batch_move_lru");
	assert_true(h.site[0].samples == 2 && h.site[0].ns == 375000);
	assert_string_equal(h.site[1].caller, "folios_put_refs");
	assert_true(h.site[1].samples == 1 && h.site[1].ns == 250000);

	assert_int_equal(host_hold_parse("", &h), -1);
	assert_int_equal(host_hold_parse("\t ffffffff8226dfcd _raw_spin_unlock_irq\n", &h), -1);
	/* a seventeenth caller does not fit */
	for (i = 0; i < ARRAY_SIZE(callers); i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many),
			 " 1\n\t 1 _raw_spin_unlock_irq\n\t 2 %s\n\n", callers[i]);
	assert_int_equal(host_hold_parse(many, &h), -1);
	many[strlen(many) - strlen(" 1\n\t 1 _raw_spin_unlock_irq\n\t 2 move_folios_to_lru\n\n")] = 0;
	assert_int_equal(host_hold_parse(many, &h), 0);
	assert_int_equal(h.nr_sites, 16);
}

/* ---- undo ---- */

static void write_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(s, f);
	fclose(f);
}

static void assert_file(const char *path, const char *want)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, want);
}

static void test_undo_exit_order(void **state)
{
	char dir[] = "/tmp/lrulab-test-host-XXXXXX", file[64], val[64];

	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/f", dir);
	snprintf(val, sizeof(val), "%s/v", dir);
	write_file(val, "old");
	/* last registered, first undone: the directory goes last */
	assert_int_equal(host_undo_rmdir(dir), 0);
	assert_int_equal(host_undo_unlink(val), 0);
	assert_int_equal(host_undo_write(file, "old"), 0);
	write_file(file, "new");
	host_undo_all();
	assert_int_equal(access(file, F_OK), 0);
	assert_file(file, "old");
	/* done once: a second call leaves the restored file alone */
	write_file(file, "mine");
	host_undo_all();
	assert_file(file, "mine");
	/* v was unlinked; the rmdir came last and failed, f being there */
	assert_int_equal(access(val, F_OK), -1);
	assert_int_equal(access(dir, F_OK), 0);
	unlink(file);
	assert_int_equal(rmdir(dir), 0);
}

static void test_undo_on_signal(void **state)
{
	char dir[] = "/tmp/lrulab-test-host-XXXXXX", file[64];
	int status;
	pid_t pid;

	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/setting", dir);
	write_file(file, "never");
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		if (host_undo_write(file, "never"))
			_exit(3);
		write_file(file, "always");
		raise(SIGTERM);
		_exit(4);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	/* it died of the signal, after the setting was put back */
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	assert_file(file, "never");
	unlink(file);
	rmdir(dir);
}

/* ---- a real run ---- */

static void test_host_run_counts(void **state)
{
	struct host_opts o = { .shmem = false, .mem = 256UL << 10, .seconds = 0.02 };
	struct host_result r;
	json_t *j;

	assert_int_equal(host_fault_free_run(&o, 2, &r), 0);
	assert_int_equal(r.err, 0);
	/* one warm-up pass of 64 pages per thread, whole passes after it */
	assert_int_equal(r.warmup_pages, 128);
	assert_true(r.pages > 0 && r.pages % 64 == 0);
	assert_true(r.seconds > 0 && r.pages_per_sec > 0);
	j = host_result_json(&o, &r);
	assert_string_equal(json_string_value(json_object_get(j, "engine")), "host-kernel");
	assert_string_equal(json_string_value(json_object_get(j, "type")), "anon");
	assert_int_equal(json_integer_value(json_object_get(j, "folio_size")), 4096);
	assert_int_equal(json_integer_value(json_object_get(j, "threads")), 2);
	json_decref(j);
	host_result_free(&r);

	o.shmem = true;
	assert_int_equal(host_fault_free_run(&o, 1, &r), 0);
	assert_int_equal(r.err, 0);
	assert_int_equal(r.warmup_pages, 64);
	host_result_free(&r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calib_exact),
		cmocka_unit_test(test_calib_outliers),
		cmocka_unit_test(test_calib_wrong_hint),
		cmocka_unit_test(test_calib_bracket),
		cmocka_unit_test(test_calib_host_drift),
		cmocka_unit_test(test_calib_noise_bounded),
		cmocka_unit_test(test_calib_slower),
		cmocka_unit_test(test_calib_match_at_zero),
		cmocka_unit_test(test_calib_limit),
		cmocka_unit_test(test_calib_failed),
		cmocka_unit_test(test_sysfs_choice),
		cmocka_unit_test(test_thp_size_active),
		cmocka_unit_test(test_perf_parse_row),
		cmocka_unit_test(test_perf_lru_caller),
		cmocka_unit_test(test_hold_parse),
		cmocka_unit_test(test_undo_exit_order),
		cmocka_unit_test(test_undo_on_signal),
		cmocka_unit_test(test_host_run_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
