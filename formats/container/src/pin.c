/* Pinned frames (pmt_ctr_frame_pin): a frame's buffer outlives the frame while AUX chunks
 * queued by a decoder still point into it. Copying the chunks out instead was the start of
 * `script --csv -j 2`: 3 frames' AUX bytes (12 MiB) copied into the heap, ~2k page faults,
 * before the sampler's thread had a record (README, issue 9's row). A buffer leaves its
 * ctr_frame_buf when the frame is released and comes back, through the spares, to the
 * next buffer that gives its own up, so a run touches a few frame buffers once. */
#include <stdlib.h>

#include "reader.h"

struct pmt_ctr_pin {
	uint8_t *out;
	size_t cap;
	uint32_t refs;
	bool detached; /* its frame was released: the last unpin gives the buffer back */
};

struct pmt_ctr_pin *pmt_ctr_frame_pin(struct pmt_ctr_reader *r)
{
	struct ctr_frame_buf *fb = r ? r->cur : NULL;

	if (!fb || !fb->out)
		return NULL;
	if (!fb->pin) {
		/* a buffer much larger than its frame (one of unknown size, or grown by an
		 * earlier one) would hold memory that nothing reads: the caller copies */
		if (r->pinned_bytes + fb->out_cap > PMT_CTR_PIN_MAX || r->cur_size < fb->out_cap / 4)
			return NULL;
		fb->pin = calloc(1, sizeof(*fb->pin));
		if (!fb->pin)
			return NULL;
		fb->pin->out = fb->out;
		fb->pin->cap = fb->out_cap;
		r->pinned_bytes += fb->out_cap;
	}
	fb->pin->refs++;
	return fb->pin;
}

static void pin_done(struct pmt_ctr_reader *r, struct pmt_ctr_pin *p)
{
	r->pinned_bytes -= p->cap;
	if (r->nspare < CTR_PIN_SPARES)
		r->spare[r->nspare++] = (struct ctr_spare){ p->out, p->cap };
	else
		free(p->out);
	free(p);
}

void pmt_ctr_frame_unpin(struct pmt_ctr_reader *r, struct pmt_ctr_pin *p)
{
	if (!r || !p || !p->refs)
		return;
	if (--p->refs == 0 && p->detached)
		pin_done(r, p);
}

void ctr_fb_retire(struct pmt_ctr_reader *r, struct ctr_frame_buf *fb)
{
	struct pmt_ctr_pin *p = fb ? fb->pin : NULL;

	if (!p)
		return;
	fb->pin = NULL;
	if (!p->refs) {
		/* every pin was released while the frame was held: the buffer stays */
		r->pinned_bytes -= p->cap;
		free(p);
		return;
	}
	p->detached = true;
	fb->out = NULL;
	fb->out_cap = 0;
	if (r->nspare) {
		/* the largest spare: frames are mostly of one size */
		unsigned best = 0;

		for (unsigned i = 1; i < r->nspare; i++)
			if (r->spare[i].cap > r->spare[best].cap)
				best = i;
		fb->out = r->spare[best].out;
		fb->out_cap = r->spare[best].cap;
		r->spare[best] = r->spare[--r->nspare];
	}
}

void ctr_pin_spares_free(struct pmt_ctr_reader *r)
{
	while (r->nspare)
		free(r->spare[--r->nspare].out);
}
