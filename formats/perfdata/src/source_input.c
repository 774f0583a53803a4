/* Trace source over perf.data: file and pipe mode, either byte order, zstd-compressed
 * records expanded in place with one continuous decompression stream.
 *
 * A regular file (stdin redirected from one included) is mapped, never copied. Records are
 * parsed straight from the mapping with per-field byte swapping, so a swapped file costs no
 * extra pass. A pipe carrying a pipe-mode perf.data is streamed: a read window that grows
 * to the largest record (AUXTRACE payload included) and drops what was delivered. A
 * file-mode perf.data arriving through a pipe needs seeking (its attrs and features follow
 * the data), so it is spooled to an unlinked temporary file ($TMPDIR, else /tmp) and mapped.
 * Only the decompression window is allocated besides, bounded by one chunk plus the
 * largest record.
 */
#include "source_priv.h"

/* Keep the resident set flat on huge files: mapped pages below the file offset `limit` go
 * back to the kernel, 8 MiB at a time. The mapping is private and never written, so a
 * later access to a dropped page simply faults it in again from the page cache. */
static void drop_mapped_below(struct pmt_source *s, uint64_t limit)
{
	const uint64_t step = 8u << 20;
	uint64_t page, upto;

	if (!s->map.mapped || limit < s->dropped + step)
		return;
	page = (uint64_t)sysconf(_SC_PAGESIZE);
	upto = limit & ~(page - 1);
	madvise((void *)(s->map.data + s->dropped), upto - s->dropped, MADV_DONTNEED);
	s->dropped = upto;
}

/* A mapped perf.data: the pages already read, except those from keep_from on (AUX data a
 * decoder still holds). A container reads from the window; its compressed frames are
 * dropped as the next one is taken (ctr_read). */
void pd_drop_behind(struct pmt_source *s)
{
	if (!s->stream)
		drop_mapped_below(s, s->cur_off < s->keep_from ? s->cur_off : s->keep_from);
}

/* ---- pipe input ------------------------------------------------------------------------ */
/* A container's records, frame after frame, as if they came through a pipe. A damaged
 * frame is reported (file, frame, offset) and skipped: frames hold whole records, so the
 * stream goes on at the next frame's first record. Returns bytes copied, 0 at the end. */
/* A recording whose writer dropped AUX data when compression could not keep up
 * (record --writer-policy=drop) is not whole: said once, at its end */
static void ctr_tell_drops(struct pmt_source *s)
{
	const struct pmt_ctr_stats *st = pmt_ctr_stats(s->ctr);
	uint64_t n = st->has_writer_stats ? st->writer_stats.dropped : st->dropped_in_frames;

	if (!n || s->ctr_drops_told)
		return;
	s->ctr_drops_told = true;
	if (st->has_writer_stats)
		src_warn(s, -PMT_ELOST, PMT_DIAG_NO_OFFSET,
			 "the recorder dropped %llu AUXTRACE records (%llu bytes) when "
			 "compression could not keep up", (unsigned long long)n,
			 (unsigned long long)st->writer_stats.dropped_bytes);
	else
		src_warn(s, -PMT_ELOST, PMT_DIAG_NO_OFFSET,
			 "the recorder dropped at least %llu AUXTRACE records when compression "
			 "could not keep up", (unsigned long long)n);
}

static int ctr_take_frame(struct pmt_source *s)
{
	while (s->ctr_pos == s->ctr_frame.size) {
		struct pmt_diag d = PMT_DIAG_INIT;
		int rc = pmt_ctr_next(s->ctr, &s->ctr_frame, &d);

		if (rc == 0) {
			ctr_tell_drops(s);
			return 0;
		}
		if (rc < 0) {
			char msg[512];

			if (rc == -PMT_ENOMEM)
				return rc;
			pmt_diag_format(&d, msg, sizeof(msg));
			pmt_warn("%s", msg);
			s->ctr_frame.size = 0;
		} else {
			/* the frames before this one are decompressed: a 450 MB container
			 * was all resident by the end of a read */
			drop_mapped_below(s, s->ctr_frame.offset);
		}
		s->ctr_pos = 0;
	}
	return 1;
}

