//! `include = ["interfaces.toml"]`: a spec naming component interfaces
//! written in other files (paper 001's components are shared between
//! systems as its CAmkES components are).
//!
//! An included file holds `[[component]]` tables only. It is appended to
//! the spec's text, so the loader reads one document and every rule
//! (names, connections, cycles) applies across files; each diagnostic
//! found in an included part is then given that file's name and line.

use crate::diag::{Diagnostic, Diagnostics, Pos};
use serde::Deserialize;
use std::path::Path;
use toml::Spanned;

/// The spec's `include` key, read alone.
#[derive(Deserialize)]
struct Head {
    include: Option<Spanned<Vec<Spanned<String>>>>,
}

/// A spec's text with its included files appended, and where each
/// included part starts.
pub(crate) struct Expanded {
    /// The whole text.
    pub(crate) text: String,
    /// Per included file: its name and the line of the whole text its
    /// first line is.
    parts: Vec<(String, usize)>,
}

/// `src` (read from `path`) with its included files appended; `Ok(None)`
/// when it includes nothing (or does not parse: the loader says why).
pub(crate) fn expand(src: &str, path: &Path) -> Result<Option<Expanded>, Diagnostics> {
    let file = path.display().to_string();
    let Ok(head) = toml::from_str::<Head>(src) else {
        return Ok(None);
    };
    let Some(list) = head.include else {
        return Ok(None);
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut text = src.to_string();
    let mut parts = Vec::new();
    let mut errs = Vec::new();
    for name in list.get_ref() {
        let at = Pos::of_offset(src, name.span().start);
        let p = dir.join(name.get_ref());
        let shown = p.display().to_string();
        let inc = match std::fs::read_to_string(&p) {
            Ok(t) => t,
            Err(e) => {
                errs.push(
                    Diagnostic::error(
                        "include",
                        format!("cannot read included file `{shown}`: {e}"),
                    )
                    .at(Some(at))
                    .hint("name a file of [[component]] tables, relative to this spec's folder")
                    .in_file(&file),
                );
                continue;
            }
        };
        match toml::from_str::<toml::Table>(&inc) {
            Ok(t) => {
                if let Some(k) = t.keys().find(|k| *k != "component") {
                    errs.push(
                        Diagnostic::error("include", format!("the included file has `{k}`: an included file holds [[component]] tables only"))
                            .hint("keep tasks, resources and the platform in the spec that includes it; includes do not nest")
                            .in_file(&shown),
                    );
                    continue;
                }
            }
            Err(e) => {
                let pos = e.span().map(|s| Pos::of_offset(&inc, s.start));
                errs.push(
                    Diagnostic::error(
                        "include",
                        format!("the included file is not valid TOML: {}", e.message()),
                    )
                    .at(pos)
                    .in_file(&shown),
                );
                continue;
            }
        }
        if !text.ends_with('\n') {
            text.push('\n');
        }
        let line = text.matches('\n').count() + 1;
        text.push_str(&inc);
        parts.push((shown, line));
    }
    if !errs.is_empty() {
        return Err(Diagnostics(errs));
    }
    Ok(Some(Expanded { text, parts }))
}

impl Expanded {
    /// `d` with every finding inside an included part given that file's
    /// name and line.
    pub(crate) fn place(&self, mut d: Diagnostics) -> Diagnostics {
        for x in &mut d.0 {
            let Some(pos) = x.pos else { continue };
            if let Some((file, start)) = self.parts.iter().rev().find(|(_, s)| pos.line >= *s) {
                x.file = Some(file.clone());
                x.pos = Some(Pos {
                    line: pos.line - start + 1,
                    col: pos.col,
                });
            }
        }
        d
    }
}
