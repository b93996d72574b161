//! Java exception classes: just enough of the hierarchy to decide what
//! `DefaultToolExecutionExceptionProcessor.process` does with a cause
//! (`instanceof RuntimeException`, `Class.isAssignableFrom`,
//! `Class.getSimpleName`).

use crate::model::shared_str::SharedStr;
use std::collections::BTreeMap;
use std::sync::Arc;

/// What `catch` clauses see: unchecked runtime exception, checked exception,
/// or `Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A subclass of `java.lang.RuntimeException`.
    Runtime,
    /// A subclass of `java.lang.Exception` that is not a runtime exception
    /// (or `Throwable` itself).
    Checked,
    /// A subclass of `java.lang.Error`.
    Error,
}

/// A thrown exception: its class, its message (`getMessage()`, may be null)
/// and its cause (`getCause()`, may be null).
///
/// ```
/// let e = toolcall_model::model::JavaException::new("java.lang.IllegalStateException", Some("boom"));
/// assert_eq!(e.to_string(), "java.lang.IllegalStateException: boom");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JavaException {
    /// Fully qualified class name.
    pub class: SharedStr,
    /// The message; `None` is Java's null.
    pub message: Option<SharedStr>,
    /// The cause; `None` is Java's null. Only a `ToolExecutionException`'s
    /// cause is ever read (`DefaultToolExecutionExceptionProcessor.process`
    /// looks at `getCause()`); other causes are carried along.
    pub cause: Option<Box<JavaException>>,
}

impl JavaException {
    /// An exception of `class` with `message`.
    ///
    /// ```
    /// let e = toolcall_model::model::JavaException::new("X", None);
    /// assert!(e.message.is_none());
    /// ```
    pub fn new(class: &str, message: Option<&str>) -> Self {
        JavaException {
            class: class.into(),
            message: message.map(SharedStr::from),
            cause: None,
        }
    }

    /// `new ToolExecutionException(toolDefinition, cause)` for a class that
    /// is `ToolExecutionException` or a subclass (whose only way to build
    /// itself is that constructor): the message is the cause's message
    /// (`super(cause.getMessage(), cause)`).
    pub fn caused(class: &str, cause: JavaException) -> Self {
        JavaException {
            class: class.into(),
            message: cause.message.clone(),
            cause: Some(Box::new(cause)),
        }
    }
}

impl std::fmt::Display for JavaException {
    /// `CLASS: MESSAGE`, or the class alone for a null message (as `Throwable.toString`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.message {
            Some(m) => write!(f, "{}: {}", self.class, m),
            None => f.write_str(&self.class),
        }
    }
}

/// `getSimpleName()`: the part after the last `.` and, for nested classes, `$`.
pub(crate) fn simple_name(class: &str) -> &str {
    let tail = class.rsplit('.').next().unwrap_or(class);
    tail.rsplit('$').next().unwrap_or(tail)
}

/// The `java.lang` throwable root.
pub const THROWABLE: &str = "java.lang.Throwable";
/// `java.lang.Error`.
const ERROR: &str = "java.lang.Error";
/// `java.lang.RuntimeException`.
pub const RUNTIME_EXCEPTION: &str = "java.lang.RuntimeException";
/// `java.lang.IllegalStateException`.
pub const ILLEGAL_STATE: &str = "java.lang.IllegalStateException";
/// `java.lang.IllegalArgumentException`.
pub const ILLEGAL_ARGUMENT: &str = "java.lang.IllegalArgumentException";
/// `java.lang.NullPointerException`.
pub(crate) const NULL_POINTER: &str = "java.lang.NullPointerException";
/// The message of the `NullPointerException` that
/// `new ToolExecutionException(toolDefinition, null)` throws: its constructor
/// calls `cause.getMessage()` on the null cause. This is the JDK's helpful
/// message (on by default since JDK 15) for Spring AI 2.0.1's jar, which is
/// compiled with local variable names; checked on JDK 17 with the real jar.
pub(crate) const TOOL_EXECUTION_NULL_CAUSE: &str =
    "Cannot invoke \"java.lang.Throwable.getMessage()\" because \"cause\" is null";
