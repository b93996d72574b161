//! The `manager` target; its body is `toolcall_check::checking::fuzzing::manager`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| toolcall_check::checking::fuzzing::manager(data));
