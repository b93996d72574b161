//! The sources of `check`'s answer as Spring Boot reads them: the texts
//! parsed (within the byte budget), the active profiles and the profile
//! files beside the files given, the documents the profiles leave out,
//! the keys the Spring AI version answered for does not have, and the
//! build file's version.

use super::stop::{Stop, refusal};
use crate::config::binding::{
    Entry, MAX_CONFIG_BYTES, MAX_CONFIG_TOTAL_BYTES, parse_properties, property_under, too_large,
};
use crate::config::profiles::{
    ProfileMatcher, ProfileRefusal, active_profiles, environment, invalid_in_profile_file, source,
    spring_ai_version,
};
use toolcall_model::model::SpringAi;
use toolcall_model::model::cut;

/// How a configuration text is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `application.properties`.
    Properties,
    /// `application.yml`.
    Yaml,
}

/// A file's contents as read: its bytes (at most one past the size limit)
/// and the size the file system gives, or why it could not be read.
pub(crate) type Contents = Result<(Vec<u8>, Option<u64>), String>;

/// One configuration file as read: its name as the answer prints it, how
/// it is written, and its bytes (at most one past
/// [`MAX_CONFIG_BYTES`](crate::config::MAX_CONFIG_BYTES), to tell a file
/// too large) with the size the file system gives, or why it could not be
/// read.
#[derive(Debug, Clone)]
pub struct Text {
    /// The name printed for it.
    pub name: String,
    /// Properties or YAML.
    pub format: Format,
    /// The bytes and the size, or why the file was not read.
    pub read: Contents,
}

impl Text {
    /// A text held in memory.
    ///
    /// ```
    /// use toolcall_check::config::{Format, Text};
    /// let t = Text::new("application.properties", Format::Properties, "a=1\n");
    /// assert_eq!(t.read.unwrap().0, b"a=1\n");
    /// ```
    pub fn new(name: &str, format: Format, text: &str) -> Text {
        Text {
            name: name.to_owned(),
            format,
            read: Ok((text.as_bytes().to_vec(), None)),
        }
    }
}

/// The profile files found beside the files given for the active
/// profiles, in Spring's order, each with the absolute location Spring's
/// messages name, and how many were left out as the same file as another.
#[derive(Debug, Clone, Default)]
pub struct ProfileFiles {
    /// The files, each with its location.
    pub files: Vec<(Text, String)>,
    /// How many were the same file as one read after them.
    pub same: usize,
}

/// The build file's Spring AI version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildVersion {
    /// The build file's name.
    pub file: String,
    /// The version it declares, as written.
    pub found: Option<String>,
    /// The version answered for.
    pub version: SpringAi,
    /// How the version found matches the version answered for (`None`:
    /// none found, or one of no line the model describes, answered for
    /// 2.0.1).
    pub matched: Option<super::Match>,
    /// Whether it declares the fix library that runs on the version (its
    /// starter): the library's rule then decides the switches the files
    /// leave unset.
    pub starter: bool,
    /// The starter it declares that does not run on the version (Spring
    /// Boot 4's on 1.1, Spring Boot 3's on 2.0.x), by its coordinates.
    pub wrong_starter: Option<&'static str>,
}

/// Documents, each with the file it comes from.
pub(super) type Documents = Vec<(String, Vec<Entry>)>;

/// What [`read_sources`] read.
pub(super) struct Read {
    /// The documents, each with the file it comes from.
    pub(super) sources: Documents,
    /// The active profiles.
    pub(super) active: Vec<String>,
    /// Every file read, in Spring's order, each once: an empty one too,
    /// which has no document.
    pub(super) files: Vec<String>,
    /// A note for each file without a property: Spring Boot binds nothing
    /// from it.
    pub(super) notes: Vec<String>,
    /// The placeholders that leave `spring.profiles.active` open (none
    /// when `--profile` gives the profiles).
    pub(super) open_profiles: Vec<String>,
}

/// The bytes read so far against [`MAX_CONFIG_TOTAL_BYTES`].
#[derive(Default)]
struct Budget {
    used: usize,
    files: usize,
}

