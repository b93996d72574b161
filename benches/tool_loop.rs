//! A whole user turn of R rounds through the tool loop with a Gemini request
//! built and validated at every model call, through `call()` and streamed;
//! and the conversion work alone,
//! done incrementally (each message once, as the loop does) against the way
//! 2.0.1 does it (every round's request rebuilt from the whole history), with
//! the fixes and with upstream's conversion.
// criterion_group! generates a public function that cannot carry a doc comment.
#![allow(missing_docs)]

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use toolcall_model::chat::Split;
use toolcall_model::chat::{LoopConfig, run_loop};
use toolcall_model::gemini::{IncrementalRequests, build_request};
use toolcall_model::model::Config;
use toolcall_model::model::Fixes;
use toolcall_model::model::ToolCallLimits;
use toolcall_model::model::{Generation, Message, ToolCall};
use toolcall_model::model::{ToolSpec, Toolbox};

const RESULT: &str = "{\"temperature\":21.5,\"unit\":\"C\",\"conditions\":[\"sunny\",\"dry\"],\"station\":{\"id\":42,\"name\":\"central\"}}";

fn script(rounds: usize) -> Vec<Vec<Generation>> {
    let mut model: Vec<Vec<Generation>> = (0..rounds.saturating_sub(1))
        .map(|r| {
            vec![Generation {
                tool_calls: vec![
                    ToolCall::new(&format!("a{r}"), "weather", "{\"city\":\"Paris\"}"),
                    ToolCall::new(&format!("b{r}"), "weather", "{\"city\":\"Oslo\"}"),
                ]
                .into(),
                ..Generation::default()
            }]
        })
        .collect();
    model.push(vec![Generation {
        text: Some("Done.".into()),
        ..Generation::default()
    }]);
    model
}

fn cfg() -> LoopConfig {
    LoopConfig::new(Config {
        limits: ToolCallLimits::default()
            .unlimited_calls_per_tool()
            .unlimited_total_tool_calls(),
        fixes: Fixes::all(),
        ..Config::default()
    })
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("tool_loop");
    g.sample_size(20);
    g.warm_up_time(std::time::Duration::from_millis(300));
    g.measurement_time(std::time::Duration::from_secs(2));
    let cfg = cfg();
    for &r in &[1usize, 10, 50] {
        let model = script(r);
        let tools = Toolbox::new(vec![ToolSpec::returning("weather", RESULT)]);
        let start = vec![
            Message::System {
                text: Some("You are a weather bot.".into()),
            },
            Message::user("weather please"),
        ];
        g.throughput(Throughput::Elements(r as u64));
        g.bench_function(BenchmarkId::new("loop", r), |b| {
            b.iter(|| {
                let mut tb = tools.clone();
                black_box(run_loop(&cfg, start.clone(), &model, &mut tb).expect("loop runs"))
            })
        });
        // The same turn streamed: each reply cut into chunks, aggregated
        // back before the batch, the client's responses recorded.
        let streamed = LoopConfig {
            stream: Some(Split::default()),
            ..cfg.clone()
        };
        g.bench_function(BenchmarkId::new("loop-streamed", r), |b| {
            b.iter(|| {
                let mut tb = tools.clone();
                black_box(run_loop(&streamed, start.clone(), &model, &mut tb).expect("loop runs"))
            })
        });
        // The same turn's requests, each rebuilt from its whole history.
        let mut tb = tools.clone();
        let run = run_loop(&cfg, start.clone(), &model, &mut tb).expect("loop runs");
        let last = match run.requests.last() {
            Some(toolcall_model::chat::Sent::Gemini(_)) => {
                let mut h = start.clone();
                let mut hist = vec![h.clone()];
                for round in &model[..model.len() - 1] {
                    h.push(round[0].to_message());
                    h.push(Message::Tool {
                        responses: round[0]
                            .tool_calls
                            .iter()
                            .map(|c| {
                                toolcall_model::model::ToolResponse::new(&c.id, &c.name, RESULT)
                            })
                            .collect(),
                    });
                    hist.push(h.clone());
                }
                hist
            }
            _ => unreachable!("provider is gemini"),
        };
        g.bench_function(BenchmarkId::new("convert-incrementally", r), |b| {
            b.iter(|| {
                let mut inc = IncrementalRequests::default();
                for h in &last {
                    black_box(inc.build(h, Fixes::all()).expect("builds"));
                }
            })
        });
        g.bench_function(BenchmarkId::new("reconvert-every-round", r), |b| {
            b.iter(|| {
                for h in &last {
                    black_box(build_request(h, Fixes::all()).expect("builds"));
                }
            })
        });
        // The same with upstream's conversion (the lenient reader builds a
        // tree of every payload): the counterpart of the real
        // createGeminiRequest in conformance/bench.
        g.bench_function(BenchmarkId::new("reconvert-every-round-upstream", r), |b| {
            b.iter(|| {
                for h in &last {
                    black_box(build_request(h, Fixes::upstream()).expect("builds"));
                }
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
