//! The `config` target; its body is `toolcall_check::checking::fuzzing::config`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| toolcall_check::checking::fuzzing::config(data));
