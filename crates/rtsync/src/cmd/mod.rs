pub mod analyze;
pub mod bench;
pub mod check;
pub mod demo;
pub mod experiment;
pub mod generate;
pub mod run;
pub mod simulate;
pub mod sweep;

/// Exit codes shared by the commands.
pub const OK: u8 = 0;
pub const NOT_SCHEDULABLE: u8 = 1;
pub const BAD_INPUT: u8 = 2;
/// The machine cannot do what was asked: SCHED_FIFO not permitted, a CPU
/// this process may not use, a system call refused.
pub const ENVIRONMENT: u8 = 3;

/// Prints diagnostics to stderr and returns the bad-input code.
pub fn bad_input(d: &rtsync_model::Diagnostics) -> u8 {
    eprint!("{d}");
    BAD_INPUT
}

/// Loads `--overheads FILE` when given; on a bad file, prints the
/// diagnostics and returns the bad-input code.
pub fn load_overheads(
    path: Option<&std::path::Path>,
) -> Result<Option<rtsync_analysis::Profile>, u8> {
    path.map(rtsync_analysis::Profile::load)
        .transpose()
        .map_err(|d| bad_input(&d))
}

/// The system a command analyses or simulates, as its arguments name it.
#[derive(clap::Args)]
pub struct Input {
    /// Spec file (TOML), or the name of a bundled example; the bundled
    /// four-CPU example when omitted.
    pub spec: Option<std::path::PathBuf>,
    /// Put every resource under this protocol first.
    #[arg(long, value_parser = check::parse_protocol)]
    pub protocol: Option<rtsync_model::Protocol>,
    /// Overhead profile (TOML) to charge where the analysis charges it:
    /// context switch, release, migration, lock and unlock per protocol.
    #[arg(long, value_name = "FILE")]
    pub overheads: Option<std::path::PathBuf>,
}

impl Input {
    /// The spec and the profile; on bad input, the diagnostics printed and
    /// the bad-input code.
    pub fn load(&self) -> Result<(crate::spec_arg::Loaded, Option<rtsync_analysis::Profile>), u8> {
        let loaded = crate::spec_arg::load(self.spec.as_deref(), self.protocol)
            .map_err(|d| bad_input(&d))?;
        Ok((loaded, load_overheads(self.overheads.as_deref())?))
    }
}

/// The long help of an `--analysis` flag: `head`, then the protocols that
/// have an LP form, read from the analysis crate (their one home).
pub fn lp_help(head: &str) -> String {
    format!(
        "{head}\n\nProtocols with an LP form: {} (the others keep their classic bounds).",
        lp_protocols()
    )
}

/// The names of the protocols that have an LP form, comma-separated.
pub fn lp_protocols() -> String {
    let names: Vec<&str> = rtsync_model::Protocol::ALL
        .into_iter()
        .filter(|&p| rtsync_analysis::blocking::has_lp_form(p))
        .map(rtsync_model::Protocol::name)
        .collect();
    names.join(", ")
}

/// Which bounds an experiment compares: the classic ones, the LP ones
/// (for the protocols that have them), or both side by side.
#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq, Debug)]
pub enum Forms {
    /// The closed-form bounds.
    Classic,
    /// The LP bounds, for the protocols that have one
    /// ([`rtsync_analysis::blocking::has_lp_form`]); others are left out.
    Lp,
    /// Each protocol with its classic bounds and, where it has them, its
    /// LP bounds beside.
    Both,
}

impl Forms {
    /// The curves of `p` under this choice, classic first.
    pub fn curves(self, p: rtsync_model::Protocol) -> Vec<rtsync_analysis::sweep::Curve> {
        use rtsync_analysis::sweep::Curve;
        let lp = rtsync_analysis::blocking::has_lp_form(p);
        match self {
            Forms::Classic => vec![Curve::One(p)],
            Forms::Lp if lp => vec![Curve::Lp(p)],
            Forms::Lp => vec![],
            Forms::Both if lp => vec![Curve::One(p), Curve::Lp(p)],
            Forms::Both => vec![Curve::One(p)],
        }
    }
}
