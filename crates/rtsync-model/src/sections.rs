//! A spec's text cut at its `[[task]]` tables, so that the TOML parser sees
//! a few hundred tasks at a time instead of the whole file.
//!
//! Why: the toml crate builds a document tree of about 50 times the text
//! (622 MB for a spec of 100,000 tasks) before serde reads a single field,
//! and the first touch of that memory cost a third of `rtsync check`'s
//! time. Parsed in batches, each batch's tree is freed before the next is
//! built and the allocator hands the same pages back.
//!
//! The cut is only taken where it cannot change the meaning. The text is
//! lexed with the toml crate's own lexer (strings, multi-line strings and
//! comments are single tokens, so a `[[task]]` inside one is never a
//! header), and a header is a `[` at the start of a line outside every
//! array and inline table. A *task group* is a `[[task]]` header (written
//! bare, exactly so) with the `[task.…]` / `[[task.…]]` headers that follow
//! it, which TOML attaches to that task. Everything else (the root keys,
//! `[platform]`, `[[resource]]`, and any header this module does not
//! recognise) stays in the *rest*, at its own byte offsets. Each batch of
//! groups is a TOML document of its own whose only key is `task`, which is
//! exactly what those groups define in the whole document. The caller
//! falls back to parsing the whole text whenever any piece fails to parse
//! or the rest also defines `task`, so that every error is the one the
//! whole document gives, at the place it gives it.

use std::borrow::Cow;
use toml_parser::Source;
use toml_parser::lexer::TokenKind;

/// Task groups per batch: large enough that a parse's fixed cost vanishes,
/// small enough that a batch's tree (about 5 MB) stays in reused memory.
const GROUPS_PER_BATCH: usize = 1000;

/// The pieces of a spec's text.
pub(crate) struct Sections<'a> {
    /// Everything that is not a task group, at its original byte offsets
    /// (task groups in its middle are blanked to spaces, newlines kept).
    pub rest: Cow<'a, str>,
    /// Batches of consecutive task groups: (byte offset in the text, text).
    pub batches: Vec<(usize, &'a str)>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Header {
    /// `[[task]]`: starts a task group.
    Task,
    /// `[task.x]` or `[[task.x]]`: belongs to the group before it.
    TaskChild,
    /// Any other header.
    Other,
}

/// Cuts `src` at its task groups, or `None` when it has none (or when its
/// brackets do not balance: the whole parse then says what is wrong).
pub(crate) fn split(src: &str) -> Option<Sections<'_>> {
    let headers = headers(src)?;
    // Group the sections: (start, end, is_task_group).
    let mut pieces: Vec<(usize, usize, bool)> = Vec::new();
    let mut in_group = false;
    // The text before the first header is the root table: the rest's.
    let mut prev = 0;
    let mut prev_task = false;
    for &(at, kind) in &headers {
        let task = match kind {
            Header::Task => {
                in_group = true;
                true
            }
            // A child header continues its group.
            Header::TaskChild if in_group => continue,
            _ => {
                in_group = false;
                false
            }
        };
        if at > prev {
            push(&mut pieces, prev, at, prev_task);
        }
        prev = at;
        prev_task = task;
    }
    push(&mut pieces, prev, src.len(), prev_task);
    if !pieces.iter().any(|p| p.2) {
        return None;
    }

    // The rest: a prefix when every task group comes after it, otherwise a
    // copy with the groups blanked.
    let last_rest = pieces.iter().rev().find(|p| !p.2).map_or(0, |p| p.1);
    let rest = if pieces.iter().all(|p| !p.2 || p.0 >= last_rest) {
        Cow::Borrowed(&src[..last_rest])
    } else {
        let mut bytes = src.as_bytes()[..last_rest].to_vec();
        for &(s, e, _) in pieces.iter().filter(|p| p.2 && p.1 <= last_rest) {
            for b in &mut bytes[s..e] {
                if *b != b'\n' {
                    *b = b' ';
                }
            }
        }
        // Whole characters were blanked byte for byte, so it is UTF-8.
        Cow::Owned(String::from_utf8(bytes).ok()?)
    };

    // Batches: runs of task groups, at most GROUPS_PER_BATCH groups each.
    let mut batches = Vec::new();
    let mut groups = headers
        .iter()
        .filter(|h| h.1 == Header::Task)
        .map(|h| h.0)
        .peekable();
    for &(start, end, _) in pieces.iter().filter(|p| p.2) {
        // The piece's groups start inside [start, end), in order.
        let mut cut = start;
        let mut n = 0;
        while let Some(&g) = groups.peek() {
            if g >= end {
                break;
            }
            groups.next();
            if n == GROUPS_PER_BATCH {
                batches.push((cut, &src[cut..g]));
                cut = g;
                n = 0;
            }
            n += 1;
        }
        batches.push((cut, &src[cut..end]));
    }
    Some(Sections { rest, batches })
}

