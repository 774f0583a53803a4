# Sourced by the --call-graph dwarf tests (unwind_dwarf.sh, unwind_clones.sh) once they
# have set PERF73 and T: what recording natively needs (exit 77 and the reason when it is
# missing), and perf 7.3's report quirk below, on "theirs" (perf 7.3's report) and "ours"
# in T.
[ -x "$PERF73" ] || { echo "SKIP: no perf 7.3"; exit 77; }
[ "$(uname -m)" = x86_64 ] || { echo "SKIP: the fixture is recorded natively on x86-64"; exit 77; }
command -v gcc >/dev/null || { echo "SKIP: no compiler"; exit 77; }
command -v zstd >/dev/null || { echo "SKIP: no zstd"; exit 77; }
# Some recordings (not all) make perf 7.3 print the graph below a Children entry (an
# inlined function's, or msort's that holds it) with bare addresses (0x7f...) where its
# other entries name the same frames, the bare address last or not: such entries (header
# and graph, up to the blank line), and only those, are left out of both outputs.
drop_raw_inline_graphs() {
	awk 'BEGIN { RS = ""; ORS = "\n\n" } /(--|\n[ |]*)0x[0-9a-f]+(\n|$)/ {
		split($0, l, "\n"); print l[1] }' "$T/theirs" >"$T/raw"
	for x in theirs ours; do
		awk -v raw="$T/raw" 'BEGIN { RS = ""; ORS = "\n\n"
			while ((getline h < raw) > 0) if (h != "") skip[h] = 1 }
			{ split($0, l, "\n"); if (!(l[1] in skip)) print }' "$T/$x" >"$T/$x.kept"
		mv "$T/$x.kept" "$T/$x"
	done
}