/// Spring AI's `ToolExecutionException`.
pub const TOOL_EXECUTION_EXCEPTION: &str =
    "org.springframework.ai.tool.execution.ToolExecutionException";
/// Spring AI's `ToolCallLimitExceededException`.
pub const TOOL_CALL_LIMIT_EXCEEDED: &str =
    "org.springframework.ai.model.tool.ToolCallLimitExceededException";

/// Built-in classes and their direct superclasses, sorted by [`by_length`]
/// of the class name so that a lookup is a binary search whose steps
/// mostly compare lengths: the manager asks for a class's place in the
/// hierarchy at every tool failure.
const BUILTIN: &[(&str, &str)] = &[
    (ERROR, THROWABLE),
    ("java.io.IOException", "java.lang.Exception"),
    ("java.lang.Exception", THROWABLE),
    ("java.io.EOFException", "java.io.IOException"),
    ("java.lang.LinkageError", ERROR),
    ("java.lang.AssertionError", ERROR),
    (
        "java.lang.OutOfMemoryError",
        "java.lang.VirtualMachineError",
    ),
    (RUNTIME_EXCEPTION, "java.lang.Exception"),
    ("java.lang.SecurityException", RUNTIME_EXCEPTION),
    ("java.io.UncheckedIOException", RUNTIME_EXCEPTION),
    ("java.lang.ClassCastException", RUNTIME_EXCEPTION),
    (
        "java.lang.StackOverflowError",
        "java.lang.VirtualMachineError",
    ),
    ("java.io.FileNotFoundException", "java.io.IOException"),
    ("java.lang.ArithmeticException", RUNTIME_EXCEPTION),
    ("java.lang.ArrayStoreException", RUNTIME_EXCEPTION),
    ("java.lang.VirtualMachineError", ERROR),
    ("java.io.InterruptedIOException", "java.io.IOException"),
    ("java.lang.InterruptedException", "java.lang.Exception"),
    ("java.lang.NoClassDefFoundError", "java.lang.LinkageError"),
    (NULL_POINTER, RUNTIME_EXCEPTION),
    (ILLEGAL_STATE, RUNTIME_EXCEPTION),
    ("java.lang.NumberFormatException", ILLEGAL_ARGUMENT),
    (
        "java.lang.ClassNotFoundException",
        "java.lang.ReflectiveOperationException",
    ),
    ("java.util.NoSuchElementException", RUNTIME_EXCEPTION),
    (ILLEGAL_ARGUMENT, RUNTIME_EXCEPTION),
    ("java.lang.IndexOutOfBoundsException", RUNTIME_EXCEPTION),
    (
        "java.io.UnsupportedEncodingException",
        "java.io.IOException",
    ),
    (
        "java.lang.CloneNotSupportedException",
        "java.lang.Exception",
    ),
    ("java.lang.NegativeArraySizeException", RUNTIME_EXCEPTION),
    (
        "java.util.concurrent.TimeoutException",
        "java.lang.Exception",
    ),
    ("java.lang.IllegalMonitorStateException", RUNTIME_EXCEPTION),
    (
        "java.lang.ReflectiveOperationException",
        "java.lang.Exception",
    ),
    ("java.lang.UnsupportedOperationException", RUNTIME_EXCEPTION),
    (
        "java.util.concurrent.ExecutionException",
        "java.lang.Exception",
    ),
    (
        "java.lang.ArrayIndexOutOfBoundsException",
        "java.lang.IndexOutOfBoundsException",
    ),
    (
        "java.lang.StringIndexOutOfBoundsException",
        "java.lang.IndexOutOfBoundsException",
    ),
    (
        "java.util.ConcurrentModificationException",
        RUNTIME_EXCEPTION,
    ),
    (TOOL_EXECUTION_EXCEPTION, RUNTIME_EXCEPTION),
    (TOOL_CALL_LIMIT_EXCEEDED, RUNTIME_EXCEPTION),
];

