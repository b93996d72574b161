//! Exhaustive small-scope exploration: every scenario within a stated bound,
//! every invariant under every behaviour set, on all cores.
//!
//! Where `explore`'s random mode says "not refuted in N generated cases",
//! this module says "proved for every scenario of bound B": it enumerates
//! the whole of a finite space of turns ([`Bound`]), runs each one under
//! every behaviour set of [`toolcall_model::model::behavior_sets`] through the same
//! [`Scenario`](crate::verification::scenario::Scenario) model, and judges it with the same checkers
//! ([`crate::verification::invariants::check`]) as the random suite. A refuted cell keeps
//! its first counterexample in order of size (`Space::size`, then
//! enumeration order), printed as a vector by [`crate::verification::random`]'s
//! counterexample builder.
//!
//! # The space
//!
//! A bound is a union of [`Family`]s; a family is a product of ranges:
//!
//! * the calls: up to `max_rounds` tool rounds (at least `min_rounds`),
//!   each a batch of 1 to `max_batch` calls, at most `max_turn_calls` calls
//!   in all, every call naming tool `a`, tool `b` or a name no tool has
//!   (`d`); each round is one model reply with one generation (the calls,
//!   or with `RoundReply::TextWithCalls` a text and the calls), followed
//!   by a final text answer, or, in a family whose model repeats
//!   (`repeat_last`), by the last round again for every further call;
//! * the tools: exactly the tools the calls name, each returning one
//!   `OutcomeClass` on every invocation; the classes hold one
//!   representative of every kind of tool output and failure the random
//!   generator ([`crate::verification::generators`]) produces;
//! * the request: a user message, then (when there are prior calls) one
//!   round of this turn already done, with 0 to `max_prior` calls to each
//!   tool, answered with a JSON object;
//! * the manager: the per-tool and total maxima (`None` is absent: Spring's
//!   defaults, 40 and 150), the behaviour on a breach, the exception
//!   processor;
//! * the loop: Gemini, or provider `none` where a family says so; the memory
//!   (`MemorySetup`: none, inside or outside the loop, its window,
//!   conversation history, and whether the turn streams); a memory holds the
//!   conversation so far (the request without its last message) when the
//!   request already holds a round of this turn.
//!
//! Texts are not varied here (one representative per class); random
//! generation ([`crate::verification::generators`], `explore --cases`) stays for their contents.
//!
//! # Symmetry
//!
//! Tools `a` and `b` are interchangeable: swapping the two names everywhere
//! (calls, prior calls, outcomes) maps a scenario to one with the same
//! verdicts (nothing in the model or the checkers depends on which of two
//! tool names is which; a test checks it on a small bound). Only the
//! smaller scenario of each pair is run, and it counts for both; a scenario
//! equal to its own swap (no call names a tool, so no outcome is chosen)
//! counts once. Equal outcomes are therefore never permuted, and no
//! dimension is cut: every scenario of the bound is either run or the swap
//! of one that is.
//!
//! ```
//! use toolcall_check::verification::exhaustive::{Bound, Space};
//! let space = Space::new(&Bound::tiny());
//! assert!(space.evaluated() < space.scenarios());
//! ```

mod bound;
mod report;
mod run;
mod space;

pub(crate) use bound::BOUND_NAMES;
pub use bound::{Bound, Family};
pub use report::{CellProof, Proof, Report};
pub use run::{Part, Shard, finish, run};
pub use run::{judge_index, run_part};
pub use space::{Item, Space};
#[cfg(test)]
mod tests;
