/* Address spaces and names of tasks from sideband records given in file order, which is not
 * time order: perf's ordered-events queue sorts a round by time, while records of several
 * CPUs interleave in the file, so a child's own COMM or MMAP (on the CPU it runs on) can come
 * before its FORK (on the parent's CPU). The expected answers are perf's: the child has the
 * parent's maps from the fork on and its own after its exec. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/perfdata.h"
#include "pmutrace/symbols.h"
#include "symbols_test_util.h"

#define PARENT 100
#define CHILD 101
#define SHELL "/nonexistent/bin/dash"
#define TOOL "/nonexistent/bin/tool"

static struct pmt_trace_event comm_ev(int32_t pid, const char *comm, uint64_t time)
{
	struct pmt_trace_event ev = { .kind = PMT_TEV_RECORD, .type = PMT_REC_COMM };

	ev.u.comm.pid = ev.u.comm.tid = (uint32_t)pid;
	ev.u.comm.comm = comm;
	ev.u.comm.exec = 1;
	ev.sid.valid = 1;
	ev.sid.time = time;
	return ev;
}

static struct pmt_trace_event fork_ev(int32_t pid, int32_t ppid, uint64_t time)
{
	struct pmt_trace_event ev = { .kind = PMT_TEV_RECORD, .type = PMT_REC_FORK };

	ev.u.task.pid = ev.u.task.tid = (uint32_t)pid;
	ev.u.task.ppid = ev.u.task.ptid = (uint32_t)ppid;
	ev.u.task.time = time;
	ev.sid.valid = 1;
	ev.sid.time = time;
	return ev;
}

static const char *dso_at(struct pmt_symbols *s, int32_t pid, uint64_t ip, uint64_t time)
{
	struct pmt_sym_loc loc;

	memset(&loc, 0, sizeof(loc));
	assert_true(pmt_symbols_resolve(s, pid, ip, time, &loc) >= 0);
	return loc.dso;
}

static void add(struct pmt_symbols *s, struct pmt_trace_event ev)
{
	assert_int_equal(pmt_symbols_add_event(s, &ev), 0);
}

/* The child's exec (COMM at 300, MMAP at 310) is in the file before the FORK at 200. */
static void child_records_before_its_fork(void **state)
{
	struct pmt_symbols *s = test_symbols_new();

	(void)state;
	add(s, test_mmap_event(PARENT, 0x400000, SHELL, 100));
	add(s, comm_ev(PARENT, "dash", 100));
	add(s, comm_ev(CHILD, "tool", 300));
	add(s, test_mmap_event(CHILD, 0x400000, TOOL, 310));
	add(s, fork_ev(CHILD, PARENT, 200));

	/* between fork and exec the child runs the parent's code, as perf shows it */
	assert_non_null(dso_at(s, CHILD, 0x401000, 250));
	assert_string_equal(dso_at(s, CHILD, 0x401000, 250), SHELL);
	assert_string_equal(pmt_symbols_comm(s, CHILD, 250), "dash");
	/* after the exec, its own file */
	assert_string_equal(dso_at(s, CHILD, 0x401000, 400), TOOL);
	assert_string_equal(dso_at(s, CHILD, 0x401000, 0), TOOL);
	assert_string_equal(pmt_symbols_comm(s, CHILD, 400), "tool");
	/* the parent keeps its own */
	assert_string_equal(dso_at(s, PARENT, 0x401000, 400), SHELL);
	pmt_symbols_free(s);
}