/// Where each built-in class's superclass is in [`BUILTIN`] ([`NONE`] for
/// `Throwable`, which is not listed), found when the crate is compiled: a
/// walk up the hierarchy that reaches a built-in class goes on by index,
/// with no more lookups by name.
const PARENTS: [usize; BUILTIN.len()] = parents();
/// Each built-in class's kind, found the same way.
const KINDS: [Kind; BUILTIN.len()] = kinds();
/// No index: the superclass of a class whose superclass is `Throwable`.
const NONE: usize = usize::MAX;

/// `a == b`, as a compile-time function.
const fn same(a: &str, b: &str) -> bool {
    crate::model::table::same(a.as_bytes(), b.as_bytes())
}

const fn parents() -> [usize; BUILTIN.len()] {
    let mut parents = [NONE; BUILTIN.len()];
    let mut i = 0;
    while i < BUILTIN.len() {
        let mut j = 0;
        while j < BUILTIN.len() && !same(BUILTIN[j].0, BUILTIN[i].1) {
            j += 1;
        }
        if j < BUILTIN.len() {
            parents[i] = j;
        } else if !same(BUILTIN[i].1, THROWABLE) {
            panic!("a built-in class's superclass is neither built in nor Throwable");
        }
        i += 1;
    }
    parents
}

const fn kinds() -> [Kind; BUILTIN.len()] {
    let mut kinds = [Kind::Checked; BUILTIN.len()];
    let mut i = 0;
    while i < BUILTIN.len() {
        let mut at = i;
        while at != NONE {
            if same(BUILTIN[at].0, RUNTIME_EXCEPTION) {
                kinds[i] = Kind::Runtime;
                break;
            }
            if same(BUILTIN[at].0, ERROR) {
                kinds[i] = Kind::Error;
                break;
            }
            at = PARENTS[at];
        }
        i += 1;
    }
    kinds
}

/// Where a known class is.
enum Place<'t> {
    /// Built in, at this index of [`BUILTIN`].
    Builtin(usize),
    /// Declared, with this superclass.
    Declared(&'t str),
}

/// The order of [`BUILTIN`]: by length, then by bytes.
fn by_length(class: &str) -> (usize, &str) {
    (class.len(), class)
}

/// Why a class could not be declared or used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ClassError {
    /// The class is neither built in nor declared.
    #[error("unknown exception class '{0}' (declare it with \"extends\")")]
    Unknown(String),
    /// A declaration names a superclass that is not known.
    #[error("class '{class}' extends unknown class '{superclass}'")]
    UnknownSuperclass {
        /// The class being declared.
        class: String,
        /// Its unknown superclass.
        superclass: String,
    },
    /// A declaration contradicts an existing one (or redefines a built-in class).
    #[error("class '{class}' is already known with superclass '{existing}', not '{superclass}'")]
    Conflict {
        /// The class being declared.
        class: String,
        /// The superclass it already has.
        existing: String,
        /// The superclass given now.
        superclass: String,
    },
}

/// A set of known throwable classes with their superclasses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassTable {
    // Only the declared classes: the built-in ones are read from `BUILTIN`,
    // so a fresh table allocates nothing. Shared between clones (every
    // scenario of a check carries one): copied only when a clone declares
    // a class.
    declared: Arc<BTreeMap<String, String>>,
}

impl Default for ClassTable {
    fn default() -> Self {
        Self::builtin()
    }
}

impl ClassTable {
    /// The common `java.lang`, `java.util` and `java.io` throwables plus Spring AI's own.
    pub fn builtin() -> Self {
        ClassTable {
            declared: Arc::default(),
        }
    }

