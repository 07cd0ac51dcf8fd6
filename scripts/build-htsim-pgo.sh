#!/bin/sh
# htsim's dumbbell driver built with gcc's profile-guided optimisation, for a like-for-like
# comparison with cnsim's profile-guided build (scripts/build-pgo.sh): htsim's library and
# the driver are built instrumented, run on the four side-by-side cases (the CBR, QCN and
# TCP dumbbells for 1 simulated s, 4096 senders for 0.2 s), and built again from the
# counts, with the flags of htsim's own Makefile otherwise (-O3, asserts on, -g).
#
#   HTSIM_SRC=path/to/csg-htsim scripts/build-htsim-pgo.sh   -> target/htsim-pgo/htsim_dumbbell
#
# HTSIM_SRC is a checkout of Broadcom/csg-htsim (or a tree holding its sim/), at the commit
# ../shared/peers/htsim/build.sh pins; PEERS (default ../shared/peers/htsim) holds the
# driver's source. Writes only under target/htsim-pgo/.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PEERS=${PEERS:-$ROOT/../shared/peers/htsim}
DRIVER="$PEERS/src/main_dumbbell.cpp"
: "${HTSIM_SRC:?set HTSIM_SRC to a csg-htsim checkout (or a tree holding sim/)}"
[ -f "$HTSIM_SRC/sim/Makefile" ] || { echo "no sim/Makefile under $HTSIM_SRC" >&2; exit 1; }
[ -f "$DRIVER" ] || { echo "no driver at $DRIVER (set PEERS)" >&2; exit 1; }
OUT="$ROOT/target/htsim-pgo"
rm -rf "$OUT"
mkdir -p "$OUT/sim"
cp -R "$HTSIM_SRC/sim/." "$OUT/sim/"
rm -f "$OUT/sim/"*.o "$OUT/sim/"*.gcda "$OUT/sim/libhtsim.a"
FLAGS="-Wall -std=c++11 -g -Wsign-compare -Wuninitialized -fPIE -O3"
JOBS=$(nproc 2>/dev/null || echo 2)

build() { # build PHASE_FLAGS OUTPUT
    make -s -C "$OUT/sim" -j"$JOBS" libhtsim.a CFLAGS="$FLAGS $1" >"$OUT/make.log" 2>&1 \
        || { tail -30 "$OUT/make.log"; exit 1; }
    # The driver as an object of a fixed name, so that both phases use one profile file.
    # (The flags are lists of words, split on purpose.)
    # shellcheck disable=SC2086
    g++ $FLAGS $1 -I"$OUT/sim" -c "$DRIVER" -o "$OUT/driver.o"
    # shellcheck disable=SC2086
    g++ $FLAGS $1 "$OUT/driver.o" "$OUT/sim/libhtsim.a" -o "$2"
}

echo "== instrumented build"
build "-fprofile-generate -fprofile-update=single" "$OUT/htsim_instrumented"
echo "== training runs"
(
    cd "$OUT"
    ./htsim_instrumented -duration 1 >/dev/null
    ./htsim_instrumented -qcn -duration 1 >/dev/null
    ./htsim_instrumented -tcp -duration 1 >/dev/null
    ./htsim_instrumented -senders 4096 -rate 2685547 -start_window_us 4468 -duration 0.2 >/dev/null
)
echo "== optimized build"
rm -f "$OUT/sim/"*.o "$OUT/sim/libhtsim.a" "$OUT/driver.o"
build "-fprofile-use -fprofile-correction -Wno-missing-profile" "$OUT/htsim_dumbbell"
echo "built $OUT/htsim_dumbbell"
