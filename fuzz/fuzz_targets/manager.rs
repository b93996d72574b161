//! The `manager` target; its body is `toolcall_model::checking::fuzzing::manager`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| toolcall_model::checking::fuzzing::manager(data));
