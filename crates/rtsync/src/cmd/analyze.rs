use super::{NOT_SCHEDULABLE, OK, bad_input};
use crate::spec_arg;
use rtsync_analysis::{Heuristic, Options, TestSelection, Verdict, analyze};
use rtsync_model::Protocol;
use rtsync_report::analysis as report;
use std::path::PathBuf;

#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
}

#[derive(clap::Args)]
pub struct Args {
    /// Spec file (TOML), or the name of a bundled example; the bundled
    /// four-CPU example when omitted.
    pub spec: Option<PathBuf>,
    /// Which test: rta (FP response-time analysis), edf (demand criterion
    /// and Baker's test), ll (Liu-Layland with blocking), hyperbolic, all.
    #[arg(long, default_value = "all", value_parser = |s: &str| s.parse::<TestSelection>())]
    pub test: TestSelection,
    /// Overhead profile (TOML) to charge: context switch, release, migration,
    /// lock and unlock per protocol.
    #[arg(long, value_name = "FILE")]
    pub overheads: Option<PathBuf>,
    /// Output format. The JSON schema is documented in docs/analysis-json.md.
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// Put every resource under this protocol first.
    #[arg(long, value_parser = super::check::parse_protocol)]
    pub protocol: Option<Protocol>,
    /// How to place tasks that have no CPU: wfd, ffd, bfd or sync
    /// (keeps resource-sharing tasks together).
    #[arg(long, default_value = "sync", value_parser = |s: &str| s.parse::<Heuristic>())]
    pub partition: Heuristic,
}

pub fn run(a: Args) -> u8 {
    let loaded = match spec_arg::load(a.spec.as_deref(), a.protocol) {
        Ok(l) => l,
        Err(d) => return bad_input(&d),
    };
    let overheads = match super::load_overheads(a.overheads.as_deref()) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let opts = Options {
        tests: a.test,
        overheads,
        heuristic: a.partition,
        first_miss: false,
    };
    let analysis = match analyze(&loaded.system, &opts) {
        Ok(x) => x,
        Err(d) => return bad_input(&d),
    };
    match a.format {
        Format::Json => {
            let doc = report::json(&analysis, &loaded.label);
            println!(
                "{}",
                serde_json::to_string_pretty(&doc).expect("serialisable")
            );
        }
        Format::Table => {
            for d in loaded.diagnostics.iter() {
                eprintln!("{d}");
            }
            print!("{}", report::analysis_table(&analysis, &loaded.label));
        }
    }
    match analysis.result.verdict {
        Verdict::Schedulable => OK,
        _ => NOT_SCHEDULABLE,
    }
}
