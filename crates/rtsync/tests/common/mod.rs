//! Running the binary as a user does, shared by the CLI tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
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

/// A folder of one test's own under the system's temporary folder,
/// removed with everything in it when the value drops, a panicking
/// test's too: the suite leaves nothing behind.
pub fn scratch(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("rtsync-{name}-"))
        .tempdir()
        .expect("a temporary folder")
}

/// A file written for one test, in a [`scratch`] folder of its own that
/// goes with it.
pub struct Temp {
    path: PathBuf,
    _dir: tempfile::TempDir,
}

impl Temp {
    /// `name` inside this path, keeping the folder alive as long.
    pub fn inside(self, name: &str) -> Temp {
        Temp {
            path: self.path.join(name),
            _dir: self._dir,
        }
    }
}

impl AsRef<Path> for Temp {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl std::ops::Deref for Temp {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

/// A path `name` inside a [`scratch`] folder of its own, not yet made:
/// where a command writes its output folder.
pub fn out(name: &str) -> Temp {
    let dir = scratch(name);
    Temp {
        path: dir.path().join(name),
        _dir: dir,
    }
}

pub fn temp(name: &str, content: &str) -> Temp {
    let dir = scratch("cli");
    let path = dir.path().join(name);
    std::fs::write(&path, content).unwrap();
    Temp { path, _dir: dir }
}
