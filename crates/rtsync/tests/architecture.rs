//! The layering, checked: within every crate of the workspace, the
//! modules that name each other (`crate::module` outside comments and
//! test modules) form no circle, so each crate reads bottom-up (for the
//! channels: the memory and the layout below, the channels above).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module -> the sibling modules its code names.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if p.extension().is_none_or(|x| x != "rs") {
                continue;
            }
            let rel = p.strip_prefix(src).unwrap();
            let top = rel
                .components()
                .next()
                .unwrap()
                .as_os_str()
                .to_string_lossy();
            let top = top.trim_end_matches(".rs").to_string();
            if top == "lib" || top == "main" {
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap();
            let deps = out.entry(top.clone()).or_default();
            for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
                let mut rest = line;
                while let Some(i) = rest.find("crate::") {
                    rest = &rest[i + 7..];
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() && name != top {
                        deps.insert(name);
                    }
                }
            }
        }
    }
    out
}

/// A circle through `start`, if any.
fn circle(g: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    let mut path = vec![start.to_string()];
    let mut seen = BTreeSet::new();
    fn walk(
        g: &BTreeMap<String, BTreeSet<String>>,
        start: &str,
        path: &mut Vec<String>,
        seen: &mut BTreeSet<String>,
    ) -> bool {
        let at = path.last().unwrap().clone();
        for next in g.get(&at).into_iter().flatten() {
            if next == start {
                path.push(next.clone());
                return true;
            }
            if g.contains_key(next) && seen.insert(next.clone()) {
                path.push(next.clone());
                if walk(g, start, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    walk(g, start, &mut path, &mut seen).then_some(path)
}

#[test]
fn no_crate_has_modules_that_import_each_other_in_a_circle() {
    let crates = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let mut found = Vec::new();
    let mut checked = 0;
    for e in std::fs::read_dir(crates).unwrap() {
        let src = e.unwrap().path().join("src");
        if !src.is_dir() {
            continue;
        }
        let g = graph(&src);
        checked += g.len();
        for m in g.keys() {
            if let Some(c) = circle(&g, m) {
                found.push(format!("{}: {}", src.display(), c.join(" -> ")));
            }
        }
    }
    assert!(checked > 50, "only {checked} modules found");
    assert!(found.is_empty(), "circles:\n{}", found.join("\n"));
}

#[test]
fn the_check_finds_a_circle_where_there_is_one() {
    let dir = std::env::temp_dir().join(format!("rtsync-arch-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("b")).unwrap();
    std::fs::write(
        dir.join("a.rs"),
        "use crate::b::X;\n// crate::c in a comment\n",
    )
    .unwrap();
    std::fs::write(dir.join("b/mod.rs"), "pub fn f() { crate::a::g() }\n").unwrap();
    std::fs::write(dir.join("c.rs"), "#[cfg(test)]\nuse crate::a;\n").unwrap();
    let g = graph(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        circle(&g, "a"),
        Some(vec!["a".into(), "b".into(), "a".into()])
    );
    assert_eq!(circle(&g, "c"), None);
}
