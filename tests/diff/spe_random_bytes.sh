#!/bin/sh
# Random bytes as SPE data against perf 7.3 (issue 15 item 5; README "Bad input"). perf
# turns a record cut short by a bad byte into samples and every further bad byte into an
# all-zero "instructions" sample; the default model prints only what complete records
# give, so it makes a small part of perf's samples (on 1 MB: 5,353 of 607,482). This checks
# that each of them is one of perf 7.3's, in perf's order (nothing invented, nothing moved),
# that what it left out is said in one stderr line naming the file, with exit status 2,
# and how close --perf-compat=7.3 comes to perf 7.3 (README: not yet equal on such data).
#   PERF=perf-7.3 spe_random_bytes.sh PMUTRACE
set -eu
P=$1
. "$(dirname "$0")/perf_oracle.sh"
python3 -c 'import random, sys; r = random.Random(15); sys.stdout.buffer.write(bytes(r.getrandbits(8) for _ in range(262144)))' >"$T/r.spe"
"$P" convert --raw "$T/r.spe" --midr 0x410fd0c0 -o "$T/r.data"
$PERF script -i "$T/r.data" -F event,ip,addr 2>/dev/null | awk '{ $1 = $1; print }' >"$T/perf.txt"
rc=0
"$P" script "$T/r.data" -F event,ip,addr 2>"$T/err" | awk '{ $1 = $1; print }' >"$T/new.txt" || rc=$?
"$P" script "$T/r.data" -F event,ip,addr >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || { echo "FAIL: exit $rc on random bytes, want 2"; exit 1; }
[ "$(wc -l <"$T/err")" = 1 ] && grep -q "r.data: .* bytes skipped in .* ranges, .* partial records dropped" "$T/err" ||
	{ echo "FAIL: stderr:"; cat "$T/err"; exit 1; }
"$P" script "$T/r.data" --perf-compat=7.3 -F event,ip,addr 2>/dev/null |
	awk '{ $1 = $1; print }' >"$T/p73.txt"
python3 - "$T/perf.txt" "$T/new.txt" "$T/p73.txt" <<'EOF'
import sys
perf, new, p73 = (open(f).read().splitlines() for f in sys.argv[1:4])
i = 0
for k, line in enumerate(new):
    while i < len(perf) and perf[i] != line:
        i += 1
    if i == len(perf):
        sys.exit("FAIL: default sample %d (%s) is not among perf 7.3's, in order" % (k + 1, line))
    i += 1
real = sum(1 for line in new if not line.endswith(" 0 0"))
if len(new) < 500 or real < 10:
    sys.exit("FAIL: only %d default samples (%d with an address)" % (len(new), real))
print("OK: %d default samples, all among perf 7.3's %d in order; --perf-compat=7.3: %d"
      % (len(new), len(perf), len(p73)))
EOF
