#!/bin/sh
# report --c2c against perf c2c report --stdio on the same SPE trace (tests/perfdata/c2c_trace.c:
# 4 CPUs on 2 nodes, 4 threads, loads and stores sharing cache lines, every N1 data source
# and, on a HIP12 trace, HITM ones,
# PCs in the AArch64 fixture executable found through perf's build-id cache, data in an
# anonymous map and outside it): every display (-d peer, the arm64 default, and tot, lcl,
# rmt; --stats, --show-all, --no-source, --full-symbols) byte for byte, the Pareto section
# of offsets and code addresses included; CSV and
# JSON against the text's numbers; then two-process traces with -c, -N and --double-cl.
# The PCs start at work_01, after crtstuff's code (without line rows both print what the
# host's addr2line answers: symbols.srcline_fallback).
#   c2c_vs_perf.sh PMUTRACE C2C_TRACE SOURCE_DIR [PERF]
set -eu
P=$1
GEN=$2
SRC=$3
PERF=${4:-perf}
. "$SRC/tests/tools/symbols_fixture.sh"
$PERF version >/dev/null 2>&1 || { echo "SKIP: $PERF does not run"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fixture_build "$T/fx"
# perf c2c has no --symfs: both find the executable in the build-id cache under $HOME
export HOME="$T/home"
mkdir -p "$HOME"
$PERF buildid-cache -a "$T/fx/app" 2>/dev/null || { echo "FAIL: perf buildid-cache"; exit 1; }
set -- $(text_section "$T/fx/app")
work=0x$(${RE%readelf}nm "$T/fx/app" | awk '$3 == "work_01" { print $1 }')
set -- "$work" $(($1 + $2 - work))
case $($PERF version) in *" 6.1."*) compat=--perf-compat=6.1 ;; *) compat= ;; esac
n=0
# same FILE WANT LABEL OPTIONS...: perf c2c report --stdio (which must print WANT) and
# report --c2c byte for byte
same() {
	f=$1 want=$2 label=$3
	shift 3
	$PERF c2c report -i "$f" --stdio "$@" 2>"$T/perf.err" >"$T/perf"
	grep -q "$want" "$T/perf" || { echo "FAIL: perf printed no '$want' ($label)"; cat "$T/perf.err"; exit 1; }
	"$P" report --c2c "$f" "$@" $compat >"$T/pmt"
	cmp -s "$T/perf" "$T/pmt" ||
		{ echo "FAIL: $label differs (perf < > pmutrace)"; diff "$T/perf" "$T/pmt" | head -8; exit 1; }
	n=$((n + $(wc -l <"$T/perf")))
}
# N1 cores (peer snoops, no HITM) and HiSilicon HIP12 ones (local, peer-cluster and remote
# HITM), whose table perf 6.1 does not have
for seed in 1 7 hip12; do
	mix=n1
	[ $seed = hip12 ] && mix=hip12 && seed=3
	"$GEN" "$T/t$seed.data" "$1" "$2" "$(bid "$T/fx/app")" $seed 2000 $mix
	for d in default peer tot lcl rmt stats show-all-tot no-source full-symbols; do
		case $d in
		default) opt= ;;
		stats) opt=--stats ;;
		show-all-tot) opt="--show-all -d tot" ;;
		no-source|full-symbols) opt=--$d ;;
		*) opt="-d $d" ;;
		esac
		want="Shared Data Cache Line Table"
		[ $d = stats ] && want="c2c details"
		same "$T/t$seed.data" "$want" "seed $seed -d $d" $opt
	done
	# CSV and JSON: the same lines with the same counts as the text table (peer display)
	"$P" report --c2c "$T/t$seed.data" >"$T/text"
	# a container keeps the NUMA topology and gives the same report
	"$P" convert "$T/t$seed.data" --container -o "$T/t$seed.pmt"
	"$P" report --c2c "$T/t$seed.pmt" | cmp -s - "$T/text" ||
		{ echo "FAIL: seed $seed: the container's report differs from the perf.data's"; exit 1; }
	[ $mix = n1 ] || continue
	# the shared lines must be there: peer loads between CPUs and threads
	rows=$(awk '/^# \.\.\.\.\./ { on = 1; next } on && /^ +[0-9]+ +0x/ { c++ } END { print c + 0 }' "$T/text")
	[ "$rows" -ge 20 ] || { echo "FAIL: seed $seed: only $rows cache lines shown"; exit 1; }
	"$P" report --c2c "$T/t$seed.data" --csv >"$T/csv"
	"$P" report --c2c "$T/t$seed.data" --json >"$T/json"
	awk '/^# \.\.\.\.\./ { on = 1; next } on && /^ +[0-9]+ +0x/ {
		print $1, $2, $6, $7, $8, $9, $10, $11, $14, $15, $16, $17, $18, $20, $22 }' "$T/text" >"$T/from_text"
	awk -F, 'NR > 1 { print $1, $2, $7, $8, $9, $10, $11, $12, $15, $16, $17, $18, $19, $20, $21 }' "$T/csv" >"$T/from_csv"
	cmp -s "$T/from_text" "$T/from_csv" || { echo "FAIL: seed $seed: CSV differs from the table"; diff "$T/from_text" "$T/from_csv" | head; exit 1; }
	python3 - "$T/json" "$T/from_text" <<'EOF' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
