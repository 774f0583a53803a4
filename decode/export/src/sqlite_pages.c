/* SQLite b-tree pages written directly (sqlite_pages.h). Section numbers are those of
 * https://www.sqlite.org/fileformat2.html. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sqlite_pages.h"

enum {
	PAGE_INDEX_INTERIOR = 0x02,
	PAGE_TABLE_INTERIOR = 0x05,
	PAGE_INDEX_LEAF = 0x0a,
	PAGE_TABLE_LEAF = 0x0d,
};
/* finished leaves kept before a write, and appended pages before theirs: 1 MiB at 4 KiB pages, few system calls without holding much */
#define OUT_PAGES 256

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* 2.6: big-endian groups of 7 bits, the high bit set on all but the last; the ninth byte,
 * when there is one, holds 8 bits */
static int put_varint(uint8_t *p, uint64_t v)
{
	uint8_t buf[10];
	int n = 0;

	if (v <= 0x7f) {
		p[0] = (uint8_t)v;
		return 1;
	}
	if (v >> 56) {
		p[8] = (uint8_t)v;
		v >>= 8;
		for (int i = 7; i >= 0; i--, v >>= 7)
			p[i] = (uint8_t)((v & 0x7f) | 0x80);
		return 9;
	}
	do {
		buf[n++] = (uint8_t)((v & 0x7f) | 0x80);
		v >>= 7;
	} while (v);
	buf[0] &= 0x7f;
	for (int i = 0; i < n; i++)
		p[i] = buf[n - 1 - i];
	return n;
}

static const uint8_t int_size[10] = { 0, 1, 2, 3, 4, 6, 8, 8, 0, 0 };

void sq_record_text(struct sq_record *r, const char *s, size_t len)
{
	if (r->nt + 9 > sizeof(r->types) || len > sizeof(r->body) - r->nb) {
		r->too_long = true;
		return;
	}
	r->nt += (uint32_t)put_varint(r->types + r->nt, 2 * (uint64_t)len + 13);
	memcpy(r->body + r->nb, s, len);
	r->nb += (uint32_t)len;
}

/* the record's bytes (header size, types, body) at p: its length */
static uint32_t put_record(uint8_t *p, const struct sq_record *r)
{
	uint32_t hs = r->nt + 1 <= 127 ? r->nt + 1 : r->nt + 2;
	uint32_t n = (uint32_t)put_varint(p, hs);

	memcpy(p + n, r->types, r->nt);
	memcpy(p + n + r->nt, r->body, r->nb);
	return n + r->nt + r->nb;
}

static uint32_t record_len(const struct sq_record *r)
{
	return (r->nt + 1 <= 127 ? 1 : 2) + r->nt + r->nb;
}

/* A b-tree page being filled (1.6): header, cell pointers upwards, cells downwards from
 * the end of the usable area. Never page 1 (its header starts at 100). */
struct page {
	uint8_t *b;
	uint32_t size, usable, hdr, ncells, content;
};

static void page_start(struct page *pg, uint8_t type)
{
	memset(pg->b, 0, pg->size);
	pg->b[0] = type;
	pg->hdr = type == PAGE_TABLE_LEAF || type == PAGE_INDEX_LEAF ? 8 : 12;
	pg->ncells = 0;
	pg->content = pg->usable;
}

static bool page_fits(const struct page *pg, uint32_t len)
{
	return pg->hdr + 2 * (pg->ncells + 1) + len <= pg->content;
}

/* room for a cell of len bytes (page_fits said there is): where it goes */
static uint8_t *page_cell(struct page *pg, uint32_t len)
{
	pg->content -= len;
	put16(pg->b + pg->hdr + 2 * pg->ncells++, pg->content);
	return pg->b + pg->content;
}

static void page_add(struct page *pg, const uint8_t *cell, uint32_t len)
{
	memcpy(page_cell(pg, len), cell, len);
}

/* takes the last cell off again (zeroed: a page's free space is zeros, as SQLite's) */
static void page_pop(struct page *pg)
{
	uint32_t end = pg->ncells > 1 ? get16(pg->b + pg->hdr + 2 * (pg->ncells - 2)) : pg->usable;

	memset(pg->b + pg->content, 0, end - pg->content);
	pg->ncells--;
	memset(pg->b + pg->hdr + 2 * pg->ncells, 0, 2);
	pg->content = end;
}

