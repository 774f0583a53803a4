#!/bin/sh
# Random bytes as SPE data against perf 7.3 and 6.1 (issue 15 item 5; README "Bad input"). perf
# turns a record cut short by a bad byte into samples and every further bad byte into an
# all-zero "instructions" sample; the default model prints only what complete records
# give. Checked here:
# - the default: each of its samples is one of perf 7.3's, in perf's order (nothing
#   invented, nothing moved); what it left out is said in one stderr line naming the
#   file, with exit status 2;
# - --perf-compat=7.3 equals perf 7.3 sample for sample (event, ip, addr, data_src,
#   weight) on random bytes of three seeds, and --perf-compat=6.1 perf 6.1 on two
#   (with alignment pads: perf sizes them from its buffer's address, which pmutrace
#   follows for mapped perf.data), and every packet line of `dump` is perf 7.3 -D's;
# - the same in pipe mode, where perf's buffer is a malloc'd copy of each chunk.
#   PERF=perf-7.3 spe_random_bytes.sh PMUTRACE
set -eu
P=$1
. "$(dirname "$0")/perf_oracle.sh"
# gen SEED SIZE: deterministic random bytes
gen() {
	python3 -c 'import random, sys; r = random.Random(int(sys.argv[1])); sys.stdout.buffer.write(bytes(r.getrandbits(8) for _ in range(int(sys.argv[2]))))' "$@"
}
# samples NAME PERF MODEL: PERF's and pmutrace --perf-compat=MODEL's samples (NAME.perf,
# NAME.pmt) with the fields random bytes can change
samples() {
	"$P" convert --raw "$T/$1.spe" --midr 0x410fd0c0 -o "$T/$1.data"
	$2 script -i "$T/$1.data" -F event,ip,addr,data_src,weight 2>/dev/null |
		awk '{ $1 = $1; print }' >"$T/$1.perf"
	"$P" script "$T/$1.data" --perf-compat=$3 -F event,ip,addr,data_src,weight 2>/dev/null |
		awk '{ $1 = $1; print }' >"$T/$1.pmt"
}
# same NAME PERF MODEL: the two sample lists are equal
same() {
	samples "$@"
	if ! cmp -s "$T/$1.perf" "$T/$1.pmt"; then
		echo "FAIL: $1: $2 $(wc -l <"$T/$1.perf") samples, --perf-compat=$3 $(wc -l <"$T/$1.pmt")"
		diff "$T/$1.perf" "$T/$1.pmt" | head -20
		exit 1
	fi
	echo "OK: $1: $(wc -l <"$T/$1.perf") samples, equal to $2's"
}

gen 15 262144 >"$T/r.spe"
"$P" convert --raw "$T/r.spe" --midr 0x410fd0c0 -o "$T/r.data"
$PERF script -i "$T/r.data" -F event,ip,addr 2>/dev/null | awk '{ $1 = $1; print }' >"$T/r.perf"
rc=0
"$P" script "$T/r.data" -F event,ip,addr 2>"$T/err" | awk '{ $1 = $1; print }' >"$T/new.txt" || rc=$?
"$P" script "$T/r.data" -F event,ip,addr >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || { echo "FAIL: exit $rc on random bytes, want 2"; exit 1; }
[ "$(wc -l <"$T/err")" = 1 ] && grep -q "r.data: .* bytes skipped in .* ranges, .* partial records dropped" "$T/err" ||
	{ echo "FAIL: stderr:"; cat "$T/err"; exit 1; }
