//! `check`'s side of the file system and the process: the files given
//! and standard input read within their limit, the profile files beside
//! them, the environment and the build file, as the library's sources.

use std::path::{Path, PathBuf};

use crate::config::{Format, MAX_CONFIG_BYTES, ProfileFiles, Sources, Text};

use super::Flags;

/// Reads the input: a file of at most [`MAX_CONFIG_BYTES`] (one byte more is
/// read to tell), or standard input for `-`.
pub(super) fn read_input(file: &Path) -> std::io::Result<(Vec<u8>, Option<u64>)> {
    if file == Path::new("-") {
        return Ok((
            super::super::read_at_most(std::io::stdin().lock(), MAX_CONFIG_BYTES)?,
            None,
        ));
    }
    let b = super::super::read_at_most(std::fs::File::open(file)?, MAX_CONFIG_BYTES)?;
    // A device or a pipe has no size (/dev/zero says 0): at least what was read.
    let read = b.len() as u64;
    Ok((b, std::fs::metadata(file).ok().map(|m| m.len().max(read))))
}

/// The file's name as printed: `<stdin>` for `-`.
pub(super) fn shown(file: &Path) -> String {
    if file == Path::new("-") {
        "<stdin>".to_owned()
    } else {
        file.display().to_string()
    }
}

/// What Spring Boot reads, from the file system and the process: the
/// files given, the profile files beside them (read once the library knows
/// the active profiles), the environment, `--set` and the build file.
pub(super) fn sources<'a>(
    files: &'a [PathBuf],
    kinds: &[Format],
    f: &Flags,
    set: Vec<(String, String)>,
) -> Sources<'a> {
    let given = files
        .iter()
        .zip(kinds)
        .map(|(file, k)| read_text(file, shown(file), *k))
        .collect();
    let beside = move |active: &[String]| {
        let (found, same) = profile_files(files, active);
        let files = found
            .into_iter()
            .map(|(path, k)| {
                let at = std::path::absolute(&path).unwrap_or_else(|_| path.clone());
                // A profile file that is a FIFO or a device is named, not
                // read (a FIFO with no writer would block; /dev/zero never
                // ends) and not skipped: it stops the check.
                let text = if std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
                    read_text(&path, path.display().to_string(), k)
                } else {
                    Text {
                        name: path.display().to_string(),
                        format: k,
                        read: Err(
                            "not a regular file (a FIFO or a device): a profile file is read from a file"
                                .to_owned(),
                        ),
                    }
                };
                (text, at.display().to_string())
            })
            .collect();
        ProfileFiles { files, same }
    };
    // A variable that is not Unicode is one Java's System.getenv cannot
    // give either: left out, as if unset.
    let environment = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect();
    let build = f.build.as_ref().map(|b| {
        let read = read_input(b).map_err(|e| format!("cannot read: {e}"));
        (b.display().to_string(), read)
    });
    Sources {
        files: given,
        beside: Box::new(beside),
        environment,
        set,
        build,
    }
}

/// One file (or standard input) as read, under the name printed for it.
fn read_text(file: &Path, name: String, format: Format) -> Text {
    let read = if file != Path::new("-") && file.is_dir() {
        Err(
            "a directory, not a file: give its application.properties or application.yml"
                .to_owned(),
        )
    } else {
        read_input(file).map_err(|e| format!("cannot read: {e}"))
    };
    Text { name, format, read }
}