static void page_seal(struct page *pg, uint32_t right)
{
	put16(pg->b + 3, pg->ncells);
	put16(pg->b + 5, pg->content == 65536 ? 0 : pg->content);
	if (pg->hdr == 12)
		put32(pg->b + 8, right);
}

static int fail(struct sq_pages *p, int err, const char *what)
{
	if (!p->err) {
		p->err = err ? err : EIO;
		p->what = what;
	}
	return -p->err;
}

static int write_all(int fd, const uint8_t *b, size_t n, off_t off)
{
	while (n) {
		ssize_t w = off < 0 ? write(fd, b, n) : pwrite(fd, b, n, off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? errno : ENOSPC;
		b += w;
		n -= (size_t)w;
		if (off >= 0)
			off += w;
	}
	return 0;
}

int sq_pages_init(struct sq_pages *p, const char *db_path, const uint8_t *h,
		  uint64_t pending_byte)
{
	struct stat st;

	memset(p, 0, sizeof(*p));
	p->fd = -1;
	p->page_size = get16(h + 16) == 1 ? 65536 : get16(h + 16);
	p->usable = p->page_size - h[20];
	/* 1.3.2: the usable size is at least 480; SQLite's pages are 512 to 65536 bytes */
	if (p->page_size < 512 || p->usable < 480)
		return fail(p, EINVAL, "unexpected page size in the database header");
	/* what the pages written here assume (1.3): schema format 4 (serial types 8 and 9),
	 * UTF-8 text, no auto-vacuum (no pointer-map pages to keep) */
	if (get32(h + 44) != 4 || get32(h + 56) != 1 || get32(h + 52))
		return fail(p, EINVAL, "a database format other than SQLite's default");
	p->lock = (uint32_t)((pending_byte ? pending_byte : 0x40000000) / p->page_size) + 1;
	p->out_first = p->next_leaf = SQ_RESERVED + 1;
	p->out = malloc((size_t)OUT_PAGES * p->page_size);
	if (!p->out)
		return fail(p, ENOMEM, "out of memory");
	p->fd = open(db_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (p->fd < 0)
		return fail(p, errno, "cannot open the database");
	/* what was there would be neither kept nor wholly replaced */
	if (fstat(p->fd, &st))
		return fail(p, errno, "cannot open the database");
	if (st.st_size)
		return fail(p, EEXIST, "the database file is not empty");
	return 0;
}

/* the leaves in out into their pages */
static int flush_out(struct sq_pages *p)
{
	int err = write_all(p->fd, p->out, p->nout * p->page_size,
			    (off_t)(p->out_first - 1) * p->page_size);

	p->out_first += (uint32_t)p->nout;
	p->nout = 0;
	return err ? fail(p, err, "cannot write the samples' pages") : 0;
}

/* the leaf being filled, finished */
static int leaf_done(struct sq_pages *p)
{
	struct page pg = { .b = p->out + p->nout * p->page_size, .size = p->page_size,
			   .usable = p->usable, .hdr = 8, .ncells = p->ncells,
			   .content = p->content };

	if (p->nleaves == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 1024;
		int64_t *m = realloc(p->max, cap * sizeof(*m));
		uint32_t *g;

		if (!m)
			return fail(p, ENOMEM, "out of memory");
		p->max = m;
		g = realloc(p->pgno, cap * sizeof(*g));
		if (!g)
			return fail(p, ENOMEM, "out of memory");
		p->pgno = g;
		p->cap = cap;
	}
	page_seal(&pg, 0);
	if (p->next_leaf == p->lock) {
		/* the leaves before it out, then this one from the page after it */
		if (p->nout && flush_out(p) < 0)
			return -p->err;
		memmove(p->out, pg.b, p->page_size);
		p->out_first = ++p->next_leaf;
	}
	p->max[p->nleaves] = p->leaf_max;
	p->pgno[p->nleaves++] = p->next_leaf++;
	p->ncells = 0;
	return ++p->nout == OUT_PAGES ? flush_out(p) : 0;
}

int sq_pages_row(struct sq_pages *p, int64_t rowid, const struct sq_record *r)
{
	uint8_t head[18], *cell;
	uint32_t len = record_len(r), n;
	struct page pg = { .size = p->page_size, .usable = p->usable, .hdr = 8,
			   .ncells = p->ncells, .content = p->content };

	if (p->err)
		return -p->err;
	/* 1.6: past U - 35 bytes a table leaf's payload spills to overflow pages, which
	 * this writer does not make; a samples row is a few hundred bytes at most */
	if (r->too_long || len > p->usable - 35)
		return fail(p, EFBIG, "a samples row longer than a page holds");
	n = (uint32_t)put_varint(head, len);
	n += (uint32_t)put_varint(head + n, (uint64_t)rowid);
	if (p->ncells && !page_fits(&pg, n + len) && leaf_done(p) < 0)
		return -p->err;
	pg.b = p->out + p->nout * p->page_size;
	if (!p->ncells)
		page_start(&pg, PAGE_TABLE_LEAF);
	cell = page_cell(&pg, n + len);
	memcpy(cell, head, n);
	put_record(cell + n, r);
	p->ncells = pg.ncells;
	p->content = pg.content;
	p->leaf_max = rowid;
	return 0;
}

/* Pages appended to the database in page-number order (roots apart: written in place) */
struct appender {
	struct sq_pages *p;
	int fd;
	uint32_t next;   /* the page number the next appended page gets */
	uint32_t first;  /* that of out[0] */
	uint32_t lock;   /* the lock-byte page (1.3.2), which no page may take */
	struct page pg;  /* the page being built */
};

static int append_flush(struct appender *a)
{
	struct sq_pages *p = a->p;
	int err = write_all(a->fd, p->out, p->nout * p->page_size,
			    (off_t)(a->first - 1) * p->page_size);

	a->first += (uint32_t)p->nout;
	p->nout = 0;
	return err ? fail(p, err, "cannot write the database's pages") : 0;
}

/* a page to build, in place in out */
static void append_start(struct appender *a, uint8_t type)
{
	a->pg.b = a->p->out + a->p->nout * a->p->page_size;
	page_start(&a->pg, type);
}

/* the page built, sealed, at root or at the next page number: its number */
static int64_t append_page(struct appender *a, uint32_t right, uint32_t root)
{
	struct sq_pages *p = a->p;
	int err;

	page_seal(&a->pg, right);
	if (root) {
		err = write_all(a->fd, a->pg.b, p->page_size, (off_t)(root - 1) * p->page_size);
		return err ? fail(p, err, "cannot write the database's pages") : (int64_t)root;
	}
	if (a->next == a->lock) {
		/* the pages before it out, then this one from the page after it */
		if (p->nout && append_flush(a) < 0)
			return -p->err;
		memmove(p->out, a->pg.b, p->page_size);
		a->pg.b = p->out;
		a->first = ++a->next;
	}
	if (++p->nout == OUT_PAGES && append_flush(a) < 0)
		return -p->err;
	return a->next++;
}

/* One level of a table's interior pages (1.6: a cell is a left child and the largest
 * rowid under it; the last child is the right-most pointer) over n >= 2 children, into
 * up (which may be child and max themselves): the pages' numbers and largest rowids.
 * The only page of a level is the root. */
static int table_level(struct appender *a, uint32_t *child, int64_t *max, size_t n,
		       uint32_t root, size_t *nup)
{
	size_t i = 0, k = 0;

	while (i < n) {
		size_t first = i;
		int64_t pgno;

		append_start(a, PAGE_TABLE_INTERIOR);
		for (; i < n; i++) {
			uint8_t cell[13];
			uint32_t len;

			put32(cell, child[i]);
			len = 4 + (uint32_t)put_varint(cell + 4, (uint64_t)max[i]);
			if (!page_fits(&a->pg, len))
				break;
			page_add(&a->pg, cell, len);
		}
		/* a last page needs two children: one cell and the right-most pointer */
		if (i == n - 1) {
			page_pop(&a->pg);
			i--;
		}
		page_pop(&a->pg); /* child[i - 1] goes right-most */
		pgno = append_page(a, child[i - 1], first == 0 && i == n ? root : 0);
		if (pgno < 0)
			return -a->p->err;
		child[k] = (uint32_t)pgno;
		max[k++] = max[i - 1];
	}
	*nup = k;
	return 0;
}

/* an index cell (1.6): [left child,] payload size, record (key, rowid) */
static uint32_t index_cell(uint8_t *cell, const struct sq_key_id *e, const uint32_t *child)
{
	int64_t key = (int64_t)(e->key ^ (1ULL << 63));
	uint8_t tk = sq_int_type(key), ti = sq_int_type(e->id);
	uint32_t n = 0, len = 3 + int_size[tk] + int_size[ti];

	if (child) {
		put32(cell, *child);
		n = 4;
	}
	cell[n++] = (uint8_t)len; /* < 20 */
	cell[n++] = 3;
	cell[n++] = tk;
	cell[n++] = ti;
	n += sq_put_int(cell + n, key, tk);
	n += sq_put_int(cell + n, e->id, ti);
	return n;
}

/* One level of an index b-tree (a B-tree: every entry is in exactly one page) over n
 * entries e, each with its left child on interior levels (child; NULL: leaves), right the
 * right-most child of the last: the entry after a full page goes up, with that page as its
 * left child, into e[0..*nup) and child[0..*nup) (written over the entries already
 * placed). The only page of a level is the root. */
static int index_level(struct appender *a, struct sq_key_id *e, uint32_t *child,
		       uint32_t *up_child, size_t n, uint32_t right, uint32_t root, size_t *nup)
{
	uint8_t type = child ? PAGE_INDEX_INTERIOR : PAGE_INDEX_LEAF;
	size_t i = 0, k = 0;

	while (i < n) {
		size_t first = i;
		uint32_t page_right = right;
		int64_t pgno;

		append_start(a, type);
		for (; i < n; i++) {
			uint8_t cell[32]; /* sq_put_int writes 8 bytes */
			uint32_t len = index_cell(cell, &e[i], child ? &child[i] : NULL);

			if (!page_fits(&a->pg, len))
				break;
			page_add(&a->pg, cell, len);
		}
		if (i < n) {
			/* the entry that goes up may not be the last: the page after it would
			 * be empty */
			if (i == n - 1) {
				page_pop(&a->pg);
				i--;
			}
			if (child)
				page_right = child[i];
		}
		pgno = append_page(a, page_right, first == 0 && i == n ? root : 0);
		if (pgno < 0)
			return -a->p->err;
		if (i < n) {
			e[k] = e[i];
			up_child[k++] = (uint32_t)pgno;
			i++;
		} else if (k) {
			*nup = k;
			up_child[k] = (uint32_t)pgno; /* the next level's right-most child */
			return 0;
		}
	}
	*nup = k;
	return 0;
}

static int build_index(struct appender *a, struct sq_key_id *e, uint32_t *child, size_t n,
		       uint32_t root)
{
	size_t nup = 0;
	uint32_t right;

	if (index_level(a, e, NULL, child, n, 0, root, &nup) < 0)
		return -a->p->err;
	while (nup) {
		right = child[nup];
		n = nup;
		if (index_level(a, e, child, child, n, right, root, &nup) < 0)
			return -a->p->err;
	}
	return 0;
}

/* leaf i from its page to page to (through out, empty by now) */
static int move_leaf(struct sq_pages *p, size_t i, uint32_t to)
{
	ssize_t n = pread(p->fd, p->out, p->page_size, (off_t)(p->pgno[i] - 1) * p->page_size);
	int err;

	if (n != (ssize_t)p->page_size)
		return fail(p, n < 0 ? errno : EIO, "cannot read the samples' pages back");
	err = write_all(p->fd, p->out, p->page_size, (off_t)(to - 1) * p->page_size);
	if (err)
		return fail(p, err, "cannot write the database's pages");
	p->pgno[i] = to;
	return 0;
}

/* The leaves went from page SQ_RESERVED + 1 on; SQLite's pages are 1..npages. Fewer than
 * that: the last leaves fill the pages between; more: the leaves in their way go after
 * the last. A table's leaves may be anywhere (its interior pages name them), so only
 * those few pages are written twice. The page after the last leaf, or -errno. */
static int64_t place_leaves(struct sq_pages *p, uint32_t npages)
{
	size_t n = p->nleaves, hi = n;
	uint32_t first = p->pgno[0], to = npages + 1;

	if (npages >= first) {
		to = p->pgno[n - 1] + 1 > to ? p->pgno[n - 1] + 1 : to;
		for (size_t i = 0; i < n && p->pgno[i] <= npages; i++) {
			to += to == p->lock;
			if (move_leaf(p, i, to++) < 0)
				return -p->err;
		}
		return to;
	}
	/* leaves [0, hi) are where they were written, ascending */
	while (to < first && hi && p->pgno[hi - 1] >= first) {
		if (to == p->lock) {
			to++;
			continue;
		}
		if (move_leaf(p, --hi, to++) < 0)
			return -p->err;
	}
	return hi ? p->pgno[hi - 1] + 1 : to;
}

static int finish_table(struct appender *a, uint32_t root)
{
	struct sq_pages *p = a->p;
	uint32_t *child;
	size_t n = p->nleaves;

	child = malloc(n * sizeof(*child));
	if (!child)
		return fail(p, ENOMEM, "out of memory");
	memcpy(child, p->pgno, n * sizeof(*child));
	while (n > 1 && table_level(a, child, p->max, n, root, &n) >= 0)
		;
	free(child);
	return p->err ? -p->err : 0;
}

static int finish_indexes(struct appender *a, const uint32_t *root,
			  const struct sq_index_keys *k)
{
	struct sq_pages *p = a->p;
	struct sq_key_id *e = malloc(k->n * sizeof(*e)), *tmp = malloc(k->n * sizeof(*tmp));
	/* the up-going entries' children, and one more for a level's right-most */
	uint32_t *child = malloc((k->n / 2 + 2) * sizeof(*child));

	for (size_t c = 0; c < SQ_NINDEXES && e && tmp && child && !p->err; c++) {
		sq_keys_sorted(k, c, e, tmp);
		build_index(a, e, child, k->n, root[c]);
	}
	if (!e || !tmp || !child)
		fail(p, ENOMEM, "out of memory");
	free(e);
	free(tmp);
	free(child);
	return p->err ? -p->err : 0;
}

int sq_pages_finish(struct sq_pages *p, const uint8_t *image, size_t size, uint32_t table_root,
		    const uint32_t *index_root, const struct sq_index_keys *k)
{
	struct appender a = { .p = p, .fd = p->fd, .lock = p->lock };
	uint32_t npages, counter;
	uint8_t h[100];
	int64_t next;
	int err;

	if (p->err)
		return -p->err;
	if (size < sizeof(h) || size % p->page_size || get32(image + 28) != size / p->page_size)
		return fail(p, EIO, "the database is not as SQLite left it");
	npages = (uint32_t)(size / p->page_size);
	memcpy(h, image, sizeof(h));
	if (p->ncells && leaf_done(p) < 0)
		return -p->err;
	a.pg = (struct page){ .size = p->page_size, .usable = p->usable };
	a.next = npages + 1;
	if (p->nleaves > 1) {
		if (p->nout && flush_out(p) < 0)
			return -p->err;
		next = place_leaves(p, npages);
		if (next < 0)
			return -p->err;
		a.next = (uint32_t)next;
	}
	a.first = a.next;
	err = write_all(p->fd, image, size, 0);
	if (err)
		return fail(p, err, "cannot write the database");
	if (p->nleaves == 1) {
		/* one leaf, still in out: it is the root, over SQLite's empty one */
		err = write_all(p->fd, p->out, p->page_size,
				(off_t)(table_root - 1) * p->page_size);
		p->nout = 0;
		if (err)
			return fail(p, err, "cannot write the database's pages");
	}
	/* no rows: SQLite's empty table and indexes are the right ones */
	if (p->nleaves) {
		if ((p->nleaves > 1 && finish_table(&a, table_root) < 0) ||
		    (index_root && finish_indexes(&a, index_root, k) < 0) ||
		    (p->nout && append_flush(&a) < 0))
			return -p->err;
		/* 1.3: the page count is valid while the change counter equals
		 * version-valid-for */
		counter = get32(h + 24) + 1;
		put32(h + 24, counter);
		put32(h + 28, a.next - 1);
		put32(h + 92, counter);
		err = write_all(p->fd, h, sizeof(h), 0);
		if (err)
			return fail(p, err, "cannot write the database header");
		/* the leaves moved into the gap leave their old pages past the end */
		if (ftruncate(p->fd, (off_t)(a.next - 1) * p->page_size))
			return fail(p, errno, "cannot write the database");
	}
	err = close(p->fd) ? errno : 0;
	p->fd = -1;
	return err ? fail(p, err, "cannot write the database") : 0;
}

void sq_pages_fini(struct sq_pages *p)
{
	if (p->fd >= 0)
		close(p->fd);
	free(p->out);
	free(p->max);
	free(p->pgno);
	memset(p, 0, sizeof(*p));
	p->fd = -1;
}
