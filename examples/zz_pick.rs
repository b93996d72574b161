use arbitrary::{Arbitrary, Unstructured};
use toolcall_model::fuzzing::*;
fn main() {
    let dir = std::env::args().nth(1).unwrap();
    let mut seen = std::collections::BTreeMap::new();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort_by_key(|p| std::fs::metadata(p).unwrap().len());
    for p in files {
        let data = std::fs::read(&p).unwrap();
        if data.len() > 1500 {
            continue;
        }
        let Ok(inp) = LoopInput::arbitrary_take_rest(Unstructured::new(&data)) else {
            continue;
        };
        let s = inp.scenario();
        let Ok((run, tb)) = s.run() else { continue };
        let key = format!(
            "{:?} rounds={} inv={} mem={:?} fixes={}",
            run.kind,
            run.requests.len().min(3),
            tb.invocations().len().min(4),
            s.config.memory,
            s.config.manager.fixes.is_upstream()
        );
        seen.entry(key).or_insert(p);
    }
    for (k, p) in seen {
        println!("{} {}", p.display(), k);
    }
}
