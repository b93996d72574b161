//! Active profiles the environment chooses
//! (`spring.profiles.active=${APP_ENV:local}`): the answer for each
//! profile that may run, the worst kept. Which profiles there are is the
//! driver's to say (the command: the profile files beside the files,
//! [`super::files::profile_names`]; texts held in memory: none beside);
//! this keeps no IO, so both give the same answer for the same names.

use crate::config::{Answer, Options, Stop};

/// An answer whose active profiles the environment chooses, answered
/// again for each of `names` (the profiles a profile file beside the
/// files names: `application-prod.yml`: `prod`), the worst kept (failing
/// before passing, then the most scenarios broken), with a warning naming
/// the profiles tried. A profile that cannot be answered (Spring refuses
/// it) is that answer.
pub(super) fn worst_profile(
    first: Answer,
    options: &Options,
    names: &[String],
    again: impl Fn(&Options) -> Result<Answer, Stop>,
) -> Result<Answer, Stop> {
    let worse = |a: &Answer, b: &Answer| {
        (!a.passes(), a.asked().breaks().len()) > (!b.passes(), b.asked().breaks().len())
    };
    let here = first.active.join(",");
    let placeholders: Vec<String> = first
        .open_profiles
        .iter()
        .map(|n| format!("${{{n}}}"))
        .collect();
    let open = first.open_profiles.clone();
    // `${APP_ENV}` with no default is no profile's name: Spring would
    // not start with it; only the profile files' names are tried then.
    let literal = here.contains("${") && !names.is_empty();
    let mut worst = first;
    let mut worst_name = here.clone();
    for (i, p) in names.iter().enumerate() {
        if *p == here {
            continue;
        }
        let o = Options {
            profiles: Some(vec![p.clone()]),
            ..options.clone()
        };
        let a = again(&o)?;
        if (literal && i == 0) || worse(&a, &worst) {
            worst = a;
            worst_name = p.clone();
        }
    }
    worst.open_profiles = open;
    let mut tried = if literal { vec![] } else { vec![here] };
    for n in names {
        if !tried.contains(n) {
            tried.push(n.clone());
        }
    }
    worst.notes.insert(
        0,
        format!(
            "warning: spring.profiles.active is open: {} not set here, so the environment chooses the profiles; answered for '{worst_name}', the worst of {} (--profile NAME or --set NAME=VALUE says which runs)",
            placeholders.join(", "),
            tried
                .iter()
                .map(|t| format!("'{t}'"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    );
    Ok(worst)
}
