//! `kernel.place.check` on an ssh place: one bounded connection that reports the working folder,
//! R (with jsonlite) and Python with their versions, and the free space, or exactly why not.

use super::ssh::{quote, reason, SshPlace};
use super::PlaceError;
use rho_plumbing::child::{self, Cut};
use std::time::Duration;

/// Interpreters to look for: a known path on the server, else the one on its PATH.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Interpreters {
    pub rscript: Option<String>,
    pub python: Option<String>,
}

/// One interpreter found on the place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub path: String,
    /// The first line it printed of its version.
    pub version: String,
}

/// What a check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckReport {
    /// The login's working folder.
    pub cwd: String,
    pub r: Option<Found>,
    /// Whether R has jsonlite (the runner's one package); `None` without R.
    pub jsonlite: Option<bool>,
    pub python: Option<Found>,
    /// Free bytes in the working folder's file system.
    pub free_bytes: Option<u64>,
    pub elapsed_ms: u64,
}

/// The output a check may print.
const MAX_OUTPUT: u64 = 64 * 1024;

/// The check's POSIX sh script (run over ssh, or by `srun` where a Slurm run will run).
pub fn script(i: &Interpreters) -> Result<String, PlaceError> {
    let pick = |given: &Option<String>, name: &str| -> Result<String, PlaceError> {
        Ok(match given {
            Some(p) => quote(p)?,
            None => format!("\"$(command -v {name} 2>/dev/null)\""),
        })
    };
    let r = pick(&i.rscript, "Rscript")?;
    let py = pick(&i.python, "python3")?;
    Ok(format!(
        r#"printf 'cwd\t%s\n' "$(pwd)"
r={r}
if [ -n "$r" ] && [ -x "$r" ]; then
  printf 'rscript\t%s\n' "$r"
  printf 'rversion\t%s\n' "$("$r" --version 2>&1 | head -n 1)"
  printf 'jsonlite\t%s\n' "$("$r" -e 'cat(requireNamespace("jsonlite", quietly = TRUE))' 2>/dev/null)"
fi
p={py}
if [ -n "$p" ] && [ -x "$p" ]; then
  printf 'python\t%s\n' "$p"
  printf 'pyversion\t%s\n' "$("$p" --version 2>&1 | head -n 1)"
fi
printf 'free\t%s\n' "$(df -Pk . 2>/dev/null | awk 'NR==2 {{print $4}}')"
"#
    ))
}

fn parse(out: &str, elapsed_ms: u64) -> CheckReport {
    let mut report = CheckReport {
        cwd: String::new(),
        r: None,
        jsonlite: None,
        python: None,
        free_bytes: None,
        elapsed_ms,
    };
    let (mut rscript, mut rversion, mut python, mut pyversion) = (None, None, None, None);
    for line in out.lines() {
        let Some((key, value)) = line.split_once('\t') else {
            continue;
        };
        let value = value.trim().to_string();
        match key {
            "cwd" => report.cwd = value,
            "rscript" => rscript = Some(value),
            "rversion" => rversion = Some(value),
            "jsonlite" => report.jsonlite = Some(value == "TRUE"),
            "python" => python = Some(value),
            "pyversion" => pyversion = Some(value),
            "free" => report.free_bytes = value.parse::<u64>().ok().map(|k| k * 1024),
            _ => {}
        }
    }
    report.r = rscript.map(|path| Found {
        path,
        version: rversion.unwrap_or_default(),
    });
    report.python = python.map(|path| Found {
        path,
        version: pyversion.unwrap_or_default(),
    });
    if report.r.is_none() {
        report.jsonlite = None;
    }
    report
}

/// Connects within `timeout` and reports what the place has.
pub fn check(
    place: &SshPlace,
    interpreters: &Interpreters,
    timeout: Duration,
) -> Result<CheckReport, PlaceError> {
    place
        .prepare()
        .map_err(|e| PlaceError::Spawn(e.to_string()))?;
    check_command(place.command(&script(interpreters)?, timeout), timeout)
}

/// Runs a command that runs [`script`] somewhere, within `timeout`, and reads its report.
pub fn check_command(
    cmd: std::process::Command,
    timeout: Duration,
) -> Result<CheckReport, PlaceError> {
    let run = child::run(cmd, timeout, MAX_OUTPUT).map_err(|e| PlaceError::Spawn(e.to_string()))?;
    let elapsed_ms = u64::try_from(run.elapsed.as_millis()).unwrap_or(u64::MAX);
    match run.cut {
        Some(Cut::Timeout) => {
            return Err(PlaceError::Timeout {
                ms: u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
                printed: run.stderr_tail(400),
            })
        }
        Some(Cut::OutputLimit) => {
            return Err(PlaceError::Remote(
                "the login printed more than a check reads (64 KiB)".into(),
            ))
        }
        None => {}
    }
    if run.exit_code != Some(0) {
        return Err(PlaceError::from_exit(&run.stderr, run.exit_code));
    }
    Ok(parse(&String::from_utf8_lossy(&run.stdout), elapsed_ms))
}

impl PlaceError {
    /// The error of a failed ssh run: 255 is ssh's own (the connection), else the command's.
    pub fn from_exit(stderr: &[u8], code: Option<i32>) -> PlaceError {
        let why = reason(stderr, code);
        if code == Some(255) {
            PlaceError::Connect(why)
        } else {
            PlaceError::Remote(why)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_reads_its_lines() {
        let r = parse(
            "cwd\t/home/a\nrscript\t/usr/bin/Rscript\nrversion\tRscript (R) version 4.2.2\njsonlite\tTRUE\nfree\t10\n",
            5,
        );
        assert_eq!(r.cwd, "/home/a");
        assert_eq!(r.r.unwrap().path, "/usr/bin/Rscript");
        assert_eq!(r.jsonlite, Some(true));
        assert!(r.python.is_none());
        assert_eq!(r.free_bytes, Some(10240));
    }
}
