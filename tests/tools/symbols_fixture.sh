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
# fixture_trace DIR: DIR/a.data, a trace of pid 4242 ("app") whose PCs fall in the text of
# the fixtures' executable and shared library (mapped by build-id MMAP2 records at
# 0xaaaad0000000 and 0xffff80000000) and, 4%, in an unmapped kernel; DIR/symfs holds the
# two files at their recorded paths (/usr/bin/app, /usr/lib/libfix.so), DIR/fx the build.
# The caller defines pmt (the binary) and fail().
fixture_trace() {
	fixture_build "$1/fx"
	_app=0xaaaad0000000 _lib=0xffff80000000
	set -- "$1" $(text_load "$1/fx/app")
	"$pmt" synth --records 3000 --seed 41 --kernel-pct 4 --text $((_app)),$(($4)) -o "$1/app.spe" || fail synth
	set -- "$1" $(text_load "$1/fx/libfix.so")
	"$pmt" synth --records 2000 --seed 42 --kernel-pct 4 --text $((_lib)),$(($4)) -o "$1/lib.spe" || fail synth
	cat "$1/app.spe" "$1/lib.spe" >"$1/all.spe"
	"$pmt" convert --raw "$1/all.spe" --midr 0x410fd0c0 --pid 4242 --comm app \
		--mmap "$_app,0x10000,0,/usr/bin/app,$(bid "$1/fx/app")" \
		--mmap "$_lib,0x10000,0,/usr/lib/libfix.so,$(bid "$1/fx/libfix.so")" -o "$1/a.data" ||
		fail convert
	mkdir -p "$1/symfs/usr/bin" "$1/symfs/usr/lib"
	cp "$1/fx/app" "$1/symfs/usr/bin/app"
	cp "$1/fx/libfix.so" "$1/symfs/usr/lib/libfix.so"
}
