use super::{OK, bad_input};
use crate::report;
use crate::spec_arg;
use rtsync_model::Protocol;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Spec file (TOML), or the name of a bundled example; the bundled
    /// four-CPU example when omitted.
    pub spec: Option<PathBuf>,
    /// Put every resource under this protocol first.
    #[arg(long, value_parser = parse_protocol)]
    pub protocol: Option<Protocol>,
}

pub fn parse_protocol(s: &str) -> Result<Protocol, String> {
    s.parse()
}

pub fn run(a: Args) -> u8 {
    let loaded = match spec_arg::load(a.spec.as_deref(), a.protocol) {
        Ok(l) => l,
        Err(d) => return bad_input(&d),
    };
    print!("{}", report::facts(&loaded.system, &loaded.label));
    for d in loaded.diagnostics.iter() {
        println!("{d}");
    }
    println!("ok: the spec is valid");
    OK
}