/// Appends a piece, merging it with the previous one of the same kind.
fn push(pieces: &mut Vec<(usize, usize, bool)>, start: usize, end: usize, task: bool) {
    match pieces.last_mut() {
        Some(last) if last.2 == task && last.1 == start => last.1 = end,
        _ => pieces.push((start, end, task)),
    }
}

/// Every table header's byte offset and kind, in order; `None` if the
/// brackets do not balance.
fn headers(src: &str) -> Option<Vec<(usize, Header)>> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut line_start = true;
    let mut tokens = Source::new(src).lex().peekable();
    while let Some(tok) = tokens.next() {
        match tok.kind() {
            TokenKind::Newline => line_start = true,
            TokenKind::Whitespace | TokenKind::Comment => {}
            TokenKind::Eof => break,
            TokenKind::LeftSquareBracket if depth == 0 && line_start => {
                // A header: read it to the end of its line.
                let at = tok.span().start();
                let mut shape = String::new();
                shape.push('[');
                while let Some(t) = tokens.peek() {
                    match t.kind() {
                        TokenKind::Newline | TokenKind::Eof => break,
                        TokenKind::Comment => {}
                        TokenKind::Whitespace => {}
                        TokenKind::Atom => shape.push_str(&src[t.span().start()..t.span().end()]),
                        k => shape.push(k as u8 as char),
                    }
                    tokens.next();
                }
                // Spaces are dropped: `[ [task]]`, which TOML refuses, reads
                // as a task header, and its batch's parse then fails.
                let kind = if shape == "[[task]]" {
                    Header::Task
                } else if shape.starts_with("[task.") || shape.starts_with("[[task.") {
                    Header::TaskChild
                } else {
                    Header::Other
                };
                out.push((at, kind));
                line_start = false;
            }
            TokenKind::LeftSquareBracket | TokenKind::LeftCurlyBracket => {
                depth += 1;
                line_start = false;
            }
            TokenKind::RightSquareBracket | TokenKind::RightCurlyBracket => {
                depth = depth.checked_sub(1)?;
                line_start = false;
            }
            _ => line_start = false,
        }
    }
    (depth == 0).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::load_with;
    use proptest::prelude::*;

    fn cut(src: &str) -> (String, Vec<(usize, String)>) {
        let s = split(src).expect("the text has task groups");
        let batches = s.batches.iter().map(|&(b, t)| (b, t.to_string())).collect();
        (s.rest.into_owned(), batches)
    }

    #[test]
    fn tasks_after_the_rest_leave_it_a_prefix() {
        let src = "[platform]\ncpus = 1\n[[resource]]\nname = \"r\"\n\
                   [[task]]\nname = \"a\"\n[[task]]\nname = \"b\"\n";
        let (rest, batches) = cut(src);
        let first = src.find("[[task]]").unwrap();
        assert_eq!(rest, &src[..first]);
        assert_eq!(batches, vec![(first, src[first..].to_string())]);
    }

    #[test]
    fn interleaved_sections_are_blanked_in_place_and_children_stay_with_their_task() {
        let src = "[[task]]\nname = \"a\"\n[[task.body]]\ncompute = \"1ms\"\n\
                   [[resource]]\nname = \"é\"\n[[task]]\nname = \"b\"\n";
        let (rest, batches) = cut(src);
        let r = src.find("[[resource]]").unwrap();
        let b = src.rfind("[[task]]").unwrap();
        // The rest keeps the resource at its own offset, the group before it
        // blanked except for its newlines.
        assert_eq!(rest.len(), b);
        assert_eq!(&rest[r..], &src[r..b]);
        assert!(rest[..r].bytes().all(|c| c == b' ' || c == b'\n'));
        assert_eq!(rest[..r].matches('\n').count(), 4);
        assert_eq!(
            batches,
            vec![(0, src[..r].to_string()), (b, src[b..].to_string())]
        );
    }

    #[test]
    fn headers_inside_strings_and_arrays_are_not_headers() {
        let src = "description = \"\"\"\n[[task]]\n\"\"\"\n\
                   x = [\n[1],\n]\n[[task]]\nname = \"a\"\nnote = '''\n[[task]]\n'''\n";
        let (rest, batches) = cut(src);
        let t = src.find("\n[[task]]\nname").unwrap() + 1;
        assert_eq!(rest, &src[..t]);
        assert_eq!(batches, vec![(t, src[t..].to_string())]);
    }

    #[test]
    fn a_text_without_task_groups_or_with_unbalanced_brackets_is_not_cut() {
        assert!(split("[platform]\ncpus = 1\ntask = [ { name = \"a\" } ]\n").is_none());
        assert!(split("[[task]]\nname = \"a\"\nbody = [ [\n").is_none());
        // Quoted or spaced headers are left to the rest: the loader then
        // reads the whole text, as `task` is defined in both.
        let (rest, _) = cut("[[\"task\"]]\nname = \"a\"\n[[task]]\nname = \"b\"\n");
        assert!(rest.starts_with("[[\"task\"]]"));
    }

    #[test]
    fn batches_hold_at_most_their_share_of_groups() {
        let n = 2 * GROUPS_PER_BATCH + 1;
        let src: String = (0..n)
            .map(|i| format!("[[task]]\nname = \"t{i}\"\n"))
            .collect();
        let (rest, batches) = cut(&src);
        assert_eq!(rest, "");
        assert_eq!(batches.len(), 3);
        let groups: Vec<usize> = batches
            .iter()
            .map(|b| b.1.matches("[[task]]").count())
            .collect();
        assert_eq!(groups, vec![GROUPS_PER_BATCH, GROUPS_PER_BATCH, 1]);
        // Contiguous and covering.
        let joined: String = batches.iter().map(|b| b.1.as_str()).collect();
        assert_eq!(joined, src);
        assert_eq!(batches[1].0, batches[0].1.len());
    }

    mod corpus {
        include!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/mod.rs"));
    }
    use corpus::corpus;

    /// Fragments that change where sections begin and end.
    const FRAGMENTS: &[&str] = &[
        "\n[[task]]\n",
        "\n[[task]]\nname = \"zz\"\nperiod = \"5ms\"\nwcet = \"1ms\"\n",
        "\n[[resource]]\nname = \"q\"\nprotocol = \"pip\"\n",
        "\n[platform]\ncpus = 2\n",
        "\n[task.extra]\n",
        "\n[[task.body]]\ncompute = \"1ms\"\n",
        "\n[task]\n",
        "\ntask = []\n",
        "\"\"\"",
        "'''",
        "[",
        "]",
        "{",
        "}",
        "#",
        "\n",
        "\n[[ task ]]\n",
        "\n[[\"task\"]]\n",
        "\nnote = \"\"\"\n[[task]]\n\"\"\"\n",
    ];

    proptest! {
        // RTSYNC_FUZZ_CASES for a long run, as the loader's fuzzing.
        #![proptest_config(ProptestConfig {
            cases: std::env::var("RTSYNC_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(2000),
            .. ProptestConfig::default()
        })]

        /// Read in sections or as one document, a spec loads to the same
        /// system with the same source positions, or is refused with the
        /// same diagnostics at the same places.
        #[test]
        fn sections_read_as_the_whole_document_does(
            pick in any::<usize>(),
            edits in proptest::collection::vec(
                (any::<usize>(), any::<bool>(), 0..FRAGMENTS.len()), 0..4),
        ) {
            let corpus = corpus();
            let mut src = corpus[pick % corpus.len()].clone();
            for (at, line_start, f) in edits {
                // At a line's start (where headers and keys begin), or
                // anywhere on a character boundary.
                let at = if line_start {
                    let starts: Vec<usize> = std::iter::once(0)
                        .chain(src.match_indices('\n').map(|(i, _)| i + 1))
                        .collect();
                    starts[at % starts.len()]
                } else {
                    let mut at = at % (src.len() + 1);
                    while !src.is_char_boundary(at) {
                        at -= 1;
                    }
                    at
                };
                src.insert_str(at, FRAGMENTS[f]);
            }
            let sectioned = load_with(&src, Some("s.toml"), true);
            let whole = load_with(&src, Some("s.toml"), false);
            prop_assert_eq!(sectioned, whole, "spec:\n{}", src);
        }
    }
}
