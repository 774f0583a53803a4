/* pmutrace formats/perfdata: perf.data (file and pipe mode, both byte orders) read as a
 * trace source and written by a streaming writer. */
#ifndef PMUTRACE_PERFDATA_H
#define PMUTRACE_PERFDATA_H

#include <stdio.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/container.h"
#include "pmutrace/perf_abi.h"

#ifdef __cplusplus
extern "C" {
#endif
/* =====================================================================================
 * Trace sources: perf.data (file and pipe mode, both byte orders) today, the pmutrace
 * container next. A source gives metadata plus a pull stream of events in file order:
 * AUXTRACE payloads (per-CPU AUX bytes) and sideband/sample records.
 * ===================================================================================== */

#define PMT_MAX_CPUS 4096

/* TIME_CONV parameters (PERF_RECORD_TIME_CONV, or the mmap page at record time). */
struct pmt_time_conv {
	uint16_t time_shift;
	uint32_t time_mult;
	uint64_t time_zero;
	uint64_t time_cycles;
	uint64_t time_mask;
	uint8_t cap_user_time_zero;
	uint8_t cap_user_time_short;
};
/* Counter value (SPE timestamp, TSC) -> perf time in ns, as perf's tsc_to_perf_time(). */
PMT_API uint64_t pmt_time_conv_to_perf(const struct pmt_time_conv *tc, uint64_t cyc);

/* One event attribute of the trace with its sample ids. `attr` is the kernel's struct
 * perf_event_attr as stored in the file, converted to host byte order, zero-extended to
 * sizeof(struct perf_event_attr) of this build (bytes beyond it are dropped). */
struct pmt_trace_attr {
	uint8_t attr[136];    /* struct perf_event_attr (PERF_ATTR_SIZE_VER8 = 136) */
	uint32_t attr_size;   /* size recorded in the file */
	uint32_t type;        /* attr.type */
	uint64_t config;
	uint64_t sample_type;
	uint64_t read_format;
	uint8_t sample_id_all;
	const char *name;     /* from EVENT_DESC when present, else NULL */
	uint64_t *ids;
	uint32_t nr_ids;
};

/* One entry of perf's build-id table (HEADER_BUILD_ID): which file had which build-id. */
struct pmt_build_id_ent {
	int32_t pid;          /* -1: the kernel's */
	uint16_t cpumode;     /* PERF_RECORD_MISC_CPUMODE of the entry */
	uint8_t size;         /* build-id bytes (20 unless the entry says less) */
	uint8_t id[20];
	const char *filename;
};

/* HEADER_CPU_TOPOLOGY as perf record writes it (util/header.c write_cpu_topology): the
 * distinct CPU lists ("0-3") of packages, of cores (SMT siblings) and of dies, then per CPU
 * 0..nr_cpus-1 (NRCPUS' available count) its ids, -1 when sysfs had none (offline).
 * die_id is NULL when the file has no die lists (perf before 5.3, or no die files). */
struct pmt_cpu_topology {
	uint32_t nr_cpus, nr_packages, nr_cores, nr_dies;
	char **packages, **cores, **dies;
	int32_t *core_id, *socket_id, *die_id;
};
PMT_API void pmt_cpu_topology_fini(struct pmt_cpu_topology *t);

struct pmt_trace_meta {
	uint8_t swapped;          /* file byte order differs from host */
	uint8_t pipe_mode;
	uint8_t streamed;         /* read from a pipe as it arrives (AUX data is transient) */
	/* perf report -D's record offsets are file_offset minus this: 16 for a pipe-mode
	 * stream (perf 6.1 and 7.3 count from after its header), 0 for a file-mode one */
	uint32_t perf_offset_base;
	uint8_t timeless;         /* no attr has PERF_SAMPLE_TIME */
	uint8_t has_time_conv;
	struct pmt_time_conv time_conv;
	uint32_t nr_attrs;
	const struct pmt_trace_attr *attrs;
	/* AUXTRACE_INFO */
	uint8_t has_auxtrace_info;
	uint32_t auxtrace_type;   /* 4 = PERF_AUXTRACE_ARM_SPE */
	uint32_t auxtrace_version;/* SPE: 1 or 2 */
	uint64_t spe_pmu_type;
	uint32_t nr_cpus;         /* CPUs described (features NRCPUS or AUXTRACE_INFO v2) */
	const uint64_t *cpu_midr; /* [nr_cpus], 0 when unknown; v2 metadata, else HEADER_CPUID */
	/* [nr_cpus] SPE caps/event_filter as perf >= 6.18 records it in v2 metadata (a PMSEVFR_EL1
	 * mask: which EVENTS bits the CPU can report); NULL when no CPU had it */
	const uint64_t *cpu_event_filter;
	/* header features, NULL when absent */
	const char *cpuid;        /* HEADER_CPUID string, e.g. "0x00000000410fd0c0" */
	const char *hostname;
	const char *osrelease;
	const char *version;
	const char *arch;
	const char *cmdline;      /* argv joined with spaces */
	const char *pmu_mappings; /* "type:name" pairs joined with ',' */
	uint32_t nr_cpus_online, nr_cpus_avail;
	/* HEADER_AUXTRACE: perf record's index of the AUXTRACE records (entries checked
	 * against the file at open; a mismatch is a warning) */
	uint8_t has_auxtrace_index;
	uint64_t nr_auxtrace_index;
	/* HEADER_COMPRESSED (perf record -z); comp_type 1 = zstd, 0 = feature absent */
	uint32_t comp_type, comp_level, comp_mmap_len;
	/* HEADER_CLOCK_DATA (perf record -k/--clockid): one instant read on both clocks, the
	 * time of day and the sample clock, which perf script -F tod converts by */
	uint8_t has_clock_data;
	uint32_t clock_clockid;
	uint64_t clock_tod_ns, clock_ref_ns;
	uint64_t clock_res_ns;    /* HEADER_CLOCKID: the clock's resolution, 0 when absent */
	/* HEADER_BUILD_ID: the build-ids perf record collected for the files samples hit
	 * (file mode; a pipe carries them as records at its end, not read here) */
	uint32_t nr_build_ids;
	const struct pmt_build_id_ent *build_ids;
	const struct pmt_cpu_topology *topology; /* HEADER_CPU_TOPOLOGY, NULL when absent */
	/* HEADER_NUMA_TOPOLOGY: each node's CPU list, in node order, ';'-separated ("0-1;2-3");
	 * NULL when absent */
	const char *numa_nodes;
};

/* Fields of a PERF_RECORD_SAMPLE, parsed per its attr's sample_type. */
struct pmt_sample {
	uint64_t sample_type;
	uint64_t id, ip, time, addr, stream_id, period, weight, data_src, phys_addr, transaction;
	uint32_t pid, tid, cpu;
	const struct pmt_trace_attr *attr; /* NULL when the id matches no attr */
	/* PERF_SAMPLE_CALLCHAIN: nr entries of 8 bytes in the record (file byte order:
	 * read them with pmt_sample_callchain_ip), perf's PERF_CONTEXT_* markers included;
	 * NULL when the sample has none */
	const uint8_t *callchain;
	uint64_t callchain_nr;
	uint8_t callchain_swap; /* the file's byte order is not the host's */
	/* PERF_SAMPLE_REGS_USER: the abi (PERF_SAMPLE_REGS_ABI_32 1, _64 2) and the
	 * registers of the attr's sample_regs_user mask, one u64 per set bit in bit order
	 * (file byte order, as the callchain: pmt_sample_reg()); abi 0 and regs_user NULL
	 * when the sample has none (a kernel thread's) */
	uint64_t regs_user_abi, regs_user_mask;
	const uint8_t *regs_user;
	/* PERF_SAMPLE_STACK_USER: the bytes copied from the user stack pointer up, of which
	 * the first stack_user_size (the record's dyn_size) are valid; NULL when none */
	const uint8_t *stack_user;
	uint64_t stack_user_size;
};
/* Register `bit` of the sample_regs_user mask (perf's PERF_REG_* number) in host byte
 * order; false when the mask does not hold it or the sample has no registers. */
static inline bool pmt_sample_reg(const struct pmt_sample *smp, unsigned bit, uint64_t *val)
{
	uint64_t v;

	if (!smp->regs_user || bit > 63 || !(smp->regs_user_mask >> bit & 1))
		return false;
	memcpy(&v, smp->regs_user + 8 * __builtin_popcountll(smp->regs_user_mask &
							     ((1ULL << bit) - 1)), 8);
	*val = smp->callchain_swap ? __builtin_bswap64(v) : v;
	return true;
}
/* Entry i of a sample's callchain in host byte order. */
static inline uint64_t pmt_sample_callchain_ip(const struct pmt_sample *smp, uint64_t i)
{
	uint64_t v;

	memcpy(&v, smp->callchain + 8 * i, 8);
	return smp->callchain_swap ? __builtin_bswap64(v) : v;
}

/* The sample_id trailer of non-sample records (valid when sample_id_all). */
struct pmt_sample_id {
	uint8_t valid;
	uint32_t pid, tid, cpu;
	uint64_t time, id, stream_id;
};

enum pmt_trace_event_kind {
	PMT_TEV_AUXTRACE = 1, /* a chunk of AUX bytes: u.auxtrace */
	PMT_TEV_RECORD,       /* any other record: type tells which union member is set */
};


struct pmt_trace_event {
	uint32_t kind;        /* enum pmt_trace_event_kind */
	uint32_t type;        /* PERF_RECORD_* */
	uint16_t misc;
	uint64_t file_offset; /* of the record header (inside a COMPRESSED record: of that record) */
	const uint8_t *raw;   /* the record as stored (file byte order), header included */
	uint32_t raw_size;    /* header.size */
	struct pmt_sample_id sid;
	union {
		struct {
			const uint8_t *data; /* AUX bytes; lifetime: see `transient` */
			uint64_t size, offset, reference;
			uint32_t idx, tid, cpu;
			uint8_t truncated; /* the file ended inside the payload: size = what exists */
			uint8_t transient; /* 1: data is valid only until the next call (streamed
					    * pipe, or a record inside a COMPRESSED record);
					    * 0: valid until the source is closed (mapped) */
			/* what perf measures SPE alignment pads in these bytes from (a pad
			 * runs to a boundary of pad_base + position): a pipe-mode perf.data's
			 * chunk is copied into a malloc'd buffer (16-byte aligned), so 0; a
			 * mapped file's chunk sits at its file alignment, so its address;
			 * otherwise (records inside COMPRESSED) the AUX stream offset */
			uint64_t pad_base;
		} auxtrace;
		struct { uint32_t pid, tid; const char *comm; uint8_t exec; } comm;
		struct { uint32_t pid, ppid, tid, ptid; uint64_t time; } task; /* FORK, EXIT */
		struct { uint64_t aux_offset, aux_size, flags; } aux;
		struct {
			uint32_t pid, tid;
			uint64_t addr, len, pgoff;
			uint32_t prot, flags;
			uint8_t build_id_size;
			uint8_t build_id[20];
			/* MMAP2's device and inode; with a build-id the same bytes read so */
			uint32_t maj, min;
			uint64_t ino, ino_generation;
			const char *filename;
		} mmap; /* MMAP and MMAP2 */
		struct { uint32_t next_prev_pid, next_prev_tid; uint8_t out, preempt; } sw;
		struct { uint64_t id, lost; } lost; /* LOST; LOST_SAMPLES has id 0 */
		struct { uint32_t pid, tid; } itrace_start;
		struct pmt_sample sample;
	} u;
};

/* perf's name of a record type as perf report -D prints it ("PERF_RECORD_MMAP2"). */
PMT_API const char *pmt_perf_record_name(uint32_t type);
/* An attr as perf record -vv prints it (non-zero fields, perf's order and formats); the
 * PMU's name annotates a dynamic PMU type. config3/config4 follow, which perf omits. */
PMT_API void pmt_perf_attr_print(FILE *fp, const struct pmt_perf_attr *a, const char *pmu_name);

struct pmt_source;

/* Open a trace: perf.data (file or pipe mode, either byte order; "-" reads stdin) or a
 * pmutrace container. Metadata that perf.data keeps in records (AUXTRACE_INFO, TIME_CONV,
 * pipe-mode attrs and features) is gathered before the first event is returned.
 * Regular files (and stdin redirected from one) are mapped. A pipe carrying a pipe-mode
 * perf.data is streamed with memory bounded by its largest record (meta.streamed = 1); a
 * file-mode perf.data in a pipe needs seeking and is first copied to an unlinked
 * temporary file in $TMPDIR (else /tmp), then mapped (-PMT_EIO if that fails).
 * Returns 0, -PMT_EIO, -PMT_EFORMAT (not a trace), -PMT_EVERSION, -PMT_ECORRUPT or
 * -PMT_ENOMEM, with `diag` (may be NULL) naming the file, the offset and the problem.
 * Damage found later, while reading records, is logged as a warning naming the file. */
PMT_API int pmt_source_open(const char *path, struct pmt_source **out, struct pmt_diag *diag);
/* Same over a perf.data image in memory; `buf` must outlive the source. */
PMT_API int pmt_source_open_mem(const void *buf, size_t len, struct pmt_source **out,
				struct pmt_diag *diag);
PMT_API const struct pmt_trace_meta *pmt_source_meta(const struct pmt_source *src);
/* Next event in file order (COMPRESSED records are expanded in place). `raw` and strings
 * stay valid until the next call; AUX data until the next call when
 * u.auxtrace.transient is set (streamed input, records from a COMPRESSED record), else
 * until close. A streamed source cannot look ahead: a record of size < 8 ends it (a
 * mapped file resynchronises on the next plausible record). Returns 0,
 * -PMT_EEOS at the end, or a negative error with pmt_source_offset() at the bad record;
 * after an error the source has skipped what it could not read and may be called again. */
PMT_API int pmt_source_next(struct pmt_source *src, struct pmt_trace_event *ev);
PMT_API uint64_t pmt_source_offset(const struct pmt_source *src);
/* Damage the reader met (also logged, as a warning or an error): the first it read past,
 * replaced by the error of a failed pmt_source_next(); file, offset (PMT_DIAG_NO_OFFSET
 * when none) and message as logged. code 0: none. Valid until the source is closed. */
PMT_API const struct pmt_diag *pmt_source_damage(const struct pmt_source *src);
/* The samples the kernel says it dropped in this record (LOST_SAMPLES: what perf report
 * sums as "Total Lost Samples"), 0 for any other record. */
static inline uint64_t pmt_trace_event_lost_samples(const struct pmt_trace_event *ev)
{
	return ev->type == PMT_REC_LOST_SAMPLES ? ev->u.lost.lost : 0;
}
/* The input as messages name it: the path given, "stdin" for -. */
PMT_API const char *pmt_source_name(const struct pmt_source *src);
/* A decoder that keeps AUX data of a mapped source after pmt_source_next() says from which
 * file offset on it still reads it; pages before min(that, the read position) go back to
 * the kernel so the resident set stays flat (the data stays valid: a page read again is
 * faulted in from the page cache). Default UINT64_MAX: nothing is kept. */
PMT_API void pmt_source_keep_from(struct pmt_source *src, uint64_t file_offset);
PMT_API void pmt_source_close(struct pmt_source *src); /* NULL is a no-op */
/* What the trace holds, in one line: "cpu-clock: 46755 samples; 0 bytes of AUX data" (each
 * attr's samples, the AUX bytes). Reads the source to its end. Returns 0 or -PMT_ENOMEM. */
PMT_API int pmt_source_describe(struct pmt_source *src, char *out, size_t cap);
/* Only the samples of these CPUs and times will be used (the caller still filters them):
 * a container then reads only the data frames that can hold them, through the info the
 * writer put after each frame (pmt_ctr_slice), so the samples that come out are those of
 * the whole file, minus ones of other CPUs and times. Frames with records other than AUX
 * data are always read. Ranges are inclusive; no range: any CPU, any time. */
struct pmt_source_slice {
	size_t sz;            /* sizeof(struct pmt_source_slice) */
	unsigned nr_cpus;
	const uint64_t *cpu_lo, *cpu_hi;
	unsigned nr_times;
	const uint64_t *t_lo, *t_hi; /* perf time in ns, as samples carry it */
};
/* Call before the first pmt_source_next(). Returns the number of frames that will be
 * passed over (0 for a perf.data, a trace without SPE data, or a container without frame
 * infos), -PMT_EINVAL or -PMT_ENOMEM. */
PMT_API int pmt_source_slice(struct pmt_source *src, const struct pmt_source_slice *sl);
/* The records a slice passes over with the frames of other CPUs' and times' AUX data:
 * FINISHED_ROUND, AUX and ITRACE_START (the AUX flow, no state the samples take). A
 * reader that shows records of a slice leaves these out, so what it shows does not depend
 * on how records were cut into frames. */
PMT_API bool pmt_source_slice_omits(const struct pmt_trace_event *ev);
/* A container's data frames are decompressed ahead on n threads (pmt_ctr_reader_threads;
 * 0: none). Events, damage and messages are those without threads. A perf.data is read as
 * before (0 is returned). Returns 0, -PMT_EINVAL or -PMT_ENOMEM. */
PMT_API int pmt_source_threads(struct pmt_source *src, unsigned n);
/* The container a source reads, in memory (for its skippable frames: pmt_ctr_counts_list):
 * 1 with *buf and *len, 0 for a perf.data or a container read through a pipe. */
PMT_API int pmt_source_container(const struct pmt_source *src, const void **buf, size_t *len);
/* Bytes of that buffer the caller is done with: their pages of the mapped file go back to
 * the kernel (read again from the file if touched), so a pass over the whole file does not
 * leave it resident. */
PMT_API void pmt_source_container_done(struct pmt_source *src, uint64_t offset, uint64_t len);
/* Pass over the container's data frames from the reader's position on for which keep
 * returns false (pmt_ctr_slice: a frame some kept frame's AUX data needs stays, and without
 * frame infos for every frame nothing is passed over). Call before the frames are reached;
 * the records read keep their stream offsets. Returns the frames that will be passed
 * over, 0 for a perf.data, or -PMT_ENOMEM. */
PMT_API int pmt_source_pass_frames(struct pmt_source *src,
				   bool (*keep)(const struct pmt_ctr_frame_info *fi, void *ctx),
				   void *ctx);
/* A container's data frames so far: read, and passed over by a slice (0, 0 otherwise). */
PMT_API void pmt_source_frames(const struct pmt_source *src, uint32_t *read,
			       uint32_t *skipped);
/* The files a container carries (pmt_ctr_files): fn for each, in file order. Returns the
 * count (0 for a perf.data or a streamed input), or fn's negative value. */
PMT_API int pmt_source_files(struct pmt_source *src,
			     int (*fn)(const struct pmt_ctr_file *f, void *ctx), void *ctx);
/* A recording's counting clock (PMT_CTR_FILE_COUNT_CLOCK, written with -I counts): the
 * samples' time of the rounds' time 0. 1 with *t0, 0 when it has none, < 0 damaged. */
PMT_API int pmt_source_count_clock(struct pmt_source *src, uint64_t *t0);


#ifdef __cplusplus
}
#endif

/* the writer of the same format */
#include "pmutrace/perf_writer.h"
#endif
