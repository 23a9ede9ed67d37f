//! Tidy checks that keep the code base's habits: every source file says its one job in a `//!` line.

// Test code: an unwrap or expect that fails is a failing test (clippy.toml cannot see helpers here).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if name == "target" || name.to_string_lossy().starts_with('.') || name == "node_modules" {
            continue;
        }
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_rust_file_opens_with_a_doc_line_saying_its_job() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(root, &mut files);
    assert!(files.len() > 10, "found only {} files", files.len());
    let missing: Vec<String> = files
        .iter()
        .filter(|f| {
            let text = std::fs::read_to_string(f).unwrap_or_default();
            !text.lines().next().is_some_and(|l| l.starts_with("//!"))
        })
        .map(|f| f.strip_prefix(root).unwrap_or(f).display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "files without a leading //! line: {missing:?}"
    );
}

#[test]
fn the_journal_crate_names_no_actor_or_http_crate() {
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("journal/Cargo.toml"))
            .unwrap();
    for forbidden in ["actix", "tokio", "rmcp", "hyper", "sled"] {
        assert!(
            !manifest.contains(forbidden),
            "journal/Cargo.toml mentions {forbidden}"
        );
    }
}

#[test]
fn the_kernels_crate_names_no_actor_async_or_sled_crate() {
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/Cargo.toml"))
            .unwrap();
    for forbidden in ["actix", "tokio", "sled"] {
        assert!(
            !manifest.contains(forbidden),
            "kernels/Cargo.toml mentions {forbidden}"
        );
    }
}
