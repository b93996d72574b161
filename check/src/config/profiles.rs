//! Which documents of an application's configuration Spring Boot applies,
//! and the extra property sources `check` stands for: Spring's profile
//! rules (`spring.config.activate.on-profile`, `spring.profiles.active`,
//! the `default` profile, the `application-{profile}` files), the
//! command-line and environment sources placeholders are resolved from,
//! and the Spring AI version a build file declares.
//!
//! Pure: the command line reads the files and the environment and hands
//! their texts and values here.

use crate::config::binding::{
    BindFailure, Entry, JavaValue, LoadError, map_key_under, placeholder_refs, relaxed_name,
    same_property,
};

/// `spring.config.activate.on-profile`.
pub(crate) const ON_PROFILE: &str = "spring.config.activate.on-profile";
/// `spring.profiles.active`.
pub(crate) const PROFILES_ACTIVE: &str = "spring.profiles.active";

/// The value of `key` in one document, as Spring reads it (a list's
/// elements `key[0]`, `key[1]`... joined with commas).
fn value_of(doc: &[Entry], key: &str) -> Option<String> {
    entry_value(doc, key).map(|(v, _)| v)
}

/// [`value_of`], with the entry the value starts at (its origin): the key
/// itself, else its first element.
fn entry_value<'a>(doc: &'a [Entry], key: &str) -> Option<(String, &'a Entry)> {
    let want = relaxed_name(key);
    let mut parts: Vec<String> = Vec::new();
    let mut first = None;
    for e in doc {
        let k = relaxed_name(&e.key);
        if k == want {
            return Some((e.value.to_java_string(), e));
        }
        // An item: one element more, an index (`active[0]`, `active.0`).
        if k.len() == want.len() + 1
            && k.starts_with(&want)
            && k[want.len()].bytes().all(|c| c.is_ascii_digit())
        {
            parts.push(e.value.to_java_string());
            first.get_or_insert(e);
        }
    }
    first.map(|e| (parts.join(","), e))
}

/// Whether a profile expression (`Profiles.of`: names, `!`, `&`, `|`,
/// parentheses; a comma-separated list means any of them) matches the
/// active profiles.
///
/// ```
/// use toolcall_check::config::profile_matches;
/// let active = ["dev".to_owned()];
/// assert!(profile_matches("dev", &active));
/// assert!(profile_matches("prod, dev", &active));
/// assert!(profile_matches("!prod", &active));
/// assert!(!profile_matches("dev & cloud", &active));
/// assert!(profile_matches("(prod | dev) & !cloud", &active));
/// ```
pub fn profile_matches(expr: &str, active: &[String]) -> bool {
    ProfileMatcher::new(active).matches(expr)
}

/// The active profiles held for matching many expressions: a set, so a
/// file of many documents against many profiles takes time linear in
/// both.
pub(crate) struct ProfileMatcher<'a> {
    active: std::collections::HashSet<&'a str>,
}

impl<'a> ProfileMatcher<'a> {
    /// The matcher for these active profiles.
    pub(crate) fn new(active: &'a [String]) -> Self {
        ProfileMatcher {
            active: active.iter().map(String::as_str).collect(),
        }
    }

    /// Whether the expression (a comma-separated list means any) matches;
    /// one Spring refuses, or nested past `MAX_PROFILE_DEPTH`, does not.
    pub(crate) fn matches(&self, expr: &str) -> bool {
        self.judge(expr).unwrap_or(false)
    }

    /// The expression's value, as Spring Framework's `Profiles.of` reads
    /// each comma-separated element (`ProfilesParser`): tokens split at
    /// `(`, `)`, `&`, `|` and `!` and trimmed (so `a b` is one name), `&`
    /// and `|` not mixed at one level without parentheses, no empty group
    /// or element. The error says why: Spring's message, or past
    /// [`MAX_PROFILE_DEPTH`].
    fn judge(&self, expr: &str) -> Result<bool, ExprError> {
        let mut any = false;
        for e in expr.split(',').map(str::trim) {
            if e.is_empty() {
                return Err(ExprError::Spring(
                    "java.lang.IllegalArgumentException: Invalid profile expression []: must contain text"
                        .to_owned(),
                ));
            }
            let mut x = Expr::new(e, &self.active);
            any |= x.tokens(Within::None, 0)?;
        }
        Ok(any)
    }

