//! The `convert` target; its body is `toolcall_check::checking::fuzzing::convert`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| toolcall_check::checking::fuzzing::convert(data));
