//! `rtsync generate`: random systems written as spec files.

use super::{BAD_INPUT, OK};
use rtsync_analysis::generate::{GenConfig, generate};
use rtsync_model::{Protocol, to_toml};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Folder to write `sys-0000.toml`, ... into (created if missing).
    #[arg(long, default_value = "generated")]
    pub out: PathBuf,
    /// Number of systems.
    #[arg(long, default_value_t = 10)]
    pub count: u64,
    /// Seed: the same seed and options give the same systems.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Total utilization.
    #[arg(long, default_value_t = 2.0)]
    pub utilization: f64,
    #[arg(long, default_value = "mpcp", value_parser = super::check::parse_protocol)]
    pub protocol: Protocol,
    #[command(flatten)]
    pub shape: Shape,
}

/// The shape of random systems, shared by `generate` and the
/// schedulability sweep: the library's description, as clap options.
pub use rtsync_analysis::generate::ShapeSpec as Shape;

/// The generator's configuration, or what is wrong with the shape.
pub fn config(a: &Shape, protocol: Protocol, utilization: f64) -> Result<GenConfig, String> {
    a.config(protocol, utilization)
}

pub fn run(a: Args) -> u8 {
    let c = match config(&a.shape, a.protocol, a.utilization) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}\n  hint: see `rtsync generate --help`");
            return BAD_INPUT;
        }
    };
    if let Err(e) = std::fs::create_dir_all(&a.out) {
        eprintln!("error: cannot create {}: {e}", a.out.display());
        return BAD_INPUT;
    }
    let bar = indicatif::ProgressBar::new(a.count);
    for i in 0..a.count {
        let sys = generate(&c, a.seed, i);
        let path = a.out.join(format!("sys-{i:04}.toml"));
        let text = format!(
            "# rtsync generate --seed {} (system {i}); regenerate with the same options\n{}",
            a.seed,
            to_toml(&sys)
        );
        if let Err(e) = std::fs::write(&path, text) {
            bar.abandon();
            eprintln!("error: cannot write {}: {e}", path.display());
            return BAD_INPUT;
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    println!("wrote {} system(s) to {}", a.count, a.out.display());
    OK
}

#[cfg(test)]
mod tests {
    use super::Shape;
    use clap::{FromArgMatches, Parser};

    #[derive(Parser)]
    struct Probe {
        #[command(flatten)]
        shape: Shape,
    }

    /// The command line's defaults are the library's, which a shard file
    /// or Python gets when it leaves an option out.
    #[test]
    fn command_line_defaults_are_the_library_defaults() {
        let m = <Probe as clap::CommandFactory>::command().get_matches_from(["probe"]);
        let p = Probe::from_arg_matches(&m).unwrap();
        assert_eq!(p.shape, Shape::default());
        let p = Probe::parse_from(["probe", "--cpus", "2", "--cs", "1us,5us"]);
        assert_eq!((p.shape.cpus, p.shape.cs.as_str()), (2, "1us,5us"));
    }
}
