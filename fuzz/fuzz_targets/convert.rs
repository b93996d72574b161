//! The `convert` target; its body is `toolcall_model::checking::fuzzing::convert`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| toolcall_model::checking::fuzzing::convert(data));