    /// For a document under `on-profile` that does not match: its first
    /// line and its expression. An expression Spring refuses is Spring's
    /// refusal to start (`not_modelled` false); one nested past
    /// [`MAX_PROFILE_DEPTH`] is past what this model reads (`not_modelled`).
    /// A blank `on-profile` binds to no expression: the document applies.
    pub(crate) fn leaves_out(&self, doc: &[Entry]) -> Result<Option<(usize, String)>, LoadError> {
        let Some(expr) = value_of(doc, ON_PROFILE) else {
            return Ok(None);
        };
        if expr.trim().is_empty() {
            return Ok(None);
        }
        let line = doc.first().map_or(0, |e| e.line);
        match self.judge(&expr) {
            Err(ExprError::TooDeep) => Err(LoadError {
                message: format!("a profile expression nested past {MAX_PROFILE_DEPTH} levels"),
                line,
                not_modelled: true,
            }),
            Err(ExprError::Spring(message)) => Err(LoadError {
                message,
                line,
                not_modelled: false,
            }),
            Ok(true) => Ok(None),
            Ok(false) => Ok(Some((line, expr))),
        }
    }
}

/// The property Spring Boot refuses in a profile-specific file
/// (`application-dev.properties`), and its entry: `spring.profiles.include`
/// (or one of its items, `include[0]`), then `spring.profiles.active`,
/// then `spring.profiles.default`, the first of each in the file, in any
/// document (one for another profile too). Spring Boot fails to start on
/// it (`InvalidConfigDataPropertyException`); `spring.profiles.group.*` is
/// allowed there.
pub(crate) fn invalid_in_profile_file(docs: &[Vec<Entry>]) -> Option<(String, &Entry)> {
    for (name, items) in [
        ("spring.profiles.include", true),
        (PROFILES_ACTIVE, false),
        ("spring.profiles.default", false),
    ] {
        for e in docs.iter().flatten() {
            let (base, index) = match e.key.split_once('[') {
                Some((b, i)) => (b, Some(i)),
                None => (e.key.as_str(), None),
            };
            if same_property(base, name) && (items || index.is_none()) {
                let shown = index.map_or_else(|| name.to_owned(), |i| format!("{name}[{i}"));
                return Some((shown, e));
            }
        }
    }
    None
}

/// Why a profile expression has no value.
enum ExprError {
    /// Nested past [`MAX_PROFILE_DEPTH`].
    TooDeep,
    /// Spring's refusal, as its root exception prints.
    Spring(String),
}

/// Where [`Expr::tokens`] reads: the expression, a group after `(`, or
/// the operand of `!`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Within {
    None,
    Parenthesis,
    Negate,
}

/// A reader of one profile expression, as `ProfilesParser` reads it.
struct Expr<'a> {
    text: &'a str,
    /// Byte offset of the next token.
    at: usize,
    active: &'a std::collections::HashSet<&'a str>,
}

/// How deep `(` and `!` may nest in a profile expression before `check`
/// stops reading it (as a placeholder past [`crate::config::MAX_PLACEHOLDER_DEPTH`]).
pub(crate) const MAX_PROFILE_DEPTH: usize = 100;

impl<'a> Expr<'a> {
    fn new(text: &'a str, active: &'a std::collections::HashSet<&'a str>) -> Self {
        Expr {
            text,
            at: 0,
            active,
        }
    }

    /// The next token, trimmed (possibly empty): a delimiter alone, or the
    /// text up to the next one.
    fn next(&mut self) -> Option<&'a str> {
        let rest = &self.text[self.at..];
        let first = rest.chars().next()?;
        let len = if matches!(first, '(' | ')' | '&' | '|' | '!') {
            1
        } else {
            rest.find(['(', ')', '&', '|', '!']).unwrap_or(rest.len())
        };
        self.at += len;
        Some(rest[..len].trim())
    }

    fn malformed(&self) -> ExprError {
        ExprError::Spring(format!(
            "java.lang.IllegalArgumentException: Malformed profile expression [{}]",
            self.text
        ))
    }

    /// Reads tokens until the end, or until what `within` ends: a group's
    /// `)`, a negated operand. Its elements joined by the one operator of
    /// this level (none: any).
    fn tokens(&mut self, within: Within, depth: usize) -> Result<bool, ExprError> {
        #[derive(PartialEq)]
        enum Op {
            And,
            Or,
        }
        let mut elements: Vec<bool> = Vec::new();
        let mut op: Option<Op> = None;
        let merge = |elements: &[bool], op: &Option<Op>, me: &Self| match elements {
            [] => Err(me.malformed()),
            [one] => Ok(*one),
            many if *op == Some(Op::And) => Ok(many.iter().all(|v| *v)),
            many => Ok(many.iter().any(|v| *v)),
        };
        while let Some(token) = self.next() {
            match token {
                "" => {}
                "(" | "!" if depth >= MAX_PROFILE_DEPTH => return Err(ExprError::TooDeep),
                "(" => {
                    let group = self.tokens(Within::Parenthesis, depth + 1)?;
                    if within == Within::Negate {
                        return Ok(group);
                    }
                    elements.push(group);
                }
                "&" | "|" => {
                    let this = if token == "&" { Op::And } else { Op::Or };
                    if op.as_ref().is_some_and(|o| *o != this) {
                        return Err(self.malformed());
                    }
                    op = Some(this);
                }
                "!" => {
                    let v = self.tokens(Within::Negate, depth + 1)?;
                    elements.push(!v);
                }
                ")" => {
                    let merged = merge(&elements, &op, self)?;
                    if within == Within::Parenthesis {
                        return Ok(merged);
                    }
                    elements = vec![merged];
                    op = None;
                }
                name => {
                    let v = self.active.contains(name);
                    if within == Within::Negate {
                        return Ok(v);
                    }
                    elements.push(v);
                }
            }
        }
        merge(&elements, &op, self)
    }
}

