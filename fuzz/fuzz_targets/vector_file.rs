//! The `vector_file` target; its body is `toolcall_check::verification::fuzzing::vector_file`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| toolcall_check::verification::fuzzing::vector_file(data));