    /// The direct superclass: a built-in class's, else a declared one's
    /// (`declare` never gives a built-in class another parent).
    fn parent(&self, class: &str) -> Option<&str> {
        match self.place(class)? {
            Place::Builtin(i) => Some(BUILTIN[i].1),
            Place::Declared(p) => Some(p),
        }
    }

    /// Where `class` is, `None` if unknown (or `Throwable`).
    fn place(&self, class: &str) -> Option<Place<'_>> {
        match BUILTIN.binary_search_by(|(c, _)| by_length(c).cmp(&by_length(class))) {
            Ok(i) => Some(Place::Builtin(i)),
            // An empty map (as nearly every table has) answers at once.
            Err(_) if self.declared.is_empty() => None,
            Err(_) => self.declared.get(class).map(|p| Place::Declared(p)),
        }
    }

    /// Whether `class` is known.
    pub fn contains(&self, class: &str) -> bool {
        class == THROWABLE || self.parent(class).is_some()
    }

    /// Declares `class extends superclass`. Re-declaring with the same
    /// superclass is allowed; a different one is an error.
    pub fn declare(&mut self, class: &str, superclass: &str) -> Result<(), ClassError> {
        if !self.contains(superclass) {
            return Err(ClassError::UnknownSuperclass {
                class: class.to_owned(),
                superclass: superclass.to_owned(),
            });
        }
        if let Some(existing) = self.parent(class) {
            if existing != superclass {
                return Err(ClassError::Conflict {
                    class: class.to_owned(),
                    existing: existing.to_owned(),
                    superclass: superclass.to_owned(),
                });
            }
            return Ok(());
        }
        if class == THROWABLE || self.is_assignable(class, superclass) {
            // A cycle would make the hierarchy walk loop forever.
            return Err(ClassError::Conflict {
                class: class.to_owned(),
                existing: "(cycle)".to_owned(),
                superclass: superclass.to_owned(),
            });
        }
        Arc::make_mut(&mut self.declared).insert(class.to_owned(), superclass.to_owned());
        Ok(())
    }

    /// `target.isAssignableFrom(class)`: `class` is `target` or a subclass of it.
    /// Unknown classes are assignable only to themselves.
    pub fn is_assignable(&self, target: &str, class: &str) -> bool {
        self.is_assignable_walk(target, class)
    }

    /// Whether Reactor treats `class` as fatal to the JVM
    /// (`Exceptions.throwIfJvmFatal`: `VirtualMachineError`, `ThreadDeath`,
    /// `LinkageError`): thrown inside a stream's operator it is rethrown on
    /// the worker thread instead of reaching the subscriber, and the stream
    /// never ends.
    pub(crate) fn is_jvm_fatal(&self, class: &str) -> bool {
        [
            "java.lang.VirtualMachineError",
            "java.lang.ThreadDeath",
            "java.lang.LinkageError",
        ]
        .iter()
        .any(|t| self.is_assignable_walk(t, class))
    }

    fn is_assignable_walk(&self, target: &str, class: &str) -> bool {
        let mut cur = class;
        // The table is acyclic (declare refuses cycles), so the walk ends.
        loop {
            if cur == target {
                return true;
            }
            match self.place(cur) {
                Some(Place::Declared(p)) => cur = p,
                Some(Place::Builtin(mut i)) => loop {
                    // The rest of the way is built in: by index.
                    i = PARENTS[i];
                    if i == NONE {
                        return target == THROWABLE;
                    }
                    if BUILTIN[i].0 == target {
                        return true;
                    }
                },
                None => return false,
            }
        }
    }

    /// What a tool's `throw new CLASS(...)` throws, for an exception as a
    /// vector describes it (class, message, cause): causes are built first,
    /// as Java evaluates a constructor's arguments first. A class that is
    /// `ToolExecutionException` or a subclass can only be built with
    /// `ToolExecutionException(ToolDefinition, Throwable)`, so its message is
    /// its cause's (`super(cause.getMessage(), cause)`, any given message is
    /// ignored), and without a cause that constructor throws a
    /// `NullPointerException` ([`TOOL_EXECUTION_NULL_CAUSE`]), which is then
    /// what the tool throws. Other classes keep their message and cause.
    pub(crate) fn instantiate(&self, spec: &JavaException) -> JavaException {
        match self.construct(spec) {
            Ok(e) | Err(e) => e,
        }
    }

    /// `Ok(the exception built)`, or `Err(what its construction threw)`.
    fn construct(&self, spec: &JavaException) -> Result<JavaException, JavaException> {
        let cause = match &spec.cause {
            Some(c) => Some(self.construct(c)?),
            None => None,
        };
        if self.is_assignable(TOOL_EXECUTION_EXCEPTION, &spec.class) {
            match cause {
                Some(c) => Ok(JavaException::caused(&spec.class, c)),
                None => Err(JavaException::new(
                    NULL_POINTER,
                    Some(TOOL_EXECUTION_NULL_CAUSE),
                )),
            }
        } else {
            Ok(JavaException {
                class: spec.class.clone(),
                message: spec.message.clone(),
                cause: cause.map(Box::new),
            })
        }
    }

    /// Whether `class` is `ToolExecutionException` or a subclass: what
    /// `catch (ToolExecutionException ex)` in
    /// `DefaultToolCallingManager.executeToolCall` catches.
    pub(crate) fn is_tool_execution_exception(&self, class: &str) -> bool {
        self.is_assignable(TOOL_EXECUTION_EXCEPTION, class)
    }

    /// The direct superclass of a known class (`None` for `Throwable` or an unknown class).
    pub fn superclass(&self, class: &str) -> Option<&str> {
        self.parent(class)
    }

    /// The kind of a known class, `None` if unknown.
    pub fn kind(&self, class: &str) -> Option<Kind> {
        // One walk up the hierarchy: the first of `RuntimeException` and
        // `Error` met decides; reaching `Throwable` makes it checked. Only
        // the class itself can be unknown (a declared class's superclass is
        // known), and an unknown class has no superclass.
        let mut cur = class;
        loop {
            if cur == RUNTIME_EXCEPTION {
                return Some(Kind::Runtime);
            }
            if cur == ERROR {
                return Some(Kind::Error);
            }
            match self.place(cur) {
                Some(Place::Declared(p)) => cur = p,
                Some(Place::Builtin(i)) => return Some(KINDS[i]),
                None if cur == THROWABLE => return Some(Kind::Checked),
                None => return None,
            }
        }
    }
}

