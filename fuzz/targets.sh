# shellcheck shell=bash
# What each fuzz target is told, in one place: sourced by fuzz/ci.sh and
# .clusterfuzzlite/build.sh.
#
# Inputs past the library's bounds are ignored at once (fuzzing::MAX_BYTES,
# fuzzing::MAX_CASE_BYTES), so libFuzzer is told not to make them; the
# scenario targets decode their bytes with `arbitrary`, so a JSON dictionary
# means nothing to them.

# The longest input worth making for target $1.
max_len() {
    case "$1" in
        manager | tool_loop) echo 16384 ;;
        *) echo 65536 ;;
    esac
}

# Whether target $1 reads text that fuzz/json.dict helps with.
takes_dict() {
    case "$1" in
        manager | tool_loop) return 1 ;;
        *) return 0 ;;
    esac
}
