//! The `tool_loop` target; its body is `toolcall_check::verification::fuzzing::tool_loop`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| toolcall_check::verification::fuzzing::tool_loop(data));
