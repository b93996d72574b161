//! Behaviour sets: upstream Spring AI 2.0.1, or upstream plus chosen fixes
//! (SEMANTICS.md section 9), plus the seed's workaround advisor.
//!
//! One engine reads these switches; there is no copy of the engine per mode.

use std::fmt;

/// A fix, by its public name.
///
/// ```
/// use toolcall_model::behavior::Fix;
/// assert_eq!("error-key".parse::<Fix>(), Ok(Fix::ErrorKey));
/// assert_eq!(Fix::ErrorKey.to_string(), "error-key");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Fix {
    /// `breach-through-processor`: a breach is shaped by the exception processor.
    BreachThroughProcessor,
    /// `strict-json-or-wrap`: tool responses convert strictly, non-JSON is wrapped.
    StrictJsonOrWrap,
    /// `error-key`: failure responses go to Gemini under `error`.
    ErrorKey,
    /// `close-dangling-calls`: a THROW batch answers every call.
    CloseDanglingCalls,
}

impl Fix {
    /// Every fix, in a fixed order.
    pub const ALL: [Fix; 4] = [
        Fix::BreachThroughProcessor,
        Fix::StrictJsonOrWrap,
        Fix::ErrorKey,
        Fix::CloseDanglingCalls,
    ];

    /// The public name.
    ///
    /// ```
    /// assert_eq!(toolcall_model::behavior::Fix::StrictJsonOrWrap.name(), "strict-json-or-wrap");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Fix::BreachThroughProcessor => "breach-through-processor",
            Fix::StrictJsonOrWrap => "strict-json-or-wrap",
            Fix::ErrorKey => "error-key",
            Fix::CloseDanglingCalls => "close-dangling-calls",
        }
    }
}

impl fmt::Display for Fix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown fix '{0}' (known: breach-through-processor, strict-json-or-wrap, error-key, close-dangling-calls, all)")]
pub struct UnknownFix(pub String);

impl std::str::FromStr for Fix {
    type Err = UnknownFix;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Fix::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| UnknownFix(s.to_owned()))
    }
}

/// Which fixes are on. `Fixes::default()` is upstream.
///
/// ```
/// use toolcall_model::behavior::{Fix, Fixes};
/// let f = Fixes::parse_list("strict-json-or-wrap,error-key").unwrap();
/// assert!(f.has(Fix::ErrorKey) && !f.has(Fix::CloseDanglingCalls));
/// assert!(Fixes::all().has(Fix::CloseDanglingCalls));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Fixes {
    /// `breach-through-processor`.
    pub breach_through_processor: bool,
    /// `strict-json-or-wrap`.
    pub strict_json_or_wrap: bool,
    /// `error-key`.
    pub error_key: bool,
    /// `close-dangling-calls`.
    pub close_dangling_calls: bool,
}

impl Fixes {
    /// Upstream: no fix.
    ///
    /// ```
    /// assert!(toolcall_model::behavior::Fixes::upstream().is_upstream());
    /// ```
    pub fn upstream() -> Self {
        Fixes::default()
    }

    /// Every fix.
    ///
    /// ```
    /// assert!(!toolcall_model::behavior::Fixes::all().is_upstream());
    /// ```
    pub fn all() -> Self {
        Fixes {
            breach_through_processor: true,
            strict_json_or_wrap: true,
            error_key: true,
            close_dangling_calls: true,
        }
    }

    /// Just one fix.
    ///
    /// ```
    /// use toolcall_model::behavior::{Fix, Fixes};
    /// assert_eq!(Fixes::only(Fix::ErrorKey).enabled(), vec![Fix::ErrorKey]);
    /// ```
    pub fn only(fix: Fix) -> Self {
        Fixes::default().with(fix)
    }

    /// These fixes plus `fix`.
    ///
    /// ```
    /// use toolcall_model::behavior::{Fix, Fixes};
    /// assert!(Fixes::default().with(Fix::ErrorKey).error_key);
    /// ```
    pub fn with(mut self, fix: Fix) -> Self {
        match fix {
            Fix::BreachThroughProcessor => self.breach_through_processor = true,
            Fix::StrictJsonOrWrap => self.strict_json_or_wrap = true,
            Fix::ErrorKey => self.error_key = true,
            Fix::CloseDanglingCalls => self.close_dangling_calls = true,
        }
        self
    }

    /// Whether `fix` is on.
    ///
    /// ```
    /// use toolcall_model::behavior::{Fix, Fixes};
    /// assert!(!Fixes::upstream().has(Fix::ErrorKey));
    /// ```
    pub fn has(self, fix: Fix) -> bool {
        match fix {
            Fix::BreachThroughProcessor => self.breach_through_processor,
            Fix::StrictJsonOrWrap => self.strict_json_or_wrap,
            Fix::ErrorKey => self.error_key,
            Fix::CloseDanglingCalls => self.close_dangling_calls,
        }
    }

    /// Whether no fix is on.
    ///
    /// ```
    /// assert!(toolcall_model::behavior::Fixes::default().is_upstream());
    /// ```
    pub fn is_upstream(self) -> bool {
        self == Fixes::default()
    }

    /// The fixes that are on, in [`Fix::ALL`] order.
    ///
    /// ```
    /// assert_eq!(toolcall_model::behavior::Fixes::all().enabled().len(), 4);
    /// ```
    pub fn enabled(self) -> Vec<Fix> {
        Fix::ALL.into_iter().filter(|f| self.has(*f)).collect()
    }

    /// Parses a comma-separated list of fix names, or `all`; empty is upstream.
    ///
    /// ```
    /// assert!(toolcall_model::behavior::Fixes::parse_list("nope").is_err());
    /// assert!(toolcall_model::behavior::Fixes::parse_list("").unwrap().is_upstream());
    /// ```
    pub fn parse_list(list: &str) -> Result<Self, UnknownFix> {
        let mut f = Fixes::default();
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if name == "all" {
                f = Fixes::all();
            } else {
                f = f.with(name.parse()?);
            }
        }
        Ok(f)
    }
}

impl fmt::Display for Fixes {
    /// `upstream`, `all`, or the enabled names joined with `+`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_upstream() {
            return f.write_str("upstream");
        }
        if *self == Fixes::all() {
            return f.write_str("all");
        }
        let names: Vec<_> = self.enabled().iter().map(|x| x.name()).collect();
        f.write_str(&names.join("+"))
    }
}
