/* A workload for record.workload_signals: it writes "ready PID" to LOG, waits for a signal,
 * writes "signal N" and exits 3 (a status that differs from a death by the signal).
 * "ignore" as the second argument: it ignores SIGTERM too (the recorder must not wait for
 * it for ever). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void note(int sig)
{
	got = sig;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = note };
	FILE *log;

	if (argc < 2 || !(log = fopen(argv[1], "w")))
		return 2;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (argc > 2 && !strcmp(argv[2], "ignore"))
		signal(SIGTERM, SIG_IGN);
	else
		sigaction(SIGTERM, &sa, NULL);
	fprintf(log, "ready %d\n", (int)getpid());
	fflush(log);
	while (!got)
		pause();
	fprintf(log, "signal %d\n", (int)got);
	fclose(log);
	return 3;
}
