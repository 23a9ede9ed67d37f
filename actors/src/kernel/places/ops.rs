//! The place operations on a project's kernel handle: `kernel.places`, `kernel.place.set`,
//! `kernel.place.check`, `kernel.place.list` and `kernel.place.copy`, with their limits.

use super::book::{check_name, PlaceCommand, PlaceRecord, PlaceReply, LOCAL};
use super::runtime::{files_place, login, slurm_client};
use crate::entity::CommandContext;
use crate::error::ActorError;
use crate::identity::input_digest;
use crate::kernel::contract::{
    CheckView, CopyRecord, EntryView, FoundView, Language, ListingView, PlaceCheckRequest,
    PlaceCopyRequest, PlaceListRequest, PlaceSetRequest, PlacesReply, SessionState, StaysView,
};
use crate::kernel::decide::{by, KernelCommand, KernelReply};
use crate::kernel::entity::KernelEntity;
use crate::kernel::handlers::KernelHandle;
use rho_kernels::remote::{self, Interpreters, ListBounds, PlaceError};
use std::time::Duration;

fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}

async fn place_command(
    h: &KernelHandle,
    command: PlaceCommand,
    ctx: &CommandContext,
) -> Result<PlaceReply, ActorError> {
    match h
        .command(KernelCommand::Place(command), ctx.clone())
        .await?
    {
        KernelReply::Place(r) => Ok(r),
        _ => Err(ActorError::internal(
            "a place command answered no place reply",
        )),
    }
}

/// `kernel.places`.
pub async fn places(h: &KernelHandle) -> Result<PlacesReply, ActorError> {
    let max = h.limits().max_places;
    h.read(move |k: &KernelEntity| k.places.view(max, Vec::new()))
        .await
}

/// `kernel.place.set`: define/redefine, remove, and/or choose where a language starts.
pub async fn set(
    h: &KernelHandle,
    req: &PlaceSetRequest,
    ctx: &CommandContext,
) -> Result<PlacesReply, ActorError> {
    if req.place != LOCAL {
        check_name(&req.place)?;
    }
    if req.define.is_none() && req.language.is_none() && !req.remove {
        return Err(ActorError::invalid(
            "place",
            "say what to do: define, language or remove",
        ));
    }
    if req.remove && (req.define.is_some() || req.language.is_some()) {
        return Err(ActorError::invalid(
            "remove",
            "a place that is removed is not also defined or chosen",
        ));
    }
    if req.place == LOCAL && (req.define.is_some() || req.remove) {
        return Err(ActorError::invalid(
            "place",
            "local is this machine: it is always there and has no definition",
        ));
    }
    h.gate(ctx)?;
    if let Some(definition) = &req.define {
        place_command(
            h,
            PlaceCommand::Define {
                name: req.place.clone(),
                definition: definition.clone(),
                max_places: h.limits().max_places,
            },
            ctx,
        )
        .await?;
    }
    if req.remove {
        place_command(
            h,
            PlaceCommand::Remove {
                name: req.place.clone(),
            },
            ctx,
        )
        .await?;
    }
    let mut stays = Vec::new();
    if let Some(language) = req.language {
        place_command(
            h,
            PlaceCommand::Choose {
                language,
                place: req.place.clone(),
            },
            ctx,
        )
        .await?;
        stays.extend(staying(h, language, &req.place).await?);
    }
    let max = h.limits().max_places;
    h.read(move |k: &KernelEntity| k.places.view(max, stays))
        .await
}

/// A live session of `language` that runs elsewhere than `place`: it stays (never moved).
async fn staying(
    h: &KernelHandle,
    language: Language,
    place: &str,
) -> Result<Option<StaysView>, ActorError> {
    let place = place.to_string();
    h.read(move |k: &KernelEntity| {
        let s = k.live_session(language)?;
        let at = s.place.clone().unwrap_or_else(|| LOCAL.to_string());
        (at != place && s.state != SessionState::Ended).then(|| StaysView {
            language,
            session_id: s.session_id.clone(),
            note: format!(
                "the live {} session stays at {at} until it ends (kernel.stop); the next one starts at {place}",
                language.name()
            ),
            place: at,
        })
    })
    .await
}

