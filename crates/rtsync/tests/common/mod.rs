//! Running the binary as a user does, shared by the CLI tests.
#![allow(dead_code)]

use std::process::{Command, Output};

pub fn rtsync(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rtsync"))
        .args(args)
        .output()
        .expect("run rtsync")
}

pub fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

pub fn temp(name: &str, content: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rtsync-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p
}
