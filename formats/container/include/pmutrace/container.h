/* pmutrace formats/container: the trace container (FORMAT.md beside this folder). A
 * sequence of independent zstd frames holding pipe-mode perf.data records, with
 * pmutrace's own data in skippable frames (file header, frame index, zstd seekable-format
 * seek table), so `zstd -dc FILE | perf script -i -` reads it and a file cut at any byte is
 * readable up to its last complete frame.
 */
#ifndef PMUTRACE_CONTAINER_H
#define PMUTRACE_CONTAINER_H

#include "pmutrace/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PMT_CTR_VERSION 1
#define PMT_CTR_MAGIC "PMTRACE"          /* 8 bytes with the NUL, in the header frame */
#define PMT_CTR_FRAME_DEFAULT (4u << 20) /* uncompressed bytes per data frame */
/* zstd level of the data frames: on SPE bytes level 1 is as small as 3 for half the CPU
 * time or less (FORMAT.md, "Measured") */
#define PMT_CTR_LEVEL_DEFAULT 1

/* ---- writer ---- */
/* When compression cannot keep up: the bytes handed to the compression threads and not
 * compressed yet would pass backlog_max with the next record (FORMAT.md, "When compression cannot keep
 * up"). Counted in pmt_ctr_writer_stats and in the file, never silent. */
enum pmt_ctr_backlog {
	PMT_CTR_BACKLOG_BLOCK = 0, /* wait until the workers make room: the producer slows */
	PMT_CTR_BACKLOG_DROP,      /* drop that AUXTRACE record with its AUX bytes (other
				    * records are written: the trace's state) */
	PMT_CTR_BACKLOG_LOWER,     /* compress the next frames one zstd level lower, down to
				    * level 1; then wait as BLOCK. One level back up after
				    * PMT_CTR_RAISE_AFTER frames in a row whose backlog stayed
				    * under half the bound */
};
struct pmt_ctr_writer_stats {
	uint32_t policy;            /* enum pmt_ctr_backlog */
	int level, level_min;       /* the level asked, the lowest a frame was compressed at */
	uint64_t waits, wait_ns;    /* records that waited for the workers, and how long */
	uint64_t dropped, dropped_bytes; /* AUXTRACE records dropped, their bytes (AUX too) */
	uint32_t lowered_frames;    /* frames compressed below the asked level */
	uint32_t raised;            /* LOWER: steps the level went back up */
};
#define PMT_CTR_RAISE_AFTER 4
struct pmt_ctr_writer_opts {
	size_t sz;          /* sizeof(struct pmt_ctr_writer_opts) */
	int level;          /* zstd level, default PMT_CTR_LEVEL_DEFAULT */
	uint32_t frame_size;/* uncompressed bytes per data frame, default 4 MiB */
	const char *writer; /* "pmutrace 0.1.0" by default */
	uint32_t threads;   /* compression threads, each compressing whole frames: 0 = one
			     * per online CPU, 1 = compress on the caller's thread */
	uint8_t spe_columns;/* frames with AUX bytes as column frames (FORMAT.md): smaller, but
			     * not readable through zstd -dc; compressed on the caller's thread */
	uint8_t backlog;    /* enum pmt_ctr_backlog: what to do when compression falls behind */
	uint32_t backlog_max; /* bytes of frames waiting for the compression threads (or on
			     * them) before it acts; 0: a frame per thread; compression on the
			     * caller's thread never falls behind */
};
struct pmt_ctr_writer;
/* Writes to fp (the caller's: a pmt_out_file's; not closed by the writer). Several producer
 * threads may call pmt_ctr_write, _writev, _flush, _add_file and _writer_stats at once:
 * each call's records go in whole, calls in the order they take the writer's lock; close
 * once they are done. */
PMT_API int pmt_ctr_writer_new(FILE *fp, const struct pmt_ctr_writer_opts *opts,
			       struct pmt_ctr_writer **out, struct pmt_diag *diag);
/* Whole records (one or more), in order; a record never spans two frames. */
PMT_API int pmt_ctr_write(struct pmt_ctr_writer *w, const void *records, size_t len);
/* One record given in pieces (a header, bytes that wrap around a ring, padding): written
 * as pmt_ctr_write writes their concatenation, which is never made */
struct pmt_ctr_piece {
	const void *p;
	size_t len;
};
PMT_API int pmt_ctr_writev(struct pmt_ctr_writer *w, const struct pmt_ctr_piece *v, unsigned n);
/* End the current frame here (the metadata records get a small frame of their own, so a
 * file cut inside its first data frame still knows its events). */
