//! Tests of reading a version a piece at a time: the bytes handed out are the bytes checked, and a reader that gives up or stops early gets the bytes whole.

use super::*;
use crate::files::store::store;
use std::fs;

/// A project holding `a.txt` = `one two three`, and the facts of that version.
fn project() -> (tempfile::TempDir, VersionFacts) {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join(".rho")).unwrap();
    fs::write(dir.path().join("a.txt"), b"one two three").unwrap();
    let facts = VersionFacts {
        kind: "file".into(),
        format: "text".into(),
        bytes: 13,
        sha256: rho_plumbing::sha256_hex(b"one two three"),
        captured: false,
        partial: false,
        operation_id: None,
        table: None,
        media: None,
    };
    (dir, facts)
}

/// Reads `src` to its end four bytes at a time.
fn all(src: &mut dyn Source) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    while src.read_into(&mut out, 4) > 0 {}
    Some(out)
}

fn whole(b: &[u8]) -> Vec<u8> {
    let mut v = b"whole:".to_vec();
    v.extend_from_slice(b);
    v
}

#[test]
fn pieces_are_the_version_bytes_and_a_reader_that_gives_up_gets_them_whole() {
    let (dir, facts) = project();
    let read = |s: &mut dyn FnMut(&mut dyn Source) -> Option<Vec<u8>>| {
        stream_version(dir.path(), "a.txt", &facts, 100, s, whole)
    };
    assert_eq!(read(&mut all), Ok(b"one two three".to_vec()));
    assert_eq!(read(&mut |_| None), Ok(b"whole:one two three".to_vec()));
    // A reader that answers before the end gets nothing from its part-read: the whole bytes.
    let mut part = |src: &mut dyn Source| {
        let mut out = Vec::new();
        src.read_into(&mut out, 4);
        Some(out)
    };
    assert_eq!(read(&mut part), Ok(b"whole:one two three".to_vec()));
    // The bound: a file larger than it is refused.
    assert!(matches!(
        stream_version(dir.path(), "a.txt", &facts, 12, all, whole),
        Err(FilesError::Actor(ActorError::Limit { .. }))
    ));
}

#[test]
fn changed_or_corrupt_bytes_are_refused_whatever_the_reader_made() {
    let (dir, mut facts) = project();
    fs::write(dir.path().join("a.txt"), b"one two thrEE").unwrap();
    assert_eq!(
        stream_version(dir.path(), "a.txt", &facts, 100, all, whole),
        Err(FilesError::Stale {
            recorded: facts.sha256.clone(),
            current: Some(rho_plumbing::sha256_hex(b"one two thrEE")),
        })
    );
    store(dir.path(), b"one two three", &facts.sha256).unwrap();
    facts.captured = true;
    assert_eq!(
        stream_version(dir.path(), "a.txt", &facts, 1, all, whole),
        Ok(b"one two three".to_vec())
    );
    fs::write(
        crate::files::store::store_dir(dir.path()).join(&facts.sha256),
        b"one two thrEE",
    )
    .unwrap();
    assert!(matches!(
        stream_version(dir.path(), "a.txt", &facts, 100, all, whole),
        Err(FilesError::Actor(ActorError::Internal { .. }))
    ));
}

#[test]
fn a_settled_file_is_streamed_without_its_digest_and_a_changed_one_is_hashed() {
    let (dir, facts) = project();
    let path = crate::paths::resolve_existing(dir.path(), "path", "a.txt").unwrap();
    let verified = Verified::default();
    // A settled record made up to claim other bytes: believed without hashing.
    let mut other = facts.clone();
    other.sha256 = "0".repeat(64);
    let s = stamp(&path).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(30));
    verified.note(path.clone(), s, std::time::SystemTime::now(), &other.sha256);
    let seen = (false, &verified);
    assert_eq!(
        stream_unless_cached(dir.path(), "a.txt", &other, 100, seen, all, whole),
        Ok(Some(b"one two three".to_vec()))
    );
    // Known unchanged and cached: not read at all.
    assert_eq!(
        stream_unless_cached(
            dir.path(),
            "a.txt",
            &other,
            100,
            (true, &verified),
            all,
            whole
        ),
        Ok(None)
    );
    // Written again: the stamp changed, so the digest is checked.
    fs::write(&path, b"one two three").unwrap();
    assert!(matches!(
        stream_unless_cached(dir.path(), "a.txt", &other, 100, seen, all, whole),
        Err(FilesError::Stale { .. })
    ));
    assert_eq!(
        stream_unless_cached(dir.path(), "a.txt", &facts, 100, seen, all, whole),
        Ok(Some(b"one two three".to_vec()))
    );
}
