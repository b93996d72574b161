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

# The dictionary of target $1 (a file of fuzz/), none for the scenario
# targets: fuzz/config.dict holds Spring keys, placeholder and YAML syntax.
dict_file() {
    case "$1" in
        manager | tool_loop) ;;
        config | config_reader | config_binder) echo config.dict ;;
        *) echo json.dict ;;
    esac
}

# Whether target $1 has a dictionary.
takes_dict() {
    [ -n "$(dict_file "$1")" ]
}

# What counts as a crash besides a panic, for every target: an input that
# takes more memory than this (MB) or longer than this (seconds) to run. The
# library bounds its work by the input (docs/TESTING.md: what each command takes), so
# a blow-up is a bug found.
rss_limit_mb() { echo 2048; }
timeout_seconds() { echo 10; }