PMT_API int pmt_ctr_flush(struct pmt_ctr_writer *w);
/* What the backlog policy did so far (the file keeps the same counts: FORMAT.md). */
PMT_API void pmt_ctr_writer_stats(const struct pmt_ctr_writer *w, struct pmt_ctr_writer_stats *st);
/* The last frame, the index, the seek table; then frees the writer. Returns 0 or the
 * first error. */
PMT_API int pmt_ctr_writer_close(struct pmt_ctr_writer *w, struct pmt_diag *diag);

/* ---- embedded files ---- */
/* Files a recording carries so it can be read anywhere: the ELF files of the mapped
 * binaries (keyed by build-id) and the kernel's kallsyms. Each is a skippable frame of its
 * own (0x184D2A52, FORMAT.md), its bytes zstd-compressed inside, so zstd -dc and perf never
 * see it. */
enum {
	PMT_CTR_FILE_ELF = 1,          /* the whole file */
	PMT_CTR_FILE_KALLSYMS = 2,
	PMT_CTR_FILE_ELF_SYMBOLS = 3,  /* its symbol and line tables only: no code bytes */
	/* 16 bytes, little-endian: u64 the samples' clock (ns) when the counting rounds'
	 * time 0 was taken, u64 how it was had (1: the rings' TIME_CONV from the CPU's
	 * counter; 2: CLOCK_MONOTONIC plus the perf clock's offset, measured by a COMM
	 * record's time; 0: CLOCK_MONOTONIC, the samples' clock assumed) */
	PMT_CTR_FILE_COUNT_CLOCK = 4,
};
struct pmt_ctr_file {
	uint32_t kind;            /* PMT_CTR_FILE_* */
	uint8_t build_id[20];
	uint8_t build_id_size;    /* 0: none (kallsyms, or a file without one) */
	char name[4096];          /* the path the trace's MMAP records name */
	uint64_t size;            /* uncompressed bytes */
	/* reader: where the compressed bytes are in the container's buffer */
	uint64_t offset;          /* file offset of the frame */
	const uint8_t *zdata;
	size_t zsize;
};
/* Write data as an embedded file (between data frames: the current one is ended first).
 * 0, -PMT_EINVAL (name too long, build-id over 20 bytes), -PMT_ENOMEM, -PMT_ECOMPRESS or
 * -PMT_EIO. */
PMT_API int pmt_ctr_add_file(struct pmt_ctr_writer *w, const struct pmt_ctr_file *f,
			     const void *data, size_t len);
/* --bundle=symbols: an ELF file reduced to what symbols, source lines and unwinding need
 * (symbol tables, notes, .plt and its relocations, the debug sections lines use, the call
 * frame tables; every other section SHT_NOBITS, headers kept). *out is malloc'd. 0, -PMT_EFORMAT (not ELF; diag says
 * what libelf said), -PMT_EIO or -PMT_ENOMEM. diag (may be NULL) names no file: the image
 * is in memory. */
PMT_API int pmt_ctr_elf_symbols_only(const void *elf, size_t len, void **out, size_t *out_len,
				     struct pmt_diag *diag);
/* pmt_ctr_elf_symbols_only, then pmt_ctr_add_file as PMT_CTR_FILE_ELF_SYMBOLS (f->kind is
 * set); *stored (may be NULL) gets the reduced size. Errors as both, diag says which. */
PMT_API int pmt_ctr_add_elf_symbols(struct pmt_ctr_writer *w, struct pmt_ctr_file *f,
				    const void *elf, size_t len, uint64_t *stored,
				    struct pmt_diag *diag);
/* Call fn for every embedded file of a container in memory, in file order; fn < 0 stops.
 * Data frames are passed over by the sizes of the file's index (each checked against the
 * next frame's start), else by zstd's walk of their blocks; damage that neither passes
 * ends the walk. Returns the count, or fn's value. */
PMT_API int pmt_ctr_files(const void *buf, size_t len,
			  int (*fn)(const struct pmt_ctr_file *f, void *ctx), void *ctx);
/* The bytes of an embedded file (malloc'd, *len = f->size): 0, -PMT_ECORRUPT (does not
 * decompress to its size) or -PMT_ENOMEM. */
PMT_API int pmt_ctr_file_read(const struct pmt_ctr_file *f, void **out, size_t *len);

