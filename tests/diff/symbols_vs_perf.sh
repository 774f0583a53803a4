#!/bin/sh
# Symbolized samples against perf on the same file: an SPE trace whose PCs fall in the
# project's AArch64 fixtures (an executable and a shared library, mapped by build-id MMAP2
# records) and in the kernel. script -F with sym/symoff/dso/comm and report --sort with
# several keys, byte for byte (with perf 7.3 also dsoff), where the files are found:
#   symfs      --symfs with the files at their paths
#   debuglink  --symfs with the executable stripped, its .gnu_debuglink file beside it
#   debugdir   --symfs with the executable stripped, its debug file under
#              /usr/lib/debug/.build-id
#   cache      no --symfs: perf's build-id cache under $HOME/.debug (perf buildid-cache)
#   feature    (pmutrace only) the build-ids in the HEADER_BUILD_ID table, as perf record
#              writes them by default
#   mismatch   the executable under --symfs has another build-id than the trace says:
#              neither tool uses it
#   nobid      plain MMAP2 records (no build-id): the file under --symfs is taken
#   kallsyms   the kernel's map and --kallsyms FILE (also with _text relocated)
# perf 6.1 resolves some addresses in .plt to _init (its _init stretches over .plt and its
# rb-tree search meets either), so with perf 6.1 the PCs avoid .plt.
#   [PERF=CMD] [COMPAT=VER] symbols_vs_perf.sh PMUTRACE SOURCE_DIR
set -eu
P=$1
SRC=$2
. "$SRC/tests/tools/symbols_fixture.sh"
perf_oracle
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fixture_build "$T/fx"
sec() { $RE -SW "$1" | awk -v s="$2" '{ sub(/^ *\[ *[0-9]+\] */, "") } $1 == s { print "0x" $3, "0x" $5 }'; }
APP_BASE=0xaaaad0000000
LIB_BASE=0xffff80000000
set -- $(text_load "$T/fx/app"); app_off=$1 app_len=$3
set -- $(text_load "$T/fx/libfix.so"); lib_len=$3
# the PCs: all of app's text (or, for perf 6.1, from .text on), all of the library's
case "$COMPAT" in
6.1) set -- $(sec "$T/fx/app" .text); app_from=$(($1)) app_to=$(($1 + $2)) ;;
*) app_from=0 app_to=$((app_len)) ;;
esac
"$P" synth --records 12000 --seed 41 --kernel-pct 4 \
	--text $((APP_BASE + app_from)),$((app_to - app_from)) -o "$T/app.spe"
"$P" synth --records 6000 --seed 42 --kernel-pct 4 --text $((LIB_BASE)),$((lib_len)) \
	-o "$T/lib.spe"
cat "$T/app.spe" "$T/lib.spe" >"$T/all.spe"
maps() { # $1: app build-id, $2: lib build-id ("" = plain MMAP2)
	echo "--mmap $APP_BASE,0x10000,$app_off,/usr/bin/app${1:+,$1}" \
		"--mmap $LIB_BASE,0x10000,0,/usr/lib/libfix.so${2:+,$2}"
}
mkfs() { # $1: folder, $2: what app is there
	mkdir -p "$1/usr/bin" "$1/usr/lib"
	cp "$T/fx/$2" "$1/usr/bin/app"
	cp "$T/fx/libfix.so" "$1/usr/lib/libfix.so"
}
FIELDS="comm,tid,ip,sym,symoff,dso ip,sym,dso event,ip,sym tid,ip,dso cpu,event,ip,sym,symoff"
# dsoff (perf >= 7): the file offset after the dso, none for the kernel's maps
if $PERF version | grep -q 'version [7-9]'; then
	FIELDS="$FIELDS ip,sym,symoff,dso,dsoff tid,ip,dso,dsoff"
