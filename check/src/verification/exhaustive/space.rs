//! The space of a bound: every scenario numbered, its size, its swap and
//! its canonical index, and the scenario built from an item.

use std::collections::HashMap;

use crate::verification::generators::class_table;
use crate::verification::scenario::Scenario;
use crate::verification::turn_bound::repeating_guard;
use toolcall_model::chat::Split;
use toolcall_model::chat::{LoopConfig, Memory};
use toolcall_model::model::ClassTable;
use toolcall_model::model::Config;
use toolcall_model::model::ProcessorKind;
use toolcall_model::model::SharedStr;
use toolcall_model::model::{Generation, Message, ToolCall, ToolResponse};
use toolcall_model::model::{OnExceeded, ToolCallLimits};
use toolcall_model::model::{Registered, ToolSpec};

use super::bound::{Bound, Family, Name, OutcomeClass, ROUND_TEXT, RoundReply, outcome_classes};

/// The call structure of a scenario: its rounds and prior calls.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct ShapeKey {
    family: usize,
    rounds: Vec<Vec<Name>>,
    prior: [usize; 2],
}

impl ShapeKey {
    fn swapped(&self) -> ShapeKey {
        ShapeKey {
            family: self.family,
            rounds: self
                .rounds
                .iter()
                .map(|r| r.iter().map(|n| n.swapped()).collect())
                .collect(),
            prior: [self.prior[1], self.prior[0]],
        }
    }

    /// Which of `a`, `b` the calls name (the tools the scenario has).
    fn named(&self) -> [bool; 2] {
        let mut n = [false; 2];
        for c in self.rounds.iter().flatten() {
            match c {
                Name::A => n[0] = true,
                Name::B => n[1] = true,
                Name::Unknown => {}
            }
        }
        n
    }

    pub(super) fn calls(&self) -> usize {
        self.rounds.iter().map(Vec::len).sum()
    }
}

#[derive(Debug, Clone)]
pub(super) struct Shape {
    pub(super) key: ShapeKey,
    /// The swapped shape's index.
    pub(super) swap: usize,
    /// Where the outcome digits come: `[a, b]` as present.
    pub(super) named: [bool; 2],
    /// Prior calls + calls + rounds.
    pub(super) size: usize,
    /// Scenarios of this shape.
    pub(super) configs: u64,
    /// Global index of its first scenario.
    pub(super) start: u64,
    /// The request's messages and the model's replies every scenario of the
    /// shape starts from, built once: a scenario takes copies that share
    /// their strings and call lists.
    history: Vec<Message>,
    model: Vec<Vec<Generation>>,
}

/// The enumerated space of a bound: every scenario has a global index.
#[derive(Debug, Clone)]
pub struct Space {
    bound: Bound,
    pub(super) shapes: Vec<Shape>,
    total: u64,
    evaluated: u64,
    /// The outcome classes and the exception class table every scenario
    /// takes: built once, not once a scenario (the table copies itself on
    /// each declaration).
    classes: Vec<OutcomeClass>,
    table: ClassTable,
    /// The names of the tools `a` and `b`.
    tool_names: [SharedStr; 2],
    /// The Spring AI version every scenario runs on.
    version: toolcall_model::model::SpringAi,
}

/// One scenario of the space, by its digits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// Global index.
    pub index: u64,
    pub(super) shape: usize,
    memory: usize,
    processor: usize,
    breach: usize,
    total: usize,
    per_tool: usize,
    /// Outcome class per tool `[a, b]` (index into the family's list);
    /// unused for a tool the calls do not name.
    outcomes: [usize; 2],
}

fn batches(max_batch: usize) -> Vec<Vec<Name>> {
    let mut out: Vec<Vec<Name>> = Vec::new();
    let mut level: Vec<Vec<Name>> = vec![vec![]];
    for _ in 0..max_batch {
        let mut next = Vec::new();
        for b in &level {
            for n in Name::ALL {
                let mut x = b.clone();
                x.push(n);
                next.push(x);
            }
        }
        out.extend(next.iter().cloned());
        level = next;
    }
    out
}

fn scripts(f: &Family) -> Vec<Vec<Vec<Name>>> {
    let bs = batches(f.max_batch);
    let mut all: Vec<Vec<Vec<Name>>> = vec![vec![]];
    let mut level: Vec<Vec<Vec<Name>>> = vec![vec![]];
    for _ in 0..f.max_rounds {
        let mut next = Vec::new();
        for s in &level {
            let used: usize = s.iter().map(Vec::len).sum();
            for b in &bs {
                if used + b.len() <= f.max_turn_calls {
                    let mut x = s.clone();
                    x.push(b.clone());
                    next.push(x);
                }
            }
        }
        all.extend(next.iter().cloned());
        level = next;
    }
    all.retain(|s| s.len() >= f.min_rounds);
    all
}