/* Copy a container's records (frame by frame) and embedded files into w, to add files or
 * recompress it. A damaged frame stops the copy (-PMT_ECORRUPT with diag: nothing of a
 * recording is dropped silently). Returns the data frames copied. */
PMT_API int pmt_ctr_copy(const void *buf, size_t len, const char *name,
			 struct pmt_ctr_writer *w, struct pmt_diag *diag);

/* ---- reader ---- */
#define PMT_CTR_NO_OFFSET UINT64_MAX /* a stream offset not known */
struct pmt_ctr_frame {
	uint32_t index;        /* data frame number, from 0 */
	uint64_t offset;       /* file offset of the frame */
	uint32_t csize;        /* compressed bytes */
	const uint8_t *data;   /* the decompressed records, valid until the next call */
	size_t size;
	/* where data[0] stands in the pipe-mode perf.data of all the data frames (what
	 * `zstd -dc` prints), also after frames a slice passed over or damage lost: from the
	 * frame infos, else the index, else counted over the frames read (PMT_CTR_NO_OFFSET
	 * after a lost frame whose size nothing gives) */
	uint64_t stream_offset;
};
struct pmt_ctr_stats {
	uint32_t frames;       /* data frames read */
	uint32_t column_frames;/* of them, column frames (their AUX bytes by SPE field) */
	uint32_t damaged;      /* data frames that failed (checksum, corrupt), skipped */
	uint64_t bytes_in, bytes_out;
	uint64_t lost_bytes;   /* compressed bytes of damaged frames and unreadable tails */
	uint8_t truncated;     /* the file ends inside a frame */
	uint8_t has_index;     /* the writer finished: index and seek table present */
	char writer[64];
	uint32_t skipped;      /* data frames a slice (pmt_ctr_slice) passed over unread */
	uint32_t frame_infos;  /* data frames described by a frame-info frame */
	/* the writer's backlog counts, from its stats frame at the end (has_writer_stats) */
	uint8_t has_writer_stats;
	struct pmt_ctr_writer_stats writer_stats;
	uint64_t dropped_in_frames; /* the same drops, by the frame infos of the frames read
				     * (a killed recording has no stats frame) */
	/* the data frame the file ends inside (truncated and cut_frame): what
	 * pmt_ctr_cut_frame() walks */
	uint8_t cut_frame;
	uint32_t cut_index;
	uint64_t cut_offset;
	uint64_t cut_stream_offset; /* PMT_CTR_NO_OFFSET when the frames before give none */
};
struct pmt_ctr_reader;
/* Is this the start of a container (its header frame)? */
PMT_API bool pmt_ctr_is_container(const void *buf, size_t len);
/* Over a container in memory (buf outlives the reader). Returns 0, -PMT_EFORMAT,
 * -PMT_EVERSION or -PMT_ENOMEM with diag. */
PMT_API int pmt_ctr_reader_new(const void *buf, size_t len, const char *name,
			       struct pmt_ctr_reader **out, struct pmt_diag *diag);
/* Next data frame: 1 with *f filled, 0 at the end, or a negative error for a damaged frame
 * (diag names the frame and its offset; the next call goes on with the next frame). */
PMT_API int pmt_ctr_next(struct pmt_ctr_reader *r, struct pmt_ctr_frame *f, struct pmt_diag *diag);
PMT_API const struct pmt_ctr_stats *pmt_ctr_stats(const struct pmt_ctr_reader *r);
/* Decompress the data frames ahead of pmt_ctr_next() on n threads (0: none, at most 256):
 * the frames, their order, damage and statistics are those of the reader without threads;
 * memory grows by n + 1 frame buffers. Call it before a pmt_ctr_next() (any one): the
 * frame the last call gave stays valid unless threads set earlier are changed. Returns 0,
 * -PMT_EINVAL or -PMT_ENOMEM. */
PMT_API int pmt_ctr_reader_threads(struct pmt_ctr_reader *r, unsigned n);

