//! The README's sample outputs are the program's real outputs: the main
//! job's table and `check`'s answer for the five-line file.

use crate::support::{bin, root};

/// The fenced block that follows the line starting with `marker`.
fn block_after(readme: &str, marker: &str) -> String {
    let at = readme
        .find(marker)
        .unwrap_or_else(|| panic!("README has no {marker:?}"));
    let rest = &readme[at..];
    let open = rest.find("```\n").expect("a block follows") + 4;
    let close = rest[open..].find("```\n").expect("the block ends") + open;
    rest[open..close].to_owned()
}

fn run(args: &[&str]) -> String {
    let out = std::process::Command::new(bin())
        .args(args)
        .output()
        .expect("the binary runs");
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn the_main_job_sample_is_the_real_output() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert_eq!(block_after(&readme, "`cargo run --release` (or"), run(&[]));
}

#[test]
fn the_check_sample_is_the_real_output() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let dir = std::env::temp_dir().join(format!("tcm-readme-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("application.properties");
    std::fs::write(
        &file,
        block_after(&readme, "`application.yml` (read as Spring Boot 4.1 binds"),
    )
    .unwrap();
    let out = run(&["check", file.to_str().unwrap(), "--memory", "inside"])
        .replace(file.to_str().unwrap(), "/tmp/chk/application.properties");
    assert_eq!(
        block_after(
            &readme,
            "`toolcall-model check application.properties --memory inside`"
        ),
        out
    );
    std::fs::remove_dir_all(&dir).ok();
}
