//! The bounds, the space and the run against reference evaluators.

use std::num::NonZeroU32;

use crate::verification::footprint::{Alike, Conversions, evaluates_alike};
use crate::verification::generators::with_set;
use crate::verification::invariants::check_scenario;
use crate::verification::invariants::{
    Evidence, Invariant, Replays, Verdict, check, check_as, through_call,
};
use crate::verification::scenario::Scenario;
use crate::verification::test_stride;
use toolcall_model::chat::{Memory, Provider};
use toolcall_model::model::Message;
use toolcall_model::model::OnExceeded;
use toolcall_model::model::Processor;
use toolcall_model::model::{BehaviorSet, behavior_sets};

use super::bound::{MemorySetup, ROUND_TEXT, RoundReply};
use super::run::{NONE, key, set_groups, through_calls};
use super::{Bound, Family, Proof, Space, run};

/// The behaviour set of that name.
fn set(name: &str) -> BehaviorSet {
    behavior_sets()
        .into_iter()
        .find(|b| b.name == name)
        .unwrap()
}

/// The scenarios of one family of `space`, with their indices.
fn family_scenarios<'a>(
    space: &'a Space,
    family: &'a str,
) -> impl Iterator<Item = (u64, Scenario)> + 'a {
    (0..space.scenarios()).filter_map(move |i| {
        let item = space.item(i).unwrap();
        (space.family(&item).name == family).then(|| (i, space.scenario(&item)))
    })
}

fn small(outcomes: Vec<usize>, max_batch: usize) -> Bound {
    Bound {
        name: "test",
        families: vec![Family {
            name: "test",
            max_batch,
            min_rounds: 1,
            max_rounds: 1,
            max_turn_calls: max_batch,
            max_prior: 0,
            per_tool: vec![None],
            total: vec![None],
            breach: vec![OnExceeded::Throw],
            processors: vec![Processor::default()],
            outcomes,
            memories: vec![MemorySetup::none()],
            provider: Provider::Gemini,
            round_reply: RoundReply::CallsOnly,
            repeat_last: false,
        }],
    }
}

#[test]
fn counts_with_and_without_symmetry() {
    // One call: a or b with one of 2 outcomes, or the unknown name.
    let s = Space::new(&small(vec![0, 1], 1));
    assert_eq!(s.scenarios(), 2 + 2 + 1);
    assert_eq!(s.evaluated(), 2 + 1);
    // Up to two calls: 12 call lists; 26 scenarios; by Burnside's lemma
    // (26 + 2 fixed by the swap: `d` and `d d`) / 2 = 14 classes.
    let s = Space::new(&small(vec![0, 1], 2));
    assert_eq!(s.scenarios(), 26);
    assert_eq!(s.evaluated(), 14);
}

#[test]
fn the_canonical_count_matches_the_enumeration_and_swaps_are_involutions() {
    for b in [Bound::tiny(), small(vec![0, 1, 2], 3)] {
        let s = Space::new(&b);
        let mut run = 0u64;
        let mut weight = 0u64;
        for i in 0..s.scenarios() {
            let item = s.item(i).unwrap();
            assert_eq!(s.index_of(item.shape, &item), i);
            let sw = s.swap(&item);
            assert_eq!(s.swap(&sw), item);
            assert_eq!(s.size(&sw), s.size(&item));
            if let Some(w) = s.canonical(&item) {
                run += 1;
                weight += w;
            }
        }
        assert_eq!(run, s.evaluated());
        assert_eq!(weight, s.scenarios());
    }
}

#[test]
fn swapped_scenarios_have_the_same_verdicts() {
    let s = Space::new(&Bound::tiny());
    let sets = behavior_sets();
    for i in 0..s.scenarios() {
        let item = s.item(i).unwrap();
        if s.canonical(&item) != Some(2) {
            continue;
        }
        let (x, y) = (s.scenario(&item), s.scenario(&s.swap(&item)));
        for set in &sets {
            let (x, y) = (with_set(&x, set), with_set(&y, set));
            let (ex, ey) = (Evidence::gather(&x).unwrap(), Evidence::gather(&y).unwrap());
            for inv in Invariant::ALL {
                assert_eq!(
                    std::mem::discriminant(&check(inv, &ex)),
                    std::mem::discriminant(&check(inv, &ey)),
                    "{} × {inv} on scenario {i} and its swap",
                    set.name
                );
            }
        }
    }
}

