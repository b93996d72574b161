//! Conversion of tool responses to `functionResponse.response`: upstream's
//! lenient parse, the fixed strict-or-wrap conversion, and two floors on the
//! same bytes (`serde_json` into a `Value`, and into `IgnoredAny`, which only
//! validates).
// criterion_group! generates a public function that cannot carry a doc comment.
#![allow(missing_docs)]

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde::de::IgnoredAny;
use std::hint::black_box;
use toolcall_model::gemini::{convert_tool_response, parse_json_to_map};
use toolcall_model::model::{Fix, Fixes};

fn object_of_size(target: usize) -> String {
    let mut s = String::from("{");
    let mut i = 0;
    while s.len() < target {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&format!(
            "\"key{i}\":{{\"id\":{i},\"name\":\"item number {i}\",\"price\":{}.25,\"tags\":[\"a\",\"b\",true,null]}}",
            i * 3
        ));
        i += 1;
    }
    s.push('}');
    s
}

fn nested(target: usize) -> String {
    // Objects nested a few levels deep, repeated: realistic tool output.
    let leaf = "{\"a\":[1,2,{\"b\":{\"c\":\"text with \\\"escapes\\\" and unicode \\u00e9\"}}],\"d\":-1.5e3}";
    let mut s = String::from("{\"items\":[");
    let mut first = true;
    while s.len() < target {
        if !first {
            s.push(',');
        }
        first = false;
        s.push_str(&format!("{{\"x\":{leaf},\"y\":[{leaf},{leaf}]}}"));
    }
    s.push_str("]}");
    s
}

fn bench(c: &mut Criterion) {
    let fixed = Fixes::only(Fix::StrictJsonOrWrap);
    let plain: String = "Tool call limit (1) exceeded for tool 'weather'. No further calls to this tool are allowed in this turn. Please try again later......."
        .chars()
        .cycle()
        .take(200)
        .collect();
    let inputs = [
        ("object-1KB", object_of_size(1 << 10)),
        ("nested-100KB", nested(100 << 10)),
        ("text-200B", plain),
        ("object-10MB", object_of_size(10 << 20)),
    ];
    let mut g = c.benchmark_group("convert");
    g.sample_size(10);
    g.warm_up_time(std::time::Duration::from_millis(300));
    g.measurement_time(std::time::Duration::from_secs(2));
    for (name, text) in &inputs {
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_with_input(BenchmarkId::new("upstream-lenient", name), text, |b, t| {
            b.iter(|| black_box(parse_json_to_map(Some(t)).is_ok()))
        });
        g.bench_with_input(
            BenchmarkId::new("fixed-strict-or-wrap", name),
            text,
            |b, t| b.iter(|| black_box(convert_tool_response(t, false, fixed).is_ok())),
        );
        g.bench_with_input(BenchmarkId::new("serde-value", name), text, |b, t| {
            b.iter(|| black_box(serde_json::from_str::<serde_json::Value>(t).is_ok()))
        });
        g.bench_with_input(BenchmarkId::new("serde-ignoredany", name), text, |b, t| {
            b.iter(|| black_box(serde_json::from_str::<IgnoredAny>(t).is_ok()))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
