//! A scenario: one user turn with everything that determines it (behaviour
//! set, manager, tools, request, scripted model, provider, memory). It is
//! what property tests and fuzz targets generate, and it prints as a
//! format-1 vector, so any counterexample can be replayed with
//! `toolcall-model run`.

use std::borrow::Cow;

use serde_json::{Map, Value, json};

use toolcall_model::chat::{
    LoopConfig, LoopError, LoopRun, Memory, Provider, run_loop, with_memory,
};
use toolcall_model::model::ProcessorKind;
use toolcall_model::model::{Generation, Message};
use toolcall_model::model::{Max, OnExceeded};
use toolcall_model::model::{Outcome, Registered, ToolSpec, Toolbox};
use toolcall_model::vectors::FORMAT;

/// One user turn, fully determined.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// The loop's configuration (manager, fixes, advisor, provider, memory).
    pub config: LoopConfig,
    /// The tools.
    pub tools: Vec<ToolSpec>,
    /// The request's messages.
    pub history: Vec<Message>,
    /// The scripted model: one generation list per model call.
    pub model: Vec<Vec<Generation>>,
}

impl Scenario {
    /// The scenario as it runs on `version`, by the rule `check` applies to
    /// a setup ([`crate::config::on_its_version`]): without 2.0.1's limits
    /// the limits and the resolution fallback are the defaults, which
    /// nothing reads; the loop is the one the version runs
    /// ([`LoopConfig::on_its_version`]).
    ///
    /// ```
    /// use toolcall_check::verification::scenario::Scenario;
    /// use toolcall_model::{chat::{LoopConfig, Memory}, model::{Message, SpringAi}};
    /// let mut s = Scenario { config: LoopConfig::new(Default::default()), tools: vec![],
    ///     history: vec![Message::user("hi")], model: vec![] };
    /// s.config.memory = Memory::Inside;
    /// let on = s.on_version(SpringAi::V1_1_2);
    /// assert!(on.config.tool_call_advisor);
    /// assert_eq!(on.config.manager.version, SpringAi::V1_1_2);
    /// ```
    pub fn on_version(&self, version: toolcall_model::model::SpringAi) -> Scenario {
        let mut s = self.clone();
        let c = &mut s.config;
        c.manager.version = version;
        if !version.has_limits() {
            c.manager.limits = toolcall_model::model::ToolCallLimits::default();
            c.manager.resolution_fallback = false;
        }
        s.config = std::mem::take(&mut s.config).on_its_version();
        // A turn that repeats its last reply is cut where the judges cut an
        // unbounded one: without the limits that bound changes.
        if s.config.repeat_last {
            s.config.max_rounds =
                crate::verification::turn_bound::repeating_guard(&s.config, &s.model);
        }
        s
    }

