//! Every file the command writes (`check --sarif`, `explore --out`,
//! `merge --out`, `gen --out`) goes through [`write`]: it replaces only a
//! regular file that is none of the run's inputs, and never through a
//! link; the bytes go to a fresh file created exclusively beside the
//! target under a name no one can guess, renamed over the target, so that
//! the target is whole or untouched and nothing planted is followed.

use super::check::file_id;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Why `path` may not be written, or `Ok` when it may: absent, or a
/// regular file (not a link to one) that is not one of `inputs` (same
/// canonical path, or the same device and inode). `flag` names the option
/// in the message (`--sarif`).
pub(crate) fn refused(flag: &str, path: &Path, inputs: &[PathBuf]) -> Result<(), String> {
    let shown = super::shown(&path.display().to_string()).into_owned();
    let m = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return not_an_input(flag, path, inputs);
        }
        Err(e) => return Err(format!("{flag} {shown}: cannot look at it: {e}")),
    };
    let t = m.file_type();
    let what = if t.is_symlink() {
        Some("a symbolic link; give the file itself")
    } else if t.is_dir() {
        Some("a directory; give a file name")
    } else if !t.is_file() {
        Some(kind_of_special(&t))
    } else {
        None
    };
    if let Some(what) = what {
        return Err(format!("{flag} {shown}: {what}; nothing written"));
    }
    not_an_input(flag, path, inputs)
}

/// What a file that is neither regular, a folder nor a link is.
fn kind_of_special(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if t.is_fifo() {
            return "a named pipe (FIFO), not a regular file";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device, not a regular file";
        }
        if t.is_socket() {
            return "a socket, not a regular file";
        }
    }
    let _ = t;
    "not a regular file"
}

/// `path` in a canonical form even when it does not exist yet: its
/// folder canonical, its name as given.
fn canonical(path: &Path) -> Option<PathBuf> {
    if let Ok(c) = std::fs::canonicalize(path) {
        return Some(c);
    }
    let name = path.file_name()?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Some(std::fs::canonicalize(dir).ok()?.join(name))
}

fn not_an_input(flag: &str, path: &Path, inputs: &[PathBuf]) -> Result<(), String> {
    let me = file_id(path);
    let at = canonical(path);
    for input in inputs.iter().filter(|i| i.as_path() != Path::new("-")) {
        let same_file = me.is_some() && file_id(input) == me;
        let same_path = at.is_some() && canonical(input) == at;
        if same_file || same_path {
            return Err(format!(
                "{flag} {}: the same file as an input of this run ({}); give another file; nothing written",
                super::shown(&path.display().to_string()),
                super::shown(&input.display().to_string())
            ));
        }
    }
    Ok(())
}

/// A name for the fresh file beside `path` that another user of the
/// folder cannot guess ahead: the process, the time and the standard
/// library's random hash keys.
fn fresh_name(path: &Path, attempt: u32) -> PathBuf {
    use std::hash::{BuildHasher as _, Hasher as _};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.write_u32(attempt);
    if let Ok(d) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(d.as_nanos());
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.{:016x}.tmp", h.finish()))
}

/// Writes `bytes` to `path` when [`refused`] allows it: to a file created
/// exclusively beside it (`O_EXCL`: a link planted under that name is not
/// followed), renamed over `path` (a link put at `path` since is replaced,
/// not followed). The message names `flag` and says nothing was written.
pub(crate) fn write(
    flag: &str,
    path: &Path,
    bytes: &[u8],
    inputs: &[PathBuf],
) -> Result<(), String> {
    refused(flag, path, inputs)?;
    let shown = super::shown(&path.display().to_string()).into_owned();
    let cannot = |e: std::io::Error| format!("{flag} {shown}: cannot write: {e}");
    let mut attempt = 0;
    let (tmp, mut file) = loop {
        let tmp = fresh_name(path, attempt);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(f) => break (tmp, f),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 16 => {
                attempt += 1;
            }
            Err(e) => return Err(cannot(e)),
        }
    };
    // No fsync: what this guards against is a write that fails (a full
    // disk) or a target swapped meanwhile, not a power cut.
    let done = file
        .write_all(bytes)
        .map_err(cannot)
        .and_then(|()| refused(flag, path, inputs))
        .and_then(|()| std::fs::rename(&tmp, path).map_err(cannot));
    if done.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    done
}
