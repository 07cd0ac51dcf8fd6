#!/bin/sh
# A profile-guided release build of cnsim: an instrumented build runs the benchmark
# cases for a short simulated time, and the compiler then builds the release binary
# again with the branch and call counts those runs recorded. The simulation is the
# same, byte for byte (same scenario and seed, same files); only the code's layout and
# inlining differ.
#
#   scripts/build-pgo.sh        -> target/pgo/release/cnsim
#
# Needs an llvm-profdata that reads the raw profiles of rustc's LLVM: $LLVM_PROFDATA,
# else rustup's llvm-tools component (`rustup component add llvm-tools`), else
# llvm-profdata-N or llvm-profdata on the PATH, whichever first merges them. Writes only
# under target/pgo/ (the instrumented build, its profiles, the optimized build).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
PGO="$ROOT/target/pgo"
PROFILES="$PGO/profiles"
mkdir -p "$PGO"
rm -rf "$PROFILES"

echo "== instrumented build (target/pgo/instrumented)"
RUSTFLAGS="-Cprofile-generate=$PROFILES" cargo build --release --locked --target-dir "$PGO/instrumented"
CNSIM="$PGO/instrumented/release/cnsim"

# The training runs: every benchmark case, short (the k = 8 fabrics long enough for
# their flows to overlap). Their outputs are not kept.
echo "== training runs"
"$CNSIM" bench --runs 1 --set duration=100ms \
    --scenario dumbbell-cbr-64 --scenario dumbbell-qcn-64 --scenario dumbbell-tcp-64 \
    --scenario dumbbell-tcp-red-64 --scenario dumbbell-dctcp-64 --scenario incast-32 \
    --scenario incast-dcqcn-8 --scenario chain-10x3 --scenario dumbbell-cbr-4096 \
    --scenario 8021au-baseline --scenario 8021au-baseline-ecm --scenario 8021au-baseline-fecn \
    --scenario 8021au-baseline-fecn-b --scenario 8021au-baseline-e2cm-pr \
    --scenario 8021au-baseline-qcn --scenario 8021au-baseline-qcn-pr >/dev/null
"$CNSIM" bench --runs 1 --set duration=5ms \
    --scenario fattree-k8-websearch --scenario fattree-k8-poisson >/dev/null
"$CNSIM" bench --runs 1 --set duration=1ms \
    --scenario fattree-hpcc320 --scenario fattree-hpcc320-hpcc >/dev/null
"$CNSIM" bench --runs 1 --set duration=2ms --threads 2 --scenario fattree-k8-poisson >/dev/null

# An llvm-profdata that can read these profiles.
SYSROOT_TOOL="$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin/llvm-profdata"
LLVM_MAJOR=$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
CANDIDATES="${LLVM_PROFDATA:-} $SYSROOT_TOOL"
n=$LLVM_MAJOR
while [ "$n" -ge 17 ]; do
    CANDIDATES="$CANDIDATES llvm-profdata-$n"
    n=$((n - 1))
done
CANDIDATES="$CANDIDATES llvm-profdata"
MERGED=""
rm -f "$PGO"/cnsim*.profdata
for tool in $CANDIDATES; do
    if command -v "$tool" >/dev/null 2>&1 \
        && "$tool" merge -o "$PGO/merged.profdata" "$PROFILES" >/dev/null 2>&1; then
        MERGED=$tool
        break
    fi
done
if [ -z "$MERGED" ]; then
    echo "error: no llvm-profdata could read the profiles of rustc's LLVM $LLVM_MAJOR" >&2
    echo "  tried: $CANDIDATES" >&2
    echo "  install one (rustup component add llvm-tools, or a distribution's llvm-N)" >&2
    echo "  or set LLVM_PROFDATA to its path" >&2
    exit 1
fi
echo "== profiles merged by $MERGED"
# Named by its content: cargo rebuilds when its flags change, not when a file they name
# does, so a new profile gets a new name and every crate is built again from it.
SUM=$(cksum <"$PGO/merged.profdata" | cut -d' ' -f1)
PROFILE="$PGO/cnsim-$SUM.profdata"
mv "$PGO/merged.profdata" "$PROFILE"

echo "== optimized build (target/pgo/release/cnsim)"
RUSTFLAGS="-Cprofile-use=$PROFILE" cargo build --release --locked --target-dir "$PGO"
echo "built $PGO/release/cnsim"