impl Space {
    /// Enumerates the shapes of `bound` (cheap: no scenario is built).
    pub fn new(bound: &Bound) -> Space {
        let mut keys = Vec::new();
        for (fi, f) in bound.families.iter().enumerate() {
            for rounds in scripts(f) {
                for pa in 0..=f.max_prior {
                    for pb in 0..=f.max_prior {
                        keys.push(ShapeKey {
                            family: fi,
                            rounds: rounds.clone(),
                            prior: [pa, pb],
                        });
                    }
                }
            }
        }
        let size = |k: &ShapeKey| k.prior[0] + k.prior[1] + k.calls() + k.rounds.len();
        // Smallest first; within a size, by family, then by the order of
        // construction (which lists `a` before `b` before the unknown name).
        let mut order: Vec<usize> = (0..keys.len()).collect();
        order.sort_by_key(|&i| (size(&keys[i]), keys[i].family, i));
        let keys: Vec<ShapeKey> = order.into_iter().map(|i| keys[i].clone()).collect();
        let index: HashMap<&ShapeKey, usize> =
            keys.iter().enumerate().map(|(i, k)| (k, i)).collect();
        let mut shapes = Vec::with_capacity(keys.len());
        let mut start = 0u64;
        for k in &keys {
            let f = &bound.families[k.family];
            let named = k.named();
            let outcomes =
                (f.outcomes.len() as u64).pow(named.iter().filter(|x| **x).count() as u32);
            let configs = (f.memories.len()
                * f.processors.len()
                * f.breach.len()
                * f.total.len()
                * f.per_tool.len()) as u64
                * outcomes;
            shapes.push(Shape {
                key: k.clone(),
                swap: index[&k.swapped()],
                named,
                size: size(k),
                configs,
                start,
                history: history_of(k),
                model: script_of(k, f),
            });
            start += configs;
        }
        let mut space = Space {
            bound: bound.clone(),
            shapes,
            total: start,
            evaluated: 0,
            classes: outcome_classes(),
            table: class_table(),
            tool_names: tool_names(),
            version: Default::default(),
        };
        space.evaluated = space.count_canonical();
        space
    }

    /// A copy whose strings and lists, which every scenario of the space
    /// shares, are its own: each worker thread takes one. The reference
    /// counts a scenario's copies bump then live on no other thread's cache
    /// lines; with two threads bumping the same counts, the default bound
    /// took more CPU time than one thread alone.
    pub(super) fn for_worker(&self) -> Space {
        let mut copy = self.clone();
        for s in &mut copy.shapes {
            s.history = history_of(&s.key);
            s.model = script_of(&s.key, &self.bound.families[s.key.family]);
        }
        copy.classes = outcome_classes();
        copy.table = class_table();
        copy.tool_names = tool_names();
        copy
    }

    fn count_canonical(&self) -> u64 {
        // A scenario is run unless its swap has a smaller index. A shape
        // whose swap comes later runs all its scenarios, one whose swap comes
        // earlier none. A shape equal to its own swap names neither tool
        // (the swap turns every `a` into `b`), so each of its scenarios is
        // its own swap, and runs.
        self.shapes
            .iter()
            .enumerate()
            .filter(|(i, s)| s.swap >= *i)
            .map(|(_, s)| s.configs)
            .sum()
    }

    /// Scenarios in the bound.
    pub fn scenarios(&self) -> u64 {
        self.total
    }

    /// Scenarios actually run (one per symmetry class).
    pub fn evaluated(&self) -> u64 {
        self.evaluated
    }

    /// The space with every scenario on `version`
    /// ([`crate::verification::scenario::Scenario::on_version`]).
    ///
    /// ```
    /// use toolcall_check::verification::exhaustive::{Bound, Space};
    /// use toolcall_model::model::SpringAi;
    /// let space = Space::new(&Bound::tiny()).on(SpringAi::V1_1_2);
    /// let s = space.scenario(&space.item(0).unwrap());
    /// assert_eq!(s.config.manager.version, SpringAi::V1_1_2);
    /// ```
    pub fn on(mut self, version: toolcall_model::model::SpringAi) -> Space {
        self.version = version;
        self
    }

    /// The Spring AI version every scenario runs on.
    pub fn version(&self) -> toolcall_model::model::SpringAi {
        self.version
    }

    /// The bound.
    pub(crate) fn bound(&self) -> &Bound {
        &self.bound
    }

