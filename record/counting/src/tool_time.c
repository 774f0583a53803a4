/* user_time and system_time: the fields perf 7.3's tool_pmu.c reads (read_stat_field():
 * field 1 user, 3 system of a "cpuN" line; read_pid_stat_field(): 14 utime, 15 stime). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmutrace/common.h"
#include "tool_time.h"

int tool_time_load(struct tool_time *t)
{
	int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	size_t n = 0;

	if (fd < 0)
		return -PMT_EIO;
	for (;;) {
		ssize_t r;

		if (n + 1 >= t->cap) {
			size_t cap = t->cap ? 2 * t->cap : 16384;
			char *p = realloc(t->text, cap);

			if (!p) {
				close(fd);
				return -PMT_ENOMEM;
			}
			t->text = p;
			t->cap = cap;
		}
		r = read(fd, t->text + n, t->cap - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	t->text[n] = 0;
	return 0;
}

/* the field-th number after the line's name (1-based) */
static bool field_of(const char *s, int field, uint64_t *v)
{
	char *end;

	for (int i = 1; i <= field; i++) {
		while (*s == ' ')
			s++;
		if (*s < '0' || *s > '9')
			return false;
		*v = strtoull(s, &end, 10);
		s = end;
	}
	return true;
}

bool tool_time_cpu(const struct tool_time *t, int cpu, bool system, uint64_t *ticks)
{
	char name[24];
	size_t len = (size_t)snprintf(name, sizeof(name), "cpu%d ", cpu);

	for (const char *s = t->text; s && *s; s = strchr(s, '\n'), s = s ? s + 1 : NULL)
		if (!strncmp(s, name, len))
			return field_of(s + len, system ? 3 : 1, ticks);
	return false;
}

bool tool_time_pid(int pid, bool system, uint64_t *ticks)
{
	char path[40], buf[1024];
	const char *s;
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (r <= 0)
		return false;
	buf[r] = 0;
	/* after "pid (comm) ": comm may hold spaces and parentheses, its last ')' ends it;
	 * then field 3 (state) is a letter, utime is field 14 */
	s = strrchr(buf, ')');
	if (!s || s[1] != ' ' || !s[2])
		return false;
	s += 3;
	for (int i = 3; i < (system ? 15 : 14); i++) {
		s = strchr(s, ' ');
		if (!s)
			return false;
		s++;
	}
	return field_of(s, 1, ticks);
}

uint64_t tool_time_ns(uint64_t ticks)
{
	long hz = sysconf(_SC_CLK_TCK);

	return ticks * (uint64_t)(1000000000 / (hz > 0 ? hz : 100));
}

void tool_time_fini(struct tool_time *t)
{
	free(t->text);
	t->text = NULL;
	t->cap = 0;
}
