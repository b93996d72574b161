//! How much a step-wise model could share: the distinct states of the tool
//! loop after each round, against the scenarios that reach that round, in
//! one family of a bound (by default the default bound's multi-round
//! `loop`). A state is the turn's whole state ([`Turn`]'s debug form, which
//! shows every field) with or without the toolbox; two scenarios sharing a
//! state after round k would share the first k rounds' work.

#![forbid(unsafe_code)]

use std::collections::hash_map::DefaultHasher;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::time::Instant;

use toolcall_check::verification::exhaustive::{Bound, Space};
use toolcall_check::verification::generators::with_set;
use toolcall_model::chat::{Answer, Ask, Turn};
use toolcall_model::model::{behavior_sets, Toolbox};

fn fingerprint(parts: &[&dyn std::fmt::Debug]) -> u64 {
    let mut h = DefaultHasher::new();
    for p in parts {
        format!("{p:?}").hash(&mut h);
    }
    h.finish()
}

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let bound = args.next().unwrap_or_else(|| "default".to_owned());
    let family = args.next().unwrap_or_else(|| "loop".to_owned());
    let set_name = args.next().unwrap_or_else(|| "upstream".to_owned());
    let space = Space::new(&Bound::named(&bound).ok_or(format!("no bound {bound}"))?);
    let set = behavior_sets()
        .into_iter()
        .find(|s| s.name == set_name)
        .ok_or(format!("no behaviour set {set_name}"))?;
    let t0 = Instant::now();
    // Per round k (0 = before the first model call): scenarios reaching it,
    // distinct (turn, toolbox) states, distinct turn states.
    let mut reached = [0u64; 8];
    let mut with_tools: Vec<HashSet<u64>> = vec![HashSet::new(); 8];
    let mut turn_only: Vec<HashSet<u64>> = vec![HashSet::new(); 8];
    // Per round: model calls made from it, and distinct (state, reply)
    // pairs, the steps a deduplicating search would run.
    let mut calls = [0u64; 8];
    let mut steps_distinct: Vec<HashSet<u64>> = vec![HashSet::new(); 8];
    let mut scenarios = 0u64;
    for index in 0..space.scenarios() {
        let Some(item) = space.item(index) else { break };
        if space.family(&item).name != family || space.canonical(&item).is_none() {
            continue;
        }
        scenarios += 1;
        let s = with_set(&space.scenario(&item), &set);
        let mut tb = Toolbox::new(s.tools.clone());
        let mut turn = Turn::new(&s.config, s.history.clone(), tb.tools());
        if s.config.stream.is_some() {
            turn = turn.streaming();
        }
        for k in 0..8 {
            reached[k] += 1;
            let state = fingerprint(&[&turn, &tb]);
            with_tools[k].insert(state);
            turn_only[k].insert(fingerprint(&[&turn]));
            let Ok(Ask::Model(asking)) = turn.ask() else {
                break;
            };
            let Some(reply) = s.model.get(k) else { break };
            calls[k] += 1;
            steps_distinct[k].insert(fingerprint(&[&state, reply]));
            let answer = match s.config.stream {
                Some(split) => asking.answer_chunks(&split.chunks(reply), &mut tb),
                None => asking.answer(reply, &mut tb),
            };
            match answer {
                Answer::Next(next) => turn = next,
                Answer::End(_) => break,
            }
        }
    }
    println!(
        "bound {bound}, family {family}, set {set_name}: {scenarios} scenarios run (mirror images left out), {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    println!("round k | scenarios reaching k | distinct (turn, toolbox) | distinct turn | model calls from k | distinct (state, reply)");
    let (mut steps, mut states, mut states_turn) = (0u64, 0u64, 0u64);
    let (mut all_calls, mut all_distinct) = (0u64, 0u64);
    for k in 0..8 {
        if reached[k] == 0 {
            continue;
        }
        steps += reached[k];
        states += with_tools[k].len() as u64;
        states_turn += turn_only[k].len() as u64;
        all_calls += calls[k];
        all_distinct += steps_distinct[k].len() as u64;
        println!(
            "{k} | {} | {} ({:.1} %) | {} ({:.1} %) | {} | {} ({:.1} %)",
            reached[k],
            with_tools[k].len(),
            100.0 * with_tools[k].len() as f64 / reached[k] as f64,
            turn_only[k].len(),
            100.0 * turn_only[k].len() as f64 / reached[k] as f64,
            calls[k],
            steps_distinct[k].len(),
            100.0 * steps_distinct[k].len() as f64 / calls[k].max(1) as f64
        );
    }
    println!(
        "all rounds | {steps} | {states} ({:.1} %) | {states_turn} ({:.1} %) | {all_calls} | {all_distinct} ({:.1} %)",
        100.0 * states as f64 / steps as f64,
        100.0 * states_turn as f64 / steps as f64,
        100.0 * all_distinct as f64 / all_calls.max(1) as f64
    );
    Ok(())
}