/// The place named `name` (never this machine).
async fn defined(
    h: &KernelHandle,
    name: &str,
) -> Result<(PlaceRecord, super::book::PlaceBook), ActorError> {
    if name == LOCAL {
        return Err(ActorError::invalid(
            "place",
            "local is this machine: its files are the project's and it needs no check",
        ));
    }
    check_name(name)?;
    let n = name.to_string();
    h.read(move |k: &KernelEntity| k.places.place(&n).cloned().map(|p| (p, k.places.clone())))
        .await?
        .ok_or_else(|| ActorError::NotFound {
            what: format!("place {name}"),
        })
}

/// A place error as the wire says it; `limit` names the bound that ended it.
fn wire(e: PlaceError, place: &str, limit: &str, size_limit: (&str, u64)) -> ActorError {
    match e {
        PlaceError::Connect(w) | PlaceError::Remote(w) => {
            ActorError::unavailable(format!("place {place}: {w}"))
        }
        PlaceError::Timeout { ms, printed } => ActorError::unavailable(format!(
            "place {place}: no answer within {limit} ({ms} ms); it was ended{}",
            if printed.is_empty() {
                String::new()
            } else {
                format!(" after it printed: {printed}")
            }
        )),
        PlaceError::NotFound(w) => ActorError::NotFound {
            what: format!("{w} ({place})"),
        },
        PlaceError::Invalid(w) => ActorError::invalid("path", w),
        PlaceError::Limit(_) => ActorError::Limit {
            limit: size_limit.0.to_string(),
            value: size_limit.1,
        },
        PlaceError::Changed(w) => ActorError::conflict(w),
        PlaceError::Local(w) => ActorError::internal(w),
        PlaceError::Spawn(w) => ActorError::unavailable(format!("place {place}: {w}")),
    }
}

/// `kernel.place.check`: connects within `remoteCheckTimeoutMs` where the place's sessions
/// and runs will run, and keeps what it found (or why not) as the place's last check.
pub async fn check(
    h: &KernelHandle,
    req: &PlaceCheckRequest,
    ctx: &CommandContext,
) -> Result<CheckView, ActorError> {
    let (place, book) = defined(h, &req.place).await?;
    h.gate(ctx)?;
    let d = place.definition.clone();
    let interpreters = Interpreters {
        rscript: d.rscript.clone(),
        python: d.python.clone(),
    };
    let timeout = ms(h.limits().remote_check_timeout_ms);
    let runtime = h.runtime.remote.clone();
    let name = req.place.clone();
    let mut view = CheckView {
        place: name.clone(),
        at_ms: rho_plumbing::time::now_ms(),
        by: by(ctx),
        ok: false,
        error_kind: None,
        error: None,
        cwd: None,
        r: None,
        jsonlite: None,
        python: None,
        free_bytes: None,
        slurm: None,
        elapsed_ms: 0,
    };
    let found = if let Some(ssh) = &d.ssh {
        let p = runtime.ssh_place(ssh)?;
        tokio::task::spawn_blocking(move || {
            remote::check(&p, &interpreters, timeout).map(|r| (r, None))
        })
        .await
        .map_err(|e| ActorError::internal(e.to_string()))?
    } else if let Some(slurm) = &d.slurm {
        let login = login(&runtime, &book, slurm)?;
        let client = slurm_client(slurm);
        tokio::task::spawn_blocking(move || {
            slurm_check(&client, login.as_ref(), &interpreters, timeout)
        })
        .await
        .map_err(|e| ActorError::internal(e.to_string()))?
    } else if let Some(server) = &d.server {
        let (serverctl, server) = (runtime.serverctl(), server.clone());
        let max_s = h.limits().serverctl_session_s;
        tokio::task::spawn_blocking(move || {
            let script = remote::check::script(&interpreters)?;
            let cmd = serverctl.exec(&server, max_s, &["sh", "-c", &script]);
            remote::check_command(cmd, timeout).map(|r| (r, None))
        })
        .await
        .map_err(|e| ActorError::internal(e.to_string()))?
    } else {
        Err(PlaceError::Invalid(
            "the place names no ssh, slurm or server".into(),
        ))
    };
    match found {
        Ok((r, slurm)) => {
            view.ok = true;
            view.cwd = Some(r.cwd);
            view.r = r.r.map(|f| FoundView {
                path: f.path,
                version: f.version,
            });
            view.jsonlite = r.jsonlite;
            view.python = r.python.map(|f| FoundView {
                path: f.path,
                version: f.version,
            });
            view.free_bytes = r.free_bytes;
            view.slurm = slurm;
            view.elapsed_ms = r.elapsed_ms;
        }
        Err(e) => {
            view.error_kind = Some(
                match &e {
                    PlaceError::Connect(_) => "connect",
                    PlaceError::Timeout { .. } => "timeout",
                    PlaceError::Spawn(_) => "unavailable",
                    _ => "remote",
                }
                .into(),
            );
            view.error = Some(match e {
                PlaceError::Timeout { ms, printed } => format!(
                    "no answer within remoteCheckTimeoutMs ({ms} ms); it was ended{}",
                    if printed.is_empty() {
                        String::new()
                    } else {
                        format!(" after it printed: {printed}")
                    }
                ),
                other => other.to_string(),
            });
        }
    }
    place_command(
        h,
        PlaceCommand::Checked {
            check: view.clone(),
        },
        ctx,
    )
    .await?;
    Ok(view)
}

