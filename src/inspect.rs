//! `rho journal inspect`: an operator's read-only view of a project's journal (records, verify, stats, replay).
//!
//! Exit codes: 0 clean (or only an in-flight tail of a live writer), 1 corruption or an error,
//! 2 usage, 3 a torn tail only.

use crate::cli::InspectArgs;
use rho_actors::state::{describe_record, ProjectState};
use rho_journal::inspect::{scan_with, Problem, ProblemKind, Scan};
use rho_journal::{Record, WriterLease};
use std::collections::BTreeMap;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Finds the journal folder and the lease file from a project folder or a journal folder.
fn locate(path: &Path) -> Option<(PathBuf, PathBuf)> {
    let as_project = rho_actors::open::journal_dir(path);
    if as_project.is_dir() {
        return Some((as_project, rho_actors::open::lease_path(path)));
    }
    if path.is_dir() && path.file_name().is_some_and(|n| n == "journal") {
        let rho = path.parent()?;
        return Some((path.to_path_buf(), rho.join("lease")));
    }
    None
}

fn rfc3339(ms: i64) -> String {
    rho_plumbing::time::rfc3339_ms_opt(ms).unwrap_or_else(|| ms.to_string())
}

fn record_json(rec: &Record, summary: &str) -> serde_json::Value {
    serde_json::json!({
        "seq": rec.seq,
        "segment": rec.segment,
        "offset": rec.offset,
        "bytes": rec.bytes,
        "epoch": rec.epoch,
        "time": rfc3339(rec.time_ms),
        "entity": format!("{}:{}", rec.entity.kind, rec.entity.id),
        "entitySeq": rec.entity_seq,
        "principal": rec.principal,
        "changeId": rec.change_id,
        "kind": rec.kind,
        "codec": rec.codec,
        "summary": summary,
    })
}

fn problem_text(p: &Problem) -> String {
    let what = match p.kind {
        ProblemKind::TornTail => "torn tail (the next open truncates it)",
        ProblemKind::InFlightTail => "in-flight tail of the live writer (not damage)",
        ProblemKind::Corruption => "corruption (the project is refused)",
    };
    format!(
        "{what}: segment {} offset {} seq {} ({} bytes): {}",
        p.segment, p.offset, p.seq, p.bytes, p.reason
    )
}

fn problem_json(p: &Problem) -> serde_json::Value {
    serde_json::json!({
        "problem": match p.kind {
            ProblemKind::TornTail => "torn-tail",
            ProblemKind::InFlightTail => "in-flight-tail",
            ProblemKind::Corruption => "corruption",
        },
        "segment": p.segment, "offset": p.offset, "seq": p.seq, "bytes": p.bytes, "reason": p.reason,
    })
}

fn exit_for(problem: Option<&Problem>) -> ExitCode {
    match problem.map(|p| p.kind) {
        None | Some(ProblemKind::InFlightTail) => ExitCode::SUCCESS,
        Some(ProblemKind::TornTail) => ExitCode::from(3),
        Some(ProblemKind::Corruption) => ExitCode::from(1),
    }
}

fn in_range(args: &InspectArgs, rec: &Record) -> bool {
    args.from.is_none_or(|f| rec.seq >= f)
        && args.to.is_none_or(|t| rec.seq <= t)
        && args.entity.is_none_or(|e| rec.entity.id == e)
}

pub(crate) fn run(args: &InspectArgs) -> ExitCode {
    let Some((dir, lease)) = locate(&args.path) else {
        eprintln!(
            "rho: no journal at {} (give a project folder or its .rho/journal folder)",
            args.path.display()
        );
        return ExitCode::from(1);
    };
    let live = WriterLease::is_held(&lease);
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let result = if args.replay {
        replay(args, &dir, live, &mut out)
    } else if args.verify || args.stats {
        summary(args, &dir, live, &mut out)
    } else {
        list(args, &dir, live, &mut out)
    };
    let code = match result {
        Ok(code) => code,
        Err(Failure::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rho: {e}");
            ExitCode::from(1)
        }
    };
    let _ = out.flush();
    code
}

