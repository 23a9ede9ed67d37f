//! A managed run's files on a Slurm login node (issue 19): its inputs put into the run's folder
//! there over the place's ssh (each checked by its SHA-256 there), and a log read back bounded
//! (the head kept, the cut stated).

use super::ssh::{quote, SshPlace};
use super::PlaceError;
use rho_plumbing::child::{self, Cut};
use sha2::{Digest, Sha256};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

fn timeout_error(timeout: Duration, run: &child::Bounded) -> PlaceError {
    PlaceError::Timeout {
        ms: u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
        printed: run.stderr_tail(400),
    }
}

/// The SHA-256 (lowercase hex) of a local file, read as it streams.
fn digest(local: &Path) -> Result<String, PlaceError> {
    let mut file = std::fs::File::open(local).map_err(|e| PlaceError::Local(e.to_string()))?;
    let mut hash = Sha256::new();
    std::io::copy(&mut file, &mut hash).map_err(|e| PlaceError::Local(e.to_string()))?;
    Ok(rho_plumbing::hex::encode(&hash.finalize()))
}

/// Puts the local file `local` at `remote` on the place (its folders made; written beside and
/// renamed, so a cut transfer leaves no half file under that name), then checks its SHA-256
/// there. Returns the digest.
pub fn put(
    place: &SshPlace,
    local: &Path,
    remote: &str,
    timeout: Duration,
) -> Result<String, PlaceError> {
    place
        .prepare()
        .map_err(|e| PlaceError::Spawn(e.to_string()))?;
    let want = digest(local)?;
    let script = format!(
        "f={}\nmkdir -p -- \"$(dirname -- \"$f\")\" && cat > \"$f.part\" && mv -f -- \"$f.part\" \"$f\" && sha256sum -- \"$f\"",
        quote(remote)?
    );
    let file = std::fs::File::open(local).map_err(|e| PlaceError::Local(e.to_string()))?;
    let run = child::run_fed(
        place.command(&script, timeout),
        Stdio::from(file),
        timeout,
        64 * 1024,
    )
    .map_err(|e| PlaceError::Spawn(e.to_string()))?;
    if run.cut == Some(Cut::Timeout) {
        return Err(timeout_error(timeout, &run));
    }
    if run.exit_code != Some(0) {
        return Err(PlaceError::from_exit(&run.stderr, run.exit_code));
    }
    let got = String::from_utf8_lossy(&run.stdout);
    match got.split_whitespace().next() {
        Some(sha) if sha == want => Ok(want),
        _ => Err(PlaceError::Remote(format!(
            "{remote} arrived with another digest ({}) than it was sent with ({want})",
            got.trim()
        ))),
    }
}

/// A name beside `dest` no other reader uses (two looks at one run may read back at once); the
/// file is renamed over `dest` when whole.
pub fn beside(dest: &Path) -> std::path::PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let mut name = dest.file_name().unwrap_or_default().to_os_string();
    name.push(format!(
        ".part-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    dest.with_file_name(name)
}

/// A log as it was read back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Head {
    /// The file's size there.
    pub size: u64,
    /// The bytes kept here (the head).
    pub kept: u64,
    /// The file there is longer than the bound: only its head was kept.
    pub truncated: bool,
}

fn parse_head(out: &[u8]) -> Option<(u64, &[u8])> {
    let nl = out.iter().position(|b| *b == b'\n')?;
    let size = std::str::from_utf8(&out[..nl]).ok()?.trim().parse().ok()?;
    Some((size, &out[nl + 1..]))
}

/// Reads at most `max` bytes of the head of `remote` into `dest` (replaced whole); `None` when
/// there is no such file there (yet).
pub fn head(
    place: &SshPlace,
    remote: &str,
    dest: &Path,
    max: u64,
    timeout: Duration,
) -> Result<Option<Head>, PlaceError> {
    place
        .prepare()
        .map_err(|e| PlaceError::Spawn(e.to_string()))?;
    let script = format!(
        "f={}\n[ -f \"$f\" ] || exit 3\nstat -L -c %s -- \"$f\" && head -c {max} -- \"$f\"",
        quote(remote)?
    );
    let run = child::run(place.command(&script, timeout), timeout, max + 32)
        .map_err(|e| PlaceError::Spawn(e.to_string()))?;
    if run.cut == Some(Cut::Timeout) {
        return Err(timeout_error(timeout, &run));
    }
    match run.exit_code {
        Some(0) => {}
        Some(3) => return Ok(None),
        code => return Err(PlaceError::from_exit(&run.stderr, code)),
    }
    let (size, body) = parse_head(&run.stdout)
        .ok_or_else(|| PlaceError::Remote(format!("reading {remote} back printed no size")))?;
    let body = &body[..body.len().min(usize::try_from(max).unwrap_or(usize::MAX))];
    let part = beside(dest);
    std::fs::write(&part, body)
        .and_then(|()| std::fs::rename(&part, dest))
        .map_err(|e| PlaceError::Local(e.to_string()))?;
    Ok(Some(Head {
        size,
        kept: body.len() as u64,
        truncated: size > max,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_reads_its_size_line_then_the_bytes() {
        let (size, body) = parse_head(b"12\nhello\nworld").unwrap();
        assert_eq!((size, body), (12, &b"hello\nworld"[..]));
        assert!(parse_head(b"no size").is_none());
    }
}