static ssize_t ctr_read(struct pmt_source *s, uint8_t *dst, size_t cap)
{
	int rc = ctr_take_frame(s);

	if (rc < 0) {
		errno = ENOMEM;
		return -1;
	}
	if (rc == 0)
		return 0;
	if (cap > s->ctr_frame.size - s->ctr_pos)
		cap = s->ctr_frame.size - s->ctr_pos;
	memcpy(dst, s->ctr_frame.data + s->ctr_pos, cap);
	s->ctr_pos += cap;
	return (ssize_t)cap;
}

/* Between records, with the window drained: a container's next frame is taken now, and
 * when frames before it were passed over by a slice or lost to damage, the stream position
 * moves on to where the frame stands in the whole stream, so records keep the offsets
 * `zstd -dc` gives them (which dump prints, as perf does). */
int pd_ctr_frame_start(struct pmt_source *s)
{
	uint64_t at;
	int rc;

	if (!s->ctr || s->pos != s->win_base + s->win_len || s->ctr_pos != s->ctr_frame.size)
		return 0;
	rc = ctr_take_frame(s);
	if (rc <= 0)
		return rc;
	at = s->ctr_frame.stream_offset;
	if (at != PMT_CTR_NO_OFFSET && at > s->pos) {
		s->pos = s->win_base = at;
		s->win_len = 0;
	}
	return 0;
}

/* A drained window over a container frame that holds the bytes up to `upto`: the window
 * becomes the rest of the frame, read in place. Copying every frame into the window was
 * 12% of `metrics TRACE` on a counting recording (3.2 GB of STAT records). */
static bool ctr_view(struct pmt_source *s, uint64_t upto)
{
	size_t left = s->ctr_frame.size - s->ctr_pos;

	if (!s->ctr || s->pos != s->win_base + s->win_len || !left || upto - s->pos > left)
		return false;
	s->wview = s->ctr_frame.data + s->ctr_pos;
	s->win_base = s->pos;
	s->win_len = left;
	s->ctr_pos = s->ctr_frame.size;
	return true;
}

/* More bytes than the frame in view holds are wanted (a record crossing into the next
 * frame: damage): what is left of it is copied into win, which grows from there. */
static int ctr_view_leave(struct pmt_source *s)
{
	size_t drop = s->pos > s->win_base ? (size_t)(s->pos - s->win_base) : 0;
	size_t keep = s->win_len - drop;

	if (keep > s->win_cap) {
		size_t nc = keep > READ_CHUNK ? keep : READ_CHUNK;
		uint8_t *nw = realloc(s->win, nc);

		if (!nw)
			return -PMT_ENOMEM;
		s->win = nw;
		s->win_cap = nc;
	}
	if (keep)
		memcpy(s->win, s->wview + drop, keep);
	s->wview = NULL;
	s->win_base += drop;
	s->win_len = keep;
	return 0;
}

/* Make stream bytes up to `upto` (absolute) available in the window. Bytes before s->pos
 * (delivered records) are dropped first. Returns 0, -PMT_ENEED_MORE when the input ends
 * earlier (the window then holds what exists), -PMT_EIO or -PMT_ENOMEM. */
int pd_stream_fill(struct pmt_source *s, uint64_t upto)
{
	if (upto <= s->win_base + s->win_len)
		return 0;
	if (s->wview && ctr_view_leave(s) < 0)
		return -PMT_ENOMEM;
	if (ctr_view(s, upto))
		return 0;
	if (s->pos > s->win_base) {
		size_t drop = (size_t)(s->pos - s->win_base);

		memmove(s->win, s->win + drop, s->win_len - drop);
		s->win_len -= drop;
		s->win_base = s->pos;
	}
	while (!s->eof && s->win_base + s->win_len < upto) {
		ssize_t n;

		if (s->win_len == s->win_cap) {
			/* grow with the data that actually arrives, not with what a (maybe
			 * damaged) header announces */
			uint64_t want = upto - s->win_base;
			size_t nc = s->win_cap ? 2 * s->win_cap : READ_CHUNK;
			uint8_t *nw;

			if (nc > want)
				nc = want > READ_CHUNK ? (size_t)want : READ_CHUNK;
			nw = realloc(s->win, nc);
			if (!nw)
				return -PMT_ENOMEM;
			s->win = nw;
			s->win_cap = nc;
		}
		n = s->ctr ? ctr_read(s, s->win + s->win_len, s->win_cap - s->win_len)
			   : read(s->fd, s->win + s->win_len, s->win_cap - s->win_len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			src_error(s, -PMT_EIO, PMT_DIAG_NO_OFFSET, "read error on the input: %s", strerror(errno));
			return -PMT_EIO;
		}
		if (n == 0)
			s->eof = true;
		s->win_len += (size_t)n;
	}
	return s->win_base + s->win_len >= upto ? 0 : -PMT_ENEED_MORE;
}