/// The profile files beside the files given, for the active profiles, in
/// Spring's order (later ones win): per file given, per profile,
/// `NAME-PROFILE.yml`, `.yaml`, then `.properties`, those that exist;
/// each file once, where it stands last (the same file under two names, a
/// symbolic link, binds the same read once at the later place), and none
/// that is a file given. With how many were left out as the same file.
// Each folder is listed once and the names looked up in the listing: a
// check of the file system per profile and extension, each walking the
// whole path, took 8.6 s for 700,000 profiles.
fn profile_files(files: &[PathBuf], active: &[String]) -> (Vec<(PathBuf, Format)>, usize) {
    use std::collections::{HashMap, HashSet};
    let named = || files.iter().filter(|p| *p != Path::new("-"));
    let given: HashSet<FileId> = named().filter_map(|f| file_id(f)).collect();
    #[allow(clippy::type_complexity)]
    let mut listings: HashMap<(&Path, &str), Option<HashSet<std::ffi::OsString>>> = HashMap::new();
    let mut found: Vec<(PathBuf, Format, FileId)> = Vec::new();
    for file in named() {
        let (Some(dir), Some(stem)) = (file.parent(), file.file_stem().and_then(|s| s.to_str()))
        else {
            continue;
        };
        // `None`: a folder that cannot be listed; each name is then asked for.
        let listing = listings.entry((dir, stem)).or_insert_with(|| {
            let at = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            let prefix = format!("{stem}-");
            std::fs::read_dir(at).ok().map(|entries| {
                entries
                    .flatten()
                    .map(|e| e.file_name())
                    .filter(|n| n.to_str().is_some_and(|n| n.starts_with(&prefix)))
                    .collect()
            })
        });
        for p in active {
            for (ext, kind) in [
                ("yml", Format::Yaml),
                ("yaml", Format::Yaml),
                ("properties", Format::Properties),
            ] {
                let name = format!("{stem}-{p}.{ext}");
                if listing
                    .as_ref()
                    .is_some_and(|l| !l.contains(std::ffi::OsStr::new(&name)))
                {
                    continue;
                }
                let path = dir.join(&name);
                let exists = std::fs::metadata(&path).is_ok_and(|m| !m.is_dir());
                if let Some(id) = exists.then(|| file_id(&path)).flatten() {
                    found.push((path, kind, id));
                }
            }
        }
    }
    // Each file at its last place.
    let mut seen: HashSet<FileId> = given;
    let mut kept: Vec<(PathBuf, Format)> = Vec::new();
    let mut same = 0;
    for (path, kind, id) in found.into_iter().rev() {
        if seen.insert(id) {
            kept.push((path, kind));
        } else {
            same += 1;
        }
    }
    kept.reverse();
    (kept, same)
}

/// What makes two names one file: its device and inode where the system
/// has them, else its canonical path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum FileId {
    #[cfg(unix)]
    Inode(u64, u64),
    #[cfg_attr(unix, allow(dead_code))]
    Path(PathBuf),
}

pub(crate) fn file_id(path: &Path) -> Option<FileId> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        std::fs::metadata(path)
            .ok()
            .map(|m| FileId::Inode(m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        std::fs::canonicalize(path).ok().map(FileId::Path)
    }
}

/// Every file this run may read, for `--sarif` to refuse: the files
/// given, `--build`, `--accept`, and every `NAME-*` file beside a file
/// given (a profile file, whichever profiles turn out active).
pub(super) fn inputs(files: &[PathBuf], f: &Flags) -> Vec<PathBuf> {
    let mut all: Vec<PathBuf> = files
        .iter()
        .filter(|p| *p != Path::new("-"))
        .cloned()
        .collect();
    all.extend(f.build.iter().cloned());
    all.extend(f.accept.iter().cloned());
    for file in files.iter().filter(|p| *p != Path::new("-")) {
        let (Some(dir), Some(stem)) = (file.parent(), file.file_stem().and_then(|s| s.to_str()))
        else {
            continue;
        };
        let at = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        let prefix = format!("{stem}-");
        if let Ok(entries) = std::fs::read_dir(at) {
            all.extend(
                entries
                    .flatten()
                    .filter(|e| {
                        e.file_name()
                            .to_str()
                            .is_some_and(|n| n.starts_with(&prefix))
                    })
                    .map(|e| dir.join(e.file_name())),
            );
        }
    }
    all
}

/// The profiles a profile file beside `files` names
/// (`application-prod.yml` beside `application.yml`: `prod`), sorted,
/// each once: the profiles open active profiles are answered for.
pub(super) fn profile_names(files: &[String]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for f in files {
        let path = Path::new(f);
        let (Some(stem), Some(dir)) = (path.file_stem().and_then(|s| s.to_str()), path.parent())
        else {
            continue;
        };
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name();
            let Some(name) = name.to_str() else { continue };
            let profile = [".properties", ".yml", ".yaml"]
                .iter()
                .find_map(|ext| name.strip_suffix(ext))
                .and_then(|n| n.strip_prefix(&format!("{stem}-")));
            if let Some(p) = profile.filter(|p| !p.is_empty() && !names.iter().any(|n| n == p)) {
                names.push(p.to_owned());
            }
        }
    }
    names.sort();
    names
}