fi
# keys with sym but not dso are left out: perf's comparator orders unresolved addresses
# of different files by address alone but symbols by file first, so its tree can split
# one symbol's samples into several entries (seen with perf 7.3: lib_part_11 three times
# in one event); pmutrace keeps one entry per symbol and file
SORTS="sym,dso comm,dso,sym dso dso,sym cpu,dso,sym comm dso,comm"
n=0
compare() { # $1: case name, $2: trace, then the options for both tools
	name=$1 data=$2
	shift 2
	for f in $FIELDS; do
		$PERF script -i "$data" "$@" -F "$f" >"$T/perf.txt" 2>/dev/null
		"$P" script "$data" "$@" --perf-compat="$COMPAT" -F "$f" >"$T/pmt.txt"
		[ -s "$T/perf.txt" ] || { echo "FAIL: $name: perf printed nothing for -F $f"; exit 1; }
		cmp -s "$T/perf.txt" "$T/pmt.txt" || {
			echo "FAIL: $name: script -F $f differs (perf < > pmutrace)"
			diff "$T/perf.txt" "$T/pmt.txt" | head -6; exit 1; }
		n=$((n + $(wc -l <"$T/perf.txt")))
	done
	for s in $SORTS; do
		# perf ends with a random "(Tip: ...)" framed by two "#" lines
		$PERF report -i "$data" "$@" --stdio --sort "$s" 2>/dev/null | sed '/^# (Tip/,$d' |
			sed '$d' >"$T/perf.txt"
		"$P" report "$data" "$@" --perf-compat="$COMPAT" --sort "$s" >"$T/pmt.txt"
		cmp -s "$T/perf.txt" "$T/pmt.txt" || {
			echo "FAIL: $name: report --sort $s differs (perf < > pmutrace)"
			diff "$T/perf.txt" "$T/pmt.txt" | head -6; exit 1; }
		n=$((n + $(grep -c '%' "$T/perf.txt")))
	done
	# the symbols were found: not everything is [unknown]
	"$P" script "$data" "$@" -F ip,sym | grep -q ' work_[0-9]*$' ||
		{ [ "$name" = mismatch ] || { echo "FAIL: $name: no sample resolved"; exit 1; }; }
}
conv() { # $1: output, then --mmap options
	out=$1
	shift
	# shellcheck disable=SC2046
	"$P" convert --raw "$T/all.spe" --midr 0x410fd0c0 --pid 4242 --comm app "$@" -o "$out"
}
APP_BID=$(bid "$T/fx/app") LIB_BID=$(bid "$T/fx/libfix.so")

# symfs: the files at their paths
mkfs "$T/symfs" app
# shellcheck disable=SC2046
conv "$T/bid.data" $(maps "$APP_BID" "$LIB_BID")
compare symfs "$T/bid.data" --symfs "$T/symfs"

# debuglink: a stripped executable, its debug file beside it by .gnu_debuglink's name
mkfs "$T/dl" app.stripped
cp "$T/fx/app.debug" "$T/dl/usr/bin/app.debug"
compare debuglink "$T/bid.data" --symfs "$T/dl"

# debugdir: the debug file by build-id under /usr/lib/debug
mkfs "$T/dd" app.stripped
d=$T/dd/usr/lib/debug/.build-id/$(echo "$APP_BID" | cut -c1-2)
mkdir -p "$d"
cp "$T/fx/app.debug" "$d/$(echo "$APP_BID" | cut -c3-).debug"
compare debugdir "$T/bid.data" --symfs "$T/dd"

# cache: perf buildid-cache's layout, the files nowhere else
for f in app:$APP_BID libfix.so:$LIB_BID; do
	d=$T/home/.debug/.build-id/$(echo "${f#*:}" | cut -c1-2)/$(echo "${f#*:}" | cut -c3-)
	mkdir -p "$d"
	cp "$T/fx/${f%%:*}" "$d/elf"
done
HOME=$T/home compare cache "$T/bid.data"

# feature: perf record's default, build-ids in the HEADER_BUILD_ID table and plain MMAP2
# records; the files only in the build-id cache
# shellcheck disable=SC2046
conv "$T/feat.data" $(maps "$APP_BID" "$LIB_BID") --build-id-feature
# Not compared with perf: perf 6.1 and 7.3 leave these files unresolved here (the
# table's file and the mapped one stay two DSOs for them when the MMAP2 records carry no
# device and inode, as these synthetic ones); pmutrace gives the mapping the table's
# build-id by name, as perf's dsos__set_build_ids means to, and finds the files
HOME=$T/home "$P" script "$T/feat.data" -F ip,sym | grep -q ' work_[0-9]*$' ||
	{ echo "FAIL: feature: the build-id table was not used"; exit 1; }

# mismatch: the trace's build-id for app is not the file's
# shellcheck disable=SC2046
conv "$T/mis.data" $(maps 1111111111111111111111111111111111111111 "$LIB_BID")
compare mismatch "$T/mis.data" --symfs "$T/symfs"
"$P" script "$T/mis.data" --symfs "$T/symfs" -F ip,sym 2>/dev/null | grep -q ' work_' &&
	{ echo "FAIL: mismatch: a file with another build-id was used"; exit 1; }

