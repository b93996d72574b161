//! What a turn keeps rather than computes again, each part equal to what
//! it would compute from the turn's history and requests: the speed of the
//! loop, apart from its meaning.

use super::{LoopConfig, Sent};
use crate::gemini::{
    IncrementalRequests, Rejection, Request, build_request_at, build_request_reusing, validate,
    validate_from,
};
use crate::model::behavior::{Fixes, SpringAi};
use crate::model::java::JavaException;
use crate::model::limits::Counts;
use crate::model::message::Message;

/// The turn's kept values.
#[derive(Debug, Clone)]
pub(super) struct Kept {
    /// The turn's tool-call counts, kept from batch to batch rather than
    /// recounted from the history.
    pub(super) counts: Counts,
    /// The request of the history so far, extended by its new messages.
    incremental: IncrementalRequests,
    /// How many contents of the last request the validator accepted.
    accepted_len: usize,
    /// The messages the last Gemini request was built from, if the next
    /// request built whole can share their contents.
    converted: Converted,
}

/// The messages the last Gemini request of a turn was built from.
#[derive(Debug, Clone)]
enum Converted {
    /// Unknown, or not a Gemini request.
    None,
    /// The first `n` messages of the turn history.
    History(usize),
    /// A prompt an advisor or the memory inside made.
    Prompt(Vec<Message>),
}

impl Kept {
    /// Nothing kept yet but the counts of `history`.
    pub(super) fn new(history: &[Message]) -> Self {
        Kept {
            counts: Counts::recount(history),
            incremental: IncrementalRequests::default(),
            accepted_len: 0,
            converted: Converted::None,
        }
    }

    /// The request of the history `full`, which only grows, converting just
    /// its new messages, and the validator's verdict on it.
    pub(super) fn extend_request(
        &mut self,
        full: &[Message],
        cfg: &LoopConfig,
        last_accepted: bool,
    ) -> Result<(Request, Result<(), Rejection>), JavaException> {
        let r = self
            .incremental
            .build_at(full, cfg.fixes(), cfg.manager.version)?;
        // This request extends the last one; if that one was accepted,
        // only its last content and the new ones can break a rule.
        let verdict = if last_accepted {
            validate_from(&r, self.accepted_len.saturating_sub(1), cfg.validator)
        } else {
            validate(&r, cfg.validator)
        };
        self.accepted_len = r.contents.len();
        Ok((r, verdict))
    }

    /// The Gemini request of `messages`, sharing the contents of the last
    /// request (`last`) where the messages it was built from are known.
    pub(super) fn rebuild_request(
        &self,
        full: &[Message],
        last: Option<&Sent>,
        messages: &[Message],
        fixes: Fixes,
        version: SpringAi,
    ) -> Result<Request, JavaException> {
        let earlier = match &self.converted {
            Converted::None => None,
            // The history only grows: its first `n` messages are those the
            // request was built from.
            Converted::History(n) => full.get(..*n),
            Converted::Prompt(p) => Some(&p[..]),
        };
        match (earlier, last) {
            (Some(earlier), Some(Sent::Gemini(r))) => {
                build_request_reusing(messages, fixes, version, earlier, r)
            }
            _ => build_request_at(messages, fixes, version),
        }
    }

    /// Notes what `request` was built from: the prompt an advisor or the
    /// memory made, else the history of `history_len` messages (unless
    /// `trimmed`: a trimmed prompt is not kept past its round).
    pub(super) fn sent(
        &mut self,
        prompt: Option<Vec<Message>>,
        request: &Sent,
        trimmed: bool,
        history_len: usize,
    ) {
        self.converted = match (prompt, request) {
            (_, Sent::Messages(_)) => Converted::None,
            (Some(p), Sent::Gemini(_)) => Converted::Prompt(p),
            (None, Sent::Gemini(_)) if !trimmed => Converted::History(history_len),
            (None, Sent::Gemini(_)) => Converted::None,
        };
    }
}