/* The usual order gives the same answers. */
static void child_records_after_its_fork(void **state)
{
	struct pmt_symbols *s = test_symbols_new();

	(void)state;
	add(s, test_mmap_event(PARENT, 0x400000, SHELL, 100));
	add(s, comm_ev(PARENT, "dash", 100));
	add(s, fork_ev(CHILD, PARENT, 200));
	add(s, comm_ev(CHILD, "tool", 300));
	add(s, test_mmap_event(CHILD, 0x400000, TOOL, 310));

	assert_string_equal(dso_at(s, CHILD, 0x401000, 250), SHELL);
	assert_string_equal(pmt_symbols_comm(s, CHILD, 250), "dash");
	assert_string_equal(dso_at(s, CHILD, 0x401000, 400), TOOL);
	assert_string_equal(pmt_symbols_comm(s, CHILD, 400), "tool");
	pmt_symbols_free(s);
}

/* The parent's exec (COMM "dash" at 150, after "perf-exec" at 0) is in the file after the
 * FORK at 200, as in a perf 6.1 recording of `sh -c 'sh -c LOOP & ...'` under load (one
 * round; perf 6.1 and 7.3 script named the child's samples before its exec "sh", pmutrace
 * "perf-exec"): the child's name before its exec is the parent's at the fork. */
static void parent_comm_after_the_fork(void **state)
{
	struct pmt_symbols *s = test_symbols_new();

	(void)state;
	add(s, comm_ev(PARENT, "perf-exec", 0));
	add(s, fork_ev(CHILD, PARENT, 200));
	add(s, fork_ev(CHILD + 1, CHILD, 220));
	add(s, comm_ev(PARENT, "dash", 150));
	add(s, comm_ev(CHILD, "tool", 300));

	assert_string_equal(pmt_symbols_comm(s, CHILD, 250), "dash");
	/* a sample before the fork record's time keeps the first name, as before */
	assert_string_equal(pmt_symbols_comm(s, CHILD, 190), "dash");
	assert_string_equal(pmt_symbols_comm(s, CHILD, 400), "tool");
	/* a grandchild forked before the child's exec: the chain followed */
	assert_string_equal(pmt_symbols_comm(s, CHILD + 1, 400), "dash");
	assert_string_equal(pmt_symbols_comm(s, PARENT, 100), "perf-exec");
	pmt_symbols_free(s);
}

/* The parent's exec maps (MMAP at 150) in the file after the FORK at 200: the child runs
 * the parent's code between its fork and its exec, as perf shows it. */
static void parent_map_after_the_fork(void **state)
{
	struct pmt_symbols *s = test_symbols_new();

	(void)state;
	add(s, comm_ev(PARENT, "perf-exec", 0));
	add(s, fork_ev(CHILD, PARENT, 200));
	add(s, comm_ev(PARENT, "dash", 150));
	add(s, test_mmap_event(PARENT, 0x400000, SHELL, 150));
	add(s, comm_ev(CHILD, "tool", 300));
	add(s, test_mmap_event(CHILD, 0x400000, TOOL, 310));

	assert_non_null(dso_at(s, CHILD, 0x401000, 250));
	assert_string_equal(dso_at(s, CHILD, 0x401000, 250), SHELL);
	assert_string_equal(dso_at(s, CHILD, 0x401000, 400), TOOL);
	pmt_symbols_free(s);
}

/* Two tids that fork each other at one time (damaged or reused tids): the links make a
 * cycle, which the lookup leaves (no name) instead of following for ever; an earlier
 * time still has its name. */
static void fork_cycle_ends(void **state)
{
	struct pmt_symbols *s = test_symbols_new();

	(void)state;
	add(s, comm_ev(PARENT, "dash", 100));
	add(s, fork_ev(CHILD, PARENT, 200));
	add(s, fork_ev(PARENT, CHILD, 200));
	assert_null(pmt_symbols_comm(s, CHILD, 250));
	assert_string_equal(pmt_symbols_comm(s, PARENT, 150), "dash");
	pmt_symbols_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(child_records_before_its_fork),
		cmocka_unit_test(child_records_after_its_fork),
		cmocka_unit_test(parent_comm_after_the_fork),
		cmocka_unit_test(parent_map_after_the_fork),
		cmocka_unit_test(fork_cycle_ends),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
