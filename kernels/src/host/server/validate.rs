//! Shape checks of a delivered [`RunSpec`] before anything is written: names the Host turns into
//! paths, absolute folders inside the project, relative artifact paths, sane bounds.

use crate::host::paths;
use crate::host::proto::RunSpec;
use std::path::{Component, Path};

/// Largest script the Host accepts (the service enforces its own, lower `r.maxScriptBytes`).
pub(crate) const MAX_SCRIPT_BYTES: usize = 16 << 20;
/// Most declared artifacts the Host accepts (the service enforces `maxArtifactFiles`).
pub(crate) const MAX_ARTIFACTS: usize = 4096;
/// Longest stop grace the Host accepts.
pub(crate) const MAX_STOP_GRACE_MS: u64 = 600_000;

/// `Err` names the field and the problem.
pub(crate) fn check(spec: &RunSpec, project: &Path) -> Result<(), String> {
    paths::check_operation_id(&spec.operation_id)?;
    let digest = &spec.request_digest;
    if digest.len() != 64
        || !digest
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    {
        return Err("requestDigest must be 64 lowercase hexadecimal characters".into());
    }
    if spec.rscript.as_os_str().is_empty() {
        return Err("rscript must not be empty".into());
    }
    paths::check_script_name(&spec.script_name)?;
    if spec.script.len() > MAX_SCRIPT_BYTES {
        return Err(format!(
            "script is {} bytes; the Host accepts at most {MAX_SCRIPT_BYTES}",
            spec.script.len()
        ));
    }
    inside("runDirectory", &spec.run_directory, project)?;
    inside("workingDirectory", &spec.working_directory, project)?;
    inside(
        "outputDirectory",
        &spec.output_directory,
        &spec.run_directory,
    )?;
    if spec.output_directory == spec.run_directory {
        return Err("outputDirectory must be below runDirectory".into());
    }
    plain_absolute("library", &spec.library)?;
    if spec.artifacts.len() > MAX_ARTIFACTS {
        return Err(format!(
            "{} artifacts declared; the Host accepts at most {MAX_ARTIFACTS}",
            spec.artifacts.len()
        ));
    }
    for (i, a) in spec.artifacts.iter().enumerate() {
        let p = Path::new(a);
        let relative = !a.is_empty() && p.components().all(|c| matches!(c, Component::Normal(_)));
        if !relative {
            return Err(format!(
                "artifacts[{i}] {a:?} must be a relative path inside the output directory"
            ));
        }
    }
    if spec.stop_grace_ms > MAX_STOP_GRACE_MS {
        return Err(format!(
            "stopGraceMs {} exceeds {MAX_STOP_GRACE_MS}",
            spec.stop_grace_ms
        ));
    }
    Ok(())
}

fn plain_absolute(field: &str, p: &Path) -> Result<(), String> {
    let plain = p.is_absolute()
        && p.components()
            .all(|c| matches!(c, Component::RootDir | Component::Normal(_)));
    if !plain {
        return Err(format!(
            "{field} {} must be an absolute path without . or ..",
            p.display()
        ));
    }
    Ok(())
}

fn inside(field: &str, p: &Path, base: &Path) -> Result<(), String> {
    plain_absolute(field, p)?;
    if !p.starts_with(base) {
        return Err(format!(
            "{field} {} must be inside {}",
            p.display(),
            base.display()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn spec() -> RunSpec {
        RunSpec {
            operation_id: "op-1".into(),
            request_digest: "a".repeat(64),
            rscript: "Rscript".into(),
            script_name: "analysis.R".into(),
            script: "1".into(),
            run_directory: "/p/runs/op-1".into(),
            output_directory: "/p/runs/op-1/artifacts".into(),
            args: vec![],
            working_directory: "/p".into(),
            library: "/p/.rho/library".into(),
            artifacts: vec!["out.csv".into(), "fig/a.png".into()],
            max_log_bytes: 1024,
            stop_grace_ms: 3000,
        }
    }

    #[test]
    fn accepts_a_plain_spec() {
        check(&spec(), Path::new("/p")).unwrap();
    }

    #[test]
    fn refusals_name_the_field() {
        let project = PathBuf::from("/p");
        type Case = (fn(&mut RunSpec), &'static str);
        let cases: Vec<Case> = vec![
            (|s| s.operation_id = "../x".into(), "operationId"),
            (|s| s.request_digest = "XYZ".into(), "requestDigest"),
            (|s| s.script_name = "record.json".into(), "scriptName"),
            (|s| s.run_directory = "/elsewhere/op".into(), "runDirectory"),
            (
                |s| s.run_directory = "/p/runs/../../x".into(),
                "runDirectory",
            ),
            (
                |s| s.output_directory = "/p/other".into(),
                "outputDirectory",
            ),
            (
                |s| s.working_directory = "relative".into(),
                "workingDirectory",
            ),
            (
                |s| s.artifacts = vec!["../escape.csv".into()],
                "artifacts[0]",
            ),
            (|s| s.artifacts = vec!["/abs.csv".into()], "artifacts[0]"),
            (|s| s.stop_grace_ms = 10_000_000, "stopGraceMs"),
        ];
        for (change, field) in cases {
            let mut s = spec();
            change(&mut s);
            let err = check(&s, &project).unwrap_err();
            assert!(err.contains(field), "{field}: {err}");
        }
    }
}
