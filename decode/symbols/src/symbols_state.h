/* The state behind a pmt_symbols handle: the files (dso), the address spaces (proc, map)
 * and the threads' names, shared by the files of decode/symbols that keep it. */
#ifndef PMT_SYMBOLS_STATE_H
#define PMT_SYMBOLS_STATE_H
#include <stdint.h>

#include "dso_find.h"
#include "srcline.h"
#include "symbols_int.h"
#include "unwind.h"
#include "pmutrace/files.h"
#include "pmutrace/perf_abi.h"

struct dso {
	char *name;
	const char *short_name;
	uint8_t build_id[PMT_BUILD_ID_MAX];
	uint8_t build_id_size;
	int8_t state;          /* 0: not looked for yet, 1: symbols read, -1: none */
	uint8_t kernel;        /* [kernel.kallsyms]: absolute addresses, symbols from kallsyms */
	uint64_t text_addr;    /* kernel: where its map says _text is (perf's ref_reloc_sym) */
	uint8_t kernel_bid[PMT_BUILD_ID_MAX], kernel_bid_size; /* kernel: its MMAP2's build-id */
	char *kmod_name;       /* a kernel module: "[name]" as perf calls it (short_name) */
	struct elf_symtab tab;
	char *sym_path;        /* the file the symbols (and lines) come from */
	char *code_path;       /* the file with the code (NULL: none found) */
	char *frames_path;     /* no code_path: the carried copy with the unwind tables */
	uint8_t symbols_only;  /* the symbols came from a copy without code */
	int8_t code_map_state; /* code_path mapped: 0 not yet, 1 mapped, -1 unreadable */
	struct pmt_file_map code_map;
	struct srcline lines;
	int8_t lines_state;    /* 0: not opened yet, 1: open, -1: none */
	uint32_t order;        /* where perf's dso object of it stands (pmt_sym_loc.dso_order) */
	struct dso *next;      /* hash chain */
};

struct map {
	uint64_t start, end, pgoff, time;
	uint32_t seq;
	struct dso *dso;
	struct pmt_map_id id;
};

struct proc {
	int32_t pid;
	struct map *maps;      /* by start, then seq */
	size_t n, cap;
	uint64_t max_len;      /* the longest map: how far back a lookup has to look */
	struct fork_at {       /* the processes it forked, and when (files with times) */
		int32_t child;
		uint64_t time;
	} *forks;
	size_t nforks, cap_forks;
};

/* A thread's names in time order: perf names a sample by the COMM in force at its time
 * (a workload is "perf-exec" until its exec), not by the thread's last one. A forked
 * child's first name is its parent's at the fork (name NULL, parent_tid): looked up when
 * asked for, since the parent's COMM of an earlier time may come later in the file. */
struct comm_at {
	uint64_t time;
	char *name;
	int32_t parent_tid;
};

struct thread {
	int32_t tid, pid;
	struct comm_at *comms;
	uint32_t ncomms, capcomms;
};

struct pmt_symbols {
	char *symfs, *buildid_dir, *kallsyms, *vmlinux;
	struct dbgd *dbgd;     /* debuginfod servers; NULL: none to ask */
	unsigned load_flags;
	uint8_t bfd240_files;  /* source files named as perf 6.1's addr2line names them */
	struct dso **dso_hash;
	size_t dso_cap;
	struct proc *procs;    /* open addressing by pid; pid INT32_MIN marks a free slot */
	size_t proc_cap, nprocs;
	struct thread *threads;/* open addressing by tid; tid INT32_MIN free */
	struct bundled *bundled; /* files the trace carries */
	size_t nbundled;
	struct known_bid {     /* the trace's build-id table */
		char *name;
		uint8_t id[PMT_BUILD_ID_MAX], size;
	} *bids;
	size_t nbids;
	uint32_t dsos_seen;    /* the files first seen in the sideband so far */
	size_t thr_cap, nthreads;
	uint32_t seq;
	struct unwinder *unwind; /* dwarf unwinding's sessions, made on first use */
	uint64_t version;      /* bumped by every change from outside (pmt_symbols_version) */
	uint64_t max_map_time; /* the latest map's time: samples after it see every map */
};

/* a free slot of the process and thread tables */
#define FREE_ID INT32_MIN

/* symbols.c: the files behind the maps */
struct dso *dso_get(struct pmt_symbols *s, const char *name, const uint8_t *bid,
		    size_t bid_size);
void recorded_build_id(const struct pmt_symbols *s, const char *name, const uint8_t **id,
		       size_t *size);
int mark_module(struct pmt_symbols *s, const char *path, const uint8_t *bid, size_t bid_size);
/* symbols_tasks.c: the processes and their maps */
struct proc *proc_find(const struct pmt_symbols *s, int32_t pid);
const struct map *find_map(const struct proc *p, uint64_t ip, uint64_t time);

#endif