#[test]
fn the_tiny_bound_refutes_upstream_and_proves_all() {
    let space = Space::new(&Bound::tiny());
    let r = run(&space, 2, &|_, _| {}).unwrap();
    for inv in [
        Invariant::JsonSafe,
        Invariant::GeminiSafe,
        Invariant::Lossless,
        Invariant::TranscriptValid,
        Invariant::StreamAsCall,
        Invariant::TurnEnds,
    ] {
        let c = r.cell("upstream", inv).unwrap();
        let Proof::Refuted {
            counterexample,
            replays,
            ..
        } = &c.proof
        else {
            panic!("upstream × {inv} should be refuted")
        };
        assert!(replays, "upstream × {inv}");
        let v = toolcall_model::vectors::Vector::from_value(counterexample).unwrap();
        assert!(matches!(
            v.verify(),
            toolcall_model::vectors::Verification::Failed(_)
        ));
    }
    // No fix is about what a stream delivers.
    for inv in Invariant::ALL {
        let c = r.cell("all", inv).unwrap();
        if inv == Invariant::StreamAsCall {
            assert_eq!(c.verdict(), "refuted");
            continue;
        }
        assert_eq!(c.proof, Proof::Proved, "all × {inv}");
        assert_eq!(c.scenarios, space.scenarios());
    }
}

/// Stream-as-call within the streamed family: a tool round's text
/// reaches a streaming client, and the memory outside the loop stores
/// it merged with the answer, where `call()` stores the answer alone;
/// without a memory the same turns invoke the tools as `call()` does.
#[test]
fn a_streamed_round_with_text_parts_from_call_only_in_the_memory_outside() {
    let space = Space::new(&Bound::tiny());
    let (mut held, mut merged) = (0, 0);
    for (i, s) in family_scenarios(&space, "streamed") {
        assert!(s.config.stream.is_some());
        let v = check_scenario(Invariant::StreamAsCall, &s);
        if s.config.memory == Memory::None {
            assert_eq!(v, Verdict::Holds, "scenario {i}");
            held += 1;
            continue;
        }
        let mut blocking = s.clone();
        blocking.config.stream = None;
        let (Ok((streamed, _)), Ok((called, _))) = (s.run(), blocking.run()) else {
            panic!("scenario {i} runs both ways");
        };
        let text = |run: &toolcall_model::chat::LoopRun| match run.memory.last() {
            Some(Message::Assistant { text, .. }) => text.clone(),
            _ => None,
        };
        if text(&streamed) != text(&called) {
            assert!(v.is_refuted(), "scenario {i}");
            assert_eq!(
                text(&streamed),
                text(&called)
                    .map(|t| format!("{ROUND_TEXT}{t}"))
                    .map(Into::into)
            );
            merged += 1;
        }
    }
    assert!(held > 0 && merged > 0, "{held} {merged}");
}

/// Transcript-valid within the streamed family's turns with the memory
/// inside the loop: upstream a batch that ends the turn (a `THROW` breach,
/// a failed batch) leaves the aggregated calls without responses in the
/// memory; `close-dangling-calls` answers them when the stream ends, as on
/// `call()`.
#[test]
fn a_streamed_turn_leaves_calls_dangling_upstream_and_the_fix_answers_them() {
    let space = Space::new(&Bound::tiny());
    let (mut dangling, mut inside) = (0, 0);
    for (i, s) in family_scenarios(&space, "streamed") {
        if s.config.memory != Memory::Inside {
            continue;
        }
        inside += 1;
        let upstream = check_scenario(Invariant::TranscriptValid, &s);
        if let Verdict::Refuted(w) = &upstream {
            assert!(
                w.contains("dangling") || w.contains("no response"),
                "scenario {i}: {w}"
            );
            dangling += 1;
        }
        for fixed in ["close-dangling-calls", "all"] {
            let v = check_scenario(Invariant::TranscriptValid, &with_set(&s, &set(fixed)));
            assert!(!v.is_refuted(), "scenario {i} under {fixed}: {v:?}");
        }
    }
    assert!(inside > 0 && dangling > 0, "{inside} {dangling}");
}

