#!/bin/sh
# report on call-chain recordings (perf record -g): the Children and Self columns, the
# cumulative entries of the chains' callers (inlined functions included, perf 7.3) and the
# call graph below each entry, byte for byte as perf report --stdio prints them: perf 7.3
# and, with --perf-compat=6.1, perf 6.1 (no inlined frames), for the fixture
# fixtures/symbols/callchain.c recorded by perf 6.1 in file and pipe mode (a pipe: no
# Children, perf decides before it knows the events), pmutrace record -g's own container
# (read by perf through zstd -dc) and a chain through the vdso; with -g none, caller,
# callee, a threshold, -G, --no-children, --sort sym / comm / dso,sym; kernel callers;
# --inline and --no-inline. perf's closing
# tip (random) is dropped from its output.
#   report_callchain.sh PMUTRACE SOURCE_DIR [PERF73]
set -eu
P=$1
SRC=$2
PERF73=${3:-}
T=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v perf >/dev/null || { echo "SKIP: no perf 6.1"; exit 77; }
[ -x "$PERF73" ] || { echo "SKIP: no perf 7.3"; exit 77; }
rc=0
sh "$SRC/fixtures/symbols/build.sh" x86_64 "$T/fx" >/dev/null || rc=$?
[ $rc = 77 ] && { echo "SKIP: no compiler"; exit 77; }
[ $rc = 0 ] || fail "fixture build"
perf record -q -g -e cpu-clock:u -c 200000 -o "$T/cc.data" "$T/fx/callchain" 3000000 \
	>/dev/null 2>&1 || { echo "SKIP: perf record -g cannot record here"; exit 77; }
perf record -q -g -e cpu-clock:u -c 200000 -o - "$T/fx/callchain" 1000000 \
	>"$T/cc.pipe" 2>/dev/null || fail "perf record -g -o - failed where -o FILE worked"

# perf prints its fractal remainder "[...]" with " (inlined)" now and then (run to run: the
# name's symbol is malloc'ed uninitialised, ui/stdio/hist.c init_rem_hits; seen with 6.1 and
# 7.3): that suffix is dropped from perf's side only
untip() { sed '/^# (Tip/,$d' | sed '${/^#$/d}' | sed 's/--\[\.\.\.\] (inlined)$/--[...]/'; }
checked=0
# same LABEL PERF INPUT(for perf, "-" reads $T/in) PMUTRACE_INPUT COMPAT ARGS...
same() {
	label=$1 perf=$2 pin=$3 min=$4 compat=$5
	shift 5
	if [ "$pin" = - ]; then
		"$perf" report --stdio -i - "$@" <"$T/in" 2>/dev/null | untip >"$T/theirs"
	else
		"$perf" report --stdio -i "$pin" "$@" 2>/dev/null | untip >"$T/theirs"
	fi
	"$P" report ${compat:+"$compat"} "$min" "$@" >"$T/ours" || fail "$label: pmutrace report $* failed"
	# known differences of names, pair by pair (tests/tools/known_line_pairs.awk): libc's
	# .plt entries and ld.so's dl-find_object rows
	if [ "$(wc -l <"$T/theirs")" = "$(wc -l <"$T/ours")" ]; then
		paste -d '\n' "$T/theirs" "$T/ours" |
			awk -v plt=1 -f "$SRC/tests/tools/known_line_pairs.awk" >"$T/ours.plt"
		mv "$T/ours.plt" "$T/ours"
	fi
	cmp -s "$T/theirs" "$T/ours" || {
		echo "FAIL: $label report $* differs (perf < > pmutrace)"
		diff "$T/theirs" "$T/ours" | head -20
		exit 1
	}
	checked=$((checked + 1))
}

