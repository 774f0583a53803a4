#!/bin/sh
# --bundle=symbols: a container that carries only the symbol and line tables of its files
# decodes (script's symbols and source lines, report) as the original perf.data with the
# whole files given; what it carries is, by binutils' readelf, the file's symbol table and
# line table without its code; annotate says what is missing and takes the code from
# --symfs; record carries symbols by default and whole files with --bundle=full.
#   bundle_symbols.sh PMUTRACE SOURCE_DIR
set -eu
P=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
. "$SRC/tests/tools/symbols_fixture.sh"
kernel_trace "$T" 81 20
"$P" convert "$T/t.data" --container --bundle-symbols "$T/fx/app=/usr/bin/app" \
	--bundle-symbols "$T/fx/libfix.so=/usr/lib/libfix.so" --bundle-kallsyms "$T/kallsyms" -o "$T/s.pmt"
"$P" convert "$T/t.data" --container --bundle "$T/fx/app=/usr/bin/app" \
	--bundle "$T/fx/libfix.so=/usr/lib/libfix.so" --bundle-kallsyms "$T/kallsyms" -o "$T/f.pmt"
export HOME="$T/nohome"
F=comm,tid,ip,sym,symoff,dso,srcline
"$P" script "$T/t.data" --symfs "$T/fs" --kallsyms "$T/kallsyms" -F $F >"$T/want"
"$P" script "$T/s.pmt" -F $F >"$T/got"
cmp -s "$T/want" "$T/got" || { echo "FAIL: symbols-only bundle decodes differently:"; diff "$T/want" "$T/got" | head -5; exit 1; }
grep -q ' lib_part_[0-9]*+0x' "$T/got" && grep -q 'app\.c:[1-9]' "$T/got" && grep -q ' kfn_a+0x' "$T/got" ||
	fail "the carried symbols, lines or kallsyms were not used"
"$P" report "$T/t.data" --symfs "$T/fs" --kallsyms "$T/kallsyms" --sort sym,dso >"$T/want"
"$P" report "$T/s.pmt" --sort sym,dso >"$T/got"
cmp -s "$T/want" "$T/got" || fail "report --sort sym,dso differs"
"$P" info "$T/s.pmt" | grep -q '^embedded: ELF symbols /usr/bin/app, ' || fail "info: $("$P" info "$T/s.pmt")"
# what is carried, by binutils: the symbol table and line table of the file, no code
for f in app libfix.so; do
	case $f in app) name=/usr/bin/app ;; *) name=/usr/lib/libfix.so ;; esac
	"$P" bundle extract "$T/s.pmt" "$name" -o "$T/x.$f"
	# versions are found through .dynamic, which is not carried: names compared without them
	$RE -sW "$T/fx/$f" | sed 's/@.*//' >"$T/r.want"
	$RE -sW "$T/x.$f" 2>/dev/null | sed 's/@.*//' >"$T/r.got"
	cmp -s "$T/r.want" "$T/r.got" || { echo "FAIL: $f: readelf -s of the carried copy differs"; diff "$T/r.want" "$T/r.got" | head; exit 1; }
	$RE --debug-dump=decodedline "$T/fx/$f" 2>/dev/null | tail -n +3 >"$T/r.want"
	$RE --debug-dump=decodedline "$T/x.$f" 2>/dev/null | tail -n +3 >"$T/r.got"
	[ -s "$T/r.want" ] && cmp -s "$T/r.want" "$T/r.got" || fail "$f: the line table differs"
	$RE -SW "$T/fx/$f" | awk '{ sub(/^ *\[ *[0-9]+\] */, "") } $1 == ".text" { print $5 }' >"$T/r.want"
	$RE -SW "$T/x.$f" | awk '{ sub(/^ *\[ *[0-9]+\] */, "") } $1 == ".text" && $2 == "NOBITS" { print $5 }' >"$T/r.got"
	[ -s "$T/r.got" ] && cmp -s "$T/r.want" "$T/r.got" || fail "$f: .text is not NOBITS of the original size"
	[ "$(wc -c <"$T/x.$f")" -lt "$(wc -c <"$T/fx/$f")" ] || fail "$f: the carried copy is not smaller"
	# the call frame tables, which a --call-graph dwarf recording is unwound with
	$RE --debug-dump=frames "$T/fx/$f" 2>/dev/null | tail -n +3 >"$T/r.want"
	$RE --debug-dump=frames "$T/x.$f" 2>/dev/null | tail -n +3 >"$T/r.got"
	grep -q ' FDE ' "$T/r.want" && cmp -s "$T/r.want" "$T/r.got" ||
		fail "$f: the call frame tables (readelf --debug-dump=frames) differ"
	# the copy's sections are laid out anew: its .plt entries (NAME@plt) stay at the
	# file's offsets, where samples look for them
	"$P" symbols "$T/fx/$f" >"$T/r.want"
	"$P" symbols "$T/x.$f" >"$T/r.got"
	grep -q '@plt$' "$T/r.want" && cmp -s "$T/r.want" "$T/r.got" ||
		{ diff "$T/r.want" "$T/r.got" | head -5; fail "$f: the carried copy's symbols differ"; }
