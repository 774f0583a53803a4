# Shared part of the tests that compare against perf 6.1's output for the shared real SPE
# buffers (../shared/data/spe/perf61_expected, see its README). Sourced, not run:
#   . "$(dirname "$0")/../diff/spe_refs.sh"; spe_refs_open SHARED_DIR
# spe_refs_open SHARED_DIR: sets SPE_DATA and SPE_EXP; exits 77 when they are absent.
# spe_refs_each FN: calls `FN NAME BUFFER KIND MIDR EXPECTED` for every buffer and every
#   script reference of it (KIND N1midr: MIDR 0x410fd0c0, nomidr: MIDR 0); counts them in
#   spe_refs_n.
# spe_refs_same EXPECTED GOT WHAT: on a difference prints FAIL WHAT and the first lines of
#   the diff, and sets fail=1.
fail=0
spe_refs_n=0

spe_refs_open() {
	SPE_DATA=$1/data/spe
	SPE_EXP=$SPE_DATA/perf61_expected
	[ -d "$SPE_EXP" ] || { echo "SKIP: $SPE_EXP absent"; exit 77; }
}

spe_refs_each() {
	for buf in "$SPE_DATA"/*.bin "$SPE_DATA"/*.data; do
		[ -f "$buf" ] || continue
		name=$(basename "$buf")
		name=${name%.*}
		for kind in N1midr nomidr; do
			exp=$SPE_EXP/$name.script-$kind.txt
			[ -f "$exp" ] || continue
			midr=0
			[ $kind = N1midr ] && midr=0x410fd0c0
			spe_refs_n=$((spe_refs_n + 1))
			"$1" "$name" "$buf" $kind $midr "$exp"
		done
	done
}

spe_refs_same() {
	if ! cmp -s "$1" "$2"; then
		echo "FAIL: $3 differs:"
		diff "$1" "$2" | head -10
		fail=1
	fi
}
