#!/bin/sh
# pmutrace export pprof: protoc (Google's own parser) decodes the gunzip'd file against
# decode/export/proto/profile.proto; on a trace whose PCs fall in the project's AArch64
# fixtures (an executable and a shared library mapped by build-id MMAP2 records, found under
# --symfs) and in an unmapped kernel:
# - samples per event equal `pmutrace report --json`, the latency sums per event equal
#   the sums of `script --csv`'s weight, issue_lat and xlat_lat columns;
# - every sample's event, tid, ip, function and mapping file, counted, equal `script -F
#   event,tid,ip,sym,dso` counted the same way (diff.symbols checks script against perf);
# - a location's line equals script -F srcline's; mappings carry the fixtures' build-ids;
# - identical samples are aggregated (fewer Sample messages than samples).
# Then a trace whose PCs fall in fixtures/symbols/inline.c's outer (-O2: leaf inlined into
# middle, both into outer): each location's Lines, function and file:line innermost first,
# equal binutils' addr2line -i -f for its address.
# Then the same for a synthetic trace without symbols. pprof -top and -tags read the file
# too when a pprof binary is on PATH (Debian packages only pprof's Go source: apt-get
# install golang-go golang-github-google-pprof-dev, then GOPATH=/usr/share/gocode
# GO111MODULE=off go build -o DIR/pprof github.com/google/pprof).
#   export_pprof.sh PMUTRACE SOURCE_DIR
set -u
pmt=$1 SRC=$2
fail() { echo "FAIL: $*"; exit 1; }
command -v protoc >/dev/null 2>&1 || { echo "SKIP: protoc (protobuf-compiler) is not installed"; exit 77; }
. "$SRC/tests/tools/symbols_fixture.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fixture_trace "$T"

