//! The `config_reader` target; its body is `toolcall_check::verification::fuzzing::config_reader`.
#![no_main]
libfuzzer_sys::fuzz_target!(
    |data: &[u8]| toolcall_check::verification::fuzzing::config_reader(data)
);
