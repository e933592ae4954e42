// The loader's corpus: every spec of the examples and the scenarios. One
// home for the fuzz tests here and the unit tests of `src/sections.rs`
// (which include this file by path).

/// Every example's spec and every scenario's embedded spec, read once.
pub fn corpus() -> &'static [String] {
    static C: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    C.get_or_init(read)
}

fn read() -> Vec<String> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let mut out = Vec::new();
    for dir in ["examples", "scenarios"] {
        for e in std::fs::read_dir(format!("{root}/{dir}")).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "toml") {
                let text = std::fs::read_to_string(&p).unwrap();
                // A scenario carries its spec in `spec = """ ... """`.
                let spec = match text.split_once("spec = \"\"\"") {
                    Some((_, rest)) => rest.split("\"\"\"").next().unwrap().to_string(),
                    None => text,
                };
                out.push(spec);
            }
        }
    }
    assert!(out.len() >= 20, "corpus of {} specs", out.len());
    out
}
