#!/bin/sh
# The kernel's symbols from a vmlinux file (--vmlinux) and a module's from its .ko, against
# perf 7.3 on the same traces: an SPE trace of pid 4242 with half its PCs in the kernel,
# whose map ([kernel.kallsyms]_text) says the kernel ran 0x41f0000 above the fixture's link
# address (KASLR), so every symbol found proves the relocation by _text. The fixtures
# (fixtures/symbols/vmlinux.c, kmod.c) pass for a kernel and a module: three functions
# each, global, local, weak.
#   bid       the trace's HEADER_BUILD_ID has the kernel's build-id, the file's: used
#   nobid     no kernel build-id in the trace: used
#   mismatch  another build-id: not used (a warning naming the file, exit 2), nothing else
#             is tried: the kernel's samples stay [unknown]
#   kallsyms  --kallsyms given too: it wins, as in perf
#   module    the upper half of the kernel PCs in a module's map (MMAP pid -1, its path
#             under /lib/modules, its build-id in the table), the .ko under --symfs: its
#             symbols placed from its .text (perf's map pgoff), named [fake_mod] in report
#   module-mismatch  the .ko under --symfs has another build-id: not used
# script -F ip,sym,symoff,dso and report --sort sym,dso and dso,sym, byte for byte.
#   vmlinux.sh PMUTRACE SOURCE_DIR PERF73
set -eu
P=$1
SRC=$2
PERF=${3:-}
. "$SRC/tests/tools/symbols_fixture.sh"
[ -n "$PERF" ] && "$PERF" version >/dev/null 2>&1 || { echo "SKIP: perf 7.3 does not run"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
fixture_build "$T/fx"
VM=$T/fx/vmlinux
KBID=$(bid "$VM")
[ -n "$KBID" ] || fail "the vmlinux fixture has no build-id"
# the synthetic kernel PCs fall in [0xffffffc084200000, +2 MiB): with _text at
# 0xffffffc0841f0000 that is kfn_a, kfn_b and kfn_c
KTEXT=0xffffffc0841f0000
"$P" synth --records 3000 --seed 17 --kernel-pct 50 --text $((FIX_APP)),4096 -o "$T/k.spe"
mk() { # $1: name, $2: the kernel map's build-id ("" = none)
	"$P" convert --raw "$T/k.spe" --midr 0x410fd0c0 --pid 4242 --comm app \
		--mmap $FIX_APP,0x10000,0,/usr/bin/app --kernel-mmap "$KTEXT,0x1000000${2:+,$2}" \
		-o "$T/$1.data"
}
mk bid "$KBID"
mk nobid ""
mk mismatch 00112233445566778899aabbccddeeff00112233
# kallsyms whose symbols cover the PCs (its _etext past them: where perf's kallsyms map
# ends is not what this test is about)
printf 'ffffffc0841f0000 T _text\nffffffc084200000 T zz_a\nffffffc084380000 t zz_b\nffffffc085000000 T _etext\n' >"$T/kallsyms"
n=0
compare() { # $1: case, $2: trace, $3: exit status pmutrace must give, then options
	name=$1 data=$2 want=$3
	shift 3
	for f in ip,sym,symoff,dso ip,sym,dso; do
		$PERF script -i "$data" "$@" -F $f >"$T/perf.txt" 2>/dev/null
		rc=0
		"$P" script "$data" "$@" -F $f >"$T/pmt.txt" 2>"$T/pmt.err" || rc=$?
		[ $rc = "$want" ] || fail "$name: script exit status $rc, want $want ($(cat "$T/pmt.err"))"
		cmp -s "$T/perf.txt" "$T/pmt.txt" || {
			echo "FAIL: $name: script -F $f differs (perf < > pmutrace)"
			diff "$T/perf.txt" "$T/pmt.txt" | head -6; exit 1; }
		n=$((n + $(wc -l <"$T/perf.txt")))
	done
	for s in sym,dso dso,sym; do
		$PERF report -i "$data" "$@" --stdio --sort $s 2>/dev/null | sed '/^# (Tip/,$d' |
			sed '$d' >"$T/perf.txt"
		"$P" report "$data" "$@" --sort $s >"$T/pmt.txt" 2>/dev/null || true
		cmp -s "$T/perf.txt" "$T/pmt.txt" || {
			echo "FAIL: $name: report --sort $s differs (perf < > pmutrace)"
			diff "$T/perf.txt" "$T/pmt.txt" | head -6; exit 1; }
	done
}
compare bid "$T/bid.data" 0 --vmlinux "$VM"
"$P" script "$T/bid.data" --vmlinux "$VM" -F ip,sym >"$T/syms"
for s in kfn_a kfn_b kfn_c; do
	grep -q " $s\$" "$T/syms" || fail "bid: no sample on $s"
done
compare nobid "$T/nobid.data" 0 -k "$VM"
compare mismatch "$T/mismatch.data" 2 --vmlinux "$VM"
grep -q "vmlinux: build-id $KBID, the recording's kernel has 0011" "$T/pmt.err" ||
	fail "mismatch: the warning does not say the file and both build-ids: $(cat "$T/pmt.err")"
"$P" script "$T/mismatch.data" --vmlinux "$VM" -F ip,sym 2>/dev/null | grep -q 'kfn_' &&
	fail "mismatch: the file was used"
compare kallsyms "$T/bid.data" 0 --vmlinux "$VM" --kallsyms "$T/kallsyms"
"$P" script "$T/bid.data" --vmlinux "$VM" --kallsyms "$T/kallsyms" -F ip,sym | grep -q ' zz_b$' ||
	fail "kallsyms: not used"
# modules: the kernel map ends where the module's begins
MOD=/lib/modules/6.1.0-test/kernel/drivers/fake-mod.ko
mkdir -p "$T/mfs/lib/modules/6.1.0-test/kernel/drivers" "$T/bad/lib/modules/6.1.0-test/kernel/drivers"
cp "$T/fx/fake-mod.ko" "$T/mfs$MOD"
# at the module's path in the other tree, an ELF with another build-id
cp "$T/fx/libfix.so" "$T/bad$MOD"
"$P" convert --raw "$T/k.spe" --midr 0x410fd0c0 --pid 4242 --comm app \
	--mmap $FIX_APP,0x10000,0,/usr/bin/app --kernel-mmap "$KTEXT,0x110000,$KBID" \
	--module-mmap "0xffffffc084300000,0x100000,$MOD,$(bid "$T/fx/fake-mod.ko")" -o "$T/mod.data"
compare module "$T/mod.data" 0 --vmlinux "$VM" --symfs "$T/mfs"
"$P" script "$T/mod.data" --vmlinux "$VM" --symfs "$T/mfs" -F ip,sym >"$T/syms"
for s in kfn_a mfn_a mfn_b mfn_c; do
	grep -q " $s\$" "$T/syms" || fail "module: no sample on $s"
done
grep -q '\[fake_mod\]' "$T/pmt.txt" || fail "module: report does not call it [fake_mod]"
compare module-mismatch "$T/mod.data" 0 --vmlinux "$VM" --symfs "$T/bad"
"$P" script "$T/mod.data" --vmlinux "$VM" --symfs "$T/bad" -F ip,sym 2>/dev/null | grep -q ' mfn_' &&
	fail "module-mismatch: the file was used"
# compressed modules as distributions ship them (Debian: .ko.xz), read by their build-id as
# perf reads them (it decompresses to a temporary file). perf 7.3 decompresses gzip and xz
# modules only: a .ko.zst's samples stay [unknown] there, so the zstd case is checked
# against the plain .ko's symbols (which equal perf's above)
"$P" script "$T/mod.data" --vmlinux "$VM" --symfs "$T/mfs" -F ip,sym,symoff >"$T/plain.txt"
for z in xz gz zst; do
	case $z in xz) xz -c "$T/fx/fake-mod.ko" ;; gz) gzip -c "$T/fx/fake-mod.ko" ;;
	zst) zstd -q -c "$T/fx/fake-mod.ko" ;; esac \
		>"$T/mfs$MOD.$z" || fail "$z: cannot compress the module"
	"$P" convert --raw "$T/k.spe" --midr 0x410fd0c0 --pid 4242 --comm app \
		--mmap $FIX_APP,0x10000,0,/usr/bin/app --kernel-mmap "$KTEXT,0x110000,$KBID" \
		--module-mmap "0xffffffc084300000,0x100000,$MOD.$z,$(bid "$T/fx/fake-mod.ko")" \
		-o "$T/mod-$z.data"
	rm -f "$T/mfs$MOD"
	if [ $z != zst ]; then
		compare "module-$z" "$T/mod-$z.data" 0 --vmlinux "$VM" --symfs "$T/mfs"
		grep -q '\[fake_mod\]' "$T/pmt.txt" || fail "module-$z: report does not call it [fake_mod]"
	fi
	"$P" script "$T/mod-$z.data" --vmlinux "$VM" --symfs "$T/mfs" -F ip,sym,symoff |
		cmp -s - "$T/plain.txt" || fail "module-$z: symbols differ from the plain .ko's"
	"$P" script "$T/mod-$z.data" --vmlinux "$VM" --symfs "$T/mfs" -F ip,sym >"$T/syms"
	for s in mfn_a mfn_b mfn_c; do
		grep -q " $s\$" "$T/syms" || fail "module-$z: no sample on $s"
	done
done
# a damaged one: a warning naming it, its samples unresolved, exit 2
head -c 300 "$T/mfs$MOD.xz" >"$T/cut.xz" && mv "$T/cut.xz" "$T/mfs$MOD.xz"
rc=0
"$P" script "$T/mod-xz.data" --vmlinux "$VM" --symfs "$T/mfs" -F ip,sym >"$T/syms" 2>"$T/pmt.err" || rc=$?
[ $rc = 2 ] && grep -q "fake-mod.ko.xz: cannot decompress it" "$T/pmt.err" ||
	fail "damaged .ko.xz: exit $rc, $(cat "$T/pmt.err")"
grep -q ' mfn_' "$T/syms" && fail "damaged .ko.xz: its symbols were used"
echo "OK: --vmlinux and modules: $n script lines and report --sort sym,dso / dso,sym equal perf 7.3's (build-id, none, mismatch, with --kallsyms; a module, its build-id right and wrong, compressed by xz and gzip; by zstd as the plain .ko); a damaged .ko.xz is named"