/// The profiles in force, as Spring Boot 4.1's `Profiles` deduces them:
/// the ones given (`--profile`); else the `spring.profiles.include` of the
/// documents without `on-profile` followed by the `spring.profiles.active`
/// of the last document that sets it, whether or not that document is
/// itself under `spring.config.activate.on-profile`; when those name
/// none, the last `spring.profiles.default`, else `default`. Each is
/// expanded by the `spring.profiles.group.NAME` lists. A profile name
/// Spring's `ProfilesValidator` refuses, and an include in a document under
/// `on-profile`, are Spring's refusals to start, with its message. A
/// placeholder in a profile value is resolved against `docs` (the
/// command line's sources among them, last); one nothing resolves stays as
/// written.
pub(crate) fn active_profiles(
    docs: &[Vec<Entry>],
    given: Option<&[String]>,
) -> Result<Vec<String>, ProfileRefusal> {
    if let Some(g) = given {
        return Ok(g.to_vec());
    }
    let docs_resolver = crate::config::ValueResolver::new(docs);
    let resolver = &docs_resolver;
    let mut included = Vec::new();
    for d in docs {
        if let Some((v, at)) = entry_value(d, PROFILES_INCLUDE) {
            if value_of(d, ON_PROFILE).is_some() {
                return Err(ProfileRefusal::Load(format!(
                    "a document under {ON_PROFILE} cannot contain property '{PROFILES_INCLUDE}' (InactiveConfigDataAccessException)"
                )));
            }
            included.extend(profile_list(
                resolver,
                &v,
                at,
                PROFILES_INCLUDE,
                "java.util.List",
            )?);
        }
    }
    // Boot binds `spring.profiles.active` with its `ProfilesValidator`
    // handler, which takes the place of the binder's
    // `InactiveSourceChecker`: every document is a source, and one under
    // `on-profile` is read, not refused, the last one winning.
    let last = |key: &str| docs.iter().filter_map(|d| entry_value(d, key)).next_back();
    let mut active = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let listed = match last(PROFILES_ACTIVE) {
        Some((v, at)) => profile_list(resolver, &v, at, PROFILES_ACTIVE, "java.util.Set")?,
        None => Vec::new(),
    };
    for p in included.into_iter().chain(listed) {
        if seen.insert(p.clone()) {
            active.push(p);
        }
    }
    let chosen = if !active.is_empty() {
        active
    } else if let Some((v, at)) = last(PROFILES_DEFAULT) {
        profile_list(resolver, &v, at, PROFILES_DEFAULT, "java.util.Set")?
    } else {
        vec!["default".to_owned()]
    };
    Ok(expand_groups(docs, chosen))
}

/// The placeholders of the last `spring.profiles.active` that nothing
/// here sets (no document's key, no `lookup`): the environment that runs
/// the application chooses the profiles (`${APP_ENV:local}`, `${APP_ENV}`).
/// Empty when the active profiles are settled.
pub(crate) fn open_profile_placeholders(
    docs: &[Vec<Entry>],
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Vec<String> {
    let Some((v, _)) = docs
        .iter()
        .filter_map(|d| entry_value(d, PROFILES_ACTIVE))
        .next_back()
    else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for r in placeholder_refs(&v) {
        let name = r.name.as_str();
        let set_here = docs.iter().any(|d| entry_value(d, name).is_some());
        if !name.is_empty() && !set_here && lookup(name).is_none() && !out.iter().any(|n| n == name)
        {
            out.push(r.name);
        }
    }
    out
}

/// Why Spring Boot does not start with these profile settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ProfileRefusal {
    /// `ProfilesValidator` refused a name: a `BindException` on the
    /// profile property, as `BindFailureAnalyzer` describes it.
    Bind(BindFailure),
    /// The configuration cannot be loaded (an include under `on-profile`).
    Load(String),
}

