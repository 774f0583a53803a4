#!/bin/sh
# Differential test: pmutrace script vs Linux perf script on the same synthetic perf.data.
#   [CORRUPT=N] spe_vs_perf.sh PMUTRACE SEED MIX RECORDS MIDR [synth options...]
# MIDR 0 = no CPUID feature (perf's fallback data-source rules). CORRUPT=N overwrites N
# bytes spread over the stream with bytes that start no packet (0x03, 0x07).
#
# Explicit perf 6.1 handling (pmutrace runs with --perf-compat=6.1 to match it):
# - timeless files: 6.1 samples the zeroed record once before decoding; the compat mode
#   reproduces that line, so it is compared like any other;
# - 6.1 names mispredicted-branch samples "branch-miss" and makes "memory" samples iff
#   data_src != 0; instructions.addr is the data VA: all reproduced by the compat mode;
# - `pmutrace convert` writes no HEADER_AUXTRACE feature, so perf 6.1 refuses user-set
#   fields the arm_spe attr lacks (ADDR); the fields are therefore given for the synthetic
#   (PERF_TYPE_HARDWARE) events only: -F hw:...
# - every perf turns a record cut by a bad byte into samples, and each further bad byte
#   into an all-zero "instructions" sample; the compat mode reproduces both (pmutrace's
#   default drops such records and counts them in the stderr summary instead);
# - perf prints phys_addr only when the SPE attr has PERF_SAMPLE_PHYS_ADDR; it is compared
#   only when perf prints it.
# Compared per sample, in order: tid, event, ip, addr, data_src, weight (and phys_addr).
set -eu
PMUTRACE=$1 SEED=$2 MIX=$3 RECORDS=$4 MIDR=$5
shift 5
command -v perf >/dev/null 2>&1 || { echo "SKIP: perf not installed"; exit 77; }
perf version >/dev/null 2>&1 || { echo "SKIP: perf does not run"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$PMUTRACE" synth --records "$RECORDS" --seed "$SEED" --mix "$MIX" "$@" -o "$T/a.spe"
if [ "${CORRUPT:-0}" -gt 0 ]; then
	size=$(wc -c <"$T/a.spe")
	i=1
	while [ "$i" -le "$CORRUPT" ]; do
		off=$(( (i * 7919 + SEED * 104729) % size ))
		if [ $((i % 2)) = 0 ]; then b='\003'; else b='\007'; fi
		printf "$b" | dd of="$T/a.spe" bs=1 seek="$off" conv=notrunc 2>/dev/null
		i=$((i + 1))
	done
fi
CONV=""
[ "$MIDR" != 0 ] && CONV="--midr $MIDR"
case " $* " in *" --no-timestamps "*) CONV="$CONV --timeless" ;; esac
# shellcheck disable=SC2086
"$PMUTRACE" convert --raw "$T/a.spe" $CONV -o "$T/a.perf.data"

perf script -i "$T/a.perf.data" --itrace=bfmtaMi1i \
	-F hw:tid,cpu,period,event,addr,data_src,weight,ip,phys_addr >"$T/perf.txt" 2>"$T/perf.err" ||
	{ cat "$T/perf.err"; exit 1; }
"$PMUTRACE" script "$T/a.perf.data" --itrace=bfmtaMi1i --perf-compat=6.1 --csv >"$T/pmt.csv" \
	2>"$T/pmt.err"

# perf text: tid [cpu] period event: addr data_src |decoded...| weight ip [phys]
awk '{
	ev = $4; sub(/:$/, "", ev)
	n = split($0, parts, "|"); tail = parts[n]
	m = split(tail, t, " ")
	# t[1] is "N/A" etc. of BLK; then weight ip [phys]
	w = t[m - (m == 5 ? 2 : 1)]; ip = t[m - (m == 5 ? 1 : 0)]
	ph = (m == 5) ? t[m] : "-"
	printf "%s,%s,%s,%s,%s,%s,%s\n", $1, ev, ip, $5, $6, w, ph
}' "$T/perf.txt" >"$T/perf.norm"
PHYS=$(head -1 "$T/perf.norm" | awk -F, '{print ($7 == "-") ? 0 : 1}')
awk -F, -v phys="$PHYS" 'NR > 1 {
	ip = $6; sub(/^0x/, "", ip); a = $7; sub(/^0x/, "", a)
	p = $8; sub(/^0x/, "", p); d = $13; sub(/^0x/, "", d)
	printf "%s,%s,%s,%s,%s,%s,%s\n", $4, $1, ip, a, d, $10, phys ? p : "-"
}' "$T/pmt.csv" >"$T/pmt.norm"

np=$(wc -l <"$T/perf.norm")
nq=$(wc -l <"$T/pmt.norm")
if ! cmp -s "$T/perf.norm" "$T/pmt.norm"; then
	echo "FAIL: perf $np samples, pmutrace $nq samples; first differences (perf < > pmutrace):"
	diff "$T/perf.norm" "$T/pmt.norm" | head -20
	exit 1
fi
[ "$np" -gt 0 ] || { echo "FAIL: no samples"; exit 1; }
echo "OK: $np samples identical (seed $SEED mix $MIX midr $MIDR $*)"
