//! Tidy checks that keep the code base's habits: every source file says its one job in a `//!` line.

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

/// The edge is thin: a handler parses, sends a message to an actor and maps the reply. It never
/// touches a project's files, spawns a process or names a journal type (issue 12).
#[test]
fn http_handlers_touch_no_files_processes_or_journal() {
    const FORBIDDEN: [&str; 4] = ["std::fs", "std::process", "tokio::process", "rho_journal"];
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("api/src/handlers");
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    assert!(files.len() > 10, "found only {} handler files", files.len());
    let mut found = Vec::new();
    for f in &files {
        let name = f.strip_prefix(&dir).unwrap_or(f).display().to_string();
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            // `use std::{fs, ...}` and `use tokio::{process, ...}` name the module in a group.
            let grouped = ["std::{", "tokio::{"].iter().any(|g| {
                code.split(g).nth(1).is_some_and(|rest| {
                    rest.split(|c: char| !c.is_alphanumeric() && c != '_')
                        .any(|w| w == "fs" || w == "process")
                })
            });
            if grouped || FORBIDDEN.iter().any(|p| code.contains(p)) {
                found.push(format!("{name}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "handlers under api/src/handlers/ use files, processes or journal types (move that work into an actor): {found:#?}"
    );
}

/// Children under `actors/src` and `api/src` are spawned through the one bounded runner
/// (`rho_plumbing::child`): a file that builds a `Command` must hand it to that runner, or be
/// allowlisted here by path with its reason.
#[test]
fn children_in_actors_and_api_go_through_the_plumbing_runner() {
    const ALLOWED: &[(&str, &str)] = &[
        (
            "actors/src/agent/conversation/launch.rs",
            "an ACP adapter lives as long as its conversation and speaks over its stdin/stdout; \
             the bounded runner closes stdin and bounds wall time (own process group, killed on \
             drop)",
        ),
        (
            "actors/src/tables/memory_tests.rs",
            "a unit test that re-runs its own test binary, so a table read's memory peak is \
             measured in a fresh process; not service code",
        ),
    ];
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("actors/src"), &mut files);
    rust_files(&root.join("api/src"), &mut files);
    let bare: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let rel = f.strip_prefix(root).unwrap_or(f).display().to_string();
            let text = std::fs::read_to_string(f).unwrap_or_default();
            let spawns = text.contains("Command::new");
            let through_runner = text.contains("rho_plumbing::child");
            let allowed = ALLOWED.iter().any(|(p, _)| *p == rel);
            (spawns && !through_runner && !allowed).then_some(rel)
        })
        .collect();
    assert!(
        bare.is_empty(),
        "these files spawn children without rho_plumbing::child (use the runner, or allowlist \
         the path with a reason): {bare:?}"
    );
}
