//! Where a managed run on a Slurm place goes, resolved when it is accepted (issue 19,
//! decisions 0535, 0536): the cluster's commands here or on the login node of its `via` (the
//! run's own folder there), and the program the requirements probe runs Rscript with on the
//! cluster.

use super::slurm::{SlurmCtx, SlurmLogin, SlurmRun, SlurmTarget};
use super::slurm_login;
use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use std::path::PathBuf;

fn mailbox(e: MailboxError) -> ActorError {
    ActorError::internal(format!("project mailbox: {e}"))
}

/// The Slurm place named `place`, read from the project's places: a cluster on this machine
/// (its nodes see the project folder), or one behind a login node, where run `op` gets a
/// folder of its own (below the place's `folder`, else the login node's).
pub(crate) async fn target(
    me: &Addr<ProjectActor>,
    place: &str,
    op: &str,
) -> Result<SlurmRun, ActorError> {
    let kernel = me
        .send(crate::kernel::handlers::KernelPort)
        .await
        .map_err(mailbox)??;
    let name = place.to_string();
    let (def, via) = kernel
        .read(move |k: &crate::kernel::KernelEntity| {
            let def = k.places.place(&name).map(|p| p.definition.clone());
            let via = def
                .as_ref()
                .and_then(|d| d.slurm.as_ref())
                .and_then(|s| s.via.as_ref())
                .and_then(|v| k.places.place(v))
                .map(|p| p.definition.clone());
            (def, via)
        })
        .await?;
    let def = def.ok_or_else(|| ActorError::NotFound {
        what: format!("place {place}"),
    })?;
    let slurm = def.slurm.clone().ok_or_else(|| {
        ActorError::invalid(
            "input.place",
            format!("{place} is not a Slurm place: runs go to this machine or to a Slurm cluster"),
        )
    })?;
    let login = match &slurm.via {
        None => None,
        Some(v) => {
            let at =
                via.as_ref()
                    .and_then(|d| d.ssh.clone())
                    .ok_or_else(|| ActorError::NotFound {
                        what: format!("ssh place {v}"),
                    })?;
            let base = def
                .folder
                .clone()
                .or_else(|| via.as_ref().and_then(|d| d.folder.clone()));
            let own = format!(
                ".rho-runs/{op}-{}",
                &uuid::Uuid::new_v4().simple().to_string()[..12]
            );
            Some(SlurmLogin {
                via: v.clone(),
                destination: at.destination,
                args: at.args,
                folder: match base {
                    Some(b) => format!("{}/{own}", b.trim_end_matches('/')),
                    None => own,
                },
            })
        }
    };
    Ok(SlurmRun {
        target: SlurmTarget {
            place: place.to_string(),
            bin: slurm.bin,
            conf: slurm.conf,
            partition: slurm.partition,
            rscript: def.rscript.unwrap_or_else(|| "Rscript".into()),
        },
        job_id: None,
        login,
    })
}

/// A program that runs Rscript where the run will run (`srun` on the cluster, here or through
/// the login node), for the requirements probe: written under `.rho/slurm/`.
pub(crate) fn probe_rscript(cx: &SlurmCtx, s: &SlurmRun) -> Result<PathBuf, ActorError> {
    use std::os::unix::fs::PermissionsExt;
    let t = &s.target;
    let client = t.client();
    let mut argv = vec![
        client.program("srun"),
        "--quiet".into(),
        "--nodes=1".into(),
        "--ntasks=1".into(),
        "--job-name=rho-requirements".into(),
    ];
    if let Some(p) = &client.partition {
        argv.push(format!("--partition={p}"));
    }
    argv.push(t.rscript.clone());
    let body = match cx.login(s)? {
        Some(place) => {
            place
                .prepare()
                .map_err(|e| ActorError::internal(e.to_string()))?;
            slurm_login::probe_line(&place, &argv, t)?
        }
        None => {
            let line = client
                .shell_line(&argv)
                .map_err(|e| ActorError::invalid("input.place", e.to_string()))?;
            format!("{line} \"$@\"")
        }
    };
    let folder = cx.dir.join(".rho/slurm");
    std::fs::create_dir_all(&folder).map_err(|e| ActorError::internal(e.to_string()))?;
    let path = folder.join(format!("rscript-{}.sh", t.place));
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n"))
        .map_err(|e| ActorError::internal(e.to_string()))?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o700))
        .map_err(|e| ActorError::internal(e.to_string()))?;
    Ok(path)
}
