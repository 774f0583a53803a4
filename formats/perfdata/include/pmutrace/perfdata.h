/* pmutrace formats/perfdata: perf.data (file and pipe mode, both byte orders) read as a
 * trace source and written by a streaming writer. */
#ifndef PMUTRACE_PERFDATA_H
#define PMUTRACE_PERFDATA_H

#include <stdio.h>

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

struct pmt_trace_meta {
	uint8_t swapped;          /* file byte order differs from host */
	uint8_t pipe_mode;
	uint8_t streamed;         /* read from a pipe as it arrives (AUX data is transient) */
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
	/* HEADER_BUILD_ID: the build-ids perf record collected for the files samples hit
	 * (file mode; a pipe carries them as records at its end, not read here) */
	uint32_t nr_build_ids;
	const struct pmt_build_id_ent *build_ids;
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
};

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
/* A container's data frames so far: read, and passed over by a slice (0, 0 otherwise). */
PMT_API void pmt_source_frames(const struct pmt_source *src, uint32_t *read,
			       uint32_t *skipped);
/* The files a container carries (pmt_ctr_files): fn for each, in file order. Returns the
 * count (0 for a perf.data or a streamed input), or fn's negative value. */
PMT_API int pmt_source_files(struct pmt_source *src,
			     int (*fn)(const struct pmt_ctr_file *f, void *ctx), void *ctx);

/* =====================================================================================
 * perf.data writer
 * ===================================================================================== */

/* Streaming writer. File mode writes records as they come and, at close, the feature
 * table, the attrs and the header; pipe mode emits attrs and features as HEADER_ATTR and
 * HEADER_FEATURE records before the first data record (so add them first). `swap` writes
 * the other byte order (a big-endian machine's file on a little-endian host). A file-mode
 * file with AUXTRACE_INFO or AUXTRACE records gets HEADER_AUXTRACE, the index of its
 * AUXTRACE records, as perf record writes it (perf script accepts -F fields the attr lacks
 * only with it); pipe mode has none, as with perf. */
struct pmt_perf_writer;
struct pmt_perf_writer_opts {
	size_t sz;    /* sizeof(struct pmt_perf_writer_opts) */
	uint8_t pipe; /* pipe-mode layout (no seeking; "-" = stdout) */
	uint8_t swap; /* opposite byte order */
};


/* The attr of the Arm SPE event as `perf record -e arm_spe//` sets it up for a per-thread
 * session (host order, PMT_ATTR_SIZE_MAX bytes): config ts_enable when `timed`, period
 * 4096, sample_id_all, sample_type IDENTIFIER IP TID CPU DATA_SRC (+ TIME when timed) and
 * the fields `perf script -F` insists an SPE attr has before it prints them for
 * synthesized samples: ADDR PERIOD WEIGHT PHYS_ADDR. */
PMT_API void pmt_attr_init_spe(uint8_t *attr, uint32_t pmu_type, bool timed);

/* A writer into fp (the caller's, e.g. a pmt_out_file's; file mode needs it seekable; close
 * does not fclose it). opts may be NULL (file mode, host order); else its sz must be set
 * (PMT_OPTS_INIT). Returns 0, -PMT_EINVAL,
 * -PMT_EIO or -PMT_ENOMEM. */
PMT_API int pmt_perf_writer_new(FILE *fp, const struct pmt_perf_writer_opts *opts,
				struct pmt_perf_writer **out);
/* A stream for pmt_perf_writer_new() (pipe mode) that stores the records in a pmutrace
 * container, whole records per frame (struct pmt_ctr_writer: pmutrace/container.h).
 * fclose() it before closing the container writer. NULL when out of memory. */
struct pmt_ctr_writer;
PMT_API FILE *pmt_perf_container_stream(struct pmt_ctr_writer *w);
/* An AUXTRACE record of a writer whose stream is pmt_perf_container_stream(ctr), its bytes
 * in one piece or two (a ring that wrapped): the writer's pending records are flushed to
 * the container first, then header and bytes go to the container, which copies them once
 * (zstd's window); the stream never sees them. */
PMT_API int pmt_perf_writer_write_auxtrace_ctr(struct pmt_perf_writer *w,
					       struct pmt_ctr_writer *ctr, const void *a,
					       size_t alen, const void *b, size_t blen,
					       uint64_t offset, uint64_t reference, uint32_t idx,
					       uint32_t tid, uint32_t cpu);
/* The same into a file of its own, written safely (pmt_out_file: a temporary file renamed
 * over `path` at a successful close, removed on failure; "-" = stdout). */
