//! `rtsync reproduce`: the papers' tables and figures on this machine
//! (`rtsync_bench::reproduce` holds the targets).

use super::{BAD_INPUT, ENVIRONMENT, OK};
use rtsync_bench::reproduce::{Config, Status, TARGETS, run as run_target};
use std::path::PathBuf;

#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
rtsync reproduce --list\n  \
rtsync reproduce 004-figs3-4 --quick            (a small sample, about a second; the full run about half a minute)\n  \
rtsync bench locks --profile overheads.toml && rtsync reproduce 004-figs3-4 --overheads overheads.toml\n\n\
Each target writes DIR/NAME/ (a CSV, SVG figures, notes.txt setting the published result beside\n\
the measured one, index.html) and refreshes DIR/index.html. A rerun with unchanged inputs\n\
(target, mode, overhead profile, rtsync version) redoes nothing; --force redoes it.")]
pub struct Args {
    /// The target to run (`--list` names them).
    #[arg(required_unless_present_any = ["list", "peer"])]
    pub name: Option<String>,
    /// List the targets and whether each runs yet.
    #[arg(long)]
    pub list: bool,
    /// A small sample (what CI runs) instead of the paper's full experiment.
    #[arg(long)]
    pub quick: bool,
    /// Folder for the targets' folders and the index.
    #[arg(long, default_value = "reproduce")]
    pub out: PathBuf,
    /// This machine's overhead profile, measured by `rtsync bench locks
    /// --profile FILE`, for the curves with overheads.
    #[arg(long, value_name = "FILE")]
    pub overheads: Option<PathBuf>,
    /// Redo the target even when its inputs have not changed.
    #[arg(long)]
    pub force: bool,
    /// The other side of a channel in its own process (002-tables starts
    /// this program so): KIND:NAME:OPS.
    #[arg(long, hide = true, value_name = "KIND:NAME:OPS")]
    pub peer: Option<String>,
}

pub fn run(a: Args) -> u8 {
    if let Some(spec) = &a.peer {
        return match rtsync_bench::reproduce::peer(spec) {
            Ok(()) => OK,
            Err(e) => {
                eprintln!("error: {e}");
                BAD_INPUT
            }
        };
    }
    if a.list {
        for t in &TARGETS {
            let state = match t.status {
                Status::Ready => format!("ready; needs {}", t.needs),
                Status::NotBuilt(why) => format!("not built yet ({why})"),
                Status::WaitsOn(what) => format!("waits on {what}"),
            };
            println!("{:<12} {}\n{:<12} {state}", t.name, t.what, "");
        }
        return OK;
    }
    let name = a.name.expect("clap requires a name without --list");
    let c = Config {
        name,
        quick: a.quick,
        out: a.out,
        overheads: a.overheads,
        force: a.force,
    };
    match run_target(&c) {
        Ok(o) => {
            if o.cached {
                println!(
                    "{}: up to date (inputs unchanged; --force redoes it)",
                    o.dir.display()
                );
            } else {
                println!("{}", o.note);
                println!("wrote {}: {}", o.dir.display(), o.files.join(", "));
            }
            println!("open {}", o.dir.join("index.html").display());
            OK
        }
        Err(rtsync_bench::Error::BadInput(m)) => {
            eprintln!("error: {m}");
            BAD_INPUT
        }
        Err(rtsync_bench::Error::Environment(m)) => {
            eprintln!("error: {m}");
            ENVIRONMENT
        }
    }
}
