# Sourced by the tests that use the AArch64 symbol fixtures (fixtures/symbols/build.sh):
# fixture_build DIR builds them (exit 77 with the reason when the cross tools are missing);
# bid FILE prints its build-id; text_load FILE where its executable PT_LOAD starts (file
# offset), its address and length.
RE=aarch64-linux-gnu-readelf
fixture_build() {
	command -v $RE >/dev/null || { echo "SKIP: binutils-aarch64-linux-gnu missing"; exit 77; }
	sh "$SRC/fixtures/symbols/build.sh" aarch64 "$1" >/dev/null || exit $?
}
bid() { $RE -nW "$1" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p'; }
text_load() { $RE -lW "$1" | awk '$1 == "LOAD" && / E / { print $2, $3, $5; exit }'; }