/// Turn-ends within the runaway family: refuted for upstream by a
/// repeating model under `RETURN_ERROR_RESPONSE` whose turn is still
/// going at its bound, proved for the fix. Under `THROW` every turn of
/// the family ends (its limits bind every name it calls, the
/// invariant's precondition).
#[test]
fn a_repeating_model_refutes_turn_ends_upstream_and_the_fix_ends_its_turn() {
    let space = Space::new(&Bound::tiny());
    let r = run(&space, 2, &|_, _| {}).unwrap();
    let c = r.cell("upstream", Invariant::TurnEnds).unwrap();
    let Proof::Refuted { index, replays, .. } = &c.proof else {
        panic!("upstream × turn-ends should be refuted: {:?}", c.proof)
    };
    assert!(replays);
    let item = space.item(*index).unwrap();
    assert_eq!(space.family(&item).name, "runaway");
    let s = space.scenario(&item);
    assert_eq!(
        s.config.manager.limits.on_exceeded,
        OnExceeded::ReturnErrorResponse
    );
    let bound = crate::verification::turn_bound::turn_bound(&s.config, &s.model).unwrap();
    // The smallest: one call repeated, a limit of one, three model calls.
    assert_eq!((s.model.len(), bound), (1, 3));
    // Upstream the turn is still calling the model at the guard past its
    // bound; under the fix the same turn ends within the bound.
    assert_eq!(
        s.run().map(|_| ()),
        Err(toolcall_model::chat::LoopError::TooManyRounds(bound + 1))
    );
    for fixed in ["end-turn-after-breach", "all"] {
        let (run, _) = with_set(&s, &set(fixed)).run().unwrap();
        assert!(run.requests.len() <= bound, "{fixed}: {run:?}");
        let c = r.cell(fixed, Invariant::TurnEnds).unwrap();
        assert_eq!(c.proof, Proof::Proved, "{fixed}");
        assert_eq!(c.applicable, space.scenarios(), "{fixed}");
    }
    // Under THROW, upstream ends every turn of the family; under
    // RETURN_ERROR_RESPONSE some run away.
    let (mut ended, mut ran_away) = (0, 0);
    for (i, s) in family_scenarios(&space, "runaway") {
        let v = check_scenario(Invariant::TurnEnds, &s);
        match s.config.manager.limits.on_exceeded {
            OnExceeded::Throw => {
                assert_eq!(v, Verdict::Holds, "scenario {i}");
                ended += 1;
            }
            OnExceeded::ReturnErrorResponse => ran_away += usize::from(v.is_refuted()),
        }
    }
    assert!(ended > 0 && ran_away > 0, "{ended} {ran_away}");
}

/// The evaluator as it was before the run shared one scenario between
/// the behaviour sets and took the request messages from the Gemini
/// run: a fresh `with_set` copy per set, a second run with provider
/// `none` for the messages, every invariant judged on every scenario,
/// no cell skipped once refuted.
/// Returns per cell (scenarios, applicable, first refuting key).
fn reference(space: &Space) -> Vec<(u64, u64, u64)> {
    let sets = behavior_sets();
    let n_inv = Invariant::ALL.len();
    let mut cells = vec![(0u64, 0u64, NONE); sets.len() * n_inv];
    for index in 0..space.scenarios() {
        let item = space.item(index).unwrap();
        let Some(weight) = space.canonical(&item) else {
            continue;
        };
        let k = key(space.size(&item), index);
        let base = space.scenario(&item);
        for (si, set) in sets.iter().enumerate() {
            let s = with_set(&base, set);
            let ev = Evidence::gather_with_second_run(&s);
            for (i, inv) in Invariant::ALL.iter().enumerate() {
                let c = &mut cells[si * n_inv + i];
                match ev.as_ref().map(|ev| check(*inv, ev)) {
                    Ok(Verdict::Holds) => {
                        c.0 += weight;
                        c.1 += weight;
                    }
                    Ok(Verdict::Refuted(_)) => c.2 = c.2.min(k),
                    _ => c.0 += weight,
                }
            }
        }
    }
    cells
}

