#!/usr/bin/env python3
"""move_sample_ip.py IN OUT N ADDR: IN (a perf.data file, file mode, one attr) with the
N-th PERF_RECORD_SAMPLE in time order (0 first, -1 last; perf reads them in that order,
not the file's, whose rings are flushed CPU by CPU) moved to process address ADDR: its ip
and its call chain's first user entry (the sample's own address) rewritten, nothing else.
So a test can put one sample at a chosen address early or late in a real recording."""
import struct
import sys

PERF_RECORD_SAMPLE = 9
PERF_CONTEXT_USER = 0xFFFFFFFFFFFFFE00
# sample_type bits before CALLCHAIN, in the record's order (perf_event.h)
IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD, READ, CALLCHAIN = (
    1 << 16, 1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 6, 1 << 9, 1 << 7, 1 << 8, 1 << 4, 1 << 5)


def main():
    src, dst, nth, addr = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4], 16)
    data = bytearray(open(src, 'rb').read())
    if data[:8] != b'PERFILE2':
        sys.exit('%s: not a perf.data file in file mode' % src)
    attr_size, attrs_off, attrs_size, data_off, data_size = struct.unpack_from('<Q QQ QQ', data, 16)
    if attrs_size != attr_size:
        sys.exit('%s: %d attrs, one expected' % (src, attrs_size // attr_size))
    sample_type = struct.unpack_from('<Q', data, attrs_off + 24)[0]
    if sample_type & READ or not sample_type & IP:
        sys.exit('%s: sample_type %#x not handled' % (src, sample_type))
    samples = []
    at = data_off
    while at + 8 <= data_off + data_size:
        rtype, _misc, size = struct.unpack_from('<IHH', data, at)
        if size < 8:
            sys.exit('%s: record of size %d at %#x' % (src, size, at))
        if rtype == PERF_RECORD_SAMPLE:
            samples.append(at)
        at += size
    if not sample_type & TIME:
        sys.exit('%s: samples without times' % src)
    skip = 8 + (8 if sample_type & IDENTIFIER else 0) + 8 + (8 if sample_type & TID else 0)
    samples.sort(key=lambda r: struct.unpack_from('<Q', data, r + skip)[0])
    rec = samples[nth]
    at = rec + 8 + (8 if sample_type & IDENTIFIER else 0)
    old = struct.unpack_from('<Q', data, at)[0]
    struct.pack_into('<Q', data, at, addr)
    at += 8
    for bit in (TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD):
        if sample_type & bit:
            at += 8
    if sample_type & CALLCHAIN:
        nr = struct.unpack_from('<Q', data, at)[0]
        ips = struct.unpack_from('<%dQ' % nr, data, at + 8)
        for i in range(nr - 1):
            if ips[i] == PERF_CONTEXT_USER and ips[i + 1] == old:
                struct.pack_into('<Q', data, at + 8 + 8 * (i + 1), addr)
                break
        else:
            sys.exit('%s: sample %d has no user chain starting at its ip' % (src, nth))
    open(dst, 'wb').write(data)
    print('%d of %d samples: %#x -> %#x' % (nth % len(samples), len(samples), old, addr))


main()