    /// The turn history the loop starts from: the request, or with a
    /// memory outside the loop, what the memory advisor makes of it.
    pub(crate) fn turn_history(&self) -> Cow<'_, [Message]> {
        match self.config.memory {
            Memory::Outside => self.conversation(),
            _ => Cow::Borrowed(&self.history),
        }
    }

    /// The conversation the turn starts from: the request, with what the
    /// memory holds before it (unless the request holds it).
    pub(crate) fn conversation(&self) -> Cow<'_, [Message]> {
        match self.config.memory {
            Memory::None => Cow::Borrowed(&self.history),
            _ => Cow::Owned(with_memory(&self.config, self.history.clone())),
        }
    }

    /// Runs the turn through the tool loop; also returns the toolbox, whose
    /// invocations say which tools ran.
    ///
    /// ```
    /// use toolcall_check::verification::scenario::Scenario;
    /// use toolcall_model::{model::{Generation, Message}, chat::LoopConfig};
    /// let s = Scenario { config: LoopConfig::new(Default::default()), tools: vec![],
    ///     history: vec![Message::user("hi")], model: vec![vec![Generation { text: Some("hello".into()), ..Default::default() }]] };
    /// let (run, _) = s.run().unwrap();
    /// assert_eq!(run.requests.len(), 1);
    /// ```
    pub fn run(&self) -> Result<(LoopRun, Toolbox), LoopError> {
        let mut tb = Toolbox::new(self.tools.clone());
        let run = run_loop(&self.config, self.request_with_room(), &self.model, &mut tb)?;
        Ok((run, tb))
    }

    /// The reply the loop goes on with at each model call: the scripted
    /// one, or for a streamed turn the aggregate of its chunks (one
    /// generation, `toolcall_model::chat::aggregate_chunks`); on 1.1, the first
    /// chunk with a call where there is one.
    pub(crate) fn replies(&self) -> std::borrow::Cow<'_, [Vec<Generation>]> {
        match self.config.stream {
            None => std::borrow::Cow::Borrowed(&self.model),
            Some(split) => std::borrow::Cow::Owned(
                self.model
                    .iter()
                    .map(|r| {
                        let chunks = split.chunks(r);
                        // On 1.1 the manager runs on the first chunk with a
                        // call (`Answering::answer_chunks`), not on the
                        // round's aggregate.
                        let in_model = self.config.manager.version.loop_in_chat_model();
                        match chunks
                            .iter()
                            .find(|c| !toolcall_model::chat::reaches_client(c))
                        {
                            Some(c) if in_model => c.clone(),
                            _ => vec![toolcall_model::chat::aggregate_chunks(&chunks)],
                        }
                    })
                    .collect(),
            ),
        }
    }

    /// As [`Scenario::run`], also returning the message list each model
    /// call received, as the same turn run with provider `none` records
    /// them, up to the one whose Gemini conversion failed, if one did (see
    /// [`toolcall_model::chat::run_loop_with_messages`]).
    pub(crate) fn run_with_messages(
        &self,
    ) -> Result<(LoopRun, Toolbox, toolcall_model::chat::RequestMessages), LoopError> {
        let mut tb = Toolbox::new(self.tools.clone());
        let (run, messages) = toolcall_model::chat::run_loop_with_messages(
            &self.config,
            self.request_with_room(),
            &self.model,
            &mut tb,
        )?;
        Ok((run, tb, messages))
    }

    /// A copy of the request's messages with room for what the turn adds:
    /// each round's call and responses (and the `tool-feedback` message),
    /// so that the history grows in place instead of being moved at each
    /// batch.
    fn request_with_room(&self) -> Vec<Message> {
        let rounds = self.model.len().min(self.config.max_rounds);
        let mut history = Vec::with_capacity(self.history.len() + 3 * rounds);
        history.extend_from_slice(&self.history);
        history
    }

    /// The scenario as a `tool_loop` vector with the given name, `about` and
    /// `expect`. [`toolcall_model::vectors::Vector::from_value`] reads it back.
    ///
    /// ```
    /// use toolcall_check::verification::scenario::Scenario;
    /// use toolcall_model::{model::Message, chat::LoopConfig, vectors::Vector};
    /// let s = Scenario { config: LoopConfig::new(Default::default()), tools: vec![],
    ///     history: vec![Message::user("hi")], model: vec![] };
    /// let v = s.to_vector("n", "about", serde_json::json!({}));
    /// assert!(Vector::from_value(&v).is_ok());
    /// ```
    pub fn to_vector(&self, name: &str, about: &str, expect: Value) -> Value {
        let c = &self.config;
        let m = &c.manager;
        let manager = manager_value(c);
        let tools: Vec<Value> = self
            .tools
            .iter()
            .map(|t| {
                json!({
                    "name": t.name,
                    "return_direct": t.return_direct,
                    "registered": match t.registered {
                        Registered::Request => "request",
                        Registered::Resolver => "resolver",
                    },
                    "outcomes": t.outcomes.iter().map(|o| outcome_value(o, m)).collect::<Vec<_>>(),
                })
            })
            .collect();
        let input = self.input_value();
        let advisors: Vec<&str> = [
            (c.gemini_tool_text, "gemini-tool-text"),
            (c.tool_feedback, "tool-feedback"),
        ]
        .iter()
        .filter_map(|(on, name)| on.then_some(*name))
        .collect();
        let mut v = json!({
            "format": FORMAT,
            "name": name,
            "about": about,
            "fixes": m.fixes.iter().map(|f| f.name()).collect::<Vec<_>>(),
            "advisors": advisors,
            "manager": manager,
            "tools": tools,
            "op": "tool_loop",
            "input": input,
            "expect": expect,
        });
        if m.version != toolcall_model::model::SpringAi::default() {
            v["spring_ai"] = json!(m.version.name());
        }
        v
    }

    /// The vector's `input`: the request, the model's script and the loop's
    /// provider, memory and streaming.
    fn input_value(&self) -> Value {
        let c = &self.config;
        let model = match c.stream {
            Some(split) => json!(
                self.model
                    .iter()
                    .map(|r| split.chunks(r))
                    .collect::<Vec<_>>()
            ),
            None => json!(self.model),
        };
        let mut input = json!({
            "history": self.history,
            "model": model,
            "provider": match c.provider { Provider::Gemini => "gemini", Provider::None => "none" },
            "memory": match c.memory { Memory::None => "none", Memory::Inside => "inside", Memory::Outside => "outside" },
        });
        if c.stream.is_some() {
            input["stream"] = json!(true);
        }
        if c.repeat_last {
            input["repeat_last"] = json!(true);
        }
        if c.tool_call_advisor {
            input["loop"] = json!("tool-call-advisor");
        }
        if c.memory != Memory::None {
            if c.memory_max_messages != toolcall_model::chat::DEFAULT_MEMORY_MAX_MESSAGES {
                input["memory_max_messages"] = json!(c.memory_max_messages.get());
            }
            if !c.memory_start.is_empty() {
                input["memory_start"] = json!(c.memory_start);
            }
        }
        input
    }
}

