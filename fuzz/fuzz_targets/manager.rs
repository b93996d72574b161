//! The `manager` target; its body is `toolcall_check::verification::fuzzing::manager`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| toolcall_check::verification::fuzzing::manager(data));
