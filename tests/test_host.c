// SPDX-License-Identifier: MIT
/*
 * `lrulab host` (bench/host*.c): reading sysfs settings and perf's table;
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

#include <lrulab/host.h>

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
		cmocka_unit_test(test_sysfs_choice),
		cmocka_unit_test(test_thp_size_active),
		cmocka_unit_test(test_perf_parse_row),
		cmocka_unit_test(test_perf_lru_caller),
		cmocka_unit_test(test_undo_exit_order),
		cmocka_unit_test(test_undo_on_signal),
		cmocka_unit_test(test_host_run_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
