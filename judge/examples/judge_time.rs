//! Times the judge natively on facts read from standard input: `cargo run
//! --release -p toolcall-judge --example judge_time -- [CALLS] < facts.json`
//! prints the first call's time and the median and least of the rest
//! (BENCHMARKS.md, section 10); `JUDGE_TIME_SHOW=1` prints the answer too.

use std::io::Read;
use std::time::Instant;

fn main() {
    let calls: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(20);
    let mut facts = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut facts) {
        eprintln!("error: cannot read the facts: {e}");
        std::process::exit(2);
    }
    let mut times = Vec::with_capacity(calls);
    let mut answer = String::new();
    for _ in 0..calls.max(1) {
        let start = Instant::now();
        answer = toolcall_judge::judge(&facts);
        times.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    let first = times[0];
    let mut rest = times[1..].to_vec();
    rest.sort_by(f64::total_cmp);
    let median = rest.get(rest.len() / 2).copied().unwrap_or(first);
    let least = rest.first().copied().unwrap_or(first);
    if std::env::var_os("JUDGE_TIME_SHOW").is_some() {
        println!("{answer}");
    }
    println!("{} bytes answered", answer.len());
    println!("first {first:.2} ms, then median {median:.2} ms, least {least:.2} ms");
}