impl std::fmt::Display for ProfileRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProfileRefusal::Bind(b) => write!(f, "{b}"),
            ProfileRefusal::Load(m) => write!(f, "{m}"),
        }
    }
}

/// `spring.profiles.include`.
pub(crate) const PROFILES_INCLUDE: &str = "spring.profiles.include";
/// `spring.profiles.default`.
pub(crate) const PROFILES_DEFAULT: &str = "spring.profiles.default";
/// The prefix of `spring.profiles.group.NAME`.
const PROFILES_GROUP: &str = "spring.profiles.group";

/// A profile list as the binder converts it (comma-separated, trimmed; an
/// empty value is an empty list), each name held to `ProfilesValidator`'s
/// rule: not empty, letters, digits and `-_.+@`, a letter or digit first
/// and last. A value whose placeholder nothing resolved is kept as
/// written, not validated: the environment may set it.
fn profile_list(
    resolver: &crate::config::ValueResolver<'_>,
    written: &str,
    at: &Entry,
    key: &str,
    collection: &str,
) -> Result<Vec<String>, ProfileRefusal> {
    let refuse = |reason: String| {
        ProfileRefusal::Bind(BindFailure::Bind(crate::config::PropertyFailure {
            description: format!(
                "Failed to bind properties under '{key}' to {collection}<java.lang.String>"
            ),
            property: key.to_owned(),
            value: written.to_owned(),
            line: at.line,
            column: at.column,
            reason,
        }))
    };
    let (value, resolved) = if written.contains("${") {
        resolver.resolve_all(written).map_err(refuse)?
    } else {
        (written.to_owned(), true)
    };
    if value.trim().is_empty() {
        return Ok(Vec::new());
    }
    let names: Vec<String> = value.split(',').map(|p| p.trim().to_owned()).collect();
    if !resolved {
        return Ok(names.into_iter().filter(|p| !p.is_empty()).collect());
    }
    let invalid = |why: String| Err(refuse(format!("java.lang.IllegalStateException: {why}")));
    for p in &names {
        let chars: Vec<char> = p.chars().collect();
        if chars.is_empty() {
            return invalid("Invalid empty profile".to_owned());
        }
        for (i, c) in chars.iter().enumerate() {
            let allowed = "-_.+@".contains(*c);
            if !allowed && !c.is_alphanumeric() {
                return invalid(format!(
                    "Profile '{p}' must contain a letter, digit or allowed char ('-', '_', '.', '+', '@')"
                ));
            }
            if (i == 0 || i == chars.len() - 1) && !c.is_alphanumeric() {
                return invalid(format!(
                    "Profile '{p}' must start and end with a letter or digit"
                ));
            }
        }
    }
    Ok(names)
}

/// `Profiles.expandProfiles`: each profile followed by its group's
/// members (depth first, each once), the groups read from every document
/// (a later one's list for a name wins).
fn expand_groups(docs: &[Vec<Entry>], profiles: Vec<String>) -> Vec<String> {
    let mut groups: std::collections::HashMap<String, Vec<String>> = Default::default();
    for e in docs.iter().flatten() {
        if let Some(name) = map_key_under(&e.key, PROFILES_GROUP) {
            let members = e.value.to_java_string();
            groups.insert(
                name,
                members
                    .split(',')
                    .map(str::trim)
                    .filter(|m| !m.is_empty())
                    .map(str::to_owned)
                    .collect(),
            );
        }
    }
    if groups.is_empty() {
        return profiles;
    }
    let mut stack: Vec<String> = profiles.into_iter().rev().collect();
    let mut out: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    while let Some(p) = stack.pop() {
        if !seen.insert(p.clone()) {
            continue;
        }
        if let Some(members) = groups.get(&p) {
            stack.extend(members.iter().rev().cloned());
        }
        out.push(p);
    }
    out
}

