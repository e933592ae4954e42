//! Writing what a person will open: each file whole or not at all.

use std::path::Path;

/// Writes `text` to `dir/name` whole or not at all: into a hidden partial
/// file beside it first, renamed over the name once written (a rename
/// within a folder is atomic), so a reader never finds half a page and an
/// interrupted run leaves no file that looks complete.
pub fn write_whole(dir: &Path, name: &str, text: &str) -> std::io::Result<()> {
    let part = dir.join(format!(".{name}.partial"));
    std::fs::write(&part, text)
        .and_then(|()| std::fs::rename(&part, dir.join(name)))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&part);
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file holds the text, and no partial file is left beside it;
    /// into a folder that does not exist, nothing is written at all.
    #[test]
    fn a_file_is_written_whole_and_nothing_is_left_over() {
        let dir = std::env::temp_dir().join(format!("rtsync-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        write_whole(&dir, "a.txt", "hello").unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("a.txt")).unwrap(), "hello");
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["a.txt"]);
        let missing = dir.join("no-such-folder");
        assert!(write_whole(&missing, "b.txt", "x").is_err());
        assert!(!missing.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
