//! R for the managed-run tests: a local CRAN-like package repository built with real R.

use std::path::Path;
use std::process::Command;

/// Builds a file-based CRAN-like repository holding `rhotiny` at `version` (`R CMD build` +
/// `tools::write_PACKAGES`); answers its `file://` URL.
pub fn local_repo(dir: &Path, version: &str) -> String {
    let src = dir.join("rhotiny");
    std::fs::create_dir_all(src.join("R")).unwrap();
    std::fs::write(
        src.join("DESCRIPTION"),
        format!("Package: rhotiny\nVersion: {version}\nTitle: A Tiny Test Package\nDescription: Used by Rho's tests.\nAuthors@R: person(\"Rho\", \"Tests\", email = \"t@example.org\", role = c(\"aut\", \"cre\"))\nLicense: MIT\nEncoding: UTF-8\n"),
    )
    .unwrap();
    std::fs::write(src.join("NAMESPACE"), "export(tiny)\n").unwrap();
    std::fs::write(src.join("R").join("tiny.R"), "tiny <- function() 42\n").unwrap();
    let contrib = dir.join("repo").join("src").join("contrib");
    std::fs::create_dir_all(&contrib).unwrap();
    let out = Command::new("R")
        .args(["CMD", "build", "--no-build-vignettes", "--no-manual"])
        .arg(&src)
        .current_dir(&contrib)
        .output()
        .expect("R CMD build runs (R is installed by scripts/test)");
    assert!(
        out.status.success(),
        "R CMD build: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new("Rscript")
        .args([
            "-e",
            "tools::write_PACKAGES(commandArgs(TRUE)[1], type = 'source')",
        ])
        .arg(&contrib)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "write_PACKAGES: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    format!("file://{}", dir.join("repo").display())
}
