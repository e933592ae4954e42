use super::{OK, bad_input};
use crate::spec_arg;
use rtsync_analysis::Heuristic;
use rtsync_model::Protocol;
use rtsync_report::analysis as report;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Spec file (TOML), or the name of a bundled example; the bundled
    /// four-CPU example when omitted.
    pub spec: Option<PathBuf>,
    /// Put every resource under this protocol first.
    #[arg(long, value_parser = parse_protocol)]
    pub protocol: Option<Protocol>,
    /// How to place tasks that have no CPU, as `rtsync analyze` will:
    /// wfd, ffd, bfd or sync (keeps resource-sharing tasks together).
    /// A placement that breaks a protocol's rule is refused here too.
    #[arg(long, default_value = "sync", value_parser = |s: &str| s.parse::<Heuristic>())]
    pub partition: Heuristic,
}

pub fn parse_protocol(s: &str) -> Result<Protocol, String> {
    s.parse()
}

pub fn run(a: Args) -> u8 {
    let loaded = match spec_arg::load(a.spec.as_deref(), a.protocol) {
        Ok(l) => l,
        Err(d) => return bad_input(&d),
    };
    // The same placement `analyze` makes, so that a spec `check` accepts
    // is one `analyze` accepts.
    let placed = match rtsync_analysis::place(&loaded.system, a.partition) {
        Ok(p) => p,
        Err(d) => {
            eprint!("{d}");
            eprintln!(
                "  (tasks without a CPU were placed by {} partitioning, as `rtsync analyze` places them; \
                 give them a `cpu`, or try `--partition wfd|ffd|bfd|sync`)",
                a.partition
            );
            return super::BAD_INPUT;
        }
    };
    print!("{}", report::facts(&loaded.system, &loaded.label));
    if let Some(c) = &loaded.system.components {
        print!(
            "{}",
            rtsync_report::components::components(&loaded.system, c)
        );
    }
    if let std::borrow::Cow::Owned(p) = &placed {
        let cpus: Vec<String> = p
            .tasks
            .iter()
            .zip(&loaded.system.tasks)
            .filter(|(_, t)| t.cpu.is_none())
            .map(|(pt, t)| format!("{}→{}", t.name, pt.cpu.unwrap_or(0)))
            .collect();
        println!(
            "placement ({} partitioning, as `analyze` makes it): {}",
            a.partition,
            cpus.join(" ")
        );
    }
    for d in loaded.diagnostics.iter() {
        println!("{d}");
    }
    println!("ok: the spec is valid");
    OK
}