#[test]
fn the_gemini_run_records_the_messages_of_the_provider_none_run() {
    let space = Space::new(&Bound::tiny());
    let (mut recorded, mut rerun) = (0, 0);
    for index in 0..space.scenarios() {
        let base = space.scenario(&space.item(index).unwrap());
        for set in &behavior_sets() {
            let s = with_set(&base, set);
            let (Ok(new), Ok(old)) = (Evidence::gather(&s), Evidence::gather_with_second_run(&s))
            else {
                continue;
            };
            assert_eq!(new.run, old.run, "scenario {index}");
            assert_eq!(
                new.request_messages(),
                old.request_messages(),
                "scenario {index}"
            );
            assert_eq!(new.attempted(), old.attempted(), "scenario {index}");
            assert_eq!(
                new.attempted_messages(),
                old.attempted_messages(),
                "scenario {index}"
            );
            if new.run.requests.len() == old.request_messages().map_or(0, <[_]>::len) {
                recorded += 1;
            } else {
                rerun += 1;
            }
        }
    }
    assert!(recorded > 0 && rerun > 0, "{recorded} {rerun}");
}

#[test]
fn a_turn_whose_window_cut_nothing_runs_the_same_with_no_window() {
    // memory-keeps-turns reruns a turn with an unbounded window only
    // where the window cut something: elsewhere the two runs are equal.
    let mut f = Bound::default_bound().families[2].clone();
    f.processors.truncate(1);
    f.per_tool = vec![None];
    f.total = vec![None];
    f.breach = vec![OnExceeded::ReturnErrorResponse];
    f.outcomes = vec![0, 3];
    f.memories.retain(|m| m.window.get() == 4);
    let space = Space::new(&Bound {
        name: "window",
        families: vec![f],
    });
    let sets = behavior_sets();
    let (mut same, mut cut) = (0, 0);
    for index in 0..space.scenarios() {
        let item = space.item(index).unwrap();
        if space.canonical(&item).is_none() {
            continue;
        }
        let base = space.scenario(&item);
        for set in [&sets[0], &sets[sets.len() - 2]] {
            let s = with_set(&base, set);
            let Ok((run, _)) = s.run() else { continue };
            if run.windowed {
                cut += 1;
                continue;
            }
            let mut open = s.clone();
            open.config.memory_max_messages = NonZeroU32::MAX;
            assert_eq!(
                open.run().unwrap().0,
                run,
                "scenario {index} under {}",
                set.name
            );
            same += 1;
        }
    }
    assert!(same > 0 && cut > 0, "{same} {cut}");
}

#[test]
fn the_run_gives_the_reference_evaluators_verdicts_and_counterexamples() {
    let space = Space::new(&Bound::tiny());
    let r = run(&space, 2, &|_, _| {}).unwrap();
    let want = reference(&space);
    assert_eq!(r.cells.len(), want.len());
    for (c, (scenarios, applicable, best)) in r.cells.iter().zip(want) {
        let name = format!("{} × {}", c.set, c.invariant);
        match &c.proof {
            Proof::Proved => {
                assert_eq!(best, NONE, "{name}");
                assert_eq!(
                    (c.scenarios, c.applicable),
                    (scenarios, applicable),
                    "{name}"
                );
            }
            Proof::Refuted { size, index, .. } => {
                assert_eq!(key(*size, *index), best, "{name}");
            }
            Proof::NotApplicable(why) => panic!("{name}: n/a on 2.0.1: {why}"),
        }
    }
}

/// The default bound's families cut down, memories and breaches kept.
fn cut_down() -> Vec<Space> {
    Bound::default_bound()
        .families
        .into_iter()
        .map(|mut f| {
            f.per_tool.truncate(2);
            f.total.truncate(2);
            f.outcomes.truncate(4);
            f.processors.truncate(2);
            Space::new(&Bound {
                name: "cut-down",
                families: vec![f],
            })
        })
        .collect()
}