"$PERF73" report --stdio -i "$T/cc.data" 2>/dev/null >"$T/p"
grep -q 'mix_in (inlined)' "$T/p" || fail "perf 7.3 shows no inlined caller: the fixture lost its inlining"
grep -q '^# Children      Self' "$T/p" || fail "perf 7.3 shows no Children column"
# -g's print types, values, thresholds and print limits, with and without Children, and
# perf's prefixes of its words ("fl", "calle": caller) and numbers ("0.5x"); --percent-limit
# (the entries and, unless -g names one after it, the graphs' threshold; the columns as
# wide as for all entries) and --max-stack (the callers' end of the chain kept with the
# caller order, the callees' with the callee order); the address and srcline keys (frames
# told apart by address or by "file:line", printed after the name; perf 7.3's inlined
# frames each with their line, "??:0" for a line not known, which merges such frames)
CG_MODES="-g flat|-g folded|-g fractal|--no-children -g flat|--no-children -g folded|\
--no-children -g fractal|-g folded,0.5,caller,function,percent|\
--call-graph=fractal,0.5,callee|-g fractal,0,2|-g graph,0,1|-g flat,0,callee,count|\
-g fractal,period|-g fractal,0,count|-g folded,count,0|--no-children -g fractal,count,0|\
-G -g flat|-g fl|-g calle|-g graph,0.5x|-g n,bogus|--sort sym -g fractal|-g graph,0,3,1|\
--percent-limit 1|--percent-limit 60 -g fractal|--percent-limit 0.1 --no-children|\
-g graph,0 --percent-limit 5|--percent-limit 5 -g graph,0|--percent-limit 5 -g caller|\
--max-stack 2|--max-stack 3 --no-children|--max-stack 0|--max-stack -1|\
--max-stack 4 -g callee|--max-stack 3 -G|-g address|-g srcline|-g srcline,fractal|\
-g address,0,callee|--no-children -g srcline|-g folded,srcline|-g address,flat|\
--no-children -g address,fractal,0|-g s,count|--sort sym -g address|--children -g flat|\
--children -g fractal,0,count|--children -g folded,srcline|--children -g address,callee"
for args in "" "--no-children" "-g none" "-g caller" "-g callee" "-g graph,5" \
	"--call-graph=callee,0.01" "-G" "--no-children -G" "--sort sym" "--sort comm" \
	"--sort dso,sym" "--sort sym -g callee" "--no-children --sort dso"; do
	# shellcheck disable=SC2086
	same "perf 7.3" "$PERF73" "$T/cc.data" "$T/cc.data" "" $args
done
for args in "" "--no-children" "--children" "-g callee" "--sort sym"; do
	# shellcheck disable=SC2086
	same "perf 7.3 (pipe)" "$PERF73" "$T/cc.pipe" "$T/cc.pipe" "" $args
done
IFS='|'
for args in $CG_MODES; do
	IFS=' '
	# shellcheck disable=SC2086
	same "perf 7.3" "$PERF73" "$T/cc.data" "$T/cc.data" "" $args
	# shellcheck disable=SC2086
	same "perf 7.3 (pipe)" "$PERF73" "$T/cc.pipe" "$T/cc.pipe" "" $args
	IFS='|'
done
IFS=' '
# --no-inline: no frames (nor Children entries) of inlined functions, each address's own
# line for the srcline key; --inline is perf 7.3's default; the last of the two wins
for args in "--no-inline" "--no-inline --no-children -g caller,0.5,callee,srcline" \
	"--no-inline -g folded --sort sym" "--inline -g folded" "--no-inline --inline --no-children" \
	"--inline --no-inline -g address,fractal" "--no-inline --sort sym,srcline -g none --no-children"; do
	# shellcheck disable=SC2086
	same "perf 7.3" "$PERF73" "$T/cc.data" "$T/cc.data" "" $args
	# shellcheck disable=SC2086
	same "perf 7.3 (pipe)" "$PERF73" "$T/cc.pipe" "$T/cc.pipe" "" $args
done
same "perf 6.1" perf "$T/cc.data" "$T/cc.data" --perf-compat=6.1 --inline
same "perf 6.1" perf "$T/cc.data" "$T/cc.data" --perf-compat=6.1 --no-inline -g folded
for in in "$T/cc.data" "$T/cc.pipe"; do
	for args in "" "--no-children" "-g callee" "--sort sym" "--sort comm" "-g flat" \
		"-g folded" "-g fractal" "-g fractal,0,2,count" "--no-children -g folded,0,period"; do
		# shellcheck disable=SC2086
		same "perf 6.1" perf "$in" "$in" --perf-compat=6.1 $args
	done
done