/* ---- frame info: what a data frame holds, so a slice reads only the frames it needs ---- */
enum {
	PMT_CTR_FI_SIDEBAND = 1u << 0,  /* records besides AUXTRACE, FINISHED_ROUND, AUX and
					 * ITRACE_START */
	PMT_CTR_FI_TIMED = 1u << 1,     /* ts_lo/ts_hi hold the SPE timestamps of its records */
	PMT_CTR_FI_UNTIMED = 1u << 2,   /* an SPE record without a timestamp, or bytes that
					 * are no SPE packets: its times are not known */
	PMT_CTR_FI_ANY_CPU = 1u << 3,   /* AUX data of no CPU (per-thread) or of CPU >= 4096 */
	PMT_CTR_FI_UNPARSED = 1u << 4,  /* its records could not be walked: nothing is known */
	PMT_CTR_FI_AUX_NOTES = 1u << 5, /* AUX or ITRACE_START records: what the kernel says of
					 * the AUX buffers (flags, the thread that started it) */
};
/* One AUX stream's bytes in a data frame: the AUX buffer offsets its AUXTRACE records give
 * (where the bytes stood in the kernel's stream), so a reader can tell what a lost frame
 * held and where the kernel or the writer left gaps */
struct pmt_ctr_aux_range {
	uint32_t cpu, idx;     /* the AUXTRACE records' cpu (UINT32_MAX: per thread) and idx */
	uint64_t first, end;   /* the first record's offset; the last one's offset + size */
	uint32_t records;      /* AUXTRACE records of the stream in the frame */
	uint32_t gaps;         /* of them, records whose offset is not the end of the one
				* before in the frame (bytes the kernel or the writer dropped) */
};
#define PMT_CTR_AUX_RANGES 32  /* streams a frame info lists (PMT_CTR_AUX_PARTIAL beyond) */
enum {
	PMT_CTR_AUX_UNKNOWN = 0, /* no AUX offsets: a writer before them, or no AUXTRACE */
	PMT_CTR_AUX_LISTED,      /* aux[] lists every AUX stream of the frame */
	PMT_CTR_AUX_PARTIAL,     /* more streams than PMT_CTR_AUX_RANGES: the first listed */
};
struct pmt_ctr_frame_info {
	uint32_t index;        /* data frame number, from 0 */
	uint64_t offset;       /* file offset of the data frame */
	uint32_t size;         /* its bytes in the file (the frame, not this info) */
	uint32_t flags;        /* PMT_CTR_FI_* */
	uint32_t records, auxtraces;
	uint64_t aux_bytes;
	uint32_t cpu_lo, cpu_hi;  /* lowest and highest CPU of its AUXTRACE records */
	uint64_t cpu_mask;     /* bit cpu % 64 for every CPU of its AUXTRACE records */
	uint64_t cont_mask;    /* bit cpu % 64: that CPU's first AUX bytes here end an SPE
				* record an earlier frame began */
	uint64_t ts_lo, ts_hi; /* SPE timestamps (the counter, before TIME_CONV) */
	/* the frame's place in the pipe-mode stream of all data frames and its uncompressed
	 * size; PMT_CTR_NO_OFFSET and 0 in a file written before they were (see the index) */
	uint64_t stream_offset;
	uint32_t stream_size;
	uint32_t dropped;      /* AUXTRACE records the writer dropped while it wrote this frame
				* (PMT_CTR_BACKLOG_DROP) */
	uint32_t aux_state;    /* PMT_CTR_AUX_* */
	uint32_t aux_n;
	struct pmt_ctr_aux_range aux[PMT_CTR_AUX_RANGES];
	/* pmt_ctr_frame_infos only: the info's checksum failed (a flipped bit): its fields are
	 * as read, not trusted, and slices read the frame as if it had no info */
	uint8_t damaged;
	uint64_t info_offset;  /* file offset of the frame-info frame */
};
/* From the reader's position on, decide frame by frame whether the caller needs it (keep
 * returns true) from the frame-info frames the writer put after each data frame; later
 * pmt_ctr_next() calls pass over the others without decompressing them (stats.skipped).
 * A frame some kept frame depends on (an SPE record it ends began there) is kept too.
 * Without info for every frame (damage, no frame infos) or without the stream offset of
 * every frame (frame infos of an older writer in a file without its index) nothing is
 * skipped, so the frames read keep their stream offsets. Returns the number of frames
 * that will be skipped, or -PMT_ENOMEM. */
PMT_API int pmt_ctr_slice(struct pmt_ctr_reader *r,
			  bool (*keep)(const struct pmt_ctr_frame_info *fi, void *ctx), void *ctx);
/* Call fn for every frame info of a container in memory, in file order (fn < 0 stops),
 * damaged ones too (fi->damaged). Returns the count or fn's value. */
