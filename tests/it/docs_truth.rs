//! The docs name only what exists: every `RHO_*` variable and `rho` flag in README.md and docs/ exists in the code, and the reverse.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and docs/*.md (decision records are history, not reference, and are left out).
fn docs_text() -> String {
    let mut text = std::fs::read_to_string(repo().join("README.md")).expect("README.md");
    let mut pages: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .expect("docs/")
        .map(|e| e.expect("docs entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    for p in pages {
        text.push('\n');
        text.push_str(&std::fs::read_to_string(&p).expect("doc page"));
    }
    text
}

/// Product source (no tests folders, no `tests.rs`, nothing after a file's `#[cfg(test)]`).
fn product_source() -> String {
    fn walk(dir: &Path, out: &mut String) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<PathBuf> = entries.map(|e| e.expect("entry").path()).collect();
        paths.sort();
        for p in paths {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            if p.is_dir() {
                if name != "tests" {
                    walk(&p, out);
                }
            } else if name.ends_with(".rs") && name != "tests.rs" && !name.ends_with("_tests.rs") {
                let text = std::fs::read_to_string(&p).expect("source file");
                let product = text.split("#[cfg(test)]").next().unwrap_or_default();
                out.push_str(product);
                out.push('\n');
            }
        }
    }
    let mut out = String::new();
    walk(&repo().join("src"), &mut out);
    for krate in ["journal", "actors", "api", "mcp", "kernels"] {
        walk(&repo().join(krate).join("src"), &mut out);
    }
    out
}

/// Words of the form `<prefix>[A-Z0-9_]+` (environment variable names).
fn env_names(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for prefix in ["RHO_", "RUST_LOG"] {
        let mut rest = text;
        while let Some(at) = rest.find(prefix) {
            let before = rest[..at].chars().next_back();
            let tail = &rest[at..];
            let len = tail
                .find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
                .unwrap_or(tail.len());
            let name = tail[..len].trim_end_matches('_');
            // `RHO_*` (a pattern in prose) names no variable.
            if !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') && name.len() > 3 {
                names.insert(name.to_string());
            }
            rest = &tail[len.max(1)..];
        }
    }
    names
}

/// Long options (`--word`) in a text.
fn flags(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i + 2 < bytes.len() {
        let boundary = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'-');
        if boundary && bytes[i] == b'-' && bytes[i + 1] == b'-' && bytes[i + 2].is_ascii_lowercase()
        {
            let end = text[i + 2..]
                .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'))
                .map_or(text.len(), |n| i + 2 + n);
            found.insert(text[i..end].trim_end_matches('-').to_string());
            i = end;
        } else {
            i += 1;
        }
    }
    found
}

/// Every long option of `rho` and of each of its (visible) subcommands, from their `--help`.
fn rho_flags() -> BTreeSet<String> {
    fn help(path: &[&str]) -> String {
        let out = Command::new(env!("CARGO_BIN_EXE_rho"))
            .args(path)
            .arg("--help")
            .output()
            .expect("run rho --help");
        assert!(out.status.success(), "rho {path:?} --help failed");
        String::from_utf8(out.stdout).expect("help is UTF-8")
    }
    fn subcommands(help: &str) -> Vec<String> {
        help.split("Commands:")
            .nth(1)
            .and_then(|s| s.split("\n\n").next())
            .map(|block| {
                block
                    .lines()
                    .filter_map(|l| l.split_whitespace().next())
                    .filter(|w| *w != "help")
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    }
    let mut all = BTreeSet::new();
    let mut queue: Vec<Vec<String>> = vec![vec![]];
    while let Some(path) = queue.pop() {
        let refs: Vec<&str> = path.iter().map(String::as_str).collect();
        let text = help(&refs);
        all.extend(flags(&text));
        for sub in subcommands(&text) {
            let mut next = path.clone();
            next.push(sub);
            queue.push(next);
        }
    }
    all.remove("--help");
    all.remove("--version");
    all
}

/// Flags the docs name that belong to other programs, each checked to be no `rho` flag and to
/// be named in the docs: cargo and the test harness, apt-get, R, the MCP conformance suite, the
/// MCP Inspector and `scripts/import-cycles`.
const OTHER_PROGRAMS: &[&str] = &[
    "--release",
    "--features",
    "--test",
    "--workspace",
    "--all-targets",
    "--lib",
    "--bin",
    "--example",
    "--exact",
    "--check",
    "--no-install-recommends",
    "--vanilla",
    "--default-packages",
    "--suite",
    "--requirements",
    "--protocol-era",
    "--edges",
];

#[test]
fn every_environment_variable_named_in_the_docs_exists_and_the_reverse() {
    let documented = env_names(&docs_text());
    let read = env_names(&product_source());
    let only_docs: Vec<_> = documented.difference(&read).collect();
    let only_code: Vec<_> = read.difference(&documented).collect();
    assert!(
        only_docs.is_empty() && only_code.is_empty(),
        "named in the docs but read nowhere in the code: {only_docs:?}; \
         read by the code but named in no doc: {only_code:?}"
    );
}

#[test]
fn every_rho_flag_named_in_the_docs_exists_and_the_reverse() {
    let mut documented = flags(&docs_text());
    let rho = rho_flags();
    for other in OTHER_PROGRAMS {
        assert!(
            documented.remove(*other),
            "{other} is listed as another program's flag but no doc names it: drop it from the list"
        );
        assert!(
            !rho.contains(*other),
            "{other} is a rho flag: drop it from the list"
        );
    }
    let only_docs: Vec<_> = documented.difference(&rho).collect();
    let only_rho: Vec<_> = rho.difference(&documented).collect();
    assert!(
        only_docs.is_empty() && only_rho.is_empty(),
        "named in the docs but no rho command has it: {only_docs:?}; \
         a rho flag no doc names: {only_rho:?}"
    );
}

#[test]
fn the_extractors_find_what_they_should() {
    assert_eq!(
        env_names("set `RHO_RSCRIPT`, not XRHO_NO; RUST_LOG=debug RHO_AB_ and every `RHO_*`"),
        ["RHO_AB", "RHO_RSCRIPT", "RUST_LOG"]
            .into_iter()
            .map(String::from)
            .collect()
    );
    assert_eq!(
        flags("rho --root DIR [--plugins a,b] a--b --x1 `--state-dir` -- --"),
        ["--plugins", "--root", "--state-dir", "--x1"]
            .into_iter()
            .map(String::from)
            .collect()
    );
}
