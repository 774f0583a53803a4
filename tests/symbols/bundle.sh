#!/bin/sh
# Self-contained recordings: a container that carries its ELF files and kallsyms
# (convert --container --bundle) decodes on a machine without them exactly as the original
# perf.data decodes with the files given (--symfs, --kallsyms): pmutrace's own output, and
# perf's (newest perf there is) on the original; zstd -dc still gives perf the trace;
# bundle add carries files in an existing container afterwards; a
# carried file whose build-id is not the recording's is not used; info lists the files.
#   [PERF=CMD] bundle.sh PMUTRACE SOURCE_DIR
set -eu
P=$1
SRC=$2
PERF=${PERF:-perf}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$SRC/tests/tools/symbols_fixture.sh"
kernel_trace "$T" 71 30
"$P" convert "$T/t.data" --container --bundle "$T/fx/app=/usr/bin/app" \
	--bundle "$T/fx/libfix.so=/usr/lib/libfix.so" --bundle-kallsyms "$T/kallsyms" -o "$T/t.pmt"
# the files are nowhere else: no --symfs, no build-id cache
export HOME="$T/nohome"
F=comm,tid,ip,sym,symoff,dso,srcline
"$P" script "$T/t.data" --symfs "$T/fs" --kallsyms "$T/kallsyms" -F $F >"$T/want"
"$P" script "$T/t.pmt" -F $F >"$T/got"
cmp -s "$T/want" "$T/got" || { echo "FAIL: the bundled container decodes differently:"; diff "$T/want" "$T/got" | head -5; exit 1; }
grep -q ' work_[0-9]*+0x' "$T/got" && grep -q ' lib_part_[0-9]*+0x' "$T/got" && grep -q ' kfn_[abc]+0x' "$T/got" ||
	{ echo "FAIL: the bundled symbols were not used"; exit 1; }
grep -q 'app\.c:[1-9]' "$T/got" || { echo "FAIL: no source line from the bundled file"; exit 1; }
"$P" report "$T/t.data" --symfs "$T/fs" --kallsyms "$T/kallsyms" --sort sym,dso >"$T/want"
"$P" report "$T/t.pmt" --sort sym,dso >"$T/got"
cmp -s "$T/want" "$T/got" || { echo "FAIL: report differs"; exit 1; }
# perf on the original with the files given says the same (script fields without srcline)
if $PERF version >/dev/null 2>&1; then
	case $($PERF version) in *"version 6.1"*) compat=6.1 ;; *) compat=7.3 ;; esac
	$PERF script -i "$T/t.data" --symfs "$T/fs" --kallsyms "$T/kallsyms" -F comm,tid,ip,sym,symoff,dso \
		>"$T/perf" 2>/dev/null
	"$P" script "$T/t.pmt" --perf-compat=$compat -F comm,tid,ip,sym,symoff,dso >"$T/got"
	cmp -s "$T/perf" "$T/got" || { echo "FAIL: differs from $($PERF version):"; diff "$T/perf" "$T/got" | head -5; exit 1; }
	# and perf reads the container through zstd -dc: the files are skipped
	if command -v zstd >/dev/null; then
		zstd -dc "$T/t.pmt" | $PERF script -i - -F ip 2>/dev/null | wc -l >"$T/n"
		[ "$(cat "$T/n")" = "$(wc -l <"$T/perf")" ] || { echo "FAIL: zstd -dc | perf script: $(cat "$T/n") lines"; exit 1; }
	fi
fi
# a carried copy with another build-id is refused
"$P" convert "$T/t.data" --container --bundle "$T/fx/app.nopie=/usr/bin/app" -o "$T/bad.pmt"
"$P" script "$T/bad.pmt" -F ip,sym 2>/dev/null | grep -q ' work_' &&
	{ echo "FAIL: a carried file with another build-id was used"; exit 1; }
"$P" info "$T/t.pmt" | grep -q '^embedded: ELF /usr/bin/app, [0-9]* bytes .*build-id [0-9a-f]\{40\}$' &&
	"$P" info "$T/t.pmt" | grep -q '^embedded: kallsyms ' || { echo "FAIL: info: $("$P" info "$T/t.pmt")"; exit 1; }
# bundle add: files carried by an existing container afterwards
"$P" convert "$T/t.data" --container -o "$T/later.pmt"
"$P" bundle add "$T/later.pmt" "$T/fx/app=/usr/bin/app" "$T/fx/libfix.so=/usr/lib/libfix.so" \
	--kallsyms "$T/kallsyms" || { echo "FAIL: bundle add exited $?"; exit 1; }
"$P" script "$T/t.pmt" -F $F >"$T/want"
"$P" script "$T/later.pmt" -F $F >"$T/got"
cmp -s "$T/want" "$T/got" || { echo "FAIL: bundle add: decodes differently"; exit 1; }
[ "$("$P" info "$T/later.pmt" | grep -c '^embedded: ')" = 3 ] || { echo "FAIL: bundle add: $("$P" info "$T/later.pmt")"; exit 1; }
# a file that is no ELF: refused, the container untouched
cp "$T/later.pmt" "$T/keep.pmt"
rc=0
"$P" bundle add "$T/later.pmt" "$T/kallsyms" 2>"$T/err" || rc=$?
[ $rc = 1 ] && grep -q "not an ELF file" "$T/err" && cmp -s "$T/later.pmt" "$T/keep.pmt" ||
	{ echo "FAIL: bundle add of a non-ELF: exit $rc, $(cat "$T/err")"; exit 1; }
rc=0
"$P" bundle add "$T/t.data" "$T/fx/app" 2>"$T/err" || rc=$?
[ $rc = 1 ] && grep -q "not a pmutrace container" "$T/err" || { echo "FAIL: bundle add to perf.data: exit $rc"; exit 1; }
# --bundle without --container is a usage error
rc=0
"$P" convert "$T/t.data" --bundle "$T/fx/app" -o "$T/x.data" 2>/dev/null || rc=$?
[ $rc = 129 ] || { echo "FAIL: --bundle without --container: exit $rc"; exit 1; }
echo "OK: the bundled container ($(stat -c %s "$T/t.pmt") bytes, $(stat -c %s "$T/t.data") as perf.data) decodes as the original with its files"