/// A Slurm place's check: Slurm's version where its commands run, then the check script by
/// `srun` on a node, where its runs and sessions will run.
fn slurm_check(
    client: &rho_kernels::remote::SlurmClient,
    login: Option<&remote::SshPlace>,
    interpreters: &Interpreters,
    timeout: Duration,
) -> Result<(remote::CheckReport, Option<String>), PlaceError> {
    if let Some(l) = login {
        l.prepare().map_err(|e| PlaceError::Spawn(e.to_string()))?;
    }
    let started = std::time::Instant::now();
    let version = rho_plumbing::child::run(
        client.command(
            login,
            &[client.program("sinfo"), "--version".into()],
            timeout,
        )?,
        timeout,
        4096,
    )
    .map_err(|e| PlaceError::Spawn(e.to_string()))?;
    if version.exit_code != Some(0) {
        return Err(PlaceError::from_exit(&version.stderr, version.exit_code));
    }
    let mut argv = vec![
        client.program("srun"),
        "--quiet".into(),
        "--nodes=1".into(),
        "--ntasks=1".into(),
        "--job-name=rho-check".into(),
    ];
    if let Some(p) = &client.partition {
        argv.push(format!("--partition={p}"));
    }
    argv.extend([
        "sh".into(),
        "-c".into(),
        remote::check::script(interpreters)?,
    ]);
    let left = timeout.saturating_sub(started.elapsed());
    let report = remote::check_command(client.command(login, &argv, left)?, left)?;
    Ok((
        report,
        Some(String::from_utf8_lossy(&version.stdout).trim().to_string()),
    ))
}

/// `kernel.place.list`.
pub async fn list(h: &KernelHandle, req: &PlaceListRequest) -> Result<ListingView, ActorError> {
    if req.path.is_empty() {
        return Err(ActorError::invalid("path", "name a folder"));
    }
    let (place, book) = defined(h, &req.place).await?;
    let p = files_place(&h.runtime.remote, &book, &req.place, &place.definition)?;
    let l = h.limits();
    let bounds = ListBounds {
        entries: usize::try_from(l.remote_entries).unwrap_or(usize::MAX),
        bytes: l.remote_list_bytes,
        timeout: ms(l.remote_list_timeout_ms),
    };
    let path = req.path.clone();
    let listing = tokio::task::spawn_blocking(move || remote::list(p.as_ref(), &path, bounds))
        .await
        .map_err(|e| ActorError::internal(e.to_string()))?
        .map_err(|e| {
            wire(
                e,
                &req.place,
                "remoteListTimeoutMs",
                ("kernel.remoteListBytes", bounds.bytes),
            )
        })?;
    Ok(ListingView {
        place: req.place.clone(),
        path: listing.path,
        entries: listing
            .entries
            .into_iter()
            .map(|e| EntryView {
                name: e.name,
                kind: e.kind.to_string(),
                size: e.size,
                modified_s: e.modified_s,
            })
            .collect(),
        omitted: listing.omitted,
        cut: listing.cut,
    })
}

