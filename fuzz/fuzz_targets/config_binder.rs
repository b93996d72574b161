//! The `config_binder` target; its body is `toolcall_check::verification::fuzzing::config_binder`.
#![no_main]
libfuzzer_sys::fuzz_target!(
    |data: &[u8]| toolcall_check::verification::fuzzing::config_binder(data)
);
