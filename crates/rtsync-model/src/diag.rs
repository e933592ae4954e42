//! Diagnostics a person can act on: where (file, line, column, key), what is
//! wrong, and what to write instead.

use serde::Serialize;
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Note,
    Warning,
    Error,
}

/// A position in a spec file (1-based line and column).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Default)]
pub struct Pos {
    pub line: usize,
    pub col: usize,
}

impl Pos {
    /// The line and column of a byte offset in `src`.
    pub fn of_offset(src: &str, offset: usize) -> Pos {
        let offset = offset.min(src.len());
        let before = &src[..offset];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        Pos { line, col }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// The spec file, when the system came from one.
    pub file: Option<String>,
    pub pos: Option<Pos>,
    /// The key path, e.g. `task "t1".deadline`.
    pub key: String,
    pub message: String,
    /// What to write instead.
    pub hint: Option<String>,
}

impl Diagnostic {
    pub fn new(severity: Severity, key: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity,
            file: None,
            pos: None,
            key: key.into(),
            message: message.into(),
            hint: None,
        }
    }
    pub fn error(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, key, message)
    }
    pub fn warning(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, key, message)
    }
    pub fn note(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(Severity::Note, key, message)
    }
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
    pub fn at(mut self, pos: Option<Pos>) -> Self {
        self.pos = pos;
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        };
        write!(f, "{sev}: ")?;
        match (&self.file, self.pos) {
            (Some(file), Some(p)) => write!(f, "{file}:{}:{}: ", p.line, p.col)?,
            (Some(file), None) => write!(f, "{file}: ")?,
            (None, Some(p)) => write!(f, "line {}, column {}: ", p.line, p.col)?,
            (None, None) => {}
        }
        if !self.key.is_empty() {
            write!(f, "{}: ", self.key)?;
        }
        write!(f, "{}", self.message)?;
        if let Some(h) = &self.hint {
            write!(f, "\n  hint: {h}")?;
        }
        Ok(())
    }
}

/// A set of diagnostics from loading or checking a system.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(Diagnostic::is_error)
    }
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter().filter(|d| d.is_error())
    }
    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter()
    }
    pub fn with_file(mut self, file: &str) -> Self {
        for d in &mut self.0 {
            d.file.get_or_insert_with(|| file.to_string());
        }
        self
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.0 {
            writeln!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_map_to_lines_and_columns() {
        let src = "a = 1\nbb = 2\n\nccc";
        assert_eq!(Pos::of_offset(src, 0), Pos { line: 1, col: 1 });
        assert_eq!(Pos::of_offset(src, 6), Pos { line: 2, col: 1 });
        assert_eq!(Pos::of_offset(src, 11), Pos { line: 2, col: 6 });
        assert_eq!(Pos::of_offset(src, 14), Pos { line: 4, col: 1 });
    }

    #[test]
    fn display_names_file_place_key_and_hint() {
        let d = Diagnostic::error("task \"a\".period", "period is zero")
            .hint("write a positive duration")
            .at(Some(Pos { line: 3, col: 10 }));
        let d = Diagnostics(vec![d]).with_file("x.toml");
        let s = d.to_string();
        assert!(s.starts_with("error: x.toml:3:10: task \"a\".period: period is zero"));
        assert!(s.contains("hint: write a positive duration"));
    }
}
