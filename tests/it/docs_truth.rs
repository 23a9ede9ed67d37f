//! The docs name only what exists: every `RHO_*` variable and `rho` flag in README.md and docs/ exists in the code, and the reverse
//! (every workspace member's product source is read; a member's own pages may also name its test and benchmark variables).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The workspace's member folders, from the root `Cargo.toml` (`.` is the root crate).
fn members() -> Vec<PathBuf> {
    let manifest = std::fs::read_to_string(repo().join("Cargo.toml")).expect("Cargo.toml");
    let list = manifest
        .lines()
        .find_map(|l| l.trim().strip_prefix("members = ["))
        .expect("a one-line `members = [...]` in Cargo.toml");
    let members: Vec<PathBuf> = list
        .trim_end_matches(']')
        .split(',')
        .map(|m| m.trim().trim_matches('"'))
        .filter(|m| !m.is_empty())
        .map(|m| repo().join(m))
        .collect();
    assert!(members.len() > 1, "members of the workspace: {list}");
    members
}

fn read_all(paths: &[PathBuf]) -> String {
    let mut text = String::new();
    for p in paths {
        text.push_str(&std::fs::read_to_string(p).expect("doc page"));
        text.push('\n');
    }
    text
}

/// The `*.md` files directly in `dir`, sorted.
fn pages_in(dir: &Path) -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("a folder")
        .map(|e| e.expect("folder entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    pages
}

/// README.md and docs/*.md (decision records are history, not reference, and are left out).
fn docs_text() -> String {
    let mut pages = vec![repo().join("README.md")];
    pages.extend(pages_in(&repo().join("docs")));
    read_all(&pages)
}

/// The pages a workspace member keeps beside its code (`journal/FORMAT.md`,
/// `bench/RESULTS.md`): they document its test and benchmark commands too.
fn member_docs_text() -> String {
    let pages: Vec<PathBuf> = members()
        .iter()
        .filter(|m| **m != repo())
        .flat_map(|m| pages_in(m))
        .collect();
    read_all(&pages)
}

/// Every `.rs` file under `dir` (skipping `tests` folders, `tests.rs` and everything after a
/// file's `#[cfg(test)]` when `product_only`).
fn rust_text(dir: &Path, product_only: bool, out: &mut String) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.map(|e| e.expect("entry").path()).collect();
    paths.sort();
    for p in paths {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let test_file = name == "tests.rs" || name.ends_with("_tests.rs");
        if p.is_dir() {
            if !(product_only && name == "tests") {
                rust_text(&p, product_only, out);
            }
        } else if name.ends_with(".rs") && !(product_only && test_file) {
            let text = std::fs::read_to_string(&p).expect("source file");
            if product_only {
                // Comments name no variable the product reads: only code counts.
                let code = text.split("#[cfg(test)]").next().unwrap_or_default();
                for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
                    out.push_str(line);
                    out.push('\n');
                }
            } else {
                out.push_str(&text);
                out.push('\n');
            }
        }
    }
}

/// Product source of every workspace member (no tests folders, no `tests.rs`, nothing after
/// a file's `#[cfg(test)]`).
fn product_source() -> String {
    let mut out = String::new();
    for member in members() {
        rust_text(&member.join("src"), true, &mut out);
    }
    out
}

/// Every member's source and tests, and the scripts: what a test or benchmark command reads.
fn all_source() -> String {
    let mut out = String::new();
    for member in members() {
        rust_text(&member.join("src"), false, &mut out);
        rust_text(&member.join("tests"), false, &mut out);
    }
    for dir in ["scripts", ".ci", "bench/scripts", "bench/ui", "bench/mcp"] {
        let Ok(entries) = std::fs::read_dir(repo().join(dir)) else {
            continue;
        };
        for e in entries {
            let p = e.expect("script").path();
            if p.is_file() {
                out.push_str(&std::fs::read_to_string(&p).unwrap_or_default());
                out.push('\n');
            }
        }
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
    "--max-seconds",
    "--jobid",
    "--overlap",
    "--parsable",
    "--unbuffered",
    "--wrap",
    "--wait",
];

#[test]
fn every_environment_variable_named_in_the_docs_exists_and_the_reverse() {
    let documented = env_names(&docs_text());
    let read = env_names(&product_source());
    let only_docs: Vec<_> = documented.difference(&read).collect();
    let member_documented = env_names(&member_docs_text());
    let all_documented: BTreeSet<String> = documented.union(&member_documented).cloned().collect();
    let only_code: Vec<_> = read.difference(&all_documented).collect();
    assert!(
        only_docs.is_empty() && only_code.is_empty(),
        "named in README.md or docs/ but read nowhere in the product: {only_docs:?}; \
         read by the product (a crate's or a benchmark's src/) but named in no doc: {only_code:?}"
    );
    // A member's own pages may name its test and benchmark variables; each is read somewhere.
    let anywhere = env_names(&all_source());
    let unread: Vec<_> = member_documented.difference(&anywhere).collect();
    assert!(
        unread.is_empty(),
        "named in a member's pages (journal/FORMAT.md, bench/RESULTS.md) but read by no source, test or script: {unread:?}"
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

/// The journal's entity kinds (`const KIND: &'static str = "..."` in the product).
fn entity_kinds(source: &str) -> BTreeSet<String> {
    source
        .split("const KIND: &'static str = \"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_string)
        .collect()
}

#[test]
fn every_journal_entity_kind_is_named_in_the_operations_page_and_the_reverse() {
    let page = std::fs::read_to_string(repo().join("docs/operations.md")).expect("operations.md");
    let line = page
        .split("\n- ")
        .find(|item| item.starts_with("Entity kinds in the journal:"))
        .expect("docs/operations.md lists the entity kinds in one item");
    let documented: BTreeSet<String> = line
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect();
    let mut kinds = entity_kinds(&product_source());
    kinds.insert("journal".to_string());
    let only_docs: Vec<_> = documented.difference(&kinds).collect();
    let only_code: Vec<_> = kinds.difference(&documented).collect();
    assert!(
        only_docs.is_empty() && only_code.is_empty(),
        "entity kinds named in docs/operations.md but journaled by no entity: {only_docs:?}; \
         journaled but not named there: {only_code:?}"
    );
}

#[test]
fn the_extractors_find_what_they_should() {
    assert_eq!(
        entity_kinds(
            "const KIND: &'static str = \"runs\";\n const KIND: &'static str = \"agent\";"
        ),
        ["agent", "runs"].into_iter().map(String::from).collect()
    );
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
