//! Durable file-system steps shared by owners: new directories fsynced into their parent.

use std::fs::{self, File};
use std::io;
use std::path::Path;

/// Creates `dir` (which must not exist) and fsyncs it into its parent.
pub fn create_dir_durable(dir: &Path) -> io::Result<()> {
    fs::create_dir(dir)?;
    File::open(dir)?.sync_all()?;
    if let Some(parent) = dir.parent() {
        File::open(parent)?.sync_all()?;
    }
    Ok(())
}
