//! Scripted tools: what each tool's callback does on each invocation.
//!
//! A [`Toolbox`] is a value: invoking a tool advances that tool's script and
//! records the invocation, so a run is reproducible from its inputs alone.

use std::sync::Arc;

use crate::collections::SmallMap;
use crate::model::java::{JavaException, hash_map_bucket};
use crate::model::shared_str::SharedStr;

/// Where a tool is registered.
///
/// ```
/// assert_eq!(toolcall_model::model::Registered::default(), toolcall_model::model::Registered::Request);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Registered {
    /// In the request's tool callbacks (`ToolCallingChatOptions.getToolCallbacks`).
    #[default]
    Request,
    /// Only reachable through the resolver, when resolution fallback is on.
    Resolver,
}

/// What one invocation of a tool's callback does.
///
/// ```
/// use toolcall_model::model::Outcome;
/// let o = Outcome::Returns(Some("42".into()));
/// assert!(matches!(o, Outcome::Returns(_)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Returns this text exactly; `None` is Java's null.
    Returns(Option<SharedStr>),
    /// Returns the argument text it received.
    EchoArguments,
    /// Throws. The tool's body throws `exception` (built as
    /// `crate::model::ClassTable::instantiate` says: a
    /// `ToolExecutionException` takes its cause's message, and one without a
    /// cause is a `NullPointerException`); `wrapped` wraps what the body
    /// threw in one more `ToolExecutionException` (as method tools do). What
    /// the callback throws reaches the exception processor when it is a
    /// `ToolExecutionException` or a subclass, and escapes the manager
    /// otherwise (`DefaultToolCallingManager.executeToolCall` catches by type).
    Throws {
        /// The exception the body throws (the cause, when wrapped).
        exception: JavaException,
        /// Whether the callback wraps it in a `ToolExecutionException`.
        wrapped: bool,
    },
}

/// One tool: its name, `returnDirect` flag, registration and script.
///
/// ```
/// use toolcall_model::model::{Outcome, ToolSpec};
/// let t = ToolSpec::returning("x", "1");
/// assert_eq!(t.outcomes, vec![Outcome::Returns(Some("1".into()))]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSpec {
    /// The tool name (`ToolDefinition.name`).
    pub name: SharedStr,
    /// `ToolMetadata.returnDirect`.
    pub return_direct: bool,
    /// Where it is registered.
    pub registered: Registered,
    /// The n-th invocation takes the n-th outcome; the last one repeats.
    /// Empty means every invocation returns null.
    pub outcomes: Vec<Outcome>,
}

impl ToolSpec {
    /// A request tool that always returns `text`.
    ///
    /// ```
    /// assert!(!toolcall_model::model::ToolSpec::returning("x", "1").return_direct);
    /// ```
    pub fn returning(name: &str, text: &str) -> Self {
        ToolSpec {
            name: name.into(),
            return_direct: false,
            registered: Registered::Request,
            outcomes: vec![Outcome::Returns(Some(text.into()))],
        }
    }
}

/// One recorded invocation: which tool, with which argument text.
///
/// ```
/// let i = toolcall_model::model::Invocation { tool: "x".into(), arguments: "{}".into() };
/// assert_eq!(i.tool, "x");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    /// The tool's name.
    pub tool: SharedStr,
    /// The arguments it received (after blank normalisation).
    pub arguments: SharedStr,
}

/// A handle to a registered tool, as found by [`Toolbox::find`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolRef {
    index: usize,
    /// The tool's `returnDirect` flag.
    pub return_direct: bool,
}

/// What an invocation produced.
///
/// ```
/// use toolcall_model::model::{ToolResult, Toolbox, ToolSpec};
/// let mut tb = Toolbox::new(vec![ToolSpec::returning("x", "1")]);
/// let t = tb.find("x", false).unwrap();
/// assert_eq!(tb.invoke(t, "{}"), ToolResult::Returned(Some("1".into())));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolResult {
    /// The callback returned (null is `None`).
    Returned(Option<SharedStr>),
    /// The callback threw: its body threw `exception` (as the outcome
    /// describes it, not yet built, see
    /// `crate::model::ClassTable::instantiate`), wrapped in one more
    /// `ToolExecutionException` when `wrapped`. The manager, which knows the
    /// classes, decides what is caught.
    Threw {
        /// The exception the body throws.
        exception: JavaException,
        /// Whether the callback wraps it.
        wrapped: bool,
    },
}