# nobid: no build-ids at all
# shellcheck disable=SC2046
conv "$T/plain.data" $(maps "" "")
compare nobid "$T/plain.data" --symfs "$T/symfs"
# kallsyms: the kernel's map as perf record writes it, symbols from a kallsyms file (text,
# weak, data and bss symbols, aliases, an ARM "$x", lines perf skips), once with _text where
# the map says and once relocated. No module symbols: those need /proc/modules too (perf
# 6.1 then drops the kernel map: "/proc/{kallsyms,modules} inconsistency"); pmutrace skips
# them
awk 'BEGIN { a = 0; x = 7
	print "ffffffc084190000 T _text"
	for (i = 0; i < 5000; i++) {
		x = (x * 69069 + 1) % 4294967296
		t = substr("TTTtttWwDdBbRr", x % 14 + 1, 1)
		printf "ffffffc08%07x %s ksym_%04d\n", 69206016 + a, t, i
		if (i % 50 == 7) printf "ffffffc08%07x t ksym_alias_%04d\n", 69206016 + a, i
		if (i % 70 == 9) printf "ffffffc08%07x t $x\n", 69206016 + a + 16
		a += (x % 64 + 1) * 16
	}
	printf "ffffffc08%07x T _etext\n", 69206016 + a
}' >"$T/kallsyms"
sed '1s/^ffffffc084190000/ffffffc0841f0000/' "$T/kallsyms" >"$T/kallsyms.reloc"
"$P" synth --records 8000 --seed 43 --kernel-pct 60 --text $((APP_BASE + app_from)),$((app_to - app_from)) \
	-o "$T/kern.spe"
# shellcheck disable=SC2046
"$P" convert --raw "$T/kern.spe" --midr 0x410fd0c0 --pid 4242 --comm app $(maps "$APP_BID" "$LIB_BID") \
	--kernel-mmap 0xffffffc084190000,0x1000000 -o "$T/kern.data"
compare kallsyms "$T/kern.data" --symfs "$T/symfs" --kallsyms "$T/kallsyms"
compare kallsyms_reloc "$T/kern.data" --symfs "$T/symfs" --kallsyms "$T/kallsyms.reloc"
"$P" script "$T/kern.data" --kallsyms "$T/kallsyms" -F ip,sym,dso | grep -q 'ksym_[0-9]* (\[kernel.kallsyms\])' ||
	{ echo "FAIL: kallsyms: no kernel sample resolved"; exit 1; }
# branch stacks (perf >= 7): each entry's from and to followed by its file (and offset),
# in perf's column order: after the ip's columns, before phys_addr (insnlen is checked by
# spe_fields_vs_perf.sh: here perf 7.3 reads the instruction from the file and measures it
# with the host's x86 decoder, "ilen: 2")
if $PERF version | grep -q 'version [7-9]'; then
	for f in ip,dso,brstack ip,sym,symoff,dso,dsoff,brstack,phys_addr brstack,dso,dsoff \
		event,brstack,phys_addr,ip,sym; do
		for data in "$T/bid.data" "$T/kern.data"; do
			$PERF script -i "$data" --symfs "$T/symfs" --kallsyms "$T/kallsyms" --itrace=bl -F "$f" \
				>"$T/perf.txt" 2>/dev/null
			"$P" script "$data" --symfs "$T/symfs" --kallsyms "$T/kallsyms" --itrace=bl \
				--perf-compat="$COMPAT" -F "$f" >"$T/pmt.txt"
			# the entries' files were found (a branch target inside app, with its offset)
			[ "${f#*dsoff}" = "$f" ] || grep -q '/0x[0-9a-f]* (/usr/bin/app+0x' "$T/perf.txt" ||
				{ echo "FAIL: brstack: perf found no file for -F $f"; exit 1; }
			cmp -s "$T/perf.txt" "$T/pmt.txt" || {
				echo "FAIL: brstack: script -F $f on ${data##*/} differs (perf < > pmutrace)"
				diff "$T/perf.txt" "$T/pmt.txt" | head -6; exit 1; }
			n=$((n + $(wc -l <"$T/perf.txt")))
		done
	done
fi
echo "OK: $n lines identical to $($PERF version) (symfs, debuglink, debugdir, cache, mismatch, nobid, kallsyms)"
