#!/bin/sh
# -F misc, tod and insnlen on a trace's own samples (cpu-clock of a shell loop), against
# perf 6.1 (--perf-compat=6.1) and perf 7.3 on their own recordings: misc's cpumode letters
# from each record's header.misc, insnlen from the mapped files' bytes (user code; 0 in the
# kernel, as perf without a vmlinux), tod from HEADER_CLOCK_DATA (perf record -k mono writes it) in
# two time zones, and perf's refusal of tod, in its words, on a recording without it;
# convert's outputs (file, pipe, container) keep the clock data for perf 7.3's -F tod;
# pmutrace record -k writes it as perf record does.
#   own_fields_vs_perf.sh PMUTRACE [PERF73]
set -u
pmt=$1
p73=${2:-}
. "$(dirname "$0")/own_samples_lib.sh"
loop='i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done'
perf record -q -k mono -e cpu-clock -c 100000 -o "$tmp/k61.data" -- sh -c "$loop" \
	>/dev/null 2>&1 || { echo "SKIP: perf record not permitted"; exit 77; }
perf record -q -e cpu-clock -c 100000 -o "$tmp/n61.data" -- sh -c "$loop" >/dev/null 2>&1 ||
	fail "perf record without -k"
files="$tmp/k61.data"
if [ -n "$p73" ] && [ -x "$p73" ]; then
	"$p73" record -q -k mono -e cpu-clock -c 100000 -o "$tmp/k73.data" -- sh -c "$loop" \
		>/dev/null 2>&1 || fail "perf 7.3 record -k mono"
	files="$files $tmp/k73.data"
fi
# no sym: libc's and ld.so's symbols are a known difference (plain_vs_perf.sh says why)
FIELDS="comm,tid,misc,time,ip misc,event tod,time,event tid,misc,tod,ip,dso
comm,pid,tid,tod,time,period,event,ip,dso,misc ip,insnlen comm,misc,ip,dso,insnlen"
n=0
for f in $files; do
	for perf in perf "$p73"; do
		[ -n "$perf" ] || continue
		case "$perf:$f" in
		perf:*k73.data) continue ;; # perf 6.1 refuses perf 7.3's file format
		perf:*) compat=--perf-compat=6.1 ;;
		*) compat= ;;
		esac
		for F in $FIELDS; do
			for tz in UTC Asia/Kolkata; do
				TZ=$tz $perf script -i "$f" -F $F >"$tmp/want" 2>/dev/null ||
					fail "$perf script -F $F $f"
				# shellcheck disable=SC2086
				TZ=$tz "$pmt" script "$f" -F $F $compat >"$tmp/got" 2>"$tmp/err" ||
					fail "script -F $F $f: $(cat "$tmp/err")"
				same "script -F $F $f (TZ=$tz) vs $perf"
				n=$((n + $(wc -l <"$tmp/want")))
			done
		done
	done
done
grep -q ' U      *[0-9]' "$tmp/got" || fail "no user-mode sample (U) in $f"
grep -q 'ilen: [1-9]' "$tmp/got" || fail "no instruction length decoded in $f"
# convert keeps the clock data where perf reads it: a perf.data file, a pipe, a container
# (perf reads it through zstd -dc)
if [ -n "$p73" ] && [ -x "$p73" ] && command -v zstd >/dev/null 2>&1; then
	for f in $files; do
		TZ=UTC "$p73" script -i "$f" -F tid,tod,time,event >"$tmp/want" 2>/dev/null
		"$pmt" convert "$f" -o "$tmp/c.data" 2>/dev/null || fail "convert $f"
		TZ=UTC "$p73" script -i "$tmp/c.data" -F tid,tod,time,event >"$tmp/got" 2>/dev/null
		same "perf 7.3 -F tod on convert of $f"
		"$pmt" convert "$f" -o - 2>/dev/null | TZ=UTC "$p73" script -i - -F tid,tod,time,event \
			>"$tmp/got" 2>/dev/null
		same "perf 7.3 -F tod on convert -o - of $f"
		"$pmt" convert "$f" --container -o "$tmp/c.pmt" 2>/dev/null || fail "convert --container $f"
		zstd -qdc "$tmp/c.pmt" | TZ=UTC "$p73" script -i - -F tid,tod,time,event >"$tmp/got" 2>/dev/null
		same "perf 7.3 -F tod on convert --container of $f"
		TZ=UTC "$pmt" script "$tmp/c.pmt" -F tid,tod,time,event >"$tmp/got" 2>/dev/null
		same "-F tod on convert --container of $f"
	done
fi
# pmutrace record -k mono: its clock data dates the samples for perf 7.3 as for pmutrace,
# and the first one within a minute of the clock on the wall when the recording began
if [ -n "$p73" ] && [ -x "$p73" ] && command -v zstd >/dev/null 2>&1; then
	t0=$(date +%s)
	"$pmt" record -q -k mono -e cpu-clock -c 100000 -o "$tmp/r.pmt" -- sh -c "$loop" \
		>/dev/null 2>&1 || fail "pmutrace record -k mono"
	zstd -qdc "$tmp/r.pmt" | TZ=UTC "$p73" script -i - -F tid,tod,time,event,ip,insnlen \
		>"$tmp/want" 2>/dev/null
	TZ=UTC "$pmt" script "$tmp/r.pmt" -F tid,tod,time,event,ip,insnlen >"$tmp/got" 2>/dev/null
	same "-F tod,insnlen on pmutrace record -k mono vs perf 7.3"
	first=$(TZ=UTC date -d "$(awk 'NR == 1 { print $2, $3 }' "$tmp/got")" +%s) ||
		fail "tod '$(head -1 "$tmp/got")' is no date"
	[ $((first - t0)) -ge -1 ] && [ $((first - t0)) -le 60 ] ||
		fail "first sample's tod $first is not within a minute after $t0"
fi
# without HEADER_CLOCK_DATA: perf's refusal, in its words
msg=$(perf script -i "$tmp/n61.data" -F tod 2>&1 | grep "Can't provide 'tod'")
[ -n "$msg" ] || fail "perf 6.1 printed tod without clock data"
"$pmt" script "$tmp/n61.data" -F tod >/dev/null 2>"$tmp/err" && fail "-F tod accepted without clock data"
grep -qF "$msg" "$tmp/err" || fail "-F tod: not perf's message: $(cat "$tmp/err")"
echo "OK: $n lines identical to perf's -F misc/tod"