/// `StringUtils.hasText`: some character that is not Java whitespace.
pub fn has_text(s: &str) -> bool {
    // Nearly every text the manager checks (argument JSON, a tool's name)
    // starts with a printable ASCII character, none of which is whitespace.
    if s.as_bytes()
        .first()
        .is_some_and(|&b| b > b' ' && b.is_ascii())
    {
        return true;
    }
    s.chars().any(|c| !is_java_whitespace(c))
}

/// `Character.isWhitespace`: Unicode space separators except the no-break
/// ones (U+00A0, U+2007, U+202F), plus `\t \n U+000B \f \r` and U+001C..U+001F.
pub fn is_java_whitespace(c: char) -> bool {
    matches!(c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | '\u{1C}'..='\u{1F}'
        | ' ' | '\u{1680}' | '\u{2000}'..='\u{2006}' | '\u{2008}'..='\u{200A}'
        | '\u{2028}' | '\u{2029}' | '\u{205F}' | '\u{3000}')
}

/// `String.hashCode()`: over the UTF-16 code units, `31 * h + c`.
fn string_hash_code(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// The bucket `java.util.HashMap` (and `HashSet`) puts a `String` key in,
/// for a table of `capacity` (a power of two): the hash code spread,
/// `(h ^ (h >>> 16)) & (capacity - 1)`. The one home of Java's hash order:
/// the tool registry's duplicate names and the binder's equal keys both
/// iterate by it.
pub fn hash_map_bucket(s: &str, capacity: usize) -> usize {
    let h = string_hash_code(s) as u32;
    ((h ^ (h >> 16)) as usize) & (capacity - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lookup is a binary search: the table must stay sorted, each
    /// class once, and every superclass known.
    #[test]
    fn the_builtin_table_is_sorted_and_closed() {
        assert!(
            BUILTIN
                .windows(2)
                .all(|w| by_length(w[0].0) < by_length(w[1].0)),
            "sorted, no repeats"
        );
        let t = ClassTable::builtin();
        for (i, (class, parent)) in BUILTIN.iter().enumerate() {
            assert_eq!(t.superclass(class), Some(*parent));
            assert!(t.contains(parent), "{parent}");
            match PARENTS[i] {
                NONE => assert_eq!(*parent, THROWABLE),
                p => assert_eq!(BUILTIN[p].0, *parent),
            }
        }
    }

    /// The one-walk kind (a built-in class's found at compile time) is the
    /// kind as the hierarchy defines it: runtime when assignable to
    /// `RuntimeException`, else error when assignable to `Error`, else
    /// checked; unknown classes have none.
    #[test]
    fn kind_is_assignability_to_runtime_exception_or_error() {
        let mut t = ClassTable::builtin();
        t.declare("a.Io", "java.io.IOException").unwrap();
        t.declare("a.Rt", ILLEGAL_STATE).unwrap();
        t.declare("a.Er", "java.lang.LinkageError").unwrap();
        t.declare("a.Th", THROWABLE).unwrap();
        t.declare("a.Th2", "a.Th").unwrap();
        let classes = BUILTIN.iter().map(|(c, _)| *c).chain([
            THROWABLE, "a.Io", "a.Rt", "a.Er", "a.Th", "a.Th2", "no.Such", "",
        ]);
        for class in classes {
            let want = t.contains(class).then(|| {
                if t.is_assignable(RUNTIME_EXCEPTION, class) {
                    Kind::Runtime
                } else if t.is_assignable(ERROR, class) {
                    Kind::Error
                } else {
                    Kind::Checked
                }
            });
            assert_eq!(t.kind(class), want, "{class}");
        }
    }

    /// The walk that goes on by index once it reaches a built-in class
    /// answers as the walk by name does, for every pair of classes.
    #[test]
    fn assignability_by_index_is_assignability_by_name() {
        let mut t = ClassTable::builtin();
        t.declare("a.Tee", TOOL_EXECUTION_EXCEPTION).unwrap();
        t.declare("a.Tee2", "a.Tee").unwrap();
        t.declare("a.Io", "java.io.IOException").unwrap();
        t.declare("a.Th", THROWABLE).unwrap();
        let by_name = |target: &str, class: &str| {
            let mut cur = Some(class);
            while let Some(c) = cur {
                if c == target {
                    return true;
                }
                cur = t.superclass(c);
            }
            false
        };
        let classes: Vec<&str> = BUILTIN
            .iter()
            .map(|(c, _)| *c)
            .chain([THROWABLE, "a.Tee", "a.Tee2", "a.Io", "a.Th", "no.Such"])
            .collect();
        for target in &classes {
            for class in &classes {
                assert_eq!(
                    t.is_assignable(target, class),
                    by_name(target, class),
                    "{target} from {class}"
                );
            }
        }
    }
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.
    #[test]
    fn example_kind_2() {
        use crate::model::ClassTable;
        use crate::model::Kind;
        let t = ClassTable::builtin();
        assert_eq!(t.kind("java.io.IOException"), Some(Kind::Checked));
    }

    #[test]
    fn example_caused() {
        use crate::model::JavaException;
        use crate::model::java::TOOL_EXECUTION_EXCEPTION;
        let c = JavaException::new("java.io.IOException", Some("disk"));
        let e = JavaException::caused(TOOL_EXECUTION_EXCEPTION, c);
        assert_eq!(e.message.as_deref(), Some("disk"));
        assert_eq!(e.cause.unwrap().class, "java.io.IOException");
    }

    #[test]
    fn example_simple_name() {
        assert_eq!(crate::model::java::simple_name("a.b.Outer$Inner"), "Inner");
    }

    #[test]
    fn example_classtable() {
        use crate::model::ClassTable;
        let mut t = ClassTable::builtin();
        t.declare("com.acme.Oops", "java.lang.IllegalStateException")
            .unwrap();
        assert!(t.is_assignable("java.lang.RuntimeException", "com.acme.Oops"));
    }

    #[test]
    fn example_builtin() {
        assert!(crate::model::ClassTable::builtin().contains("java.lang.Error"));
    }

    #[test]
    fn example_contains() {
        assert!(crate::model::ClassTable::builtin().contains("java.lang.Throwable"));
    }

    #[test]
    fn example_declare() {
        let mut t = crate::model::ClassTable::builtin();
        assert!(t.declare("a.B", "no.Such").is_err());
    }

    #[test]
    fn example_is_assignable() {
        let t = crate::model::ClassTable::builtin();
        assert!(t.is_assignable("java.io.IOException", "java.io.FileNotFoundException"));
        assert!(!t.is_assignable("java.io.FileNotFoundException", "java.io.IOException"));
    }

    #[test]
    fn example_is_jvm_fatal() {
        let t = crate::model::ClassTable::builtin();
        assert!(t.is_jvm_fatal("java.lang.OutOfMemoryError"));
        assert!(!t.is_jvm_fatal("java.lang.AssertionError"));
    }

    #[test]
    fn example_instantiate() {
        use crate::model::ClassTable;
        use crate::model::JavaException;
        use crate::model::java::NULL_POINTER;
        use crate::model::java::TOOL_EXECUTION_EXCEPTION;
        let t = ClassTable::builtin();
        let no_cause = JavaException::new(TOOL_EXECUTION_EXCEPTION, None);
        assert_eq!(t.instantiate(&no_cause).class, NULL_POINTER);
        let mut tee = no_cause.clone();
        tee.cause = Some(Box::new(JavaException::new(
            "java.lang.IllegalStateException",
            Some("boom"),
        )));
        assert_eq!(t.instantiate(&tee).message.as_deref(), Some("boom"));
    }

    #[test]
    fn example_is_tool_execution_exception() {
        let mut t = crate::model::ClassTable::builtin();
        t.declare(
            "com.acme.ToolFailed",
            crate::model::java::TOOL_EXECUTION_EXCEPTION,
        )
        .unwrap();
        assert!(t.is_tool_execution_exception("com.acme.ToolFailed"));
        assert!(!t.is_tool_execution_exception("java.lang.RuntimeException"));
    }

    #[test]
    fn example_superclass() {
        let t = crate::model::ClassTable::builtin();
        assert_eq!(
            t.superclass("java.io.IOException"),
            Some("java.lang.Exception")
        );
    }

    #[test]
    fn example_kind() {
        use crate::model::ClassTable;
        use crate::model::Kind;
        assert_eq!(
            ClassTable::builtin().kind("java.lang.OutOfMemoryError"),
            Some(Kind::Error)
        );
    }

    #[test]
    fn example_has_text() {
        assert!(!crate::model::java::has_text(" \t\u{1c}\u{2003}"));
        assert!(crate::model::java::has_text("\u{a0}"));
        assert!(crate::model::java::has_text("{}") && !crate::model::java::has_text(""));
    }

    #[test]
    fn example_is_java_whitespace() {
        assert!(crate::model::java::is_java_whitespace('\u{3000}'));
        assert!(!crate::model::java::is_java_whitespace('\u{200b}'));
    }
}
