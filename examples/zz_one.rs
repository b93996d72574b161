fn main() {
    let p = std::env::args().nth(1).unwrap();
    let data = std::fs::read(&p).unwrap();
    if p.contains("manager") {
        toolcall_model::fuzzing::manager(&data)
    } else {
        toolcall_model::fuzzing::tool_loop(&data)
    }
}