PMT_API int pmt_ctr_frame_infos(const void *buf, size_t len,
				int (*fn)(const struct pmt_ctr_frame_info *fi, void *ctx),
				void *ctx);

/* ---- a data frame the file ends inside: its readable part, walked ---- */
enum {
	PMT_CTR_CUT_AT_RECORD = 0, /* the readable bytes end where a record ends */
	PMT_CTR_CUT_IN_HEADER,     /* inside a record's header (or its AUXTRACE fields) */
	PMT_CTR_CUT_IN_AUX,        /* inside an AUXTRACE record's AUX bytes */
	PMT_CTR_CUT_IN_RECORD,     /* inside another record's body */
};
struct pmt_ctr_cut {
	uint32_t index;          /* data frame number */
	uint64_t offset;         /* its file offset */
	uint64_t file_bytes;     /* its bytes the file holds (from its magic to the end) */
	uint64_t stream_offset;  /* its place in the pipe-mode stream, or PMT_CTR_NO_OFFSET */
	uint64_t content_size;   /* what its header states, or PMT_CTR_NO_OFFSET (not stated) */
	uint64_t decoded;        /* what zstd gives of the bytes there (as `zstd -dc` prints) */
	uint64_t whole;          /* of them, the bytes of whole records */
	/* the whole records as a frame info would give them: records, AUXTRACE records, AUX
	 * bytes, CPUs, AUX streams, the SPE time range of their AUX bytes */
	struct pmt_ctr_frame_info fi;
	uint32_t where;          /* PMT_CTR_CUT_*: where the readable bytes end */
	uint32_t cut_type;       /* the record cut: its type (0 when its header is cut before) */
	uint64_t cut_size;       /* its size, AUX bytes included (0 when not known) */
	uint64_t cut_have;       /* its bytes the readable part holds */
	/* PMT_CTR_CUT_IN_AUX: the AUXTRACE record cut (records 1; first, end: its AUX offsets)
	 * and how many of its AUX bytes are there (from first on) */
	struct pmt_ctr_aux_range cut_aux;
	uint64_t cut_aux_have;
	uint8_t cut_timed;       /* the readable AUX bytes of the record cut have timestamps */
	uint64_t cut_ts_lo, cut_ts_hi;
	const char *zerr;        /* zstd's word when it stopped before the file's end */
	/* a column frame (convert --spe-columns): rebuilt only from all of its parts, so none
	 * of its records are readable (decoded, whole and fi stay 0); content_size is its
	 * header's size of the records. parts: how many it has (0: its header is cut), of
	 * them parts_whole in the file; listed: its first part, the records without their
	 * AUX bytes, is whole, and lost is what those records hold (no SPE times: they are in
	 * the columns) */
	uint8_t columns, listed;
	uint32_t parts, parts_whole;
	struct pmt_ctr_frame_info lost;
};
/* After pmt_ctr_next() returned 0 with stats.cut_frame set: decompress what the file holds
 * of that frame (streaming, as `zstd -dc` does; no checksum can vouch for it) and walk its
 * records. Returns 1 with *out filled, 0 when the file ends inside no data frame,
 * -PMT_ENOMEM. The readers never deliver these bytes: this says what they were. */
PMT_API int pmt_ctr_cut_frame(const struct pmt_ctr_reader *r, struct pmt_ctr_cut *out);
/* The frame info of a data frame the reader gave (f, from pmt_ctr_next on r), made by
 * walking its records as the writer does: for a frame whose info is missing (cut off after
 * it, damaged, or a writer before them). The SPE times are those of the frame's own bytes
 * (cont_mask stays 0: the frames before are not known here). 0, or -PMT_EINVAL. */
PMT_API int pmt_ctr_frame_describe(const struct pmt_ctr_reader *r, const struct pmt_ctr_frame *f,
				   struct pmt_ctr_frame_info *out);

PMT_API void pmt_ctr_reader_free(struct pmt_ctr_reader *r);

/* ---- counts frames: a data frame's STAT and STAT_ROUND records by column (FORMAT.md) ---- */
/* The writer adds one after the frame info of every data frame that holds STAT (48 bytes)
 * and STAT_ROUND (24 bytes) records (and, version 2, other records too: their types and
 * where they stand), so a counts reader can pass over the data frame and read its counts
 * from a frame a fraction of the size. The records stay in the data frame (zstd -dc | perf
 * stat report -i - is unchanged) and win when the two differ. */