/// `kernel.place.copy`: the caller's identity first; then the file is copied next to where it
/// goes, linked in without replacing anything, and recorded.
pub async fn copy(
    h: &KernelHandle,
    req: &PlaceCopyRequest,
    ctx: &CommandContext,
) -> Result<CopyRecord, ActorError> {
    if req.change_id.is_empty() || req.change_id.len() > 128 {
        return Err(ActorError::invalid(
            "changeId",
            "a changeId has 1 to 128 bytes",
        ));
    }
    if req.path.is_empty() || req.path.ends_with('/') {
        return Err(ActorError::invalid("path", "name a file"));
    }
    let digest = input_digest(req, "changeId");
    let (caller, change) = (by(ctx), req.change_id.clone());
    let known = h
        .read(move |k: &KernelEntity| {
            k.places.copy_key(&caller, &change).map(|key| {
                (
                    key.digest,
                    k.places.copy(&key.copy_id).cloned(),
                    key.copy_id.clone(),
                )
            })
        })
        .await?;
    match known {
        Some((d, _, _)) if d != digest => {
            return Err(ActorError::conflict(format!(
                "changeId {:?} already named a copy with a different input",
                req.change_id
            )))
        }
        Some((_, Some(record), _)) => return Ok(record),
        Some((_, None, id)) => {
            return Err(ActorError::NotFound {
                what: format!("copy record {id} (evicted: kernel.maxCopies)"),
            })
        }
        None => h.gate(ctx)?,
    }
    let (place, book) = defined(h, &req.place).await?;
    let p = files_place(&h.runtime.remote, &book, &req.place, &place.definition)?;
    let to = match &req.to {
        Some(t) => t.clone(),
        None => req
            .path
            .rsplit('/')
            .next()
            .filter(|n| !n.is_empty() && *n != "." && *n != "..")
            .ok_or_else(|| ActorError::invalid("path", "name a file"))?
            .to_string(),
    };
    crate::paths::components("to", &to)?;
    if to == ".rho" || to.starts_with(".rho/") {
        return Err(ActorError::invalid("to", "a copy never goes into .rho/"));
    }
    let dest = h.dir().join(&to);
    if dest.symlink_metadata().is_ok() {
        return Err(ActorError::conflict(format!(
            "{to} exists in the project; a copy never replaces a file"
        )));
    }
    let l = h.limits();
    let (max, timeout) = (l.remote_copy_bytes, ms(l.remote_copy_timeout_ms));
    let source = req.path.clone();
    let target = dest.clone();
    let copied = tokio::task::spawn_blocking(move || -> Result<remote::Copied, PlaceError> {
        let parent = target
            .parent()
            .ok_or_else(|| PlaceError::Local("no folder to copy into".into()))?;
        rho_plumbing::fs::create_dirs(parent).map_err(|e| PlaceError::Local(e.to_string()))?;
        let part = parent.join(format!(".rho-copy-{}.part", uuid::Uuid::new_v4()));
        let copied = remote::copy(p.as_ref(), &source, &part, max, timeout);
        let linked = copied.as_ref().map_err(Clone::clone).and_then(|_| {
            // A link never replaces: a file that appeared meanwhile stays as it is.
            std::fs::hard_link(&part, &target).map_err(|e| {
                PlaceError::Changed(format!(
                    "{} could not be written ({e}); nothing was replaced",
                    target.display()
                ))
            })
        });
        let _ = std::fs::remove_file(&part);
        linked?;
        let _ = rho_plumbing::fs::sync_dir(parent);
        copied
    })
    .await
    .map_err(|e| ActorError::internal(e.to_string()))?
    .map_err(|e| {
        wire(
            e,
            &req.place,
            "remoteCopyTimeoutMs",
            ("kernel.remoteCopyBytes", max),
        )
    })?;
    let record = CopyRecord {
        copy_id: uuid::Uuid::new_v4().to_string(),
        place: req.place.clone(),
        source: req.path.clone(),
        to,
        bytes: copied.bytes,
        digest: format!("sha256:{}", copied.sha256),
        modified_s: copied.modified_s,
        by: by(ctx),
        change_id: req.change_id.clone(),
        at_ms: rho_plumbing::time::now_ms(),
    };
    match place_command(
        h,
        PlaceCommand::Copied {
            record,
            digest,
            max_copies: l.max_copies,
        },
        ctx,
    )
    .await?
    {
        PlaceReply::Copy(r) => Ok(r),
        PlaceReply::Done => Err(ActorError::internal("a copy recorded no record")),
    }
}
