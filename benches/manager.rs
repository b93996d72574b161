//! The manager's hot path: one batch of N tool calls over M registered tools
//! at turn length L, for two engines on the same input:
//!
//! * `incremental`: this project's turn state (counts carried from round to
//!   round, history moved not copied, tools found through an index);
//! * `recount`: the way Spring AI 2.0.1 works (counts rebuilt from the whole
//!   turn on every batch, tools found by scanning the list).
//!
//! Tool bodies are trivial so that the manager's own cost shows.
// criterion_group! generates a public function that cannot carry a doc comment.
#![allow(missing_docs)]

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use toolcall_model::model::{Batch, Config, Step, execute_with_counts, tool_call_message};
use toolcall_model::model::{Counts, ToolCallLimits};
use toolcall_model::model::{Generation, Message, ToolCall, ToolResponse};
use toolcall_model::model::{ToolSpec, Toolbox};

fn tools(m: usize) -> Vec<ToolSpec> {
    (0..m)
        .map(|i| ToolSpec::returning(&format!("tool{i}"), "\"ok\""))
        .collect()
}

fn history(l: usize, m: usize) -> Vec<Message> {
    let calls: Vec<ToolCall> = (0..l)
        .map(|i| ToolCall::new(&format!("p{i}"), &format!("tool{}", i % m), "{}"))
        .collect();
    let responses = (0..l)
        .map(|i| ToolResponse::new(&format!("p{i}"), &format!("tool{}", i % m), "\"ok\""))
        .collect();
    let mut h = vec![Message::user("go")];
    if l > 0 {
        h.push(Message::assistant(None, calls));
        h.push(Message::Tool { responses });
    }
    h
}

fn batch(n: usize, m: usize) -> Vec<Generation> {
    vec![Generation {
        tool_calls: (0..n)
            .map(|i| {
                ToolCall::new(
                    &format!("c{i}"),
                    &format!("tool{}", (i * 7) % m),
                    "{\"q\":1}",
                )
            })
            .collect(),
        ..Generation::default()
    }]
}

/// 2.0.1's algorithm: recount the turn, then scan the tool list per call.
fn recount_engine(
    cfg: &Config,
    history: Vec<Message>,
    gens: &[Generation],
    tb: &mut Toolbox,
) -> usize {
    let prior = Counts::recount(&history);
    let assistant = tool_call_message(gens).expect("calls");
    let mut b = Batch::new(prior);
    for call in assistant.tool_calls() {
        b = match b.call(call, cfg, |n| tb.find_by_scan(n, false)) {
            Step::Invoke(p) => {
                let r = tb.invoke(p.tool(), p.arguments());
                p.complete(r, cfg).expect("tool runs")
            }
            Step::Answered(b) => b,
            _ => unreachable!("limits are off"),
        };
    }
    b.finish(history, assistant).0.history.len()
}

fn bench(c: &mut Criterion) {
    let cfg = Config {
        limits: ToolCallLimits::default()
            .unlimited_calls_per_tool()
            .unlimited_total_tool_calls(),
        ..Config::default()
    };
    let mut g = c.benchmark_group("manager");
    g.sample_size(20);
    g.warm_up_time(std::time::Duration::from_millis(300));
    g.measurement_time(std::time::Duration::from_secs(1));
    for &n in &[1usize, 10, 150] {
        for &m in &[1usize, 100] {
            for &l in &[0usize, 100, 10_000] {
                let h = history(l, m);
                let gens = batch(n, m);
                let tb = Toolbox::new(tools(m));
                let prior = Counts::recount(&h);
                g.throughput(Throughput::Elements(n as u64));
                let id = format!("N={n}/M={m}/L={l}");
                g.bench_function(BenchmarkId::new("incremental", &id), |b| {
                    // The loop's steady state: the turn history and counts are
                    // carried from batch to batch, never rebuilt or copied.
                    let base = h.len();
                    let mut hist = h.clone();
                    let mut counts = prior.clone();
                    let mut tb = tb.clone();
                    b.iter(|| {
                        let (r, c) = execute_with_counts(
                            &cfg,
                            std::mem::take(&mut hist),
                            &gens,
                            std::mem::take(&mut counts),
                            &mut tb,
                        )
                        .expect("batch");
                        counts = c;
                        hist = r.history;
                        hist.truncate(base);
                        black_box(tb.take_invocations())
                    })
                });
                g.bench_function(BenchmarkId::new("recount", &id), |b| {
                    b.iter_batched(
                        || (h.clone(), tb.clone()),
                        |(h, mut tb)| black_box(recount_engine(&cfg, h, &gens, &mut tb)),
                        BatchSize::LargeInput,
                    )
                });
            }
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
