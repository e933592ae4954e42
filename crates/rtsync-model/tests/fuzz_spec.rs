//! Fuzzing the spec loader, proptest-driven so that CI runs it for a
//! bounded time (`RTSYNC_FUZZ_CASES=100000` for a long run; figures in
//! docs/PERFORMANCE.md). The corpus is every example and every scenario's spec;
//! each case mutates one of them (bytes cut, inserted or replaced, lines
//! duplicated or dropped, numbers and times swapped for extremes) and
//! loads it. The loader must never panic, every refusal must say where
//! (a line, or the file for whole-spec errors), and a spec it accepts must
//! survive the writer and load again to the same system.

use proptest::prelude::*;
use rtsync_model::{load_str, to_toml};

mod corpus;
use corpus::corpus as corpus_cached;

/// Values that break naive code: zero, negative, huge, fractional, empty.
const EXTREMES: &[&str] = &[
    "0",
    "-1",
    "\"0\"",
    "\"0ns\"",
    "\"1ns\"",
    "\"-5ms\"",
    "\"18446744073709551615ns\"",
    "\"99999999999s\"",
    "\"1.5e3ms\"",
    "\"0.0001ns\"",
    "\"\"",
    "9223372036854775807",
    "\"ms\"",
    "[]",
    "{}",
    "\"1 ms\"",
    "4294967296",
];

#[derive(Debug, Clone)]
enum Mutation {
    Cut(usize, usize),
    Insert(usize, Vec<u8>),
    Replace(usize, u8),
    DupLine(usize),
    DropLine(usize),
    Extreme(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1usize..40).prop_map(|(a, n)| Mutation::Cut(a, n)),
        (
            any::<usize>(),
            proptest::collection::vec(any::<u8>(), 1..12)
        )
            .prop_map(|(a, b)| Mutation::Insert(a, b)),
        (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Mutation::Replace(a, b)),
        any::<usize>().prop_map(Mutation::DupLine),
        any::<usize>().prop_map(Mutation::DropLine),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Extreme(a, b)),
    ]
}

fn apply(src: &str, m: &Mutation) -> String {
    let mut b = src.as_bytes().to_vec();
    let len = b.len().max(1);
    match m {
        Mutation::Cut(a, n) => {
            let a = a % len;
            let end = (a + n).min(b.len());
            b.drain(a.min(b.len())..end);
        }
        Mutation::Insert(a, bytes) => {
            let a = a % (b.len() + 1);
            b.splice(a..a, bytes.iter().copied());
        }
        Mutation::Replace(a, x) => {
            if !b.is_empty() {
                b[a % len] = *x;
            }
        }
        Mutation::DupLine(i) | Mutation::DropLine(i) => {
            let mut lines: Vec<&str> = src.lines().collect();
            if !lines.is_empty() {
                let i = i % lines.len();
                if matches!(m, Mutation::DupLine(_)) {
                    lines.insert(i, lines[i]);
                } else {
                    lines.remove(i);
                }
            }
            return lines.join("\n");
        }
        Mutation::Extreme(i, v) => {
            // The value of the i-th `key = value` line.
            let mut lines: Vec<String> = src.lines().map(str::to_string).collect();
            let with_value: Vec<usize> = (0..lines.len())
                .filter(|&k| lines[k].contains(" = ") && !lines[k].trim_start().starts_with('#'))
                .collect();
            if !with_value.is_empty() {
                let k = with_value[i % with_value.len()];
                let (key, _) = lines[k].split_once(" = ").unwrap();
                lines[k] = format!("{key} = {}", EXTREMES[v % EXTREMES.len()]);
            }
            return lines.join("\n");
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(1000), .. ProptestConfig::default() })]

    #[test]
    fn mutated_specs_load_or_are_refused_with_a_place(
        pick in any::<usize>(),
        muts in proptest::collection::vec(mutation(), 1..4),
    ) {
        let corpus = corpus_cached();
        let mut src = corpus[pick % corpus.len()].clone();
        for m in &muts {
            src = apply(&src, m);
        }
        match load_str(&src, Some("fuzz.toml")) {
            Ok((sys, _)) => {
                let again = load_str(&to_toml(&sys), None);
                prop_assert!(again.is_ok(), "written back, refused:\n{}", to_toml(&sys));
                let (mut back, _) = again.unwrap();
                back.source = sys.source.clone();
                // A component spec is written in its lowered form: the
                // system round-trips, the request structure is left out.
                let mut sys = sys;
                sys.components = None;
                prop_assert_eq!(back, sys);
            }
            Err(d) => {
                for e in d.errors() {
                    prop_assert_eq!(e.file.as_deref(), Some("fuzz.toml"));
                    prop_assert!(!e.message.is_empty());
                }
                prop_assert!(d.has_errors());
            }
        }
    }
}

/// Cases per target: `RTSYNC_FUZZ_CASES` for a long run, else `default`
/// (the CI's bounded run).
fn cases(default: u32) -> u32 {
    std::env::var("RTSYNC_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