/// The registered tools, their scripts' positions and the invocations so far.
///
/// ```
/// use toolcall_model::model::{Registered, Toolbox, ToolSpec};
/// let mut r = ToolSpec::returning("late", "1");
/// r.registered = Registered::Resolver;
/// let tb = Toolbox::new(vec![r]);
/// assert!(tb.find("late", false).is_none());
/// assert!(tb.find("late", true).is_some());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toolbox {
    /// The tools and their lookup, which never change: shared by the
    /// toolbox's copies (a checker copies a toolbox at each batch it
    /// replays).
    registry: Arc<Registry>,
    next: Positions,
    invocations: Vec<Invocation>,
}

/// Each tool's next outcome: held in place for a few tools (a scenario
/// has one or two), so that a toolbox and the copies a checker makes of it
/// allocate no list of their own.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Positions {
    Few([usize; SCANNED]),
    Many(Vec<usize>),
}

impl Positions {
    /// Every tool's script at its start.
    fn start(tools: usize) -> Self {
        if tools <= SCANNED {
            Positions::Few([0; SCANNED])
        } else {
            Positions::Many(vec![0; tools])
        }
    }

    fn of(&mut self, tool: usize) -> Option<&mut usize> {
        match self {
            Positions::Few(p) => p.get_mut(tool),
            Positions::Many(p) => p.get_mut(tool),
        }
    }
}

/// The tools, and their lookup by name.
#[derive(Debug, PartialEq, Eq)]
struct Registry {
    tools: Vec<ToolSpec>,
    /// The request's tools by name.
    request: ByName,
    /// The resolver's tools by name.
    resolver: ByName,
}

/// Each name's position in the tool list: a scenario's few tools are found
/// by comparing names, a long list by hashing them.
type ByName = SmallMap<SharedStr, usize, SCANNED>;

/// The most tools a lookup finds by comparing names.
const SCANNED: usize = 8;

impl Toolbox {
    /// A toolbox over these tools. When a name is registered twice among the
    /// request's tools the first wins (`stream().filter(..).findFirst()`);
    /// twice in the resolver, the last (`StaticToolCallbackResolver`'s map).
    ///
    /// ```
    /// assert!(toolcall_model::model::Toolbox::new(vec![]).invocations().is_empty());
    /// ```
    pub fn new(tools: Vec<ToolSpec>) -> Self {
        let (mut request, mut resolver) = (ByName::default(), ByName::default());
        for (i, t) in tools.iter().enumerate() {
            match t.registered {
                // `toolCallbacks.stream().filter(..).findFirst()`: the first.
                Registered::Request => {
                    if request.get(&t.name).is_none() {
                        request.insert(t.name.clone(), i);
                    }
                }
                // `StaticToolCallbackResolver` puts each callback in a map
                // by name: the last one registered wins.
                Registered::Resolver => resolver.insert(t.name.clone(), i),
            }
        }
        let next = Positions::start(tools.len());
        Toolbox {
            registry: Arc::new(Registry {
                tools,
                request,
                resolver,
            }),
            next,
            invocations: Vec::new(),
        }
    }

    /// A toolbox over the same tools as [`Toolbox::new`] builds it: every
    /// script at its start, nothing invoked. The tools and their lookup are
    /// shared with this one rather than copied (a checker replays a turn on
    /// a toolbox of its own).
    ///
    /// ```
    /// use toolcall_model::model::{Toolbox, ToolSpec};
    /// let mut tb = Toolbox::new(vec![ToolSpec::returning("x", "1")]);
    /// let x = tb.find("x", false).unwrap();
    /// tb.invoke(x, "{}");
    /// assert_eq!(tb.fresh(), Toolbox::new(vec![ToolSpec::returning("x", "1")]));
    /// ```
    pub fn fresh(&self) -> Toolbox {
        Toolbox {
            registry: Arc::clone(&self.registry),
            next: Positions::start(self.registry.tools.len()),
            invocations: Vec::new(),
        }
    }

