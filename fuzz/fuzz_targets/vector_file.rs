//! The `vector_file` target; its body is `toolcall_model::fuzzing::vector_file`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| toolcall_model::fuzzing::vector_file(data));