# pmutrace's own container, which perf reads as the pipe it holds
if command -v zstd >/dev/null 2>&1; then
	"$P" record -q --no-bundle -g -e cpu-clock:u -c 200000 -o "$T/own.pmt" -- \
		"$T/fx/callchain" 1000000 || fail "pmutrace record -g failed where perf record -g worked"
	zstd -dc "$T/own.pmt" >"$T/in"
	for args in "" "--no-children" "-G" "--sort sym"; do
		# shellcheck disable=SC2086
		same "perf 7.3 (pmutrace record -g)" "$PERF73" - "$T/own.pmt" "" $args
	done
	same "perf 6.1 (pmutrace record -g)" perf - "$T/own.pmt" --perf-compat=6.1
fi

# chains through the vdso, named from the image in perf's build-id cache
if perf record -q -g -e cpu-clock:u -c 200000 -o "$T/vdso.data" "$T/fx/vdso_clock" 2000000 \
	>/dev/null 2>&1; then
	for args in "" "--no-children"; do
		# shellcheck disable=SC2086
		same "perf 7.3 (vdso)" "$PERF73" "$T/vdso.data" "$T/vdso.data" "" $args
	done
fi

# kernel and user frames (where this machine lets perf record the kernel): page faults and
# madvise calls of a small workload with frame pointers, recorded from 20 ms on (ld.so's
# start has names decode/symbols gives otherwise); perf 7.3 makes the entries of kernel
# callers [.], perf 6.1 [k]
cat >"$T/kw.c" <<'C'
#include <stdlib.h>
#include <sys/mman.h>
volatile long sink;
static char buf[1 << 20] __attribute__((aligned(4096)));
__attribute__((noinline)) void touch(char *p, size_t n) { for (size_t i = 0; i < n; i += 4096) p[i] = (char)i; }
__attribute__((noinline)) void churn(size_t n) { touch(buf, n); sink += buf[n / 2]; madvise(buf, n, MADV_DONTNEED); }
__attribute__((noinline)) void work(int r) { for (int i = 0; i < r; i++) churn(sizeof(buf)); }
int main(int argc, char **argv) { work(argc > 1 ? atoi(argv[1]) : 1000); return 0; }
C
if cc -O2 -g -fno-omit-frame-pointer -o "$T/kw" "$T/kw.c" 2>/dev/null &&
	perf record -q -g -e cpu-clock -c 100000 -D 20 -o "$T/k.data" "$T/kw" 1000 \
		>/dev/null 2>&1; then
	if "$PERF73" report --stdio -i "$T/k.data" -g none 2>/dev/null | grep -q 'kernel.kallsyms'; then
		for args in "" "--sort sym" "--no-children" "-g fractal" "-g fractal,0,2" \
			"-g folded,0" "--no-children -g flat,0,count" "--percent-limit 1" \
			"--max-stack 3" "--max-stack 2 -g callee"; do
			# shellcheck disable=SC2086
			same "perf 7.3 (kernel)" "$PERF73" "$T/k.data" "$T/k.data" "" $args
			# shellcheck disable=SC2086
			same "perf 6.1 (kernel)" perf "$T/k.data" "$T/k.data" --perf-compat=6.1 $args
		done
		# perf 6.1 names a line of a header by its unit's file (libc-start.c:74 for
		# libc_start_call_main.h:74), which pmutrace does not: the keys against 7.3
		for args in "-g srcline" "-g address" "--no-children -g srcline,fractal,0"; do
			# shellcheck disable=SC2086
			same "perf 7.3 (kernel)" "$PERF73" "$T/k.data" "$T/k.data" "" $args
		done
	else
		echo "note: no kernel samples here: kernel part skipped"
	fi
fi

# an event recorded without chains beside one with them, in either order: perf walks the
# chain of the last sample that had one (its thread-local cursor is left), so its callers
# get Children and no graph, their order among equal Children by that chain's depth (the
# sample's own entry takes none); an entry's [k] or [.] is what its first sample in that
# event made it
for evs in "cpu-clock:u task-clock/call-graph=no/u" "task-clock/call-graph=no/u cpu-clock:u"; do
	set -- $evs
	perf record -q -g -e "$1" -e "$2" -c 200000 -o "$T/mix.data" "$T/fx/callchain" 1000000 \
		>/dev/null 2>&1 || continue
	for args in "" "--no-children" "-g fractal" "-g folded" "-g callee" "--sort sym" \
		"-g srcline"; do
		# shellcheck disable=SC2086
		same "perf 7.3 (chains and none: $evs)" "$PERF73" "$T/mix.data" "$T/mix.data" "" $args
	done
