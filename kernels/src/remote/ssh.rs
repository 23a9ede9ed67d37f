//! An ssh place: the person's own `ssh` (their config, keys and agent; Rho stores no password or
//! key), one multiplexed connection per place, and remote commands as quoted POSIX shell text.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// How an ssh place is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SshPlace {
    /// The ssh program (`--ssh` / `RHO_SSH`, default `ssh`).
    pub program: PathBuf,
    /// The destination as the person's ssh understands it (`host`, `user@host`, a config alias).
    pub destination: String,
    /// Extra ssh arguments before the destination (e.g. `-p 2222`); never a secret.
    pub args: Vec<String>,
    /// Where the multiplexing control socket lives (private to the service).
    pub control_dir: PathBuf,
}

/// A remote path or argument Rho cannot pass safely.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadArgument(pub String);

/// Quotes `s` for a POSIX shell as one word; NUL and newlines are refused.
pub fn quote(s: &str) -> Result<String, BadArgument> {
    if s.contains(['\0', '\n', '\r']) {
        return Err(BadArgument(format!(
            "{s:?} holds a NUL or a line break, which a remote path cannot carry here"
        )));
    }
    Ok(format!("'{}'", s.replace('\'', "'\\''")))
}

impl SshPlace {
    /// The ssh command that runs `script` (POSIX sh text) on the place, within `connect` for the
    /// connection itself. Batch mode: never a password prompt.
    pub fn command(&self, script: &str, connect: Duration) -> Command {
        let mut cmd = Command::new(&self.program);
        let secs = connect.as_secs().max(1);
        cmd.args(["-o", "BatchMode=yes"])
            .args(["-o", &format!("ConnectTimeout={secs}")])
            .args(["-o", "ControlMaster=auto"])
            .args([
                "-o",
                &format!("ControlPath={}", self.control_path().display()),
            ])
            .args(["-o", "ControlPersist=60"])
            .args(&self.args)
            .arg("--")
            .arg(&self.destination)
            .arg(script);
        cmd
    }

    /// `%C` is ssh's own hash of the connection: short, and never the destination in clear.
    fn control_path(&self) -> PathBuf {
        self.control_dir.join("%C")
    }

    /// Ends the multiplexing master, if one runs.
    pub fn close(&self) {
        let _ = Command::new(&self.program)
            .args([
                "-o",
                &format!("ControlPath={}", self.control_path().display()),
            ])
            .args(&self.args)
            .args(["-O", "exit", "--", &self.destination])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
    }

    /// The control folder, created private (0700); one that is not a folder of this user's
    /// own that no one else may write is refused (a short folder under `/tmp` could be made by
    /// anyone).
    pub fn prepare(&self) -> std::io::Result<()> {
        use std::os::unix::fs::{DirBuilderExt, MetadataExt};
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.control_dir)?;
        let m = std::fs::symlink_metadata(&self.control_dir)?;
        if !m.is_dir() || m.uid() != nix::unistd::geteuid().as_raw() || m.mode() & 0o022 != 0 {
            return Err(std::io::Error::other(format!(
                "ssh's control folder {} is not a folder of this user's that only it may write",
                self.control_dir.display()
            )));
        }
        Ok(())
    }
}

/// The longest control folder whose sockets fit a Unix socket's path (107 bytes and a NUL):
/// ssh names a socket by its 40-hex `%C` and adds a 17-byte suffix while it binds it.
pub const MAX_CONTROL_DIR: usize = 107 - 1 - 40 - 17;

/// The folder of ssh's control sockets for the service whose state is `state`: `<state>/ssh`,
/// or, when that path is too long for a socket, `/tmp/rho-ssh-<uid>-<hash of it>` (0700, checked
/// to be this user's own, writable by no one else, when used).
pub fn control_folder(state: &Path) -> PathBuf {
    use sha2::{Digest, Sha256};
    use std::os::unix::ffi::OsStrExt;
    let own = state.join("ssh");
    if own.as_os_str().len() <= MAX_CONTROL_DIR {
        return own;
    }
    let hash = rho_plumbing::hex::encode(&Sha256::digest(own.as_os_str().as_bytes()));
    PathBuf::from(format!(
        "/tmp/rho-ssh-{}-{}",
        nix::unistd::geteuid().as_raw(),
        &hash[..16]
    ))
}

/// What an ssh run printed on stderr, as the reason it failed (the login's words).
pub fn reason(stderr: &[u8], code: Option<i32>) -> String {
    let text = String::from_utf8_lossy(stderr);
    let last: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = last[last.len().saturating_sub(4)..].join("; ");
    match (code, tail.is_empty()) {
        (Some(255), false) => format!("ssh could not connect: {tail}"),
        (Some(255), true) => "ssh could not connect".to_string(),
        (Some(c), false) => format!("the remote command failed (exit {c}): {tail}"),
        (Some(c), true) => format!("the remote command failed (exit {c})"),
        (None, _) => "ssh was killed".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_keeps_one_word_and_refuses_line_breaks() {
        assert_eq!(quote("a b").unwrap(), "'a b'");
        assert_eq!(quote("it's").unwrap(), "'it'\\''s'");
        assert!(quote("a\nb").is_err());
    }

    #[test]
    fn a_long_state_folder_gets_a_short_control_folder() {
        let short = Path::new("/var/lib/rho");
        assert_eq!(control_folder(short), short.join("ssh"));
        let long = PathBuf::from(format!("/home/someone/{}", "x".repeat(80)));
        let c = control_folder(&long);
        assert!(c.starts_with("/tmp"), "{}", c.display());
        assert!(c.as_os_str().len() <= MAX_CONTROL_DIR);
        assert_eq!(c, control_folder(&long), "the same state, the same folder");
        assert_ne!(c, control_folder(&long.join("other")));
    }
}