    /// The scenario with global index `index`.
    ///
    /// ```
    /// use toolcall_check::verification::exhaustive::{Bound, Space};
    /// let space = Space::new(&Bound::tiny());
    /// assert_eq!(space.item(0).unwrap().index, 0);
    /// assert!(space.item(space.scenarios()).is_none());
    /// ```
    pub fn item(&self, index: u64) -> Option<Item> {
        if index >= self.total {
            return None;
        }
        let si = self.shapes.partition_point(|s| s.start <= index) - 1;
        let s = &self.shapes[si];
        let f = &self.bound.families[s.key.family];
        let mut r = index - s.start;
        let k = f.outcomes.len() as u64;
        let mut outcomes = [0usize; 2];
        // Least significant first: b's outcome, a's outcome, per-tool max,
        // total max, breach, processor, memory.
        for t in [1, 0] {
            if s.named[t] {
                outcomes[t] = (r % k) as usize;
                r /= k;
            }
        }
        let mut digit = |n: usize| {
            let d = (r % n as u64) as usize;
            r /= n as u64;
            d
        };
        let per_tool = digit(f.per_tool.len());
        let total = digit(f.total.len());
        let breach = digit(f.breach.len());
        let processor = digit(f.processors.len());
        let memory = digit(f.memories.len());
        Some(Item {
            index,
            shape: si,
            memory,
            processor,
            breach,
            total,
            per_tool,
            outcomes,
        })
    }

    pub(super) fn index_of(&self, shape: usize, item: &Item) -> u64 {
        let s = &self.shapes[shape];
        let f = &self.bound.families[s.key.family];
        let k = f.outcomes.len() as u64;
        let mut r = item.memory as u64;
        r = r * f.processors.len() as u64 + item.processor as u64;
        r = r * f.breach.len() as u64 + item.breach as u64;
        r = r * f.total.len() as u64 + item.total as u64;
        r = r * f.per_tool.len() as u64 + item.per_tool as u64;
        for t in [0, 1] {
            if s.named[t] {
                r = r * k + item.outcomes[t] as u64;
            }
        }
        s.start + r
    }

    /// The index of the item's swap (a and b exchanged everywhere).
    fn swap_index(&self, item: &Item) -> u64 {
        let swapped = Item {
            outcomes: [item.outcomes[1], item.outcomes[0]],
            ..item.clone()
        };
        self.index_of(self.shapes[item.shape].swap, &swapped)
    }

    /// Whether the item is run (its swap's index is not smaller), and how
    /// many scenarios of the bound it stands for (1 or 2).
    ///
    /// ```
    /// use toolcall_check::verification::exhaustive::{Bound, Space};
    /// let space = Space::new(&Bound::tiny());
    /// let weight: u64 = (0..space.scenarios())
    ///     .filter_map(|i| space.canonical(&space.item(i).unwrap()))
    ///     .sum();
    /// assert_eq!(weight, space.scenarios());
    /// ```
    pub fn canonical(&self, item: &Item) -> Option<u64> {
        let j = self.swap_index(item);
        match j.cmp(&item.index) {
            std::cmp::Ordering::Less => None,
            std::cmp::Ordering::Equal => Some(1),
            std::cmp::Ordering::Greater => Some(2),
        }
    }

    /// The swap of the item (for tests of the symmetry).
    #[cfg(test)]
    pub(crate) fn swap(&self, item: &Item) -> Item {
        self.item(self.swap_index(item))
            .unwrap_or_else(|| item.clone())
    }

    /// The item's size: prior calls, calls and rounds, plus one for each
    /// setting away from the simplest (a maximum present, `RETURN_ERROR_RESPONSE`,
    /// the JSON processor, `alwaysThrow`, a rethrow list, a memory, a small
    /// window, conversation history off, a streamed turn, a text with the
    /// calls, a repeating model). Counterexamples are reported smallest
    /// first.
    pub(crate) fn size(&self, item: &Item) -> usize {
        let s = &self.shapes[item.shape];
        let f = &self.bound.families[s.key.family];
        let p = &f.processors[item.processor];
        s.size
            + usize::from(f.per_tool[item.per_tool].is_some())
            + usize::from(f.total[item.total].is_some())
            + usize::from(f.breach[item.breach] == OnExceeded::ReturnErrorResponse)
            + usize::from(p.kind == ProcessorKind::JsonError)
            + usize::from(p.always_throw)
            + usize::from(!p.rethrow.is_empty())
            + f.memories[item.memory].knobs()
            + usize::from(f.round_reply != RoundReply::CallsOnly)
            + usize::from(f.repeat_last)
    }