done
# this machine's libc (x86-64: IFUNC .plt entries as memcpy@plt, .plt.got's malloc@plt)
libc=$(ldd /bin/sh 2>/dev/null | awk '/libc\.so/ { print $3 }')
if [ -f "$libc" ]; then
	"$P" convert "$T/t.data" --container --bundle-symbols "$libc" -o "$T/libc.pmt"
	"$P" bundle extract "$T/libc.pmt" "$libc" -o "$T/x.libc"
	"$P" symbols "$libc" >"$T/r.want"
	"$P" symbols "$T/x.libc" >"$T/r.got"
	grep -q '@plt$' "$T/r.want" && cmp -s "$T/r.want" "$T/r.got" ||
		{ diff "$T/r.want" "$T/r.got" | head -5; fail "$libc: the carried copy's symbols differ"; }
fi
# the whole file is extracted byte for byte from a full bundle
"$P" bundle extract "$T/f.pmt" "$(bid "$T/fx/app")" -o "$T/x.full"
cmp -s "$T/x.full" "$T/fx/app" || fail "bundle extract by build-id of a whole file differs"
rc=0
"$P" bundle extract "$T/f.pmt" /usr/bin/none -o "$T/x.none" 2>"$T/err" || rc=$?
[ $rc = 1 ] && grep -q "carries no file named or with build-id '/usr/bin/none'" "$T/err" && [ ! -e "$T/x.none" ] ||
	fail "extract of a file not carried: exit $rc, $(cat "$T/err")"
# annotate: no code in the container, said so; the code from --symfs
"$P" annotate "$T/s.pmt" >"$T/ann" 2>&1 || true
grep -q 'symbols only (--bundle=symbols)' "$T/ann" || fail "annotate did not say why there is no code"
"$P" annotate "$T/f.pmt" >"$T/want" 2>&1
"$P" annotate "$T/s.pmt" --symfs "$T/fs" >"$T/got" 2>&1
cmp -s "$T/want" "$T/got" || fail "annotate with --symfs differs from the full bundle's"
# bundle add --symbols-only; a whole copy added later wins
"$P" convert "$T/t.data" --container -o "$T/later.pmt"
"$P" bundle add "$T/later.pmt" --symbols-only "$T/fx/app=/usr/bin/app"
"$P" info "$T/later.pmt" | grep -q '^embedded: ELF symbols /usr/bin/app' || fail "bundle add --symbols-only"
"$P" bundle add "$T/later.pmt" "$T/fx/app=/usr/bin/app"
"$P" annotate "$T/later.pmt" --symbol work_04 2>&1 | grep -q 'symbols only' && fail "the whole copy was not preferred"
# record: symbols by default, whole files with --bundle=full (a real workload, software event)
if "$P" record -e cpu-clock -c 100000 -o "$T/r.pmt" -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' 2>"$T/rec.err"; then
	grep -q 'bundled: .*(their symbol and line tables)' "$T/rec.err" || fail "record summary: $(cat "$T/rec.err")"
	"$P" info "$T/r.pmt" | grep -q '^embedded: ELF symbols /' || fail "record did not carry symbols"
	"$P" record -e cpu-clock -c 100000 --bundle=full -o "$T/rf.pmt" -- sh -c 'true' 2>/dev/null
	"$P" info "$T/rf.pmt" | grep -q '^embedded: ELF /' || fail "record --bundle=full did not carry files"
	s=$(wc -c <"$T/r.pmt") f=$(wc -c <"$T/rf.pmt")
	[ "$s" -lt "$f" ] || fail "the symbols bundle ($s bytes) is not smaller than the full one ($f)"
	echo "record: container $s bytes with symbols, $f with whole files"
else
	echo "record skipped: $(tail -1 "$T/rec.err")"
fi
echo "ok: symbols-only bundles decode as the files; readelf agrees on what is carried"
