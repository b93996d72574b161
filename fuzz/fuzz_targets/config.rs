//! The `config` target; its body is `toolcall_check::verification::fuzzing::config`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| toolcall_check::verification::fuzzing::config(data));
