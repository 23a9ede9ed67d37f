//! The base-R dependency probe: one bounded `Rscript` (base package only) reporting R's version,
//! platform, library paths and, per declared package, present (with version) / missing / unknown.

use super::model::{PackageFacts, PackageState, Probe, Requirement};
use rho_plumbing::child::{self, Cut};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// Wall-time bound of a probe (seed: base-R dependency probes use 20 s / 1 MiB).
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(20);
/// Output bound of a probe.
pub const PROBE_MAX_OUTPUT: u64 = 1024 * 1024;

/// Base R only: no package but `base` is attached or loaded. Package names arrive as trailing
/// arguments, never inside the code.
const PROBE_R: &str = r#"a <- commandArgs(trailingOnly = TRUE)
cat("rho-probe\t1\n")
cat("r\t", R.version$major, ".", R.version$minor, "\n", sep = "")
cat("platform\t", R.version$platform, "\n", sep = "")
for (l in .libPaths()) cat("lib\t", l, "\n", sep = "")
for (p in a) {
  r <- tryCatch({
    d <- find.package(p, quiet = TRUE)
    if (length(d) == 0) "missing\t" else {
      v <- read.dcf(file.path(d[1], "DESCRIPTION"), fields = "Version")[1, 1]
      if (is.na(v)) "unknown\t" else paste0("present\t", v)
    }
  }, error = function(e) "unknown\t")
  cat("pkg\t", p, "\t", r, "\n", sep = "")
}
cat("end\n")
"#;

/// The command of a base-R `Rscript` with the project library first on `R_LIBS`.
pub fn rscript_command(rscript: &Path, library: &Path) -> Command {
    let mut c = Command::new(rscript);
    let mut libs = library.as_os_str().to_os_string();
    if let Some(old) = std::env::var_os("R_LIBS").filter(|v| !v.is_empty()) {
        libs.push(":");
        libs.push(old);
    }
    c.env("R_LIBS", libs);
    c
}

/// Runs the probe for `requirements` (blocking). `None` for Rscript means the whole probe is unknown.
pub fn probe(
    rscript: Option<&Path>,
    library: &Path,
    requirements: &[Requirement],
    now_ms: i64,
) -> Probe {
    let unknown = |reason: String| Probe::unknown(requirements, reason, now_ms);
    let Some(rscript) = rscript else {
        return unknown(
            "no Rscript was found (install R, or select one with --rscript / RHO_RSCRIPT)".into(),
        );
    };
    let mut cmd = rscript_command(rscript, library);
    cmd.args(["--vanilla", "--default-packages=base", "-e", PROBE_R]);
    cmd.args(requirements.iter().map(|r| r.package.as_str()));
    let out = match child::run(cmd, PROBE_TIMEOUT, PROBE_MAX_OUTPUT) {
        Ok(o) => o,
        Err(e) => return unknown(e.to_string()),
    };
    match out.cut {
        Some(Cut::Timeout) => {
            return unknown(format!(
                "the probe did not finish within {} s",
                PROBE_TIMEOUT.as_secs()
            ))
        }
        Some(Cut::OutputLimit) => {
            return unknown(format!(
                "the probe wrote more than {PROBE_MAX_OUTPUT} bytes"
            ))
        }
        None => {}
    }
    if out.exit_code != Some(0) {
        return unknown(format!(
            "Rscript exited with {:?}: {}",
            out.exit_code,
            out.stderr_tail(400)
        ));
    }
    match parse(&String::from_utf8_lossy(&out.stdout), requirements, now_ms) {
        Some(p) => p,
        None => unknown("the probe's output was not understood".into()),
    }
}

/// Parses the probe's lines; `None` when the output is not a complete probe.
fn parse(text: &str, requirements: &[Requirement], now_ms: i64) -> Option<Probe> {
    let mut lines = text.lines();
    if lines.next()? != "rho-probe\t1" {
        return None;
    }
    let mut probe = Probe {
        complete: true,
        reason: None,
        r_version: None,
        platform: None,
        library_paths: Vec::new(),
        time_ms: now_ms,
        packages: Vec::new(),
    };
    let mut found = std::collections::BTreeMap::new();
    let mut ended = false;
    for line in lines {
        let mut f = line.split('\t');
        match f.next()? {
            "r" => probe.r_version = f.next().map(str::to_string),
            "platform" => probe.platform = f.next().map(str::to_string),
            "lib" => probe.library_paths.push(f.next()?.to_string()),
            "pkg" => {
                let name = f.next()?.to_string();
                let state = f.next()?;
                let version = f.next().filter(|v| !v.is_empty()).map(str::to_string);
                found.insert(name, (state.to_string(), version));
            }
            "end" => ended = true,
            _ => return None,
        }
    }
    if !ended {
        return None;
    }
    for r in requirements {
        let (state, version) = found
            .get(&r.package)
            .cloned()
            .unwrap_or(("unknown".into(), None));
        let state = match state.as_str() {
            "present" => PackageState::Present,
            "missing" => PackageState::Missing,
            _ => PackageState::Unknown,
        };
        let meets_minimum = match (&state, &version, &r.minimum_version) {
            (PackageState::Present, Some(v), Some(min)) => Some(version_at_least(v, min)),
            (PackageState::Present, _, None) => Some(true),
            _ => None,
        };
        probe.packages.push(PackageFacts {
            requirement: r.clone(),
            state,
            version,
            meets_minimum,
        });
    }
    Some(probe)
}

/// R's package version order: numeric components separated by `.` or `-`.
pub fn version_at_least(version: &str, minimum: &str) -> bool {
    let parts = |s: &str| -> Vec<u64> {
        s.split(['.', '-'])
            .map(|p| p.trim().parse::<u64>().unwrap_or(0))
            .collect()
    };
    let (a, b) = (parts(version), parts(minimum));
    let n = a.len().max(b.len());
    for i in 0..n {
        let (x, y) = (
            a.get(i).copied().unwrap_or(0),
            b.get(i).copied().unwrap_or(0),
        );
        if x != y {
            return x > y;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_like_r() {
        assert!(version_at_least("1.8.4", "1.8.4"));
        assert!(version_at_least("1.10.0", "1.9"));
        assert!(!version_at_least("1.8.4", "1.8.10"));
        assert!(version_at_least("2.0-1", "2.0.0"));
        assert!(!version_at_least("0.9", "1"));
    }

    #[test]
    fn parses_a_probe_and_refuses_a_torn_one() {
        let reqs = vec![
            Requirement::cran("a", Some("2.0")),
            Requirement::cran("b", None),
            Requirement::cran("c", None),
        ];
        let text = "rho-probe\t1\nr\t4.2.2\nplatform\tx86_64-pc-linux-gnu\nlib\t/l\npkg\ta\tpresent\t1.5\npkg\tb\tmissing\t\npkg\tc\tunknown\t\nend\n";
        let p = parse(text, &reqs, 0).unwrap();
        assert_eq!(p.r_version.as_deref(), Some("4.2.2"));
        assert_eq!(p.packages[0].state, PackageState::Present);
        assert_eq!(p.packages[0].meets_minimum, Some(false));
        assert_eq!(p.packages[1].state, PackageState::Missing);
        assert_eq!(p.packages[2].state, PackageState::Unknown);
        assert!(parse(&text.replace("end\n", ""), &reqs, 0).is_none());
    }
}
