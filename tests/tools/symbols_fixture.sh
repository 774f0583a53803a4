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
# text_section FILE: the address and size of its .text
text_section() { $RE -SW "$1" | awk '{ sub(/^ *\[ *[0-9]+\] */, "") } $1 == ".text" { print "0x" $3, "0x" $5 }'; }
# text_trace FXDIR SEED RECORDS OUT: a trace (perf.data) whose PCs fall in the .text of app
# (2/3) and libfix.so (1/3), mapped at FIX_APP and FIX_LIB by plain MMAP2 records of pid
# 4242 (comm app); FXDIR/fs is a --symfs with both at their paths. Needs $P.
FIX_APP=0xaaaad0000000 FIX_LIB=0xffff80000000
text_trace() {
	set -- "$1" "$2" "$3" "$4" $(text_section "$1/app") $(text_section "$1/libfix.so")
	"$P" synth --records $(($3 * 2 / 3)) --seed "$2" --kernel-pct 0 \
		--text $((FIX_APP + $5)),$(($6)) -o "$1/a.spe"
	"$P" synth --records $(($3 / 3)) --seed $(($2 + 1)) --kernel-pct 0 \
		--text $((FIX_LIB + $7)),$(($8)) -o "$1/l.spe"
	cat "$1/a.spe" "$1/l.spe" >"$1/all.spe"
	"$P" convert --raw "$1/all.spe" --midr 0x410fd0c0 --pid 4242 --comm app \
		--mmap $FIX_APP,0x10000,0,/usr/bin/app --mmap $FIX_LIB,0x10000,0,/usr/lib/libfix.so \
		-o "$4"
	mkdir -p "$1/fs/usr/bin" "$1/fs/usr/lib"
	cp "$1/app" "$1/fs/usr/bin/app"
	cp "$1/libfix.so" "$1/fs/usr/lib/libfix.so"
}
# perf_oracle: the perf to compare with (PERF, default perf) and the --perf-compat level
# that reproduces it (COMPAT, default 6.1); exit 77 when that perf does not run.
perf_oracle() {
	PERF=${PERF:-perf}
	COMPAT=${COMPAT:-6.1}
	$PERF version >/dev/null 2>&1 || { echo "SKIP: $PERF does not run"; exit 77; }
}
# kernel_trace DIR SEED KPCT: DIR/t.data, a trace of pid 4242 ("app") in the fixtures'
# executable (2/3, KPCT% of it in the kernel) and library (1/3), mapped by build-id MMAP2,
# with a [kernel.kallsyms] map whose symbols are DIR/kallsyms; DIR/fs holds the files at
# their recorded paths, DIR/fx the build. Needs $P.
kernel_trace() {
	fixture_build "$1/fx"
	set -- "$1" "$2" "$3" $(text_section "$1/fx/app") $(text_section "$1/fx/libfix.so")
	"$P" synth --records 6000 --seed "$2" --kernel-pct "$3" --text $((FIX_APP + $4)),$(($5)) -o "$1/a.spe"
	"$P" synth --records 3000 --seed $(($2 + 1)) --kernel-pct 0 --text $((FIX_LIB + $6)),$(($7)) -o "$1/l.spe"
	cat "$1/a.spe" "$1/l.spe" >"$1/all.spe"
	printf 'ffffffc084190000 T _text\nffffffc084200000 T kfn_a\nffffffc084230000 t kfn_b\nffffffc084300000 W kfn_c\nffffffc084500000 T _etext\n' >"$1/kallsyms"
	"$P" convert --raw "$1/all.spe" --midr 0x410fd0c0 --pid 4242 --comm app \
		--mmap "$FIX_APP,0x10000,0,/usr/bin/app,$(bid "$1/fx/app")" \
		--mmap "$FIX_LIB,0x10000,0,/usr/lib/libfix.so,$(bid "$1/fx/libfix.so")" \
		--kernel-mmap 0xffffffc084190000,0x1000000 -o "$1/t.data"
	mkdir -p "$1/fs/usr/bin" "$1/fs/usr/lib"
	cp "$1/fx/app" "$1/fs/usr/bin/app"
	cp "$1/fx/libfix.so" "$1/fs/usr/lib/libfix.so"
}
# arch_fixture ARCH DIR: sets X to ARCH's binutils prefix and builds the fixtures for ARCH
# in DIR; returns 1 (with a note) when its addr2line or compiler is missing. Needs fail().
arch_fixture() {
	case $1 in
	aarch64) X=aarch64-linux-gnu- ;;
	x86_64) X= ;;
	esac
	command -v ${X}addr2line >/dev/null || { echo "note: ${X}addr2line missing, $1 skipped"; return 1; }
	_rc=0
	sh "$SRC/fixtures/symbols/build.sh" $1 "$2" >/dev/null || _rc=$?
	[ $_rc = 77 ] && { echo "note: no $1 compiler, $1 skipped"; return 1; }
	[ $_rc = 0 ] || fail "$1: fixture build"
}