    /// The family an item belongs to.
    pub fn family(&self, item: &Item) -> &Family {
        &self.bound.families[self.shapes[item.shape].key.family]
    }

    /// The item as a scenario, under upstream.
    ///
    /// ```
    /// use toolcall_check::verification::exhaustive::{Bound, Space};
    /// let space = Space::new(&Bound::tiny());
    /// let s = space.scenario(&space.item(0).unwrap());
    /// assert!(s.run().is_ok());
    /// ```
    pub fn scenario(&self, item: &Item) -> Scenario {
        let shape = &self.shapes[item.shape];
        let f = &self.bound.families[shape.key.family];
        let classes = &self.classes;
        let mut limits = ToolCallLimits::default();
        if let Some(n) = f.per_tool[item.per_tool] {
            limits = limits.max_calls_per_tool(n).unwrap_or_default();
        }
        if let Some(n) = f.total[item.total] {
            limits = limits.max_total_tool_calls(n).unwrap_or_default();
        }
        limits.on_exceeded = f.breach[item.breach];
        let manager = Config {
            limits,
            resolution_fallback: false,
            processor: f.processors[item.processor].clone(),
            classes: self.table.clone(),
            fixes: Default::default(),
            version: Default::default(),
        };
        let mem = f.memories[item.memory];
        let tools: Vec<ToolSpec> = (0..2)
            .filter(|&t| shape.named[t])
            .map(|t| ToolSpec {
                name: self.tool_names[t].clone(),
                return_direct: false,
                registered: Registered::Request,
                outcomes: vec![classes[f.outcomes[item.outcomes[t]]].outcome.clone()],
            })
            .collect();
        let history = shape.history.clone();
        let model = shape.model.clone();
        let memory_start = if mem.memory != Memory::None && history.len() > 1 {
            // The memory has seen the conversation so far: everything but
            // the message the advisor stores on this request.
            history[..history.len() - 1].to_vec()
        } else {
            vec![]
        };
        let config = LoopConfig {
            conversation_history: mem.conversation_history,
            provider: f.provider,
            memory: mem.memory,
            memory_max_messages: mem.window,
            memory_start,
            stream: mem.stream.then(Split::default),
            repeat_last: f.repeat_last && !shape.key.rounds.is_empty(),
            ..LoopConfig::new(manager)
        };
        let mut s = Scenario {
            config,
            tools,
            history,
            model,
        };
        if self.version != toolcall_model::model::SpringAi::default() {
            // `on_version` sets the guard of a repeating turn for the version.
            s = s.on_version(self.version);
        } else if s.config.repeat_last {
            s.config.max_rounds = repeating_guard(&s.config, &s.model);
        }
        s
    }
}

fn tool_names() -> [SharedStr; 2] {
    [Name::A.tool().into(), Name::B.tool().into()]
}

/// The request's messages of a shape: the question, after its prior calls
/// and their responses.
fn history_of(key: &ShapeKey) -> Vec<Message> {
    let mut history = vec![Message::user("q")];
    let prior: Vec<Name> = std::iter::repeat_n(Name::A, key.prior[0])
        .chain(std::iter::repeat_n(Name::B, key.prior[1]))
        .collect();
    if !prior.is_empty() {
        let calls = calls_of("prior", &prior);
        let responses = calls
            .iter()
            .map(|c| ToolResponse::new(&c.id, &c.name, r#"{"ok":true}"#))
            .collect();
        history.push(Message::assistant(None, calls));
        history.push(Message::Tool { responses });
    }
    history
}

/// The model's replies of a shape in its family: one per round, then the
/// answer, which a repeating model never gives (its last round comes back).
fn script_of(key: &ShapeKey, f: &Family) -> Vec<Vec<Generation>> {
    let text = match f.round_reply {
        RoundReply::CallsOnly => None,
        RoundReply::TextWithCalls => Some(ROUND_TEXT.to_owned()),
    };
    let mut model: Vec<Vec<Generation>> = key
        .rounds
        .iter()
        .enumerate()
        .map(|(r, names)| {
            vec![Generation {
                text: text.clone().map(Into::into),
                tool_calls: calls_of(&format!("call-{r}"), names).into(),
                ..Generation::default()
            }]
        })
        .collect();
    if !f.repeat_last || model.is_empty() {
        model.push(vec![Generation {
            text: Some("done".into()),
            ..Generation::default()
        }]);
    }
    model
}

fn calls_of(prefix: &str, names: &[Name]) -> Vec<ToolCall> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| ToolCall::new(&format!("{prefix}-{i}"), n.tool(), "{}"))
        .collect()
}
