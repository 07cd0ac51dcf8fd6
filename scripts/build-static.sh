#!/bin/sh
# cnsim linked statically against the C library (glibc's static archives, which its
# development package installs beside the shared ones): one file that runs on any x86-64
# Linux whatever C library it has, and that maps less memory: of a shared C library a run
# keeps the blocks around every function it calls resident, of a static one only the
# functions, laid out with the rest of the program (crates/cnsim-cli/link-order.txt).
# The simulation is the same, byte for byte.
#
#   scripts/build-static.sh            -> target/static/release/cnsim
#   scripts/build-static.sh PROFILE    -> target/static/PROFILE/cnsim
#
# Only the binary's own crate is given `-C target-feature=+crt-static`: given to every
# crate (RUSTFLAGS), it would reach the procedural macros too, which cannot be static.
# CNSIM_STATIC_DIR names another target directory (default target/static, so that the
# dynamically linked target/release/cnsim is left as it is).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
PROFILE=${1:-release}
DIR=${CNSIM_STATIC_DIR:-target/static}
case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) ;;
    *) echo "build-static.sh: only for x86-64 Linux with glibc (this is $(uname -s) $(uname -m))" >&2; exit 1 ;;
esac
cargo rustc --locked --profile "$PROFILE" -p cnsim-cli --bin cnsim --target-dir "$DIR" \
    -- -C target-feature=+crt-static
BIN="$DIR/$PROFILE/cnsim"
# A dynamically linked program names its loader (a PT_INTERP header); a static one does not.
if command -v readelf >/dev/null 2>&1 && readelf -lW "$BIN" | grep -q INTERP; then
    echo "build-static.sh: $BIN was linked dynamically" >&2
    exit 1
fi
echo "$BIN"