/// The documents of the files, with the file each comes from, and the
/// active profiles.
// Spring's order: the files as given (a later one wins), then the profile
// files beside each, in the order the profiles are active, each
// `.properties` over its `.yml`: a profile's value wins over every file
// without one.
pub(super) fn read_sources(
    files: Vec<Text>,
    beside: &mut dyn FnMut(&[String]) -> ProfileFiles,
    given: Option<&[String]>,
    lookup: &dyn Fn(&str) -> Option<String>,
    sets_given: &[(String, String)],
) -> Result<Read, Stop> {
    let mut sources: Documents = Vec::new();
    let (mut read, mut notes) = (Vec::new(), Vec::new());
    let mut add = |shown: String, docs: Vec<Vec<Entry>>, sources: &mut Documents| {
        if docs.iter().all(Vec::is_empty) {
            notes.push(format!(
                "note: {shown}: no property in it (an empty file): Spring Boot binds nothing from it"
            ));
        }
        sources.extend(docs.into_iter().map(|d| (shown.clone(), d)));
        read.push(shown);
    };
    let mut budget = Budget::default();
    for file in files {
        let d = load(&file, &mut budget)?;
        add(file.name, d, &mut sources);
    }
    // The profile values' placeholders resolve against the files, then the
    // environment and the command line, as Spring's sources stand.
    let mut main: Vec<Vec<Entry>> = sources.iter().map(|(_, d)| d.clone()).collect();
    let env = environment(&main, lookup);
    main.push(source(&env));
    main.push(source(sets_given));
    let set_lookup = |n: &str| {
        sets_given
            .iter()
            .rev()
            .find(|(k, _)| k == n)
            .map(|(_, v)| v.clone())
            .or_else(|| lookup(n))
    };
    let open_profiles = if given.is_some() {
        Vec::new()
    } else {
        crate::config::profiles::open_profile_placeholders(&main, &set_lookup)
    };
    let active = active_profiles(&main, given).map_err(|r| match r {
        ProfileRefusal::Bind(b) => refusal(&sources, b, Vec::new(), false),
        ProfileRefusal::Load(message) => Stop::CannotLoad {
            file: sources.first().map_or("", |(o, _)| o.as_str()).to_owned(),
            message,
        },
    })?;
    let found = beside(&active);
    for (file, location) in found.files {
        let d = load(&file, &mut budget)?;
        if let Some((property, e)) = invalid_in_profile_file(&d) {
            let message = format!(
                "org.springframework.boot.context.config.InvalidConfigDataPropertyException: Property '{property}' imported from location 'file [{location}]' is invalid in a profile specific resource (line {})",
                e.line
            );
            return Err(Stop::CannotLoad {
                file: file.name,
                message,
            });
        }
        add(file.name, d, &mut sources);
    }
    if found.same > 0 {
        notes.push(format!(
            "note: {} profile file(s) are the same file as one read after them (a link, or a file given): each file is read once, where it stands last",
            found.same
        ));
    }
    Ok(Read {
        sources,
        active,
        files: read,
        notes,
        open_profiles,
    })
}

/// Parses one configuration text, within the budget.
fn load(file: &Text, budget: &mut Budget) -> Result<Vec<Vec<Entry>>, Stop> {
    let name = &file.name;
    let unread = |why: String| Stop::NotRead {
        file: name.clone(),
        why,
    };
    let (bytes, size) = file.read.as_ref().map_err(|why| unread(why.clone()))?;
    if bytes.len() > MAX_CONFIG_BYTES {
        let size = usize::try_from(size.unwrap_or(bytes.len() as u64)).unwrap_or(usize::MAX);
        return Err(Stop::TooLarge {
            file: name.clone(),
            message: too_large(size).message,
        });
    }
    // A NUL byte is in no configuration file a person wrote: a binary
    // file given by mistake gets no verdict ("every default").
    if let Some(at) = bytes.iter().position(|b| *b == 0) {
        return Err(unread(format!(
            "a binary file, not a configuration text (a NUL byte at byte {at})"
        )));
    }
    budget.used += bytes.len();
    budget.files += 1;
    if budget.used > MAX_CONFIG_TOTAL_BYTES {
        return Err(unread(format!(
            "the files read come to more than {MAX_CONFIG_TOTAL_BYTES} bytes with this one ({} files, {} bytes): not read (check reads at most {MAX_CONFIG_TOTAL_BYTES} bytes of configuration in all: the files given and their profile files)",
            budget.files, budget.used
        )));
    }
    read_documents(name, bytes, file.format)
}

/// The documents of a properties or YAML text, or why Spring cannot load
/// it or this reader does not model it.
fn read_documents(name: &str, bytes: &[u8], format: Format) -> Result<Vec<Vec<Entry>>, Stop> {
    let file = name.to_owned();
    if format == Format::Properties {
        return parse_properties(bytes).map_err(|e| {
            if e.not_modelled {
                Stop::NotChecked {
                    file,
                    why: e.to_string(),
                }
            } else {
                Stop::CannotLoad {
                    file,
                    message: e.to_string(),
                }
            }
        });
    }
    // SnakeYAML reads UTF-8 (a BOM picks UTF-16 or UTF-32).
    let text = std::str::from_utf8(bytes).map_err(|e| Stop::NotUtf8 {
        file: name.to_owned(),
        byte: e.valid_up_to(),
    })?;
    crate::config::yaml::read_yaml(text.strip_prefix('\u{feff}').unwrap_or(text)).map_err(|e| {
        match e.strip_prefix(crate::config::yaml::NOT_MODELLED) {
            Some(why) => Stop::NotChecked {
                file,
                why: why.to_owned(),
            },
            None => Stop::CannotLoad { file, message: e },
        }
    })
}