python3 - "$T/r.perf" "$T/new.txt" <<'PY'
import sys
perf, new = (open(f).read().splitlines() for f in sys.argv[1:3])
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
print("OK: %d default samples, all among perf 7.3's %d in order" % (len(new), len(perf)))
PY
# every packet line of `dump` equals perf 7.3 -D's: offsets, bytes (alignment pads end
# where perf's do) and text (N1's LATE-PREFETCH from the file's MIDR, perf's leftover text
# for OTHER payloads it does not describe)
$PERF report -D -i "$T/r.data" 2>/dev/null | grep '^\.  [0-9a-f]\{8\}:' >"$T/perf.dump"
"$P" dump "$T/r.data" 2>/dev/null | grep '^\.  [0-9a-f]\{8\}:' >"$T/new.dump"
[ -s "$T/perf.dump" ] && cmp -s "$T/perf.dump" "$T/new.dump" ||
	{ echo "FAIL: dump differs from perf 7.3 -D:"; diff "$T/perf.dump" "$T/new.dump" | head; exit 1; }
echo "OK: dump equals perf 7.3 -D ($(wc -l <"$T/new.dump") packet lines)"
for seed in 15 1 2; do
	gen $seed 262144 >"$T/s$seed.spe"
	same s$seed "$PERF" 7.3
done
# pipe mode: perf copies each AUXTRACE chunk into a malloc'd buffer (16-byte aligned) and
# sizes alignment pads from its start, not from the file or AUX stream offset; chunks of
# 4101 bytes put most chunk starts off any alignment. Read as perf reads it (stdin), by
# path, and as a container (zstd frames of the same pipe-mode stream).
"$P" convert --raw "$T/s15.spe" --midr 0x410fd0c0 --pipe --chunk 4101 -o "$T/p.data"
"$P" convert --raw "$T/s15.spe" --midr 0x410fd0c0 --container --chunk 4101 -o "$T/p.pmt"
$PERF script -i - -F event,ip,addr,data_src,weight <"$T/p.data" 2>/dev/null |
	awk '{ $1 = $1; print }' >"$T/p.perf"
for how in stdin path container; do
	case $how in
	stdin) "$P" script - --perf-compat=7.3 -F event,ip,addr,data_src,weight <"$T/p.data" ;;
	path) "$P" script "$T/p.data" --perf-compat=7.3 -F event,ip,addr,data_src,weight ;;
	container) "$P" script "$T/p.pmt" --perf-compat=7.3 -F event,ip,addr,data_src,weight ;;
	esac 2>/dev/null | awk '{ $1 = $1; print }' >"$T/p.pmt.txt"
	cmp -s "$T/p.perf" "$T/p.pmt.txt" || {
		echo "FAIL: pipe mode ($how): $PERF $(wc -l <"$T/p.perf") samples, --perf-compat=7.3 $(wc -l <"$T/p.pmt.txt")"
		diff "$T/p.perf" "$T/p.pmt.txt" | head -10; exit 1; }
done
cmp -s "$T/p.perf" "$T/s15.perf" &&
	{ echo "FAIL: pipe mode gives the file's samples: the pads are not tested"; exit 1; }
$PERF report -D -i - <"$T/p.data" 2>/dev/null | grep '^\.  [0-9a-f]\{8\}:' >"$T/perf.dump"
"$P" dump "$T/p.data" 2>/dev/null | grep '^\.  [0-9a-f]\{8\}:' >"$T/new.dump"
[ -s "$T/perf.dump" ] && cmp -s "$T/perf.dump" "$T/new.dump" ||
	{ echo "FAIL: pipe-mode dump differs from perf 7.3 -D:"; diff "$T/perf.dump" "$T/new.dump" | head; exit 1; }
echo "OK: pipe mode: $(wc -l <"$T/p.perf") samples (stdin, path, container) and $(wc -l <"$T/new.dump") dump lines equal to $PERF's"
# perf 6.1 (perf on PATH) under --perf-compat=6.1, when it runs
if perf version 2>/dev/null | grep -q "^perf version 6\.1\."; then
	for seed in 15 1; do
		cp "$T/s$seed.spe" "$T/o$seed.spe"
		same o$seed perf 6.1
	done
else
	echo "note: perf 6.1 is not on PATH, --perf-compat=6.1 not checked"
fi