/// The documents Spring applies for the active profiles: a document with
/// `spring.config.activate.on-profile` only when its expression matches.
/// Also returns, for each document left out, its first line and its
/// expression.
///
/// ```
/// use toolcall_check::config::{parse_properties, applied};
/// let docs = parse_properties(b"a=1\n#---\nspring.config.activate.on-profile=dev\nb=2\n").unwrap();
/// let (kept, skipped) = applied(docs.clone(), &["default".to_owned()]);
/// assert_eq!(kept.len(), 1);
/// assert_eq!(skipped, vec![(3, "dev".to_owned())]);
/// assert_eq!(applied(docs, &["dev".to_owned()]).0.len(), 2);
/// ```
pub fn applied(
    docs: Vec<Vec<Entry>>,
    active: &[String],
) -> (Vec<Vec<Entry>>, Vec<(usize, String)>) {
    let matcher = ProfileMatcher::new(active);
    let mut kept = Vec::new();
    let mut skipped = Vec::new();
    for d in docs {
        // Past the depth this model reads: left out, with its line.
        match matcher.leaves_out(&d) {
            Ok(Some(left_out)) => skipped.push(left_out),
            Ok(None) => kept.push(d),
            Err(_) => skipped.push((
                d.first().map_or(0, |e| e.line),
                value_of(&d, ON_PROFILE).unwrap_or_default(),
            )),
        }
    }
    (kept, skipped)
}

/// The environment's values for the placeholders of `docs`, read in
/// turn: a value that holds placeholders of its own has those looked up
/// too (`EA='${EB}'` with `EB=5` resolves as Spring's resolver does, which
/// resolves a value's placeholders wherever the value came from). Each
/// name is looked up once, so the work is linear in the values found;
/// `lookup` is the environment (the command line's `std::env::var`, a
/// test's map).
///
/// ```
/// use toolcall_check::config::{environment, parse_properties};
/// let docs = parse_properties(b"a=${EA}\n").unwrap();
/// let env = |n: &str| match n {
///     "EA" => Some("${EB}".to_owned()),
///     "EB" => Some("5".to_owned()),
///     _ => None,
/// };
/// assert_eq!(
///     environment(&docs, env),
///     [("EA".to_owned(), "${EB}".to_owned()), ("EB".to_owned(), "5".to_owned())]
/// );
/// ```
pub fn environment(
    docs: &[Vec<Entry>],
    lookup: impl Fn(&str) -> Option<String>,
) -> Vec<(String, String)> {
    let mut names = placeholder_names(docs);
    let mut seen: std::collections::HashSet<String> = names.iter().cloned().collect();
    let mut found = Vec::new();
    let mut next = 0;
    while let Some(name) = names.get(next).cloned() {
        next += 1;
        let Some(value) = lookup(&name) else {
            continue;
        };
        for inner in placeholder_names(&[source(&[(name.clone(), value.clone())])]) {
            if seen.insert(inner.clone()) {
                names.push(inner);
            }
        }
        found.push((name, value));
    }
    found
}

/// The names the values of `docs` use in `${NAME}` or `${NAME:default}`
/// placeholders (nested ones included), each once, in order.
pub(crate) fn placeholder_names(docs: &[Vec<Entry>]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    // A file of up to the size limit can name a placeholder on every line:
    // the names seen are a set, so that the list costs linear time.
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    for e in docs.iter().flatten() {
        let JavaValue::String(v) = &e.value else {
            continue;
        };
        for r in placeholder_refs(v) {
            let name = r.name.trim();
            if !name.is_empty() && !seen.contains(name) {
                seen.insert(name.to_owned());
                out.push(name.to_owned());
            }
        }
    }
    out
}

/// A property source that is not a file (`--set`, the environment): one
/// document whose entries have no line.
pub(crate) fn source(pairs: &[(String, String)]) -> Vec<Entry> {
    pairs
        .iter()
        .map(|(k, v)| Entry {
            key: k.clone(),
            value: JavaValue::String(v.clone()),
            line: 0,
            column: 0,
        })
        .collect()
}

/// The Spring AI version the model reproduces.
pub(crate) const MODELLED_SPRING_AI: &str = "2.0.1";

/// The Spring AI version a `pom.xml` or `build.gradle(.kts)` declares: the
/// `spring-ai.version` property (Maven) or `springAiVersion` (Gradle), else
/// the version of the first `org.springframework.ai` artifact (`spring-ai-bom`
/// or a starter). Maven `${property}` references are resolved from the
/// file's own `<property>` tags, references inside them too, as Maven
/// interpolates (at most [`MAX_BUILD_INTERPOLATION`] levels); a reference
/// the file does not set, or one that refers back to itself, stays in the
/// value as `${...}`. `None` when the file names none.
pub(crate) fn spring_ai_version(text: &str) -> Option<String> {
    let text = &what_the_build_reads(text);
    let tag = |name: &str| {
        let open = format!("<{name}>");
        let i = text.find(&open)? + open.len();
        let j = text[i..].find('<')? + i;
        Some(text[i..j].trim().to_owned())
    };
    let declared = declared_spring_ai_version(text, &tag)?;
    Some(interpolate(declared, &tag))
}