struct pmt_ctr_count_key {
	uint64_t id;           /* the STAT record's id, cpu and thread */
	uint32_t cpu, thread;
};
/* Where a counts frame is and what it says it covers (pmt_ctr_counts_list) */
struct pmt_ctr_counts_ref {
	uint64_t at;           /* file offset of the counts frame */
	uint64_t size;         /* its bytes in the file, header included */
	uint32_t index;        /* the data frame it stands for: number, file offset, place and
				* size in the pipe-mode stream (equal to its frame info's) */
	uint64_t offset, stream_offset;
	uint32_t stream_size;
	uint32_t records;
	uint32_t version, nstats, nrounds, nkeys; /* as its header says (0 when damaged) */
	/* the types of the data frame's other records (bit t of [0] for type t < 64, bit
	 * t - 64 of [1]); 0 and 0 when it holds only STAT and STAT_ROUND records */
	uint64_t other_types[2];
	/* the frame fails its checksum, or disagrees with its data frame's info: not to be
	 * used (why says which); the data frame's records are read instead */
	const char *damaged;
};
/* One data frame's records, by column; valid until the next decode */
struct pmt_ctr_counts_frame {
	uint32_t nkeys, nstats, nrounds;
	const struct pmt_ctr_count_key *keys; /* [nkeys], each (id, cpu, thread) once */
	const uint32_t *seg;   /* [nrounds + 1]: STAT records before each STAT_ROUND, then after
				* the last one */
	const uint64_t *round_type, *round_time; /* [nrounds] */
	const uint32_t *key;   /* [nstats] the record's key, in record order */
	const uint64_t *val, *ena, *run; /* [nstats] */
	/* where the frame's other records stand: gap[i] bytes of them before its STAT or
	 * STAT_ROUND record number gap_at[i] (counting both, in stream order; ascending), the
	 * rest after the last one */
	uint32_t ngaps;
	const uint32_t *gap_at;
	const uint64_t *gap;
};
/* Call fn for every counts frame of a container in memory (its frame infos' order; fn < 0
 * stops). Returns the count or fn's value. */
PMT_API int pmt_ctr_counts_list(const void *buf, size_t len,
				int (*fn)(const struct pmt_ctr_counts_ref *ref, void *ctx), void *ctx);
/* A decoder of counts frames: its buffers grow to the largest frame and are reused */
struct pmt_ctr_counts;
PMT_API int pmt_ctr_counts_new(struct pmt_ctr_counts **out);
PMT_API void pmt_ctr_counts_free(struct pmt_ctr_counts *d);
/* The counts frame at file offset `at` of buf: 0 with *f, -PMT_ECORRUPT with *why (its
 * checksum, its zstd frame, a column that does not add up), -PMT_ENOMEM. */
PMT_API int pmt_ctr_counts_decode(struct pmt_ctr_counts *d, const void *buf, size_t len,
				  uint64_t at, struct pmt_ctr_counts_frame *f, const char **why);
/* Records whose values are not wanted pass unread: for the decodes after it, fn gets each
 * counts frame's keys and clears want[k] (all set) for a key whose records' values are not
 * wanted; those records keep their key, their val, ena and run are undefined. fn NULL:
 * every key's values (the default). fn runs on the thread that decodes. */
PMT_API void pmt_ctr_counts_want(struct pmt_ctr_counts *d,
				 void (*fn)(const struct pmt_ctr_count_key *keys, uint32_t nkeys,
					    uint8_t *want, void *ctx),
				 void *ctx);
/* The frames decoded from now on were found by pmt_ctr_counts_list() over the same bytes,
 * which checked their checksums: not summed again (the columns' bounds are checked all the
 * same; a second pass over every byte was 3% of reading one metric's counts). */
PMT_API void pmt_ctr_counts_listed(struct pmt_ctr_counts *d, bool listed);
/* The records of the data frame at file offset `offset` (stream_size bytes expanded, as
 * its frame info says) in the same columns, each record its own key: for a counts frame
 * that does not decode. 0 with *f, -PMT_ECORRUPT with *why (not a zstd frame of that
 * size, a record other than STAT and STAT_ROUND), -PMT_ENOMEM. */
PMT_API int pmt_ctr_counts_decode_records(struct pmt_ctr_counts *d, const void *buf,
					  size_t len, uint64_t offset, uint32_t stream_size,
					  struct pmt_ctr_counts_frame *f, const char **why);

#ifdef __cplusplus
}
#endif
#endif