/// The documents the active profiles apply, and a note for each left out.
pub(super) fn apply_profiles(
    sources: Documents,
    active: &[String],
) -> Result<(Documents, Vec<String>), Stop> {
    let mut notes = Vec::new();
    let mut applied_sources = Vec::new();
    let matcher = ProfileMatcher::new(active);
    // Named once, at most a few: a file can list thousands of profiles.
    let shown_active = {
        let mut s = active
            .iter()
            .take(8)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        if active.len() > 8 {
            s.push_str(&format!(" and {} more", active.len() - 8));
        }
        s
    };
    for (origin, doc) in sources {
        match matcher.leaves_out(&doc) {
            Ok(Some((line, expr))) => notes.push(format!(
                "note: {origin}:{line}: a document for profile '{}' is not applied (active: {shown_active})",
                clip_lines(&expr, 300, 200)
            )),
            Ok(None) => applied_sources.push((origin.clone(), doc)),
            Err(e) if e.not_modelled => {
                return Err(Stop::NotChecked {
                    file: origin,
                    why: e.to_string(),
                });
            }
            Err(e) => {
                return Err(Stop::CannotLoad {
                    file: origin,
                    message: e.to_string(),
                });
            }
        }
    }
    Ok((applied_sources, notes))
}

/// Spring AI 2.0.0's ToolCallingProperties has neither the limits nor the
/// resolution fallback: Spring Boot ignores those keys (a note for each).
pub(super) fn drop_keys_since_2_0_1(
    sources: &mut [(String, Vec<Entry>)],
    version: &str,
    notes: &mut Vec<String>,
) {
    for (origin, doc) in sources {
        doc.retain(|e| {
            let gone = since_2_0_1(&e.key);
            if gone {
                notes.push(format!(
                    "note: {origin}:{}: Spring AI {version} has no '{}' (no tool call limits, no resolution fallback): Spring Boot ignores it",
                    e.line, e.key
                ));
            }
            !gone
        });
    }
}

/// Whether a property is one Spring AI 2.0.1 added to `spring.ai.tools`
/// (the limits, the resolution fallback), in any relaxed spelling.
fn since_2_0_1(key: &str) -> bool {
    ["spring.ai.tools.limits", "spring.ai.tools.resolution"]
        .iter()
        .any(|p| property_under(key, p))
}

/// The Spring AI version a build file declares, and the version answered
/// for: the build's when `check` describes it (2.0.0 or 2.0.1), the 1.1
/// line (as 1.1.2) for a 1.1 version, else 2.0.1; and the fix library's
/// starter it declares.
pub(super) fn build_version(name: String, read: &Contents) -> Result<BuildVersion, Stop> {
    // A build file is read under the configuration files' limit: a real
    // pom.xml is a few kilobytes.
    let (bytes, size) = match read {
        Ok(r) => r,
        Err(why) => {
            return Err(Stop::Build {
                file: name,
                why: why.clone(),
            });
        }
    };
    if bytes.len() > MAX_CONFIG_BYTES {
        let size = usize::try_from(size.unwrap_or(bytes.len() as u64)).unwrap_or(usize::MAX);
        return Err(Stop::Build {
            file: name,
            why: too_large(size).message,
        });
    }
    let text = String::from_utf8_lossy(bytes);
    let found = spring_ai_version(&text);
    let answered = found.as_deref().and_then(super::answered_for);
    let version = answered.map(|(v, _)| v).unwrap_or_default();
    let (boot4, boot3) = super::spring_ai::declared_starters(&text);
    let (starter, wrong) = if version.loop_in_chat_model() {
        (boot3, boot4.then_some(super::spring_ai::FIX_LIBRARY))
    } else {
        (boot4, boot3.then_some(super::spring_ai::FIX_LIBRARY_BOOT3))
    };
    Ok(BuildVersion {
        file: name,
        found,
        version,
        matched: answered.map(|(_, m)| m),
        starter,
        wrong_starter: wrong,
    })
}

/// `s` for a person: every line past `max` characters cut to its first
/// `keep` and its length (a value can be megabytes long).
pub(crate) fn clip_lines(s: &str, max: usize, keep: usize) -> String {
    s.split('\n')
        .map(|line| match cut(line, max, keep) {
            Some((head, n)) => format!("{head}... ({n} characters)"),
            None => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.

    #[test]
    fn example_clip_lines() {
        use crate::config::clip_lines;
        assert_eq!(
            clip_lines("short\nabcdefgh", 6, 2),
            "short\nab... (8 characters)"
        );
    }
}