PMT_API int pmt_perf_writer_open(const char *path, const struct pmt_perf_writer_opts *opts,
				 struct pmt_perf_writer **out);
/* `attr`: struct perf_event_attr in host order, `size` bytes (<= 136; missing bytes are
 * zero). The writer sets attr.size itself. `name` (may be NULL) goes to EVENT_DESC.
 * Attrs must all come before the first record. The first attr's sample_type defines the
 * sample_id trailer that the write_* helpers append when it has sample_id_all. */
PMT_API int pmt_perf_writer_add_attr(struct pmt_perf_writer *w, const void *attr, size_t size,
				     const uint64_t *ids, uint32_t nr_ids, const char *name);
PMT_API int pmt_perf_writer_set_feature_str(struct pmt_perf_writer *w, unsigned feat,
					    const char *value);
PMT_API int pmt_perf_writer_set_nrcpus(struct pmt_perf_writer *w, uint32_t online,
				       uint32_t avail);
/* HEADER_NUMA_TOPOLOGY: node i holds the CPUs of the i-th ';'-separated list ("0-1;2-3"),
 * no memory sizes. perf c2c report refuses a file without it ("Failed setup nodes"). */
PMT_API int pmt_perf_writer_set_numa_nodes(struct pmt_perf_writer *w, const char *cpulists);
PMT_API int pmt_perf_writer_set_cmdline(struct pmt_perf_writer *w, int argc,
					const char *const *argv);
/* HEADER_CPUID of an Arm CPU as perf writes it: the MIDR as "0x%016llx". */
PMT_API int pmt_perf_writer_set_midr(struct pmt_perf_writer *w, uint64_t midr);
/* Copying a trace (m: what pmt_source_meta() gives): its attrs with their ids and names,
 * hostname, osrelease, version, arch, cpuid, nr_cpus, cmdline and NUMA nodes. */
PMT_API int pmt_perf_writer_copy_meta(struct pmt_perf_writer *w, const struct pmt_trace_meta *m);
/* One record of the trace being copied: AUX data with its payload, records in the output's
 * byte order as they are, others re-encoded; the header records (attrs, features) are
 * left out, as pmt_perf_writer_copy_meta() made them. Returns 0, 1 when the record was
 * dropped (a kind whose byte order pmutrace cannot change), or an error. */
PMT_API int pmt_perf_writer_copy_event(struct pmt_perf_writer *w, const struct pmt_trace_meta *m,
				       const struct pmt_trace_event *ev);
/* HEADER_COMPRESSED {version 0, type zstd, level, ratio, mmap_len}: perf needs it before
 * it can expand COMPRESSED records (mmap_len sizes its decompression buffer). */
PMT_API int pmt_perf_writer_set_compressed(struct pmt_perf_writer *w, uint32_t level,
					   uint32_t ratio, uint32_t mmap_len);
/* A complete record (header included) already in the output byte order. */
PMT_API int pmt_perf_writer_write_record(struct pmt_perf_writer *w, const void *raw,
					 size_t size);
/* A complete record in the byte order opposite to the output's (a copy between byte
 * orders): every field swapped as perf swaps it, the sample_id trailer per the first
 * attr. Knows MMAP MMAP2 LOST COMM EXIT FORK AUX ITRACE_START LOST_SAMPLES SWITCH(_CPU_WIDE)
 * FINISHED_ROUND FINISHED_INIT ID_INDEX AUXTRACE_INFO THREAD_MAP; others give
 * -PMT_EUNSUPPORTED (nothing written). */
PMT_API int pmt_perf_writer_write_record_swapped(struct pmt_perf_writer *w, const void *raw,
						 size_t size);
/* PERF_RECORD_AUXTRACE + payload, zero-padded to 8 bytes (the padding decodes as PAD). */
PMT_API int pmt_perf_writer_write_auxtrace(struct pmt_perf_writer *w, const void *data,
					   uint64_t size, uint64_t offset, uint64_t reference,
					   uint32_t idx, uint32_t tid, uint32_t cpu);
/* Kernel records; `sid` (may be NULL = zeros) fills the sample_id trailer. */
PMT_API int pmt_perf_writer_write_comm(struct pmt_perf_writer *w, uint32_t pid, uint32_t tid,
				       const char *comm, bool exec,
				       const struct pmt_sample_id *sid);
PMT_API int pmt_perf_writer_write_mmap2(struct pmt_perf_writer *w, uint32_t pid, uint32_t tid,
					uint64_t addr, uint64_t len, uint64_t pgoff,
					uint32_t prot, uint32_t flags, const char *filename,
					const struct pmt_sample_id *sid);
