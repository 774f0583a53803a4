/* The simulated PMU's shared state: one struct ev per perf_event_open, the ring helpers of
 * pmusim.c (rings, interposed calls) that spe.c (Arm SPE) and pebs.c (the Intel core PMU)
 * write through.
 * Everything here is hidden: only the interposed libc calls (SIM_EXPORT) leave the
 * preload, so no name of ours can stand in for one of the host program's. */
#ifndef PMUSIM_H
#define PMUSIM_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#pragma GCC visibility push(hidden)

#define SIM_EXPORT __attribute__((visibility("default")))
#define MAX_EV 2048
#define IOC_ENABLE 0x2400
#define IOC_DISABLE 0x2401
#define IOC_RESET 0x2403
#define IOC_SET_OUTPUT 0x2405
#define IOC_ID 0x80082407
enum { S_IP = 1, S_TID = 2, S_TIME = 4, S_ID = 64, S_CPU = 128, S_STREAM = 512,
       S_IDENTIFIER = 65536 };

struct ev {
	int fd, cpu, pid, used, spe;
	uint32_t type;
	uint64_t sample_type, id, flags;
	volatile int enabled;
	uint8_t *base;       /* user page + data ring */
	size_t base_len;
	uint64_t data_size;
	uint8_t *aux;
	uint64_t aux_size;
	int overwrite;
	uint64_t lost_pending;
	pthread_t thr;
	pthread_mutex_t busy;  /* held while the producer writes: a disable waits for it, as the
				* kernel stops the event before the ioctl returns */
	int thr_started;
	volatile int stop;
	uint64_t produced, dropped, truncated, aux_records, data_lost, collisions;
	uint64_t det_rec, det_rng; /* PMUSIM_SEED: the event's next record index, its PRNG */
	int itrace_sent;
	/* snapshot (overwrite) mode, spe.c: the driver's handle->head, PMBPTR and PMBLIMITR
	 * as offsets in the AUX area, and whether a driver session (begin..end) is open */
	uint64_t ow_head, ow_ptr, ow_limit;
	int ow_active;
	volatile int disables;    /* IOC_DISABLE calls: a snapshot pause waits for one */
	int snap_paused, snap_req; /* PMUSIM_SNAPSHOT: paused; SIGUSR2 sent for the pause */
	int snap_disables;        /* disables when SIGUSR2 was sent */
	uint64_t snap_since;      /* records since the last pause */
	/* the Intel core PMU (pebs.c) */
	int pebs;                 /* of a PMUSIM_PEBS_TYPE type */
	uint64_t config, config1, period, read_format;
	int group_fd;             /* the leader's descriptor, -1 for a leader */
	struct ev *out;           /* SET_OUTPUT: the event whose ring gets the records */
	pthread_mutex_t wlock;    /* ring owner: one writer at a time (several events share
				   * one ring through SET_OUTPUT) */
	uint64_t ticks;           /* counting: reads so far (one tick each) */
	uint64_t samples;         /* sampling: samples written */
	int32_t task_pid;         /* the pid of a system-wide event's samples (pebs.c) */
};

extern struct ev evs[MAX_EV];
extern pthread_mutex_t lock;
/* the recorder's thread (the one that last enabled an SPE event: perf's and pmutrace's
 * main loop, which polls and takes SIGUSR2), its poll() calls so far and their number at
 * that enable: a recorder that has polled since it enabled its events again is done with
 * the last snapshot and ready for the next request (spe.c) */
extern pthread_t sim_recorder;
extern int sim_recorder_known;
extern unsigned long sim_polls, sim_polls_at_enable;
struct ev *find(int fd);
uint64_t now_ns(void);
void simlog(const char *fmt, ...);
uint64_t *up64(struct ev *e, size_t off);
void sid_trailer(struct ev *e, uint8_t *p, size_t *n);
int data_put(struct ev *e, const uint8_t *rec, size_t size);

/* spe.c */
void load_spe(void);                                /* PMUSIM_SPE, once */
void start_producer(struct ev *e);                  /* once its AUX area is mapped */
void spe_stop(struct ev *e);                        /* IOC_DISABLE (busy held) */
extern unsigned long snap_requests, snap_resent;    /* SIGUSR2 sent, of them again */

/* pebs.c */
int pebs_type(uint32_t type);                       /* a PMUSIM_PEBS_TYPE type */
void pebs_open(struct ev *e, const uint8_t *attr, int group_fd);
void pebs_start(struct ev *e);                      /* once it has a ring */
ssize_t pebs_read(struct ev *e, void *buf, size_t n);
void pebs_reset(struct ev *e);
void pebs_close(struct ev *e);

#pragma GCC visibility pop
#endif
