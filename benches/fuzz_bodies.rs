//! The fuzz targets' bodies (`toolcall_check::verification::fuzzing`) over their
//! checked-in corpus, natively (no coverage instrumentation): what one
//! input costs, apart from libFuzzer's own work.
// criterion_group! generates a public function that cannot carry a doc comment.
#![allow(missing_docs)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::path::Path;
use toolcall_check::verification::fuzzing;

fn corpus(target: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    files.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

/// A fuzz target's body.
type Body = fn(&[u8]);

fn bench(c: &mut Criterion) {
    let targets: [(&str, Body); 6] = [
        ("manager", fuzzing::manager),
        ("tool_loop", fuzzing::tool_loop),
        ("convert", fuzzing::convert),
        ("lenient_parser", fuzzing::lenient_parser),
        ("vector_file", fuzzing::vector_file),
        ("config", fuzzing::config),
    ];
    let mut g = c.benchmark_group("fuzz_bodies");
    g.sample_size(10);
    g.warm_up_time(std::time::Duration::from_millis(300));
    g.measurement_time(std::time::Duration::from_secs(2));
    for (name, body) in targets {
        let inputs = corpus(name);
        g.throughput(Throughput::Elements(inputs.len() as u64));
        g.bench_function(name, |b| {
            b.iter(|| {
                for input in &inputs {
                    body(input);
                }
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
