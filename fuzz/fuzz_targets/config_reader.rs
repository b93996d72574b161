//! The `config_reader` target; its body is `toolcall_check::checking::fuzzing::config_reader`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| toolcall_check::checking::fuzzing::config_reader(data));
