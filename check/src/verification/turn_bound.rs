//! How far the limits let a turn run, as the checker states them apart
//! from the model's manager: a tool's maximum, the most model calls a turn
//! may make, and the guard a generated turn with a repeating model gets.
//! Below the invariants (whose `turn-ends` judges by it) and the scenario
//! (which sets the guard when it moves to a version), so that neither uses
//! the other for it.

use toolcall_model::chat::LoopConfig;
use toolcall_model::collections::SmallMap;
use toolcall_model::model::answered_generation;
use toolcall_model::model::{Generation, Max, ToolCallLimits};

/// The per-tool maximum, restated from docs/BEHAVIOUR.md section 3.2: none when excluded, the
/// override, else the default.
pub(crate) fn max_for(l: &ToolCallLimits, name: &str) -> Max {
    if l.excluded.contains(name) {
        Max::Unlimited
    } else {
        l.overrides
            .get(name)
            .map_or(l.default_max_per_tool, |&n| Max::Limited(n))
    }
}

/// The most model calls a turn may make under `cfg` with the model's
/// replies `model`: `C + 2`, where `C` is the most tool calls the limits let
/// run without a breach (the total limit, or the sum of the per-tool limits
/// of every name the replies call, whichever is smaller). `None` when the
/// limits bound no such number: no total limit and a called name excluded
/// or unlimited, or Spring AI 2.0.0, which checks no limit.
///
/// Why `C + 2`: every round that goes on holds a call that did not breach
/// (at most `C` in a turn), except, under `RETURN_ERROR_RESPONSE` with
/// `end-turn-after-breach`, the one round whose breach the model is told of;
/// then one more reply. Under `THROW` a turn makes at most `C + 1`.
pub(crate) fn turn_bound(cfg: &LoopConfig, model: &[Vec<Generation>]) -> Option<usize> {
    let m = &cfg.manager;
    if !m.version.has_limits() {
        return None;
    }
    let total = match m.limits.max_total {
        Max::Limited(t) => Some(u64::from(t)),
        Max::Unlimited => None,
    };
    // Borrowed, not copied: this runs for every judged turn.
    let names = model
        .iter()
        .filter_map(|reply| answered_generation(reply))
        .flat_map(|g| g.tool_calls.iter().map(|c| c.name.as_str()));
    let limit = |sum: u64, name: &str| match max_for(&m.limits, name) {
        Max::Limited(n) => Some(sum.saturating_add(u64::from(n))),
        Max::Unlimited => None,
    };
    // Each name counts once.
    let mut distinct: SmallMap<&str, (), FEW_NAMES> = SmallMap::default();
    for name in names {
        if distinct.get(name).is_none() {
            distinct.insert(name, ());
        }
    }
    let per_tool = distinct
        .iter()
        .try_fold(0u64, |sum, (name, ())| limit(sum, name));
    let c = match (total, per_tool) {
        (Some(t), Some(p)) => t.min(p),
        (Some(t), None) => t,
        (None, Some(p)) => p,
        (None, None) => return None,
    };
    usize::try_from(c.saturating_add(2)).ok()
}

/// Up to how many distinct names [`turn_bound`] holds in place rather than
/// hashing.
const FEW_NAMES: usize = 8;

/// The guard (`LoopConfig::max_rounds`) a generated scenario with a
/// repeating model (`repeat_last`) gets: one model call past
/// [`turn_bound`], or, where the limits bound nothing, twice the script and
/// 8, the probe [`Evidence::gather`](crate::verification::invariants::Evidence::gather) cuts such a turn off at. A turn that
/// runs away then stops there instead of after the loop's 1000 model calls;
/// the checker judges it without reaching the guard.
pub(crate) fn repeating_guard(cfg: &LoopConfig, model: &[Vec<Generation>]) -> usize {
    let past = turn_bound(cfg, model).unwrap_or_else(|| model.len().saturating_mul(2) + 7);
    cfg.max_rounds.min(past.saturating_add(1))
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.
    #[test]
    fn example_turn_bound() {
        use crate::verification::turn_bound::turn_bound;
        use toolcall_model::chat::LoopConfig;
        use toolcall_model::model::{Config, Generation, ToolCall, ToolCallLimits};
        let limits = ToolCallLimits::default()
            .max_calls_per_tool(2)
            .unwrap()
            .unlimited_total_tool_calls();
        let cfg = LoopConfig::new(Config {
            limits,
            ..Config::default()
        });
        let call = vec![Generation {
            tool_calls: vec![ToolCall::new("1", "x", "{}")].into(),
            ..Default::default()
        }];
        assert_eq!(turn_bound(&cfg, std::slice::from_ref(&call)), Some(4));
        let open = LoopConfig::new(Config {
            limits: ToolCallLimits::default()
                .unlimited_calls_per_tool()
                .unlimited_total_tool_calls(),
            ..Config::default()
        });
        assert_eq!(turn_bound(&open, &[call]), None);
    }

    #[test]
    fn example_repeating_guard() {
        use crate::verification::turn_bound::{repeating_guard, turn_bound};
        use toolcall_model::chat::LoopConfig;
        use toolcall_model::model::{Config, Generation, ToolCall, ToolCallLimits};
        let limits = ToolCallLimits::default()
            .max_calls_per_tool(1)
            .unwrap()
            .unlimited_total_tool_calls();
        let cfg = LoopConfig::new(Config {
            limits,
            ..Config::default()
        });
        let call = vec![vec![Generation {
            tool_calls: vec![ToolCall::new("1", "x", "{}")].into(),
            ..Default::default()
        }]];
        assert_eq!(
            repeating_guard(&cfg, &call),
            turn_bound(&cfg, &call).unwrap() + 1
        );
    }
}
