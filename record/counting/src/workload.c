/* The workload of `stat -- CMD`: forked first so its pid can be counted, held on a pipe
 * until the counters are open, then exec'd; a second pipe (close-on-exec) carries an exec
 * failure's errno back. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmutrace/counting.h"

int pmt_workload_prepare(struct pmt_workload *w, char *const *argv, struct pmt_diag *diag)
{
	int go[2], err[2];

	w->pid = -1;
	w->go_fd = w->err_fd = -1;
	w->exec_errno = 0;
	if (pipe2(go, O_CLOEXEC))
		return pmt_diag_set(diag, -PMT_EIO, NULL, PMT_DIAG_NO_OFFSET, "pipe: %s",
				    strerror(errno));
	if (pipe2(err, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return pmt_diag_set(diag, -PMT_EIO, NULL, PMT_DIAG_NO_OFFSET, "pipe: %s",
				    strerror(errno));
	}
	w->pid = fork();
	if (w->pid < 0)
		return pmt_diag_set(diag, -PMT_EIO, NULL, PMT_DIAG_NO_OFFSET, "fork: %s",
				    strerror(errno));
	if (w->pid == 0) {
		char b;
		int e;

		close(go[1]);
		close(err[0]);
		if (read(go[0], &b, 1) != 1)
			_exit(127); /* the counter side gave up */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execvp(argv[0], argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) != (ssize_t)sizeof(e))
			_exit(126);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	w->go_fd = go[1];
	w->err_fd = err[0];
	return 0;
}

int pmt_workload_start(struct pmt_workload *w, const char *name, struct pmt_diag *diag)
{
	int e = 0;
	ssize_t n;

	if (write(w->go_fd, "g", 1) != 1)
		return pmt_diag_set(diag, -PMT_EIO, NULL, PMT_DIAG_NO_OFFSET,
				    "starting the workload: %s", strerror(errno));
	close(w->go_fd);
	w->go_fd = -1;
	n = read(w->err_fd, &e, sizeof(e));
	close(w->err_fd);
	w->err_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		waitpid(w->pid, NULL, 0);
		w->pid = -1;
		w->exec_errno = e;
		return pmt_diag_set(diag, -PMT_EIO, NULL, PMT_DIAG_NO_OFFSET, "cannot run '%s': %s",
				    name, strerror(e));
	}
	return 0;
}

void pmt_workload_abort(struct pmt_workload *w)
{
	if (w->go_fd >= 0)
		close(w->go_fd); /* the child reads EOF and exits */
	if (w->err_fd >= 0)
		close(w->err_fd);
	w->go_fd = w->err_fd = -1;
	if (w->pid > 0)
		waitpid(w->pid, NULL, 0);
	w->pid = -1;
}
