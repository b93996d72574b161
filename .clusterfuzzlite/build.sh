#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build script for toolcall-model's cargo-fuzz
# targets. The builder runs it as `compile`, i.e. `bash -eux $SRC/build.sh`,
# from $SRC/toolcall-model (the Dockerfile's WORKDIR).
#
# For every target that `cargo fuzz list` names (so a new fuzz/fuzz_targets/*.rs
# with its [[bin]] in fuzz/Cargo.toml is picked up without editing this file)
# it writes to $OUT:
#   <target>                  the libFuzzer binary
#   <target>_seed_corpus.zip  fuzz/corpus/<target>/ and fuzz/regressions/<target>/
#                             (the regressions as regression-<name>)
#   <target>.dict             its dictionary (fuzz/targets.sh), byte targets only
#   <target>.options          [libfuzzer] max_len, rss_limit_mb, timeout (and
#                             dict) as fuzz/ci.sh uses
#
# Environment (the builder sets all of these; see fuzz/README.md for a run by
# hand outside a container):
#   SRC, OUT             required
#   WORK                 scratch directory (default: a temporary directory)
#   SANITIZER            address (default) | none | memory | thread | leak |
#                        undefined (Rust has no UBSan: built as none) |
#                        coverage (the builder's cargo wrapper turns
#                        `cargo fuzz build` into a coverage build)
#   FUZZING_ENGINE       libfuzzer, the only engine cargo-fuzz has
#   ARCHITECTURE         x86_64 (i386 is not supported for Rust)
#   CARGO_BUILD_TARGET   target triple (default: rustc's host triple)
#   CARGO_TARGET_DIR     cargo's target directory (default: fuzz/target)
#   FUZZ_TARGET_OUTPUT_DIR  where the binaries are taken from (default:
#                        $CARGO_TARGET_DIR/$CARGO_BUILD_TARGET/release)
#   FUZZ_DEBUG_ASSERTIONS   1 (default): build with debug assertions and
#                        overflow checks, as `cargo test` does; 0 to drop them
#   RUSTFLAGS            passed through (the builder's carry -Cdebuginfo=1
#                        -Cforce-frame-pointers and --cfg fuzzing)
#   RUSTC_BOOTSTRAP=1    lets a stable toolchain take cargo-fuzz's -Z flags
#                        (the builder's toolchain is nightly and needs nothing)
set -euo pipefail

: "${SRC:?SRC must be set (the directory holding toolcall-model)}"
: "${OUT:?OUT must be set (where the fuzzers and their files go)}"

project="$SRC/toolcall-model"
if [ ! -d "$project/fuzz" ]; then
    # Run from a checkout whose directory has another name.
    project="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fi
cd "$project"
mkdir -p "$OUT"

sanitizer="${SANITIZER:-address}"
engine="${FUZZING_ENGINE:-libfuzzer}"
arch="${ARCHITECTURE:-x86_64}"

if [ "$engine" != libfuzzer ]; then
    echo "build.sh: FUZZING_ENGINE=$engine: cargo-fuzz builds libFuzzer targets only" >&2
    exit 1
fi
if [ "$arch" != x86_64 ]; then
    echo "build.sh: ARCHITECTURE=$arch: only x86_64 is supported for Rust" >&2
    exit 1
fi

build_args=(--release)
case "$sanitizer" in
    address | memory | thread | leak) build_args+=(--sanitizer "$sanitizer") ;;
    none | undefined) build_args+=(--sanitizer none) ;;
    coverage) ;; # the builder's cargo wrapper replaces the whole build
    *)
        echo "build.sh: SANITIZER=$sanitizer is not one cargo-fuzz knows" >&2
        exit 1
        ;;
esac
if [ "${FUZZ_DEBUG_ASSERTIONS:-1}" = 1 ] && [ "$sanitizer" != coverage ]; then
    build_args+=(--debug-assertions)
fi

if [ "$sanitizer" = coverage ]; then
    # The wrapper ignores --target and copies its debug build here.
    triple=x86_64-unknown-linux-gnu
else
    triple="${CARGO_BUILD_TARGET:-$(rustc -vV | sed -n 's/^host: //p')}"
    build_args+=(--target "$triple")
fi
output_dir="${FUZZ_TARGET_OUTPUT_DIR:-${CARGO_TARGET_DIR:-fuzz/target}/$triple/release}"

mapfile -t targets < <(cargo fuzz list)
if [ "${#targets[@]}" -eq 0 ]; then
    echo "build.sh: cargo fuzz list names no target" >&2
    exit 1
fi
echo "build.sh: targets: ${targets[*]}"

# The first argument must stay `fuzz` and the second `build`: that is what
# the builder's cargo wrapper looks for in a coverage build.
cargo fuzz build "${build_args[@]}"

# max_len, the dictionaries and the limits, shared with fuzz/ci.sh.
# shellcheck source=fuzz/targets.sh
. fuzz/targets.sh

# Writes the zip $1 of every file of the directory $2, without paths.
make_zip() {
    rm -f "$1"
    if command -v zip >/dev/null 2>&1; then
        (cd "$2" && zip -q -X -r "$1" .)
    else
        python3 - "$1" "$2" <<'PY'
import os, sys, zipfile
out, src = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for name in sorted(os.listdir(src)):
        z.write(os.path.join(src, name), name)
PY
    fi
}

scratch="$(mktemp -d "${WORK:-${TMPDIR:-/tmp}}/toolcall-seeds.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

out_abs="$(cd "$OUT" && pwd)"
for target in "${targets[@]}"; do
    binary="$output_dir/$target"
    if [ ! -x "$binary" ]; then
        echo "build.sh: $binary was not built" >&2
        exit 1
    fi
    cp "$binary" "$OUT/$target"

    # Seed corpus: the checked-in corpus and the saved crashes, which are
    # the inputs most worth mutating. Hidden files are cargo-fuzz's and
    # editors' droppings (tests/fuzz_replay.rs skips them too).
    seeds="$scratch/$target"
    mkdir -p "$seeds"
    if [ -d "fuzz/corpus/$target" ]; then
        find "fuzz/corpus/$target" -maxdepth 1 -type f ! -name '.*' \
            -exec cp {} "$seeds/" \;
    fi
    if [ -d "fuzz/regressions/$target" ]; then
        for f in "fuzz/regressions/$target"/*; do
            [ -f "$f" ] || continue
            case "$(basename "$f")" in .*) continue ;; esac
            cp "$f" "$seeds/regression-$(basename "$f")"
        done
    fi
    rm -f "$OUT/${target}_seed_corpus.zip"
    if [ -n "$(ls -A "$seeds")" ]; then
        make_zip "$out_abs/${target}_seed_corpus.zip" "$seeds"
    fi

    {
        echo "[libfuzzer]"
        echo "max_len = $(max_len "$target")"
        echo "rss_limit_mb = $(rss_limit_mb)"
        echo "timeout = $(timeout_seconds)"
        if takes_dict "$target"; then
            echo "dict = $target.dict"
        fi
    } >"$OUT/$target.options"
    if takes_dict "$target"; then
        cp "fuzz/$(dict_file "$target")" "$OUT/$target.dict"
    else
        rm -f "$OUT/$target.dict"
    fi
done

echo "build.sh: wrote ${#targets[@]} fuzzers to $OUT"
