//! The Slurm job-array example of docs/SWEEPS.md, run for real: the array
//! writes one part per task, `rtsync merge` adds them up, and the result
//! is the single run's, byte for byte. Needs a running Slurm cluster
//! (`scripts/slurm/local-cluster.sh start` makes one on this machine, as
//! CI does); skips with a message where there is none.

mod common;
use common::rtsync;
use std::path::PathBuf;
use std::process::Command;

fn slurm_up() -> Result<(), String> {
    let sinfo = Command::new("sinfo").args(["-h", "-o", "%t"]).output();
    match sinfo {
        Err(_) => Err(
            "no sinfo: Slurm is not installed (Debian: slurmctld slurmd slurm-client munge)".into(),
        ),
        Ok(o) if !o.status.success() => Err(format!(
            "Slurm does not answer ({}); scripts/slurm/local-cluster.sh start",
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Ok(o) => {
            let s = String::from_utf8_lossy(&o.stdout);
            if s.lines()
                .any(|l| matches!(l.trim(), "idle" | "mix" | "alloc"))
            {
                Ok(())
            } else {
                Err(format!("no Slurm node is up (sinfo: {})", s.trim()))
            }
        }
    }
}

#[test]
fn a_slurm_job_array_gives_the_single_runs_files() {
    if let Err(why) = slurm_up() {
        eprintln!("skipped: {why}");
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = std::env::temp_dir().join(format!("rtsync-slurm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let opts = [
        "--protocols",
        "mpcp,msrp",
        "--sets",
        "12",
        "--cpus",
        "2",
        "--tasks",
        "6",
    ];
    let parts = dir.join("parts");
    let status = Command::new("sbatch")
        .args(["--wait", "--array=0-4", "--time=5"])
        .arg(format!("--output={}/slurm-%A_%a.out", dir.display()))
        .arg(root.join("scripts/slurm/sweep.sbatch"))
        .arg(&parts)
        .args(opts)
        .env("RTSYNC", env!("CARGO_BIN_EXE_rtsync"))
        .status()
        .expect("run sbatch");
    assert!(
        status.success(),
        "the job array failed; see {}",
        dir.display()
    );
    let merged = dir.join("merged");
    let o = rtsync(&[
        "merge",
        parts.to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let whole = dir.join("whole");
    let mut args = vec!["experiment", "schedulability"];
    args.extend(opts);
    args.extend(["--out", whole.to_str().unwrap()]);
    assert!(rtsync(&args).status.success());
    for f in ["schedulability.csv", "schedulability.svg"] {
        assert!(
            std::fs::read(whole.join(f)).unwrap() == std::fs::read(merged.join(f)).unwrap(),
            "{f} differs"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
