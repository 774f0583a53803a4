/* perf.data writer: file and pipe mode, either byte order, the records and features perf
 * record writes (pmutrace record, convert, synth and the tests' fixtures). Part of
 * formats/perfdata; included by pmutrace/perfdata.h, whose trace types it takes. */
#ifndef PMUTRACE_PERF_WRITER_H
#define PMUTRACE_PERF_WRITER_H

#include "pmutrace/perfdata.h"

#ifdef __cplusplus
extern "C" {
#endif

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
PMT_API int pmt_perf_writer_set_cmdline(struct pmt_perf_writer *w, int argc,
					const char *const *argv);
/* HEADER_CLOCKID (res_ns) and HEADER_CLOCK_DATA, as perf record -k/--clockid writes them:
 * the time of day and the sample clock read at one instant, which perf script -F tod
 * converts by. */
PMT_API int pmt_perf_writer_set_clock_data(struct pmt_perf_writer *w, uint32_t clockid,
					   uint64_t tod_ns, uint64_t clockid_ns, uint64_t res_ns);
/* HEADER_CPU_TOPOLOGY (copied; written only with NRCPUS, whose avail count must be t's
 * nr_cpus, as perf reads the per-CPU ids by it). */
PMT_API int pmt_perf_writer_set_cpu_topology(struct pmt_perf_writer *w,
					     const struct pmt_cpu_topology *t);
/* HEADER_NUMA_TOPOLOGY: node i holds the CPUs of the i-th ';'-separated list ("0-1;2-3"),
 * no memory sizes. perf c2c report refuses a file without it ("Failed setup nodes"). */
PMT_API int pmt_perf_writer_set_numa_nodes(struct pmt_perf_writer *w, const char *cpulists);
/* HEADER_CPUID of an Arm CPU as perf writes it: the MIDR as "0x%016llx". */
PMT_API int pmt_perf_writer_set_midr(struct pmt_perf_writer *w, uint64_t midr);
/* Copying a trace (m: what pmt_source_meta() gives): its attrs with their ids and names,
 * hostname, osrelease, version, arch, cpuid, nr_cpus, the CPU topology, cmdline, the clock
 * data and the NUMA nodes. */
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