/// Every `step`-th scenario of `space` (canonical ones) under every
/// behaviour set on its own, against the evaluation it shares in the
/// run: the group of its felt fixes ([`set_groups`]), and the later
/// groups the first evaluation of a group finds alike
/// ([`evaluates_alike`]), `stream-as-call` judged there under the set's
/// own fixes as the run judges it. Returns (scenarios, shared evaluations,
/// those with memory, those of streamed turns).
fn check_shared_evaluations(space: &Space, step: u64) -> (usize, usize, usize, usize, usize) {
    let sets = behavior_sets();
    let mut memo = Conversions::default();
    let (mut scenarios, mut shared, mut with_memory, mut streamed) = (0, 0, 0, 0);
    let mut through_alike = 0;
    for index in (0..space.scenarios()).step_by(step as usize) {
        let item = space.item(index).unwrap();
        if space.canonical(&item).is_none() {
            continue;
        }
        scenarios += 1;
        let base = space.scenario(&item);
        let alone = |si: usize| {
            let s = with_set(&base, &sets[si]);

            Evidence::gather(&s).map(|ev| {
                let v: Vec<Verdict> = Invariant::ALL.iter().map(|&i| check(i, &ev)).collect();
                (ev.run, ev.toolbox, v)
            })
        };
        let groups = set_groups(&base, &sets);
        for (gi, g) in groups.iter().enumerate() {
            let first = with_set(&base, &sets[g.sets[0]]);
            let ev = Evidence::gather(&first);
            let mut members = g.sets.clone();
            let mut merged = vec![gi];
            for (hj, h) in groups.iter().enumerate().skip(gi + 1) {
                let alike = ev.as_ref().is_ok_and(|ev| {
                    evaluates_alike(ev, (g.felt, g.advisor), (h.felt, h.advisor), &mut memo)
                });
                if alike {
                    members.extend(&h.sets);
                    merged.push(hj);
                }
            }
            if let (Ok(ev), true) = (&ev, merged.len() > 1) {
                let g_set = (sets[g.sets[0]].fixes, sets[g.sets[0]].gemini_tool_text);
                if let Some(blocking) = through_call(ev, g_set)
                    && let Ok(call) = Evidence::gather(&blocking)
                {
                    let mut alike = Alike::new(&call);
                    through_alike += merged[1..]
                        .iter()
                        .filter(|&&hj| {
                            let h = &groups[hj];
                            alike.sets((g.felt, g.advisor), (h.felt, h.advisor), &mut memo)
                        })
                        .count();
                }
            }
            // `stream-as-call` as the run judges it: per merged group, its
            // run through call() shared where it evaluates alike.
            let through: Vec<(usize, Verdict)> = match &ev {
                Ok(ev) if merged.len() > 1 => merged
                    .iter()
                    .flat_map(|&hj| groups[hj].sets.iter().copied())
                    .zip(
                        merged
                            .iter()
                            .zip(through_calls(ev, &groups, &merged, &sets, &mut memo))
                            .flat_map(|(&hj, v)| groups[hj].sets.iter().map(move |_| v.clone())),
                    )
                    .collect(),
                _ => Vec::new(),
            };
            let want = alone(members[0]);
            for &si in &members[1..] {
                let name = format!("scenario {index} under {}", sets[si].name);
                match (&want, alone(si)) {
                    (Ok((run, toolbox, verdicts)), Ok((r, t, v))) => {
                        assert_eq!(*run, r, "{name}");
                        assert_eq!(*toolbox, t, "{name}");
                        // As the run judges them: on the shared evidence,
                        // `stream-as-call`'s run through call() under the
                        // set's own fixes.
                        let ev = ev.as_ref().expect("a shared evaluation ran");
                        let own = (sets[si].fixes, sets[si].gemini_tool_text);
                        let mut verdicts = verdicts.clone();
                        let at = Invariant::ALL
                            .iter()
                            .position(|&i| i == Invariant::StreamAsCall);
                        if let Some(at) = at {
                            verdicts[at] = check_as(Invariant::StreamAsCall, ev, own);
                            if let Some((_, run)) = through.iter().find(|(s, _)| *s == si) {
                                assert_eq!(
                                    *run, v[at],
                                    "{name}: stream-as-call as the run shares it"
                                );
                            }
                        }
                        assert_eq!(verdicts, v, "{name}");
                        streamed += usize::from(base.config.stream.is_some());
                    }
                    (Err(a), Err(b)) => assert_eq!(*a, b, "{name}"),
                    _ => panic!("{name}: one run failed"),
                }
                shared += 1;
                with_memory += usize::from(base.config.memory != Memory::None);
            }
        }
    }
    (scenarios, shared, with_memory, streamed, through_alike)
}