static int map_fd(struct pmt_source *s, int fd, size_t size)
{
	void *p = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;

	if (!size) {
		s->buf = (const uint8_t *)"";
		s->size = 0;
		return 0;
	}
	if (p == MAP_FAILED) {
		return src_fail(s, -PMT_EIO, PMT_DIAG_NO_OFFSET, "cannot map: %s",
				strerror(errno));
	}
	s->map.data = p;
	s->map.size = size;
	s->map.mapped = 1;
	s->own_map = 1;
	s->buf = p;
	s->size = size;
	return 0;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -PMT_EIO;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* A file-mode perf.data on a pipe: its attrs and features follow the data, so copy the
 * stream to an unlinked temporary file and map that (the disk, not memory, holds it). */
static int spool(struct pmt_source *s)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	struct stat st;
	int fd, rc = 0;

	if (!dir || !*dir)
		dir = "/tmp";
	snprintf(path, sizeof(path), "%s/pmutrace-spool-XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0) {
		return src_fail(s, -PMT_EIO, PMT_DIAG_NO_OFFSET,
				"a file-mode perf.data on a pipe must be copied to seek in it, but "
				"%s: %s; pass the file name or write it with `convert --pipe`",
				path, strerror(errno));
	}
	unlink(path);
	for (;;) {
		rc = write_all(fd, s->win, s->win_len);
		if (rc < 0 || s->eof)
			break;
		s->win_base += s->win_len;
		s->win_len = 0;
		s->pos = s->win_base;
		rc = pd_stream_fill(s, s->win_base + 1);
		if (rc == -PMT_ENEED_MORE)
			rc = 0;
		if (rc < 0)
			break;
	}
	if (rc < 0 || fstat(fd, &st) < 0) {
		close(fd);
		return src_fail(s, -PMT_EIO, PMT_DIAG_NO_OFFSET,
				"copying the file-mode perf.data from the pipe to %s failed", dir);
	}
	free(s->win);
	s->win = NULL;
	s->win_cap = s->win_len = 0;
	s->win_base = s->pos = 0;
	s->stream = false;
	rc = map_fd(s, fd, (size_t)st.st_size);
	close(fd);
	return rc;
}

/* A pmutrace container: its data frames hold a pipe-mode perf.data, which the stream
 * reader takes frame by frame from the mapping, in memory bounded by a frame and the
 * largest record. */
static int container_init(struct pmt_source *s)
{
	int rc = pmt_ctr_reader_new(s->buf, s->size, s->diag_name, &s->ctr, s->diag);

	if (rc < 0)
		return rc;
	s->stream = true;
	s->meta.streamed = 1;
	s->fd = -1;
	s->eof = false; /* a spooled pipe was read to its end; the frames are not */
	rc = pd_stream_fill(s, 16);
	if (rc < 0 && rc != -PMT_ENEED_MORE)
		return src_fail(s, rc, 0, "cannot read the container: %s", pmt_errstr(rc));
	s->buf = s->win ? s->win : (const uint8_t *)"";
	s->size = s->win_len;
	return 0;
}

