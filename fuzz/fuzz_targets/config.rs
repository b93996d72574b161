//! The `config` target; its body is `toolcall_model::checking::fuzzing::config`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| toolcall_model::checking::fuzzing::config(data));