/// A build file as the build reads it: without its comments (a
/// commented-out `<spring-ai.version>` once won over the real one), and
/// without the Maven profiles that are not active by default (a version
/// in `<profile><id>legacy</id>...` is not the build's unless `-P` asks).
pub(crate) fn what_the_build_reads(text: &str) -> String {
    let text = without_comments(text);
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(i) = rest.find("<profile>") {
        let Some(len) = rest[i..].find("</profile>") else {
            break;
        };
        let end = i + len + "</profile>".len();
        let profile = &rest[i..end];
        out.push_str(&rest[..i]);
        let active = profile
            .split("<activeByDefault>")
            .nth(1)
            .is_some_and(|v| v.trim_start().starts_with("true"));
        if active {
            out.push_str(profile);
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Levels of `${property}` a build file's version is resolved through:
/// real builds use one or two; a file that nests deeper, or refers in a
/// circle, keeps its reference.
pub(crate) const MAX_BUILD_INTERPOLATION: usize = 16;

/// Longest version text resolved: a pass stops replacing once its result
/// passes it (a reference that doubles at each level, or many references to
/// a long tag), keeping the references it has not reached.
const MAX_VERSION_TEXT: usize = 256;

/// Replaces each `${name}` in `value` with the file's `<name>` tag, level
/// by level; references the file does not set stay as written.
fn interpolate(mut value: String, tag: &dyn Fn(&str) -> Option<String>) -> String {
    for _ in 0..MAX_BUILD_INTERPOLATION {
        if value.len() > MAX_VERSION_TEXT {
            break;
        }
        let mut out = String::with_capacity(value.len());
        let mut rest = value.as_str();
        let mut replaced = false;
        while let Some(i) = rest.find("${") {
            let Some(j) = rest[i..].find('}') else {
                break;
            };
            let name = &rest[i + 2..i + j];
            out.push_str(&rest[..i]);
            let found = if name.is_empty() || out.len() > MAX_VERSION_TEXT {
                None
            } else {
                tag(name)
            };
            match found {
                Some(v) if v != rest[i..=i + j] => {
                    out.push_str(&v);
                    replaced = true;
                }
                _ => out.push_str(&rest[i..=i + j]),
            }
            rest = &rest[i + j + 1..];
        }
        out.push_str(rest);
        if !replaced {
            break;
        }
        value = out;
    }
    value
}

/// `text` without its comments: `<!-- -->` in XML (a `pom.xml`), else
/// `//` to the end of the line and `/* */` outside string literals
/// (Groovy and Kotlin).
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    if text.trim_start().starts_with('<') {
        let mut rest = text;
        while let Some(i) = rest.find("<!--") {
            out.push_str(&rest[..i]);
            rest = rest[i + 4..]
                .find("-->")
                .map_or("", |j| &rest[i + 4 + j + 3..]);
        }
        out.push_str(rest);
        return out;
    }
    let mut chars = text.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) => {
                out.push(c);
                if c == '\\' {
                    out.extend(chars.next());
                } else if c == q || c == '\n' {
                    quote = None;
                }
            }
            (None, '"' | '\'') => {
                quote = Some(c);
                out.push(c);
            }
            (None, '/') if chars.peek() == Some(&'/') => {
                while chars.peek().is_some_and(|c| *c != '\n') {
                    chars.next();
                }
            }
            (None, '/') if chars.peek() == Some(&'*') => {
                chars.next();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    // Lines kept, so that nothing joins across the comment.
                    if c == '\n' {
                        out.push('\n');
                    }
                    last = c;
                }
            }
            (None, c) => out.push(c),
        }
    }
    out
}

/// The value a Gradle build (Groovy or Kotlin) gives `name` where it
/// defines it, not where it uses it (`${springAiVersion}`): `name =
/// "X"`, `ext.name = 'X'`, `set("name", "X")`, `name: 'X'`, Kotlin's `val
/// name by extra("X")` and `extra["name"] = "X"`. A definition whose
/// value is not a string literal (`findProperty(...)`, a version catalog)
/// gives its text as written, which is no version: the caller says it
/// cannot be read.
fn gradle_definition(text: &str, name: &str) -> Option<String> {
    let mut from = 0;
    while let Some(i) = text[from..].find(name).map(|i| from + i) {
        from = i + name.len();
        let before = text[..i].chars().next_back();
        // A use (`${name}`, `$name`) or a longer name (`mySpringAiVersion`).
        if before.is_some_and(|c| c == '{' || c == '$' || c.is_alphanumeric() || c == '_')
            || text[from..]
                .chars()
                .next()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            continue;
        }
        let rest = text[from..].trim_start_matches(['"', '\'', ']', ' ', '\t']);
        let value = if let Some(r) = rest.strip_prefix("by") {
            r.trim_start()
                .strip_prefix("extra")?
                .trim_start()
                .strip_prefix('(')
        } else if let Some(r) = rest.strip_prefix('=').filter(|r| !r.starts_with('=')) {
            Some(r)
        } else {
            rest.strip_prefix(',').or_else(|| rest.strip_prefix(':'))
        };
        let Some(value) = value.map(str::trim_start) else {
            continue;
        };
        let literal = value
            .strip_prefix(['"', '\''])
            .and_then(|v| v.find(['"', '\'']).map(|end| v[..end].trim().to_owned()));
        return Some(literal.unwrap_or_else(|| {
            let end = value.find(['\n', ')']).map_or(value.len(), |e| e + 1);
            value[..end].trim().to_owned()
        }));
    }
    None
}