static int source_init(struct pmt_source *s)
{
	uint64_t magic;
	int rc;

	if (s->stream && !s->ctr && pmt_ctr_is_container(s->buf, s->size)) {
		/* a container on a pipe: its frames are walked in a file, as a file-mode
		 * perf.data's sections are */
		rc = spool(s);
		if (rc == 0)
			rc = container_init(s);
		return rc < 0 ? rc : source_init(s);
	}
	if (s->size < 16)
		return src_fail(s, -PMT_EFORMAT, 0, "not a perf.data file: %zu bytes", s->size);
	memcpy(&magic, s->buf, 8);
	if (magic == __builtin_bswap64(PMT_PERF_MAGIC2)) {
		s->swap = true;
	} else if (magic != PMT_PERF_MAGIC2) {
		if (!memcmp(s->buf, "PERFFILE", 8))
			return src_fail(s, -PMT_EVERSION, 0,
					"perf.data version 1 (PERFFILE) is not supported");
		return src_fail(s, -PMT_EFORMAT, 0, "not a perf.data file (no PERFILE2 magic)");
	}
	s->meta.swapped = s->swap;
	if (rd64(s, s->buf + 8) == PMT_PERF_PIPE_HEADER_SIZE) {
		s->meta.pipe_mode = 1;
		s->meta.perf_offset_base = PMT_PERF_PIPE_HEADER_SIZE;
		s->data_start = PMT_PERF_PIPE_HEADER_SIZE;
		s->data_end = s->stream ? UINT64_MAX : s->size;
	} else if (s->stream) {
		rc = spool(s);
		return rc < 0 ? rc : source_init(s);
	} else {
		rc = pd_read_file_header(s);
		if (rc < 0)
			return rc;
	}
	s->pos = s->data_start;
	rc = pd_prescan(s);
	if (rc < 0) {
		if (!s->diag->code)
			src_fail(s, rc, s->data_start, "metadata records: %s", pmt_errstr(rc));
		return rc;
	}
	pd_attrs_done(s);
	rc = pd_fill_cpu_midr(s);
	if (rc < 0)
		return src_fail(s, rc, PMT_DIAG_NO_OFFSET, "out of memory");
	return rc;
}

/* A new source named for messages (name: the caller's path or a literal, so that a diag
 * naming it outlives the source), reporting to diag (may be NULL). */
static struct pmt_source *source_new(const char *name, struct pmt_diag *diag)
{
	struct pmt_source *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->name = strdup(name);
	if (!s->name) {
		free(s);
		return NULL;
	}
	s->diag = diag ? diag : &s->diag_ignored;
	s->diag_name = name;
	s->keep_from = UINT64_MAX;
	return s;
}

static int open_common(struct pmt_source *s, struct pmt_source **out)
{
	int rc = source_init(s);

	s->diag = &s->diag_ignored; /* the caller's diag may not outlive the source */
	if (rc < 0) {
		pmt_source_close(s);
		return rc;
	}
	*out = s;
	return 0;
}

int pmt_source_open_mem(const void *buf, size_t len, struct pmt_source **out,
			struct pmt_diag *diag)
{
	struct pmt_source *s = source_new("(memory)", diag);

	*out = NULL;
	if (!s)
		return pmt_diag_set(diag, -PMT_ENOMEM, NULL, PMT_DIAG_NO_OFFSET, "out of memory");
	s->buf = buf;
	s->size = len;
	return open_common(s, out);
}

int pmt_source_open(const char *path, struct pmt_source **out, struct pmt_diag *diag)
{
	bool is_stdin = !strcmp(path, "-");
	struct pmt_source *s = source_new(is_stdin ? "stdin" : path, diag);
	struct stat st;
	int fd, rc;

	*out = NULL;
	if (!s)
		return pmt_diag_set(diag, -PMT_ENOMEM, NULL, PMT_DIAG_NO_OFFSET, "out of memory");
	fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		rc = pmt_diag_set(diag, -PMT_EIO, path, PMT_DIAG_NO_OFFSET, "%s", strerror(errno));
		if (fd >= 0 && !is_stdin)
			close(fd);
		pmt_source_close(s);
		return rc;
	}
	if (S_ISDIR(st.st_mode)) {
		if (!is_stdin)
			close(fd);
		pmt_source_close(s);
		return pmt_diag_set(diag, -PMT_EIO, path, PMT_DIAG_NO_OFFSET, "%s",
				    strerror(EISDIR));
	}
	if (S_ISREG(st.st_mode)) {
		rc = map_fd(s, fd, (size_t)st.st_size);
		if (!is_stdin)
			close(fd);
		if (rc == 0 && pmt_ctr_is_container(s->buf, s->size))
			rc = container_init(s);
		if (rc < 0) {
			pmt_source_close(s);
			return rc;
		}
		return open_common(s, out);
	}
	s->stream = true;
	s->meta.streamed = 1;
	s->fd = fd;
	s->own_fd = !is_stdin;
	rc = pd_stream_fill(s, 16);
	if (rc < 0 && rc != -PMT_ENEED_MORE) {
		src_fail(s, rc, 0, "cannot read: %s", pmt_errstr(rc));
		pmt_source_close(s);
		return rc;
	}
	s->buf = s->win ? s->win : (const uint8_t *)"";
	s->size = s->win_len;
	return open_common(s, out);
}