done
if [ -f "$T/kw" ] && perf record -q -g -e cpu-clock -e 'task-clock/call-graph=no/' -c 100000 \
	-D 20 -o "$T/kmix.data" "$T/kw" 600 >/dev/null 2>&1; then
	for args in "" "--sort dso,sym" "-g fractal"; do
		# shellcheck disable=SC2086
		same "perf 7.3 (kernel, chains and none)" "$PERF73" "$T/kmix.data" "$T/kmix.data" "" $args
	done
fi

# --csv and --json: the Children and Self figures of the text (perf 7.3's, checked above),
# entry for entry in its order, with the children's periods; --no-children has none
if command -v python3 >/dev/null 2>&1; then
	for keys in comm,dso,sym sym; do
		"$P" report "$T/cc.data" --sort $keys >"$T/txt"
		"$P" report "$T/cc.data" --sort $keys --csv >"$T/csv"
		"$P" report "$T/cc.data" --sort $keys --json >"$T/json"
		python3 - "$T/txt" "$T/csv" "$T/json" "$keys" <<'PY' || fail "--csv/--json children columns ($keys)"
import csv, json, re, sys
txt, cs, js, keys = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(",")
rows = []
for line in open(txt):
    m = re.match(r"^ +([0-9.]+)% +([0-9.]+)%  (.*)$", line.rstrip("\n"))
    if m:
        rows.append((m.group(1), m.group(2), m.group(3).split()[-1]))
assert len(rows) > 4, rows
d = json.load(open(js))
assert d["children"] is True
E = d["events"][0]
total = E["period"]
j = [("%.2f" % (100.0 * x["children_period"] / total), "%.2f" % (100.0 * x["period"] / total),
      x["sym"].split()[-1]) for x in E["entries"]]
c = [("%.2f" % (100.0 * int(x["children_period"]) / total),
      "%.2f" % (100.0 * int(x["period"]) / total), x["sym"].split()[-1])
     for x in csv.DictReader(open(cs))]
for name, got in (("json", j), ("csv", c)):
    if got != rows:
        print("text:", rows, "\n%s:" % name, got)
        sys.exit(1)
assert sum(x["samples"] for x in E["entries"]) == E["samples"]
PY
		checked=$((checked + 1))
	done
	"$P" report "$T/cc.data" --sort sym --no-children --csv | head -1 | grep -q children &&
		fail "--no-children --csv has a children column"
fi

# a bad -g is refused as perf 7.3 refuses it (status 129, its usage and -g's help but
# after --call-graph=), before the file is read
for bad in "-g bogus" "-g graph,x" "--call-graph=caller,0.5,zz" "--call-graph zz" "-gzz" \
	"-g $T/cc.data"; do
	# shellcheck disable=SC2086
	"$PERF73" report --stdio -i "$T/cc.data" $bad >/dev/null 2>"$T/perr" && fail "perf 7.3 took report $bad"
	prc=$?
	rc=0
	# shellcheck disable=SC2086
	"$P" report "$T/cc.data" $bad >/dev/null 2>"$T/err" || rc=$?
	[ "$rc" = "$prc" ] || fail "report $bad: exit status $rc, perf 7.3's $prc"
	grep -q '^ Usage: perf report' "$T/perr" || fail "perf 7.3 report $bad printed no usage"
	sed -n '/^ Usage:/,$p' "$T/perr" | sed 's/perf report/pmutrace report/' >"$T/perr.help"
	sed -n '/^ Usage:/,$p' "$T/err" | cmp -s - "$T/perr.help" || fail "report $bad: -g's help differs from perf 7.3's"
	grep -q "^pmutrace report: -g: '" "$T/err" || fail "report $bad: the error names no word: $(head -1 "$T/err")"
done
"$P" report "$T/cc.data" --max-stack x >/dev/null 2>"$T/err" && fail "--max-stack x was accepted"
grep -q "option \`max-stack' expects a numerical value" "$T/err" || fail "--max-stack x: $(cat "$T/err")"
echo "OK: report of call-chain recordings equals perf's in $checked comparisons"