#[test]
fn the_sets_that_share_an_evaluation_run_and_are_judged_alike() {
    // What the run leaves to another set's evaluation is never felt:
    // on the default bound's families cut down, every set that shares
    // one runs and is judged on its own as the set it shares with.
    let (mut shared, mut with_memory, mut streamed) = (0, 0, 0);
    for space in cut_down() {
        let (_, s, m, st, _) = check_shared_evaluations(&space, test_stride(61));
        shared += s;
        with_memory += m;
        streamed += st;
    }
    assert!(
        shared > 0 && with_memory > 0 && streamed > 0,
        "{shared} {with_memory} {streamed}"
    );
}

#[test]
fn streamed_turns_that_share_an_evaluation_run_and_are_judged_alike() {
    // The wide bound's streamed loop turns (two rounds, the memory inside
    // with history too), cut down: a set sharing a streamed turn's
    // evaluation runs and is judged as its own, `stream-as-call` under its
    // own fixes.
    let mut f = Bound::wide().families[1].clone();
    f.memories.retain(|m| m.stream);
    f.per_tool.truncate(2);
    f.outcomes = vec![0, 3, 6];
    f.processors.truncate(1);
    let space = Space::new(&Bound {
        name: "streamed",
        families: vec![f],
    });
    // The run shares the judge's runs through call() between the merged
    // groups where the first one's run evaluates alike: some do here.
    let (_, shared, _, streamed, through_alike) = check_shared_evaluations(&space, test_stride(13));
    assert!(
        streamed > 0 && streamed == shared && through_alike > 0,
        "{shared} {streamed} {through_alike}"
    );
}

/// As above on every 7th scenario of the default bound (about 57,000
/// run, a million shared evaluations; under a minute in release):
/// `cargo test --release --lib shared_evaluations_of_the_default -- --ignored`.
#[test]
#[ignore]
fn the_shared_evaluations_of_the_default_bound_are_the_sets_own() {
    let (scenarios, shared, _, _, _) =
        check_shared_evaluations(&Space::new(&Bound::default_bound()), 7);
    assert!(
        scenarios > 50_000 && shared > scenarios,
        "{scenarios} {shared}"
    );
}

#[test]
fn sets_of_one_replay_class_replay_alike() {
    // Each set's own replay of the turn equals the one its class
    // shares, on the loop family (memories inside and outside the
    // loop, two rounds) cut down, and every invariant's verdict is the
    // one an evidence replaying on its own gives.
    let sets = behavior_sets();
    let mut f = Bound::default_bound().families[2].clone();
    f.per_tool = vec![Some(1)];
    f.total = vec![Some(2)];
    f.outcomes = vec![0, 3, 6];
    let space = Space::new(&Bound {
        name: "replays",
        families: vec![f],
    });
    let (mut shared, mut replays_made) = (0, 0);
    for index in (0..space.scenarios()).step_by(test_stride(5) as usize) {
        let base = space.scenario(&space.item(index).unwrap());
        let replays = Replays::default();
        for g in set_groups(&base, &sets) {
            let class = g.class;
            for si in g.sets {
                let s = with_set(&base, &sets[si]);
                let (Ok(alone), Ok(ev)) = (Evidence::gather(&s), Evidence::gather(&s)) else {
                    continue;
                };
                let ev = ev.sharing(&replays, class);
                assert_eq!(ev.trace().rounds(), alone.trace().rounds(), "{index} {si}");
                assert_eq!(ev.trace().mirror, alone.trace().mirror, "{index} {si}");
                for inv in Invariant::ALL {
                    assert_eq!(check(inv, &ev), check(inv, &alone), "{index} {si} {inv}");
                }
                shared += 1;
            }
        }
        replays_made += replays.len();
    }
    // Sets that only the manager tells apart (four of its fixes) each
    // replay on their own; the others share: about one replay for two
    // evaluations.
    assert!(replays_made * 3 < shared * 2, "{replays_made} {shared}");
}

#[test]
fn sizes_grow_along_the_shapes() {
    let s = Space::new(&Bound::default_bound());
    assert!(s.shapes.windows(2).all(|w| w[0].size <= w[1].size));
    assert_eq!(s.shapes[0].size, 0); // no tool round, no prior call
    let one_call = s.shapes.iter().find(|x| x.key.calls() == 1).unwrap();
    assert_eq!(one_call.size, 2); // one call in one round
}
