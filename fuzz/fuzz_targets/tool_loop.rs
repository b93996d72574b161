//! The `tool_loop` target; its body is `toolcall_check::checking::fuzzing::tool_loop`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| toolcall_check::checking::fuzzing::tool_loop(data));
