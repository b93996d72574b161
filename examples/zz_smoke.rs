//! temp

fn main() {
    let mut seed: u64 = 0x9E3779B97F4A7C15;
    let mut msgs = std::collections::BTreeMap::new();
    std::panic::set_hook(Box::new(|_| {}));
    for i in 0..300000 {
        let n = 200 + (i % 7) * 300;
        let data: Vec<u8> = (0..n)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                (seed >> 24) as u8
            })
            .collect();
        for (name, f) in [
            ("manager", toolcall_model::fuzzing::manager as fn(&[u8])),
            ("tool_loop", toolcall_model::fuzzing::tool_loop),
        ] {
            if let Err(e) = std::panic::catch_unwind(|| f(&data)) {
                let m = e.downcast_ref::<String>().cloned().unwrap_or_default();
                let key: String = m.lines().next().unwrap_or("").chars().take(150).collect();
                msgs.entry(key)
                    .or_insert_with(|| {
                        std::fs::write(format!("/tmp/probe/{name}-{i}"), &data).unwrap();
                        (name, i, 0)
                    })
                    .2 += 1;
            }
        }
    }
    for (k, v) in msgs {
        println!("{v:?} {k}");
    }
}
