/* The progress line and the log: a message first clears the line it would run into.
 * Private to common. */
#ifndef PMT_COMMON_PROGRESS_PRIV_H
#define PMT_COMMON_PROGRESS_PRIV_H

void progress_interrupt(void);

#endif
