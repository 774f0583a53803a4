/* The container's own frames that writer and reader share (FORMAT.md). Private to
 * formats/container. */
#ifndef PMT_CTR_LAYOUT_H
#define PMT_CTR_LAYOUT_H

#define SKIP_HEADER 0x184D2A50u  /* skippable frame: pmutrace file header */
#define SKIP_SEEK 0x184D2A5Eu    /* skippable frame: zstd seekable-format seek table */
#define SKIP_FILE 0x184D2A52u    /* skippable frame: an embedded file (files.c reads them) */
#define SEEKABLE_MAGIC 0x8F92EAB1u
#define HEADER_SIZE 80           /* magic 8, version 4, flags 4, writer 64 */
#define SKIP_INDEX 0x184D2A51u   /* skippable frame: pmutrace frame index */
#define FRAME_MAX (1u << 30)     /* the most a data frame may hold (one huge record) */

#endif