/// The vector's `manager` section for the loop's configuration.
fn manager_value(c: &LoopConfig) -> Map<String, Value> {
    let m = &c.manager;
    let max = |x: Max| match x {
        Max::Limited(n) => json!(n),
        Max::Unlimited => json!("unlimited"),
    };
    let mut manager = Map::new();
    // A version without 2.0.1's limits has no builder method for them
    // (a vector of it may not name them), nor 1.1 a ToolCallingAdvisor.
    if m.version.has_limits() {
        manager.insert(
            "max_calls_per_tool".into(),
            max(m.limits.default_max_per_tool),
        );
        manager.insert(
            "max_calls_per_tool_overrides".into(),
            json!(m.limits.overrides),
        );
        manager.insert("exclude_from_limit".into(), json!(m.limits.excluded));
        manager.insert("max_total_tool_calls".into(), max(m.limits.max_total));
        manager.insert(
            "on_limit_exceeded".into(),
            json!(match m.limits.on_exceeded {
                OnExceeded::Throw => "THROW",
                OnExceeded::ReturnErrorResponse => "RETURN_ERROR_RESPONSE",
            }),
        );
        manager.insert("resolution_fallback".into(), json!(m.resolution_fallback));
    }
    if !m.version.loop_in_chat_model() {
        manager.insert("conversation_history".into(), json!(c.conversation_history));
    }
    manager.insert(
        "exception_processor".into(),
        json!({
            "kind": match m.processor.kind {
                ProcessorKind::Default => "default",
                ProcessorKind::JsonError => "json_error",
            },
            "always_throw": m.processor.always_throw,
            "rethrow": m.processor.rethrow,
        }),
    );
    if c.validator != Default::default() {
        manager.insert(
            "validator".into(),
            json!({
                "thought_signatures": c.validator.thought_signatures,
                "alternate_roles": c.validator.alternate_roles,
            }),
        );
    }
    manager
}

fn outcome_value(o: &Outcome, m: &toolcall_model::model::Config) -> Value {
    match o {
        Outcome::Returns(t) => json!({ "returns": t }),
        Outcome::EchoArguments => json!({ "echo_arguments": true }),
        Outcome::Throws { exception, wrapped } => {
            let mut t = throwable_value(exception, m);
            t["wrapped"] = json!(wrapped);
            json!({ "throws": t })
        }
    }
}

/// A `throws` (or `cause`) object: class, message, cause.
fn throwable_value(
    e: &toolcall_model::model::JavaException,
    m: &toolcall_model::model::Config,
) -> Value {
    let mut t = json!({
        "class": e.class,
        "message": e.message,
    });
    // A class outside the built-in table is declared with its superclass so
    // that the vector stands alone.
    if !toolcall_model::model::ClassTable::builtin().contains(&e.class)
        && let Some(sup) = m.classes.superclass(&e.class)
    {
        t["extends"] = json!(sup);
    }
    if let Some(c) = &e.cause {
        t["cause"] = throwable_value(c, m);
    }
    t
}

#[cfg(test)]
impl Scenario {
    /// The smallest turn with a tool round, for examples: the user says hi,
    /// the model calls `tool` once with `{}`, then answers `done`.
    pub(crate) fn one_call(tool: toolcall_model::model::ToolSpec) -> Self {
        let call = vec![toolcall_model::model::ToolCall::new("1", &tool.name, "{}")];
        Scenario {
            config: toolcall_model::chat::LoopConfig::default(),
            tools: vec![tool],
            history: vec![toolcall_model::model::Message::user("hi")],
            model: vec![
                vec![Generation {
                    tool_calls: call.into(),
                    ..Default::default()
                }],
                vec![Generation {
                    text: Some("done".into()),
                    ..Default::default()
                }],
            ],
        }
    }
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.

    #[test]
    fn example_replies() {
        use crate::verification::scenario::Scenario;
        use toolcall_model::chat::{LoopConfig, Split};
        use toolcall_model::model::Generation;
        let two = vec![
            Generation {
                text: Some("a".into()),
                ..Default::default()
            },
            Generation::default(),
        ];
        let mut s = Scenario {
            config: LoopConfig::default(),
            tools: vec![],
            history: vec![],
            model: vec![two.clone()],
        };
        assert_eq!(s.replies()[0], two);
        s.config.stream = Some(Split::default());
        assert_eq!(s.replies()[0], vec![two[0].clone()]);
    }
}
