#!/usr/bin/env bash
# Builds the fuzz workspace and runs every target for FUZZ_SECONDS seconds
# (default 30) on a temporary copy of its checked-in corpus, so that a CI run
# never grows the repository. .ci/run calls this script.
#
# With a nightly toolchain: `cargo +nightly fuzz` (libFuzzer + AddressSanitizer;
# libFuzzer's own C++ is built without it, fuzz/.cargo/config.toml).
# Without one: `RUSTC_BOOTSTRAP=1 cargo fuzz ... -s none` on stable.
# cargo-fuzz is installed with `cargo install cargo-fuzz --locked` if missing.
# A crash fails the script; its input is kept in fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")"

seconds="${FUZZ_SECONDS:-30}"

if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi

if cargo +nightly --version >/dev/null 2>&1; then
    fuzz=(cargo +nightly fuzz)
    sanitizer=()
else
    export RUSTC_BOOTSTRAP=1
    fuzz=(cargo fuzz)
    sanitizer=(-s none)
fi

# shellcheck source=fuzz/targets.sh
. ./targets.sh

dict() {
    if takes_dict "$1"; then echo "-dict=$(dict_file "$1")"; fi
}

"${fuzz[@]}" build -O "${sanitizer[@]}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for target in $("${fuzz[@]}" list); do
    mkdir -p "$work/$target"
    if [ -d "corpus/$target" ]; then
        cp -R "corpus/$target/." "$work/$target/"
    fi
    echo "== fuzz $target for ${seconds}s"
    # shellcheck disable=SC2046 # dict is one word or none
    "${fuzz[@]}" run -O "${sanitizer[@]}" "$target" "$work/$target" -- \
        -max_total_time="$seconds" -rss_limit_mb="$(rss_limit_mb)" -timeout="$(timeout_seconds)" \
        -max_len="$(max_len "$target")" $(dict "$target") -print_final_stats=1
done
echo "fuzz: every target ran ${seconds}s without a crash"