    /// The tools.
    pub fn tools(&self) -> &[ToolSpec] {
        &self.registry.tools
    }

    /// The lookup of `DefaultToolCallingManager.executeToolCall`: the first
    /// request tool with this name, else (with resolution fallback) the
    /// resolver's tool. The resolver refuses a name without text before it
    /// looks (`DelegatingToolCallbackResolver.resolve` asserts
    /// `StringUtils.hasText`), so such a name is never resolved; the manager
    /// turns that refusal into its `IllegalArgumentException`.
    ///
    /// ```
    /// use toolcall_model::model::{Registered, Toolbox, ToolSpec};
    /// let mut blank = ToolSpec::returning(" ", "1");
    /// blank.registered = Registered::Resolver;
    /// let tb = Toolbox::new(vec![ToolSpec::returning("x", "1"), blank]);
    /// assert!(tb.find("y", true).is_none());
    /// assert!(tb.find(" ", true).is_none());
    /// ```
    pub fn find(&self, name: &str, resolution_fallback: bool) -> Option<ToolRef> {
        let registry = &*self.registry;
        let index = match registry.request.get(name) {
            Some(&i) => i,
            None if resolution_fallback && crate::model::java::has_text(name) => {
                *registry.resolver.get(name)?
            }
            None => return None,
        };
        Some(ToolRef {
            index,
            return_direct: self.registry.tools[index].return_direct,
        })
    }

    /// The same lookup done as 2.0.1 does it, scanning the tool list
    /// (`toolCallbacks.stream().filter(..).findFirst()`); it gives the same
    /// answer as [`Toolbox::find`] and exists to measure the difference.
    ///
    /// ```
    /// let tb = toolcall_model::model::Toolbox::new(vec![toolcall_model::model::ToolSpec::returning("x", "1")]);
    /// assert_eq!(tb.find_by_scan("x", false), tb.find("x", false));
    /// ```
    #[inline]
    pub fn find_by_scan(&self, name: &str, resolution_fallback: bool) -> Option<ToolRef> {
        let tools = &self.registry.tools;
        let index = scan(tools, name, resolution_fallback)?;
        Some(ToolRef {
            index,
            return_direct: tools[index].return_direct,
        })
    }

    /// Runs the tool's next scripted outcome with `arguments`, recording the
    /// invocation (the text is shared with the caller, not copied).
    ///
    /// ```
    /// use toolcall_model::model::{Outcome, ToolResult, Toolbox, ToolSpec};
    /// let mut spec = ToolSpec::returning("e", "");
    /// spec.outcomes = vec![Outcome::EchoArguments];
    /// let mut tb = Toolbox::new(vec![spec]);
    /// let t = tb.find("e", false).unwrap();
    /// assert_eq!(tb.invoke(t, "{}"), ToolResult::Returned(Some("{}".into())));
    /// assert_eq!(tb.invocations().len(), 1);
    /// ```
    pub fn invoke(&mut self, tool: ToolRef, arguments: impl Into<SharedStr>) -> ToolResult {
        let arguments = arguments.into();
        let spec = &self.registry.tools[tool.index];
        let n = match self.next.of(tool.index) {
            Some(next) => {
                let n = *next;
                *next = n.saturating_add(1);
                n
            }
            None => 0,
        };
        let result = match spec.outcomes.get(n).or(spec.outcomes.last()) {
            None => ToolResult::Returned(None),
            Some(Outcome::Returns(t)) => ToolResult::Returned(t.clone()),
            Some(Outcome::EchoArguments) => ToolResult::Returned(Some(arguments.clone())),
            Some(Outcome::Throws { exception, wrapped }) => ToolResult::Threw {
                exception: exception.clone(),
                wrapped: *wrapped,
            },
        };
        self.invocations.push(Invocation {
            tool: spec.name.clone(),
            arguments,
        });
        result
    }