#[derive(Debug, thiserror::Error)]
enum Failure {
    #[error(transparent)]
    Io(#[from] io::Error),
    #[error(transparent)]
    Journal(#[from] rho_journal::JournalError),
    #[error("{0}")]
    Fold(String),
}

fn list(
    args: &InspectArgs,
    dir: &Path,
    live: bool,
    out: &mut impl Write,
) -> Result<ExitCode, Failure> {
    let mut io_err: Option<io::Error> = None;
    let mut fold_err: Option<String> = None;
    let scan = scan_with(dir, live, |rec| {
        if io_err.is_some() || !in_range(args, &rec) {
            return;
        }
        let summary = describe_record(&rec).unwrap_or_else(|e| {
            fold_err.get_or_insert_with(|| e.to_string());
            format!("undecodable: {e}")
        });
        let written = if args.json {
            writeln!(out, "{}", record_json(&rec, &summary))
        } else {
            writeln!(
                out,
                "{:>8} {} {}:{} {} {} {}",
                rec.seq,
                rfc3339(rec.time_ms),
                rec.entity.kind,
                rec.entity.id,
                rec.principal,
                rec.kind,
                summary
            )
        };
        if let Err(e) = written {
            io_err = Some(e);
        }
    })?;
    if let Some(e) = io_err {
        return Err(e.into());
    }
    report_problem(args, &scan, out)?;
    if let Some(e) = fold_err {
        eprintln!("rho: a record does not decode with this binary: {e}");
        return Ok(ExitCode::from(1));
    }
    Ok(exit_for(scan.problem.as_ref()))
}

fn report_problem(args: &InspectArgs, scan: &Scan, out: &mut impl Write) -> io::Result<()> {
    if let Some(p) = &scan.problem {
        if args.json {
            writeln!(out, "{}", problem_json(p))?;
        } else {
            eprintln!("rho: {}", problem_text(p));
        }
    }
    Ok(())
}

fn summary(
    args: &InspectArgs,
    dir: &Path,
    live: bool,
    out: &mut impl Write,
) -> Result<ExitCode, Failure> {
    let started = Instant::now();
    let mut per_kind: BTreeMap<String, u64> = BTreeMap::new();
    let mut fold_err: Option<String> = None;
    let scan = scan_with(dir, live, |rec| {
        if args.verify && fold_err.is_none() {
            if let Err(e) = describe_record(&rec) {
                fold_err = Some(e.to_string());
            }
        }
        *per_kind.entry(rec.entity.kind).or_default() += 1;
    })?;
    let secs = started.elapsed().as_secs_f64().max(1e-9);
    let bytes: u64 = scan.segments.iter().map(|s| s.bytes).sum();
    let bad_snapshots: Vec<String> = scan
        .snapshots
        .iter()
        .filter_map(|s| {
            s.problem
                .as_ref()
                .map(|p| format!("snapshot {}: {p}", s.seq))
        })
        .collect();
    if args.json {
        let mut v = serde_json::json!({
            "segments": scan.segments.len(),
            "records": scan.record_count,
            "bytes": bytes,
            "recordsPerEntityKind": per_kind,
            "lastDurableSeq": scan.last_seq,
            "snapshots": scan.snapshots.iter().map(|s| serde_json::json!({"seq": s.seq, "bytes": s.bytes, "problem": s.problem})).collect::<Vec<_>>(),
            "liveWriter": live,
            "scanSeconds": secs,
            "recordsPerSecond": scan.record_count as f64 / secs,
            "problem": scan.problem.as_ref().map(problem_json),
        });
        if let Some(e) = &fold_err {
            v["undecodable"] = serde_json::Value::String(e.clone());
        }
        writeln!(out, "{v}")?;
    } else {
        if args.stats {
            writeln!(out, "segments: {}", scan.segments.len())?;
            writeln!(out, "records: {}", scan.record_count)?;
            writeln!(out, "bytes: {bytes}")?;
            for (kind, n) in &per_kind {
                writeln!(out, "  {kind}: {n}")?;
            }
            writeln!(out, "last durable seq: {}", scan.last_seq)?;
            writeln!(out, "snapshots: {}", scan.snapshots.len())?;
            writeln!(out, "live writer: {live}")?;
            writeln!(
                out,
                "scan: {:.3} s, {:.0} records/s, {:.1} MB/s",
                secs,
                scan.record_count as f64 / secs,
                bytes as f64 / secs / 1e6
            )?;
        }
        if args.verify {
            match &scan.problem {
                Some(p) => writeln!(out, "{}", problem_text(p))?,
                None if fold_err.is_none() => writeln!(
                    out,
                    "ok: {} records in {} segments verified, last seq {}",
                    scan.record_count,
                    scan.segments.len(),
                    scan.last_seq
                )?,
                None => {}
            }
            for s in &bad_snapshots {
                writeln!(
                    out,
                    "{s} (ignored; replay falls back to an older snapshot or the start)"
                )?;
            }
            if let Some(e) = &fold_err {
                writeln!(out, "undecodable record: {e}")?;
            }
        }
    }
    if args.verify && fold_err.is_some() {
        return Ok(ExitCode::from(1));
    }
    Ok(exit_for(scan.problem.as_ref()))
}

fn replay(
    args: &InspectArgs,
    dir: &Path,
    live: bool,
    out: &mut impl Write,
) -> Result<ExitCode, Failure> {
    let at = args.at.unwrap_or(u64::MAX);
    let mut state = ProjectState::default();
    let mut fold_err: Option<String> = None;
    let scan = scan_with(dir, live, |rec| {
        if rec.seq > at || fold_err.is_some() {
            return;
        }
        if let Err(e) = state.apply_record(&rec) {
            fold_err = Some(e.to_string());
        }
    })?;
    if let Some(e) = fold_err {
        return Err(Failure::Fold(e));
    }
    let value = match args.entity {
        Some(id) => state
            .entity_json(&id)
            .ok_or_else(|| Failure::Fold(format!("no entity {id} as of seq {}", state.last_seq)))?,
        None => serde_json::to_value(&state).map_err(|e| Failure::Fold(e.to_string()))?,
    };
    let doc = serde_json::json!({
        "asOfSeq": state.last_seq,
        "stateHash": state.hash(),
        "state": value,
    });
    if args.json {
        writeln!(out, "{doc}")?;
    } else {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        )?;
    }
    report_problem(args, &scan, out)?;
    Ok(exit_for(scan.problem.as_ref()))
}
