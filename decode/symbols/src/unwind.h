/* The dwarf unwinder's per-process libdwfl sessions, kept by a pmt_symbols handle. */
#ifndef PMT_SYMBOLS_UNWIND_H
#define PMT_SYMBOLS_UNWIND_H

struct unwinder;
void unwinder_free(struct unwinder *u); /* NULL is a no-op */

#endif