const struct pmt_trace_meta *pmt_source_meta(const struct pmt_source *s) { return &s->meta; }

void pmt_source_keep_from(struct pmt_source *s, uint64_t file_offset)
{
	if (s)
		s->keep_from = file_offset;
}

uint64_t pmt_source_offset(const struct pmt_source *s) { return s->cur_off; }

void pd_damage(struct pmt_source *s, enum pmt_log_level level, int code, uint64_t off,
	       const char *fmt, ...)
{
	char msg[sizeof(s->damage.msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pmt_log(level, "%s: %s", s->name, msg);
	if (level == PMT_LOG_ERROR || !s->damage.code)
		pmt_diag_set(&s->damage, code, s->name, off, "%s", msg);
}

const struct pmt_diag *pmt_source_damage(const struct pmt_source *s) { return &s->damage; }

const char *pmt_source_name(const struct pmt_source *s) { return s->name; }

void pmt_source_close(struct pmt_source *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->nr_attrs; i++) {
		free(s->attrs[i].ids);
		free((char *)s->attrs[i].name);
	}
	free(s->attrs);
	free(s->ids);
	free(s->cpu_midr);
	free(s->cpu_event_filter);
	free((char *)s->meta.cpuid);
	free((char *)s->meta.hostname);
	free((char *)s->meta.osrelease);
	free((char *)s->meta.version);
	free((char *)s->meta.arch);
	free((char *)s->meta.cmdline);
	free((char *)s->meta.numa_nodes);
	free((char *)s->meta.pmu_mappings);
	for (uint32_t i = 0; i < s->meta.nr_build_ids; i++)
		free((char *)s->meta.build_ids[i].filename);
	free((void *)s->meta.build_ids);
	pmt_cpu_topology_fini(&s->topology);
	ZSTD_freeDCtx(s->dctx);
	free(s->dbuf);
	free(s->win);
	free(s->name);
	pmt_ctr_reader_free(s->ctr);
	if (s->own_fd)
		close(s->fd);
	if (s->own_map)
		pmt_file_unmap(&s->map);
	free(s);
}

struct count_clock {
	uint64_t t0;
	int rc;
};

static int find_count_clock(const struct pmt_ctr_file *f, void *ctx)
{
	struct count_clock *cc = ctx;
	uint8_t *b = NULL;
	size_t len = 0;

	if (f->kind != PMT_CTR_FILE_COUNT_CLOCK)
		return 0;
	cc->rc = pmt_ctr_file_read(f, (void **)&b, &len);
	if (cc->rc >= 0 && len < 8)
		cc->rc = -PMT_ECORRUPT;
	if (cc->rc >= 0) {
		cc->t0 = pmt_le64(b);
		cc->rc = 1;
	}
	free(b);
	return -1; /* the first one: stop */
}

int pmt_source_count_clock(struct pmt_source *s, uint64_t *t0)
{
	struct count_clock cc = { 0, 0 };

	pmt_source_files(s, find_count_clock, &cc);
	if (cc.rc > 0)
		*t0 = cc.t0;
	return cc.rc;
}

int pmt_source_files(struct pmt_source *s, int (*fn)(const struct pmt_ctr_file *f, void *ctx),
		     void *ctx)
{
	if (!s || !s->ctr || !s->map.mapped)
		return 0;
	return pmt_ctr_files(s->map.data, s->map.size, fn, ctx);
}
