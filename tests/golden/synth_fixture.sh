#!/bin/sh
# The generator stays deterministic: `synth --records 64 --context --seed 1` must give the
# bytes of fixtures/spe/synth-n1-small.spe on every build and host.
# Usage: synth_fixture.sh PMUTRACE FIXTURE
"$1" synth --records 64 --context --seed 1 | cmp - "$2"
