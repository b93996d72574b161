//! The `toolcall-model` command: a thin driver around the library that
//! reads files and standard input and prints results
//! ([`toolcall_check::main`]).
#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    toolcall_check::main()
}