# protoc's text form flattened: "S event tid ip function mapping-file samples total issue
# xlat" per Sample (the function that holds the code: a location's last Line), "L ip
# file:line" per location with a line (its first Line: the innermost), "C ip FUNC
# FILE:LINE|..." per location with Lines (all, innermost first, file names without their
# folders, line 0 as ?), "M file build-id" per mapping
flatten() {
	gunzip -c "$1" >"$T/p.pb" || fail "$1 is not gzip"
	protoc --decode=perftools.profiles.Profile -I"$SRC/decode/export/proto" profile.proto \
		<"$T/p.pb" >"$T/p.txt" || fail "protoc cannot decode $1"
	# addresses in hex by coreutils (awk's numbers are doubles: no 64-bit addresses)
	# shellcheck disable=SC2046
	env printf '%s %x\n' $(awk '$1 == "address:" { print $2, $2 }' "$T/p.txt" | sort -u) \
		>"$T/hex" || fail "printf %x"
	awk '
	function unq(s) { sub(/^"/, "", s); sub(/"$/, "", s); return s }
	FILENAME != last { last = FILENAME; f++ }
	f == 1 { hex[$1] = $2; next }
	/^[a-z_]+ \{$/ { blk = $1; n[blk]++; id = n[blk]; next }
	/^  [a-z_]+ \{$/ { sub_ = $1; if (sub_ == "label") nl++
		if (sub_ == "line" && blk == "location") nli[lo]++; next }
	/^  \}$/ { sub_ = ""; next }
	/^\}$/ { blk = ""; next }
	/^string_table: / { $1 = ""; st[ns++] = unq(substr($0, 2)); next }
	blk == "sample" && $1 == "location_id:" { sloc[id] = $2 }
	blk == "sample" && $1 == "value:" { sval[id] = sval[id] " " $2 }
	blk == "sample" && sub_ == "label" && $1 == "key:" { lk[id, nl] = $2; lab[id, nl] = 0 }
	blk == "sample" && sub_ == "label" && ($1 == "str:" || $1 == "num:") { lab[id, nl] = $1 " " $2 }
	blk == "sample" && sub_ == "label" { lid[id, nl] = 1; ls[id] = ls[id] " " nl }
	blk == "location" && sub_ == "" && $1 == "id:" { lo = $2 }
	blk == "location" && sub_ == "" && $1 == "mapping_id:" { lmap[lo] = $2 }
	blk == "location" && sub_ == "" && $1 == "address:" { laddr[lo] = $2 }
	blk == "location" && sub_ == "line" && $1 == "function_id:" { lfn[lo] = $2
		if (nli[lo] == 1) lfn1[lo] = $2; cfn[lo, nli[lo]] = $2 }
	blk == "location" && sub_ == "line" && $1 == "line:" { if (nli[lo] == 1) lline[lo] = $2
		cln[lo, nli[lo]] = $2 }
	blk == "function" && $1 == "id:" { fo = $2 }
	blk == "function" && $1 == "name:" { fname[fo] = $2 }
	blk == "function" && $1 == "filename:" { ffile[fo] = $2 }
	blk == "mapping" && $1 == "id:" { mo = $2 }
	blk == "mapping" && $1 == "filename:" { mfile[mo] = $2 }
	blk == "mapping" && $1 == "build_id:" { mbid[mo] = $2 }
	END {
		for (i = 1; i <= n["sample"]; i++) {
			ev = "?"; tid = "?"; ds = ""
			split(ls[i], ks, " ")
			for (k in ks) {
				key = st[lk[i, ks[k]]]; v = lab[i, ks[k]]
				split(v, vv, " ")
				if (key == "event") ev = st[vv[2]]
				if (key == "tid") tid = (v == 0 ? 0 : vv[2])
				if (key == "data_src") ds = st[vv[2]]
			}
			split(sval[i], sv, " ")
			if (ds != "")
				printf "D %s\t%s\t%s\n", ev, ds, sv[1]
			l = sloc[i]
			fn = lfn[l] ? st[fname[lfn[l]]] : "[unknown]"
			mf = lmap[l] ? st[mfile[lmap[l]]] : "[unknown]"
			printf "S %s %s %s %s %s%s\n", ev, tid, hex[laddr[l]], fn, mf, sval[i]
		}
		for (l in laddr)
			if (lline[l]) {
				f = st[ffile[lfn1[l]]]; sub(/.*\//, "", f)
				printf "L %s %s:%s\n", hex[laddr[l]], f, lline[l]
			}
		for (l in laddr) {
			c = ""
			for (k = 1; k <= nli[l]; k++) {
				f = st[ffile[cfn[l, k]]]; sub(/.*\//, "", f)
				c = c (k > 1 ? "|" : "") st[fname[cfn[l, k]]] " " \
					(f == "" ? "??" : f) ":" (cln[l, k] ? cln[l, k] : "?")
			}
			if (c != "")
				printf "C %s %s\n", hex[laddr[l]], c
		}
		for (m in mfile) printf "M %s %s\n", st[mfile[m]], st[mbid[m]]
	}' "$T/hex" "$T/p.txt" >"$T/flat" || fail "cannot flatten $1"
}

# samples per event (report --json) and latency sums per event (script --csv), as
# "event samples total issue xlat"
want_totals() {
	"$pmt" report "$1" --json | tr '{' '\n' |
		sed -n 's/.*"event":"\([^"]*\)","samples":\([0-9]*\).*/\1 \2/p' | sort >"$T/rep"
	"$pmt" script "$1" --csv | awk -F, 'NR > 1 { w[$1] += $10; i[$1] += $11; x[$1] += $12 }
		END { for (e in w) print e, w[e], i[e], x[e] }' | sort >"$T/lat"
	join "$T/rep" "$T/lat"
}
got_totals() {
	awk '$1 == "S" { c[$2] += $7; w[$2] += $8; i[$2] += $9; x[$2] += $10 }
		END { for (e in c) print e, c[e], w[e], i[e], x[e] }' "$T/flat" | sort
}

"$pmt" export pprof "$T/a.data" --symfs "$T/symfs" -o "$T/a.pb.gz" || fail export
flatten "$T/a.pb.gz"
want_totals "$T/a.data" >"$T/want_tot"
got_totals >"$T/got_tot"
[ "$(wc -l <"$T/want_tot")" -ge 5 ] || fail "report names too few events: $(cat "$T/want_tot")"
cmp -s "$T/want_tot" "$T/got_tot" ||
	fail "totals per event differ from report/script: $(diff "$T/want_tot" "$T/got_tot" | head -6)"

# data sources: samples per (event, data_src label) as script -F event,data_src prints the
# text (samples without a data source have no label)
"$pmt" script "$T/a.data" -F event,data_src | awk '$2 != 0 { sub(/:$/, "", $1)
	print $1 "\t" substr($0, index($0, "|")) }' | sort | uniq -c |
	awk '{ n = $1; sub(/^ *[0-9]+ /, ""); print $0 "\t" n }' | sort >"$T/want_ds"
awk -F'\t' '/^D / { sub(/^D /, ""); c[$1 "\t" $2] += $3 } END { for (k in c) print k "\t" c[k] }' \
	"$T/flat" | sort >"$T/got_ds"
[ "$(wc -l <"$T/want_ds")" -ge 3 ] || fail "script printed too few data sources"
cmp -s "$T/want_ds" "$T/got_ds" ||
	fail "data_src labels differ from script -F data_src: $(diff "$T/want_ds" "$T/got_ds" | head -6)"

# symbols: (event, tid, ip, sym, dso) counted on both sides
"$pmt" script "$T/a.data" --symfs "$T/symfs" -F event,tid,ip,sym,dso |
	awk '{ sub(/:$/, "", $2); dso = $5; gsub(/[()]/, "", dso); print $2, $1, $3, $4, dso }' |
	sort | uniq -c | awk '{ print $2, $3, $4, $5, $6, $1 }' | sort >"$T/want_sym"
awk '$1 == "S" { c[$2 " " $3 " " $4 " " $5 " " $6] += $7 } END { for (k in c) print k, c[k] }' \
	"$T/flat" | sort >"$T/got_sym"
grep -q ' work_[0-9]* /usr/bin/app ' "$T/got_sym" || fail "no sample resolved in app"
grep -q ' /usr/lib/libfix.so ' "$T/got_sym" || fail "no sample mapped in libfix.so"
cmp -s "$T/want_sym" "$T/got_sym" ||
	fail "symbols differ from script -F: $(diff "$T/want_sym" "$T/got_sym" | head -6)"

# lines: each location's against script -F ip,srcline (file name and line; script's line
# 0, perf's reading of addr2line's answer without a line row, is no line in pprof)
"$pmt" script "$T/a.data" --symfs "$T/symfs" -F ip,srcline |
	awk '$1 ~ /^[0-9a-f]+$/ { ip = $1; next } $1 ~ /:[1-9][0-9]*$/ { print "L", ip, $1 }' | sort -u >"$T/want_ln"
grep '^L ' "$T/flat" | sort >"$T/got_ln"
[ "$(wc -l <"$T/got_ln")" -ge 10 ] || fail "too few locations with a line: $(wc -l <"$T/got_ln")"
cmp -s "$T/want_ln" "$T/got_ln" ||
	fail "lines differ from script -F srcline: $(diff "$T/want_ln" "$T/got_ln" | head -6)"

# mappings: file names with the recording's build-ids (hex)
printf 'M /usr/bin/app %s\nM /usr/lib/libfix.so %s\n' "$(bid "$T/fx/app")" "$(bid "$T/fx/libfix.so")" |
	sort >"$T/want_map"
grep '^M ' "$T/flat" | sort >"$T/got_map"
cmp -s "$T/want_map" "$T/got_map" || fail "mappings: $(cat "$T/got_map")"
nsamp=$(awk '$1 == "S"' "$T/flat" | wc -l)
ntot=$(awk '{ n += $2 } END { print n }' "$T/want_tot")
[ "$nsamp" -lt "$ntot" ] || fail "no aggregation: $nsamp Sample messages for $ntot samples"
grep -q '^  type: ' "$T/p.txt" || fail "no sample types"

# a synthetic trace without symbols: totals only, and the file to stdout
"$pmt" synth --records 20000 --mix n1 --context --seed 7 -o "$T/b.spe" || fail synth
"$pmt" convert --raw "$T/b.spe" --midr 0x410fd0c0 -o "$T/b.data" || fail convert
"$pmt" export pprof "$T/b.data" -o - >"$T/b.pb.gz" || fail "export to stdout"
flatten "$T/b.pb.gz"
want_totals "$T/b.data" >"$T/want_tot"
got_totals >"$T/got_tot"
cmp -s "$T/want_tot" "$T/got_tot" ||
	fail "synthetic trace: totals differ: $(diff "$T/want_tot" "$T/got_tot" | head -6)"

# inlined code: every location in outer against addr2line -i -f ("FUNC" then "FILE:LINE"
# per frame, innermost first; a marker address without a line ends each address's frames)
A2L=aarch64-linux-gnu-addr2line
command -v $A2L >/dev/null || fail "$A2L missing (binutils-aarch64-linux-gnu gave readelf)"
set -- $($RE -sW "$T/fx/inline" | awk '$8 == "outer" { print "0x" $2, $3 }')
[ $# = 2 ] || fail "no symbol outer in the inline fixture"
"$pmt" synth --records 400 --seed 7 --kernel-pct 0 --text $((0xaaaad0000000 + $1)),$2 \
	-o "$T/i.spe" || fail synth
"$pmt" convert --raw "$T/i.spe" --midr 0x410fd0c0 --pid 4242 --comm inline \
	--mmap 0xaaaad0000000,0x10000,0,/usr/bin/inline -o "$T/i.data" || fail convert
mkdir -p "$T/symfs/usr/bin"
cp "$T/fx/inline" "$T/symfs/usr/bin/inline"
"$pmt" export pprof "$T/i.data" --symfs "$T/symfs" -o "$T/i.pb.gz" || fail "export (inline)"
flatten "$T/i.pb.gz"
awk '$1 == "C" { $1 = ""; print substr($0, 2) }' "$T/flat" | sort >"$T/got_inl"
ninl=$(grep -c '|' "$T/got_inl")
[ "$ninl" -ge 5 ] || fail "too few locations with inlined frames: $ninl of $(wc -l <"$T/got_inl")"
cut -d' ' -f1 "$T/got_inl" >"$T/iaddr"
{ while read -r a; do printf '%x\n0\n' $((0x$a - 0xaaaad0000000)); done <"$T/iaddr"; } |
	$A2L -i -f -e "$T/fx/inline" | sed 's/ (discriminator [0-9]*)//; s|^/.*/||' |
	awk '{ fn = $0; getline loc
	       if (fn == "??" && loc ~ /^\?\?:/) { print c; c = ""; next }
	       sub(/:0$/, ":?", loc); c = c (c == "" ? "" : "|") fn " " loc }' >"$T/a2l" ||
	fail "addr2line -i -f"
paste -d' ' "$T/iaddr" "$T/a2l" >"$T/want_inl"
cmp -s "$T/want_inl" "$T/got_inl" ||
	fail "inline chains differ from addr2line -i -f: $(diff "$T/want_inl" "$T/got_inl" | head -6)"

if command -v pprof >/dev/null 2>&1; then
	pprof -top -sample_index=samples "$T/a.pb.gz" >"$T/top" 2>&1 || fail "pprof -top: $(head -3 "$T/top")"
	grep -q 'work_' "$T/top" || fail "pprof -top names no function: $(head -12 "$T/top")"
	grep -q "Build ID: $(bid "$T/fx/app")" "$T/top" || fail "pprof -top: no build-id: $(head -3 "$T/top")"
	# every sample has its cpu, pid and tid (pprof drops numeric labels of 0 without a unit)
	pprof -tags "$T/a.pb.gz" >"$T/tags" 2>&1 || fail "pprof -tags: $(head -3 "$T/tags")"
	for k in cpu pid tid event; do
		grep -q "^ *$k: Total $ntot\.0\$" "$T/tags" || fail "pprof -tags: $k: $(grep -A2 "$k:" "$T/tags")"
	done
	echo "pprof -top and -tags read it"
else
	echo "(no pprof binary: pprof -top not tried)"
fi
echo "OK: $ntot samples in $nsamp Sample messages: totals, symbols, lines and build-ids equal report/script; $ninl locations' inline chains equal addr2line -i -f"