/// The version text a build file declares for Spring AI, references
/// unresolved.
fn declared_spring_ai_version(text: &str, tag: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    if let Some(v) = tag("spring-ai.version") {
        return Some(v);
    }
    if let Some(v) = gradle_definition(text, "springAiVersion") {
        return Some(v);
    }
    // Maven: the <version> of the first dependency of the group that has
    // one (a starter the BOM manages has none).
    let group = "<groupId>org.springframework.ai</groupId>";
    if text.contains(group) {
        return text.match_indices(group).find_map(|(i, _)| {
            let block_end = text[i..]
                .find("</dependency>")
                .map_or(text.len(), |j| i + j);
            let block = &text[i..block_end];
            block.find("<version>").and_then(|a| {
                let a = a + "<version>".len();
                block[a..]
                    .find('<')
                    .map(|b| block[a..a + b].trim().to_owned())
            })
        });
    }
    // Gradle: the first "org.springframework.ai:ARTIFACT:VERSION" with a
    // version (a starter the platform manages has none).
    text.match_indices("org.springframework.ai:")
        .find_map(|(i, p)| {
            let rest = &text[i + p.len()..];
            let end = rest.find(['"', '\'', ')', '\n']).unwrap_or(rest.len());
            let (_, v) = rest[..end].split_once(':')?;
            Some(v.trim().to_owned())
        })
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.

    #[test]
    fn example_relaxed_names() {
        use crate::config::binding::{map_key_under, property_under, same_property};
        assert!(same_property(
            "spring.config.activate.onProfile",
            "spring.config.activate.on-profile"
        ));
        assert!(same_property(
            "a.max-calls-per-tool[x]",
            "a.maxCallsPerTool.x"
        ));
        // An index is kept as written; only ASCII letters and digits count.
        assert!(!same_property("a[X]", "a.x"));
        assert!(same_property(
            "spring.profiles.actÄive",
            "spring.profiles.active"
        ));
        // A prefix ends at an element boundary.
        assert!(property_under(
            "spring.ai.tools.Limits[x]",
            "spring.ai.tools.limits"
        ));
        assert!(!property_under(
            "spring.ai.tools.limitsx",
            "spring.ai.tools.limits"
        ));
        assert_eq!(
            map_key_under("spring.profiles.group[Prod]", "spring.profiles.group").as_deref(),
            Some("Prod")
        );
        assert_eq!(
            map_key_under("spring.profiles.group.a.b", "spring.profiles.group"),
            None
        );
    }

    #[test]
    fn example_source() {
        use super::source;
        let d = source(&[("TOOL_POLICY".into(), "THROW".into())]);
        assert_eq!((d[0].key.as_str(), d[0].line), ("TOOL_POLICY", 0));
    }

    #[test]
    fn example_profile_matcher() {
        use super::ProfileMatcher;
        use crate::config::parse_properties;
        let active = ["dev".to_owned()];
        let m = ProfileMatcher::new(&active);
        assert!(m.matches("dev | cloud"));
        let docs =
            parse_properties(b"a=1\n#---\nspring.config.activate.on-profile=prod\nb=2\n").unwrap();
        assert_eq!(m.leaves_out(&docs[0]), Ok(None));
        assert_eq!(m.leaves_out(&docs[1]), Ok(Some((3, "prod".to_owned()))));
        let deep = format!("{}dev{}", "(".repeat(500), ")".repeat(500));
        assert!(!m.matches(&deep));
    }

    #[test]
    fn example_leaves_out() {
        use super::ProfileMatcher;
        use crate::config::parse_properties;
        let active = ["c".to_owned()];
        let docs =
            parse_properties(b"a=1\n#---\nspring.config.activate.on-profile=a & b | c\nb=2\n")
                .unwrap();
        let e = ProfileMatcher::new(&active)
            .leaves_out(&docs[1])
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "java.lang.IllegalArgumentException: Malformed profile expression [a & b | c] (line 3)"
        );
        assert!(!e.not_modelled);
    }

    #[test]
    fn example_invalid_in_profile_file() {
        use super::invalid_in_profile_file;
        use crate::config::parse_properties;
        let docs =
            parse_properties(b"spring.profiles.default=a\nspring.profiles.include[0]=b\n").unwrap();
        let (name, entry) = invalid_in_profile_file(&docs).unwrap();
        assert_eq!(
            (name.as_str(), entry.line),
            ("spring.profiles.include[0]", 2)
        );
        assert!(
            invalid_in_profile_file(&parse_properties(b"spring.profiles.group.x=a\n").unwrap())
                .is_none()
        );
    }

    #[test]
    fn example_active_profiles() {
        use super::active_profiles;
        use crate::config::parse_properties;
        let docs = parse_properties(b"spring.profiles.active=dev,cloud\n").unwrap();
        assert_eq!(active_profiles(&docs, None).unwrap(), ["dev", "cloud"]);
        assert_eq!(
            active_profiles(&docs, Some(&["prod".to_owned()])).unwrap(),
            ["prod"]
        );
        assert_eq!(active_profiles(&[], None).unwrap(), ["default"]);
        // A document for another profile still names the active ones.
        let gated = parse_properties(
            b"spring.profiles.active=prod\n#---\nspring.config.activate.on-profile=test\nspring.profiles.active=dev\n",
        )
        .unwrap();
        assert_eq!(active_profiles(&gated, None).unwrap(), ["dev"]);
        let more = parse_properties(
            b"spring.profiles.include=base\nspring.profiles.active=\nspring.profiles.group.base=a,b\n",
        )
        .unwrap();
        assert_eq!(active_profiles(&more, None).unwrap(), ["base", "a", "b"]);
        let bad = parse_properties(b"spring.profiles.active=dev,,prod\n").unwrap();
        assert!(
            active_profiles(&bad, None)
                .unwrap_err()
                .to_string()
                .contains("Invalid empty profile")
        );
        let placeholder = parse_properties(b"spring.profiles.active=${PROFILE:local}\n").unwrap();
        assert_eq!(active_profiles(&placeholder, None).unwrap(), ["local"]);
    }

    #[test]
    fn example_placeholder_names() {
        use super::placeholder_names;
        use crate::config::parse_properties;
        let docs = parse_properties(b"a=${TOOL_POLICY}\nb=${LIMIT:3}-${X:${Y}}\n").unwrap();
        assert_eq!(placeholder_names(&docs), ["TOOL_POLICY", "LIMIT", "X", "Y"]);
    }

    #[test]
    fn example_spring_ai_version() {
        use super::spring_ai_version;
        let pom = "<properties><spring-ai.version>1.1.2</spring-ai.version></properties>";
        assert_eq!(spring_ai_version(pom).as_deref(), Some("1.1.2"));
        let pom = "<dependency><groupId>org.springframework.ai</groupId><artifactId>spring-ai-bom</artifactId><version>${ai}</version></dependency><ai>2.0.1</ai>";
        assert_eq!(spring_ai_version(pom).as_deref(), Some("2.0.1"));
        let gradle = r#"implementation platform("org.springframework.ai:spring-ai-bom:2.0.0")"#;
        assert_eq!(spring_ai_version(gradle).as_deref(), Some("2.0.0"));
        assert_eq!(
            spring_ai_version("set('springAiVersion', \"2.0.1\")").as_deref(),
            Some("2.0.1")
        );
        let pom =
            "<spring-ai.version>${ai}</spring-ai.version><ai>${major}.0.0</ai><major>2</major>";
        assert_eq!(spring_ai_version(pom).as_deref(), Some("2.0.0"));
        let starter_first = "<dependency><groupId>org.springframework.ai</groupId><artifactId>spring-ai-starter-model-google-genai</artifactId></dependency><dependency><groupId>org.springframework.ai</groupId><artifactId>spring-ai-bom</artifactId><version>1.1.6</version></dependency>";
        assert_eq!(spring_ai_version(starter_first).as_deref(), Some("1.1.6"));
        let gradle = "implementation 'org.springframework.ai:spring-ai-starter-model-google-genai'\nimplementation platform('org.springframework.ai:spring-ai-bom:1.1.2')";
        assert_eq!(spring_ai_version(gradle).as_deref(), Some("1.1.2"));
        let pom = "<spring-ai.version>${spring-ai.version}</spring-ai.version>";
        assert_eq!(
            spring_ai_version(pom).as_deref(),
            Some("${spring-ai.version}")
        );
    }
}
