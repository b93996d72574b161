fn main() {
    use toolcall_model::{behavior::Fixes, gemini::convert_tool_response};
    for d in [100usize, 127, 128, 129, 200] {
        let t = format!("{}0.1000000000000000000001{}", "[".repeat(d), "]".repeat(d));
        let v = convert_tool_response(&t, false, Fixes::all()).unwrap().to_value().to_string();
        let inner = v.trim_start_matches(|c: char| c == '[' || c == '{' || c == '"' || c == ':' || c.is_alphabetic());
        println!("depth {d}: {}", &inner[..inner.find(']').unwrap_or(inner.len())]);
    }
}
