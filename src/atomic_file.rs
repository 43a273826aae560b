//! Writing a report or bundle to a path the user named, the way `>` would: through
//! symlinks, straight into devices and FIFOs, and with the umask's mode for new files,
//! while a regular file is still replaced atomically (readers see the old file or the
//! whole new one, never a half-written one). Every secret is hidden on the way
//! (see [`crate::secret`]), whatever pieces the bytes are written in.

use std::fs::{self, OpenOptions, Permissions};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::secret::Redacting;

/// How many links to follow before giving up, as the kernel does (ELOOP).
const MAX_LINKS: usize = 40;

/// The mode asked for when creating a file; the kernel takes the umask off.
const NEW_FILE_MODE: u32 = 0o666;

/// Writes `bytes` to `path`. A symlink is followed and its target written; anything
/// that exists and is not a regular file (a device, a FIFO) is written directly; a
/// regular file, existing or new, gets a synced temporary file beside it that is then
/// renamed over it, keeping an existing file's mode (and owner, where allowed).
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with(path, |out| out.write_all(bytes))
}

/// As [`write_atomic`], with the bytes written by `fill` as it makes them, through a
/// buffer: a large report is never held whole in memory.
pub(crate) fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let target = follow_links(path)?;
    match fs::metadata(&target) {
        Ok(meta) if !meta.is_file() => write_in_place(&target, fill),
        Ok(meta) => replace(&target, fill, Some(&meta)),
        Err(err) if err.kind() == io::ErrorKind::NotFound => replace(&target, fill, None),
        Err(err) => Err(err),
    }
}

/// The path a chain of symlinks ends at (which may not exist yet).
fn follow_links(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = fs::read_link(&current)?;
                current = match current.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            Ok(_) => return Ok(current),
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(current),
            Err(err) => return Err(err),
        }
    }
    Err(io::Error::other(format!(
        "more than {MAX_LINKS} symbolic links to follow"
    )))
}

/// Renaming over a device or FIFO would replace the node itself, so write into it.
fn write_in_place(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let file = OpenOptions::new().write(true).truncate(true).open(path)?;
    let mut out = Redacting::new(BufWriter::new(file));
    fill(&mut out)?;
    out.finish()?;
    Ok(())
}

/// Temporary file beside `path`, synced, then renamed over it.
fn replace(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    existing: Option<&fs::Metadata>,
) -> io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut file = tempfile::Builder::new()
        .permissions(Permissions::from_mode(NEW_FILE_MODE))
        .tempfile_in(dir)?;
    if let Some(meta) = existing {
        // Best effort: only root may give a file away; the mode is ours to keep.
        let _ = std::os::unix::fs::fchown(file.as_file(), Some(meta.uid()), Some(meta.gid()));
        file.as_file()
            .set_permissions(Permissions::from_mode(meta.mode() & 0o7777))?;
    }
    let mut out = Redacting::new(BufWriter::new(file.as_file_mut()));
    fill(&mut out)?;
    drop(out.finish()?);
    file.as_file().sync_all()?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_file_and_leaves_no_temporary_behind() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("report.json");
        std::fs::write(&path, "old").expect("write");
        write_atomic(&path, b"new").expect("atomic write");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "new");
        assert_eq!(std::fs::read_dir(dir.path()).expect("list").count(), 1);
    }

    #[test]
    fn a_chain_of_relative_links_is_followed_to_a_new_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
        std::os::unix::fs::symlink("sub/second", dir.path().join("first")).expect("link");
        std::os::unix::fs::symlink("report", dir.path().join("sub/second")).expect("link");
        write_atomic(&dir.path().join("first"), b"data").expect("write");
        let report = dir.path().join("sub/report");
        assert_eq!(std::fs::read_to_string(report).expect("read"), "data");
        let second = std::fs::symlink_metadata(dir.path().join("sub/second")).expect("stat");
        assert!(second.file_type().is_symlink());
    }

    #[test]
    fn a_link_loop_is_an_error_not_a_hang() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::os::unix::fs::symlink("b", dir.path().join("a")).expect("link");
        std::os::unix::fs::symlink("a", dir.path().join("b")).expect("link");
        assert!(write_atomic(&dir.path().join("a"), b"x").is_err());
    }
}