/* The kernel's text as perf record describes it: PERF_RECORD_MMAP, cpumode kernel, pid -1,
 * "[kernel.kallsyms]_text", pgoff = the address of _text (perf's ref_reloc_sym). */
PMT_API int pmt_perf_writer_write_kernel_mmap(struct pmt_perf_writer *w, uint64_t start,
					      uint64_t len, uint64_t text_addr,
					      const struct pmt_sample_id *sid);
/* A kernel module's map as perf record synthesizes it from /proc/modules: PERF_RECORD_MMAP,
 * cpumode kernel, pid -1, pgoff 0, the module's path (or "[name]" when not found). */
PMT_API int pmt_perf_writer_write_module_mmap(struct pmt_perf_writer *w, uint64_t start,
					      uint64_t len, const char *path,
					      const struct pmt_sample_id *sid);
/* The same with the file's build-id in place of device and inode, as a kernel writes it for
 * attr.build_id (PERF_RECORD_MISC_MMAP_BUILD_ID); size <= 20. */
PMT_API int pmt_perf_writer_write_mmap2_build_id(struct pmt_perf_writer *w, uint32_t pid,
						 uint32_t tid, uint64_t addr, uint64_t len,
						 uint64_t pgoff, uint32_t prot, uint32_t flags,
						 const uint8_t *build_id, size_t build_id_size,
						 const char *filename,
						 const struct pmt_sample_id *sid);
/* An entry of the HEADER_BUILD_ID table (file mode; perf record writes one per file that
 * samples hit, the MMAP2 records then carry no build-id). cpumode: PERF_RECORD_MISC_USER (2)
 * or _KERNEL (1). -PMT_EUNSUPPORTED in pipe mode. */
PMT_API int pmt_perf_writer_add_build_id(struct pmt_perf_writer *w, int32_t pid,
					 uint16_t cpumode, const uint8_t *build_id,
					 size_t build_id_size, const char *filename);
PMT_API int pmt_perf_writer_write_time_conv(struct pmt_perf_writer *w,
					    const struct pmt_time_conv *tc);
/* AUXTRACE_INFO for Arm SPE: v1 {PMU_TYPE, PER_CPU_MMAPS} (what perf <= 6.12 reads), or v2
 * with one metadata block per CPU (cpus[i], midr[i]; perf >= 6.13), plus CAP_EVENT_FILTER
 * (event_filter[i]) as perf >= 6.18 records it when event_filter is not NULL. */
PMT_API int pmt_perf_writer_write_auxtrace_info_spe_v1(struct pmt_perf_writer *w,
							uint64_t pmu_type, bool per_cpu_mmaps);
PMT_API int pmt_perf_writer_write_auxtrace_info_spe_v2(struct pmt_perf_writer *w,
							uint64_t pmu_type, uint32_t nr_cpus,
							const uint32_t *cpus,
							const uint64_t *midr,
							const uint64_t *event_filter);
/* One CPU's block of SPE's AUXTRACE_INFO v2, all four parameters as perf 7.3's
 * arm_spe_save_cpu_header() writes them: a CPU without the recorded SPE PMU has pmu_type
 * UINT64_MAX and zero caps. */
struct pmt_spe_cpu_meta {
	uint32_t cpu;
	uint64_t midr, pmu_type, min_interval, event_filter;
};
PMT_API int pmt_perf_writer_write_auxtrace_info_spe_cpus(struct pmt_perf_writer *w,
							  uint64_t pmu_type, uint32_t nr_cpus,
							  const struct pmt_spe_cpu_meta *cpus);
/* PERF_RECORD_SAMPLE laid out per the sample_type of the attr that owns smp->id (or the
 * first attr). Supports IDENTIFIER IP TID TIME ADDR ID STREAM_ID CPU PERIOD WEIGHT
 * WEIGHT_STRUCT DATA_SRC TRANSACTION PHYS_ADDR; other bits give -PMT_EUNSUPPORTED. */
PMT_API int pmt_perf_writer_write_sample(struct pmt_perf_writer *w, const struct pmt_sample *smp);
/* Finish the file (feature table, attrs, header) and free the writer; a writer from
 * pmt_perf_writer_open() then renames its file into place (or removes it after an error).
 * Returns 0 or the first error of any write. */
PMT_API int pmt_perf_writer_close(struct pmt_perf_writer *w);


#ifdef __cplusplus
}
#endif
#endif