rows = [l.split() for l in open(sys.argv[2])]
keys = ["tot_peer", "lcl_peer", "rmt_peer", "tot_recs", "tot_loads", "tot_stores",
        "stores_na", "ld_fbhit", "ld_l1hit", "ld_l2hit", "ld_lclhit", "ld_rmthit", "dram_lcl"]
got = [[str(c["index"]), c["cacheline"]] + [str(c[k]) for k in keys] for c in d["cachelines"]]
if got != rows:
    print("FAIL: JSON cache lines differ from the table"); sys.exit(1)
t = d["total"]
if t["nr_entries"] != t["load"] + t["store"] + t["noparse"]:
    print("FAIL: JSON total records are not loads + stores + unparsed"); sys.exit(1)
EOF
done
# Two processes (C2C_TRACE_PROCS=2: threads 1 and 3 in pid 4000, the executable mapped
# again as app-copy): perf keeps the cache lines of anonymous private memory apart per
# process and sorts equal lines by pid; in a private file map named by a build-id
# (C2C_TRACE_DATA_BID) they are one line for both, whose entries perf 7.3 names by their
# last sample's map (perf 6.1: the first's). -c/--coalesce chooses the Pareto's entries
# and columns, -N/-NN the node column, --double-cl 128-byte lines (not in perf 6.1)
for kind in anon-n1 anon-hip12 bid-n1; do
	mix=${kind#*-} bidenv=
	[ "${kind%-*}" = bid ] && bidenv="C2C_TRACE_DATA_BID=1"
	env C2C_TRACE_PROCS=2 $bidenv "$GEN" "$T/p$kind.data" "$1" "$2" "$(bid "$T/fx/app")" 5 2000 $mix
	for opt in "" "-c pid" "-c dso" "-c tid" "-c pid,tid" "-c iaddr,pid" "-c tid,pid,dso" "-c dso,iaddr" \
		"-c pid -d tot" "-N" "-NN" "-N -d tot" "-NN -d lcl" "-c pid,iaddr -N -d rmt" \
		"--double-cl" "--double-cl -d tot -c tid" "--stats"; do
		case "$opt" in *double-cl*) [ -n "$compat" ] && continue ;; esac
		same "$T/p$kind.data" "c2c details" "two processes ($kind) '$opt'" $opt
	done
done
# -g: perf c2c report takes perf's -g argument and, on samples without call chains (SPE's),
# prints the same report; a bad one is its usage error (129)
for g in "-g" "-g fractal,0.5,callee" "--call-graph=flat,0,count" "-g none" "-g caller,0.5,5"; do
	# shellcheck disable=SC2086
	same "$T/t1.data" "Shared Data Cache Line Table" "seed 1 $g" $g
done
for g in "-g bogus" "--call-graph=graph,x"; do
	prc=0 rc=0
	# shellcheck disable=SC2086
	$PERF c2c report -i "$T/t1.data" --stdio $g >/dev/null 2>&1 || prc=$?
	# shellcheck disable=SC2086
	"$P" report --c2c "$T/t1.data" $g >/dev/null 2>"$T/err" || rc=$?
	[ "$rc" = "$prc" ] && [ "$rc" = 129 ] || { echo "FAIL: report --c2c $g: status $rc, perf's $prc"; exit 1; }
done
# perf's refusal of a -c key that is none of tid, pid, iaddr, dso
"$P" report --c2c "$T/t1.data" -c sym >"$T/out" 2>"$T/err" && { echo "FAIL: -c sym accepted"; exit 1; }
grep -q "unrecognized sort token: sym" "$T/err" && [ ! -s "$T/out" ] ||
	{ echo "FAIL: -c sym: $(cat "$T/err")"; exit 1; }
echo "OK: $n lines identical to $($PERF version) c2c report --stdio (peer, tot, lcl, rmt, --stats, --show-all, --no-source, --full-symbols; -c tid/pid/iaddr/dso, -N, -NN, --double-cl; N1 and HIP12 traces, one and two processes, anonymous and build-id data maps; Pareto included); CSV and JSON agree"
