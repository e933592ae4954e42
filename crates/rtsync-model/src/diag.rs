//! Diagnostics a person can act on: where (file, line, column, key), what is
//! wrong, and what to write instead.

use serde::Serialize;
use std::fmt;

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Information: nothing to change.
    Note,
    /// Probably not what was meant; the system is still usable.
    Warning,
    /// The system cannot be used as written.
    Error,
}

/// A position in a spec file (1-based line and column).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Default)]
pub struct Pos {
    /// Line, from 1.
    pub line: usize,
    /// Column in characters, from 1.
    pub col: usize,
}

impl Pos {
    /// The line and column of a byte offset in `src`. Scans `src` once:
    /// for many positions in one text, build a [`LineIndex`].
    pub fn of_offset(src: &str, offset: usize) -> Pos {
        LineIndex::new(src).pos(offset)
    }
}

/// Where each line of a text starts, so that a byte offset becomes a line
/// and column in logarithmic time. A spec's loader marks every key it
/// reads; counting newlines from the start for each (as a first version
/// did) made loading quadratic: 10,000 tasks took 14 s.
pub struct LineIndex<'a> {
    src: &'a str,
    /// Byte offset of each line's first character.
    starts: Vec<usize>,
    /// Whether each line is ASCII: its column is then its byte distance,
    /// found without counting characters (a one-line body of 30,000
    /// segments would otherwise be counted again for each of them).
    ascii: Vec<bool>,
}

impl<'a> LineIndex<'a> {
    /// The index of `src` (one pass over it).
    pub fn new(src: &'a str) -> LineIndex<'a> {
        let mut starts = vec![0];
        let mut ascii = Vec::new();
        let mut line_ascii = true;
        for (i, b) in src.bytes().enumerate() {
            line_ascii &= b.is_ascii();
            if b == b'\n' {
                starts.push(i + 1);
                ascii.push(line_ascii);
                line_ascii = true;
            }
        }
        ascii.push(line_ascii);
        LineIndex { src, starts, ascii }
    }

    /// The 1-based line and column (in characters) of byte `offset`.
    pub fn pos(&self, offset: usize) -> Pos {
        let mut offset = offset.min(self.src.len());
        while !self.src.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let col = if self.ascii[line] {
            offset - start
        } else {
            self.src[start..offset].chars().count()
        };
        Pos {
            line: line + 1,
            col: col + 1,
        }
    }
}

/// One finding about a spec: where, what, and what to write instead.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// Error, warning or note.
    pub severity: Severity,
    /// The spec file, when the system came from one.
    pub file: Option<String>,
    /// The line and column, when the finding has a place.
    pub pos: Option<Pos>,
    /// The key path, e.g. `task "t1".deadline`.
    pub key: String,
    /// What is wrong.
    pub message: String,
    /// What to write instead.
    pub hint: Option<String>,
}

impl Diagnostic {
    /// In `file`.
    pub fn in_file(mut self, file: &str) -> Self {
        self.file = Some(file.to_string());
        self
    }

    /// A finding of this severity about `key`.
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
    /// An error about `key`.
    pub fn error(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, key, message)
    }
    /// A warning about `key`.
    pub fn warning(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, key, message)
    }
    /// A note about `key`.
    pub fn note(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(Severity::Note, key, message)
    }
    /// With what to write instead.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
    /// At this place.
    pub fn at(mut self, pos: Option<Pos>) -> Self {
        self.pos = pos;
        self
    }
    /// Whether it is an error.
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
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// Adds one.
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }
    /// Whether any is an error.
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(Diagnostic::is_error)
    }
    /// The errors.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter().filter(|d| d.is_error())
    }
    /// All of them, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter()
    }
    /// Each one, with `file` named where it names none yet.
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
    fn the_index_agrees_with_counting_at_every_offset() {
        // Counted by hand, character by character, independent of the index.
        let src = "é = 1\n\nbb = \"ü\"\r\nlast";
        let idx = LineIndex::new(src);
        let (mut line, mut col) = (1, 1);
        for (off, ch) in src.char_indices() {
            assert_eq!(idx.pos(off), Pos { line, col }, "offset {off}");
            if ch == '\n' {
                line += 1;
                col = 1;
            } else {
                col += 1;
            }
        }
        assert_eq!(idx.pos(src.len()), Pos { line, col });
        // Inside a multi-byte character: the character's own position.
        assert_eq!(idx.pos(1), Pos { line: 1, col: 1 });
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