    /// Room for `n` more invocations: a batch knows its size, and growing
    /// the record call by call costs a copy at each doubling.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.invocations.reserve(n);
    }

    /// Takes the invocations recorded so far, leaving none: a long-running
    /// driver drains them so the record does not grow without bound.
    ///
    /// ```
    /// let mut tb = toolcall_model::model::Toolbox::new(vec![]);
    /// assert!(tb.take_invocations().is_empty());
    /// ```
    pub fn take_invocations(&mut self) -> Vec<Invocation> {
        std::mem::take(&mut self.invocations)
    }

    /// Every invocation so far, in order.
    ///
    /// ```
    /// assert!(toolcall_model::model::Toolbox::new(vec![]).invocations().is_empty());
    /// ```
    pub fn invocations(&self) -> &[Invocation] {
        &self.invocations
    }
}

/// `ToolUtils.getDuplicateToolNames` over the request's tools: the names
/// registered more than once, in the iteration order of the `HashMap` that
/// `Collectors.groupingBy` fills with `computeIfAbsent`: Java's
/// `String.hashCode`, spread, over 16 buckets doubled (order kept) whenever a
/// call finds more entries than three quarters of the table; a new key goes
/// to the head of its bucket.
pub(crate) fn duplicate_request_names(tools: &[ToolSpec]) -> Vec<String> {
    // A few tools of distinct names, as nearly every request has, need no
    // table: compared pairwise.
    let request = |t: &&ToolSpec| t.registered == Registered::Request;
    if tools.len() <= 16
        && tools.iter().filter(request).enumerate().all(|(i, t)| {
            tools
                .iter()
                .filter(request)
                .take(i)
                .all(|u| u.name != t.name)
        })
    {
        return Vec::new();
    }
    let mut table: Vec<Vec<(&str, usize)>> = vec![Vec::new(); 16];
    let mut size = 0usize;
    for t in tools.iter().filter(|t| t.registered == Registered::Request) {
        if size > table.len() * 3 / 4 {
            let cap = table.len() * 2;
            let mut next: Vec<Vec<(&str, usize)>> = vec![Vec::new(); cap];
            for bucket in table {
                for e in bucket {
                    next[hash_map_bucket(e.0, cap)].push(e);
                }
            }
            table = next;
        }
        let cap = table.len();
        let bucket = &mut table[hash_map_bucket(&t.name, cap)];
        match bucket.iter_mut().find(|(n, _)| *n == t.name) {
            Some((_, c)) => *c += 1,
            None => {
                bucket.insert(0, (&t.name, 1));
                size += 1;
            }
        }
    }
    table
        .into_iter()
        .flatten()
        .filter(|(_, c)| *c > 1)
        .map(|(n, _)| n.to_owned())
        .collect()
}

/// Where [`Toolbox::find_by_scan`] finds `name` in `tools`: the first tool
/// the request registered, else (with the resolution fallback, for a name
/// with text) the last one the resolver holds. For a reader of a scenario's
/// tools that builds no toolbox.
pub fn scan(tools: &[ToolSpec], name: &str, resolution_fallback: bool) -> Option<usize> {
    tools
        .iter()
        .position(|t| t.registered == Registered::Request && t.name == name)
        .or_else(|| {
            if resolution_fallback && crate::model::java::has_text(name) {
                tools
                    .iter()
                    .rposition(|t| t.registered == Registered::Resolver && t.name == name)
            } else {
                None
            }
        })
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.
    #[test]
    fn example_duplicate_request_names() {
        use crate::model::ToolSpec;
        use crate::model::tools::duplicate_request_names;
        let t = |n: &str| ToolSpec::returning(n, "1");
        assert!(duplicate_request_names(&[t("a"), t("b")]).is_empty());
        // "Aa" and "BB" share a hash code, and "zeta" their bucket.
        let names = ["zeta", "b", "zeta", "b", "Aa", "BB", "BB", "Aa"].map(t);
        assert_eq!(
            duplicate_request_names(&names),
            vec!["BB", "Aa", "zeta", "b"]
        );
    }

    #[test]
    fn example_tools() {
        assert_eq!(crate::model::Toolbox::new(vec![]).tools().len(), 0);
    }
}
