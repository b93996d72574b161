//! The `lenient_parser` target; its body is `toolcall_check::verification::fuzzing::lenient_parser`.
#![no_main]
libfuzzer_sys::fuzz_target!(
    |data: &[u8]| toolcall_check::verification::fuzzing::lenient_parser(data)
);
