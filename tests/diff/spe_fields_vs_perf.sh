#!/bin/sh
# script -F against perf script -F, byte for byte: field lists in several orders and
# subsets, on traces whose threads perf knows (COMM), does not know (pid -1), or that are
# the idle task, with and without CONTEXT packets. With perf >= 6.15 also brstack,
# brstacksym and brstackoff (and brstack's place before phys_addr and insnlen); with
# perf >= 7 flags, misc, insnlen and the fields perf takes but prints nothing for on SPE
# samples, and perf's refusal of tod and data_page_size; the branch stack between the ip's
# columns and insnlen/phys_addr, whatever the order -F names them in.
#   [PERF=CMD] [COMPAT=VER] spe_fields_vs_perf.sh PMUTRACE
set -eu
P=$1
PERF=${PERF:-perf}
COMPAT=${COMPAT:-6.1}
$PERF version >/dev/null 2>&1 || { echo "SKIP: $PERF does not run"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$P" synth --records 2000 --seed 7 --mix n1 -o "$T/plain.spe"
"$P" synth --records 2000 --seed 9 --mix branches --context -o "$T/ctx.spe"
FIELDS="tid,time,ip pid,tid,cpu,time,event,ip ip,event,tid event,addr,ip cpu,event,period,weight
time,event,data_src event,phys_addr tid,event addr,data_src weight,ip ip,phys_addr period,event
pid,event pid,tid event,data_src,weight pid,tid,cpu,time,period,event,addr,data_src,weight,ip,phys_addr
comm,tid,ip comm,pid,tid,event,ip,sym,symoff,dso"
ITRACE=bfmtaMi1i
if $PERF version | grep -q 'version [7-9]\|version 6\.1[5-9]'; then
	# brstack before phys_addr; brstacksym names no symbol here (the PCs are in no map)
	FIELDS="$FIELDS event,ip,brstack tid,brstack ip,sym,dso,brstack brstack,dso event,ip,brstacksym tid,brstackoff
phys_addr,event,brstack,ip event,ip,dso,brstack"
	ITRACE=bfmtaMi1il
fi
if $PERF version | grep -q 'version [7-9]'; then
	FIELDS="$FIELDS event,flags cpu,misc,time,period,event,flags,addr,ip,insnlen,phys_addr
pid,tid,misc,event,flags,ip,sym,dso,insnlen insnlen,ip,brstack,phys_addr
event,ip,insn,callindent,ipc,iregs,synth,vcpu,machine_pid,trace
event,ip,brstack,phys_addr event,brstack,insnlen brstack,phys_addr,insnlen,srcline,ip
phys_addr,insnlen,brstack,dsoff,dso,symoff,sym,ip,weight,data_src,addr,flags,event,period,time,misc,cpu,tid,pid,comm"
	REFUSED="tod data_page_size code_page_size cgroup uregs"
fi
n=0
for spe in plain ctx; do
	for threads in "--pid 777 --comm work" "--pid 777" "--tid 0 --pid 0"; do
		# shellcheck disable=SC2086
		"$P" convert --raw "$T/$spe.spe" --midr 0x410fd0c0 $threads -o "$T/a.data"
		for f in $FIELDS; do
			$PERF script -i "$T/a.data" --itrace=$ITRACE -F "$f" >"$T/perf.txt" 2>/dev/null
			"$P" script "$T/a.data" --itrace=$ITRACE --perf-compat="$COMPAT" -F "$f" \
				>"$T/pmt.txt"
			[ -s "$T/perf.txt" ] || { echo "FAIL: perf printed nothing for -F $f"; exit 1; }
			if ! cmp -s "$T/perf.txt" "$T/pmt.txt"; then
				echo "FAIL: -F $f on $spe [$threads] differs (perf < > pmutrace)"
				diff "$T/perf.txt" "$T/pmt.txt" | head -6
				exit 1
			fi
			n=$((n + $(wc -l <"$T/perf.txt")))
		done
		# the default layout of SPE's samples is perf's -F of these fields, in the
		# release's widths (pid/tid 5 columns before perf 6.5, 7 from it); without l,
		# which adds the branch stack
		F=tid,cpu,time,period,event,addr,data_src,weight,ip,phys_addr
		$PERF script -i "$T/a.data" --itrace=${ITRACE%l} -F $F >"$T/perf.txt" 2>/dev/null
		"$P" script "$T/a.data" --itrace=${ITRACE%l} --perf-compat="$COMPAT" >"$T/pmt.txt"
		cmp -s "$T/perf.txt" "$T/pmt.txt" || {
			echo "FAIL: default layout on $spe [$threads] is not perf's -F $F (perf < > pmutrace)"
			diff "$T/perf.txt" "$T/pmt.txt" | head -6; exit 1; }
	done
done
# names perf does not have are refused as perf refuses them ("Invalid field requested."),
# naming the field
for f in ipsym sym_size; do
	$PERF script -i "$T/a.data" -F ip,$f >/dev/null 2>&1 && { echo "FAIL: perf took -F $f"; exit 1; }
	if "$P" script "$T/a.data" -F ip,$f >/dev/null 2>"$T/err"; then
		echo "FAIL: -F ip,$f accepted"; exit 1
	fi
	grep -q "$f" "$T/err" || { echo "FAIL: -F ip,$f error does not name $f"; cat "$T/err"; exit 1; }
done
# what perf refuses on these traces is refused, naming the field (tod: in perf's words)
for f in ${REFUSED:-}; do
	$PERF script -i "$T/a.data" -F event,$f >/dev/null 2>"$T/perf_err" && {
		echo "FAIL: perf printed -F $f"; exit 1; }
	"$P" script "$T/a.data" -F event,$f >/dev/null 2>"$T/err" && {
		echo "FAIL: -F event,$f accepted"; exit 1; }
	grep -q "$f" "$T/err" || { echo "FAIL: -F $f error does not name it: $(cat "$T/err")"; exit 1; }
done
if [ -n "${REFUSED:-}" ]; then
	$PERF script -i "$T/a.data" -F tod 2>&1 | grep "Can't provide 'tod'" >"$T/perf_tod"
	"$P" script "$T/a.data" -F tod 2>&1 | grep -qF "$(cat "$T/perf_tod")" ||
		{ echo "FAIL: -F tod: not perf's message '$(cat "$T/perf_tod")'"; exit 1; }
fi
echo "OK: $n lines identical to $($PERF version) over $(echo $FIELDS | wc -w) field lists"
