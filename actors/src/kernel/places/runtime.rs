//! What the service lends every project for places: the person's ssh (`--ssh`/`RHO_SSH`) and
//! serverctl (`--serverctl`/`RHO_SERVERCTL`), the private folder of ssh's control sockets, and
//! the places it connected to, whose multiplexing masters end when the service stops; and where
//! a place's files are listed and copied.

use crate::error::ActorError;
use crate::kernel::contract::{PlaceDefinition, SlurmAt, SshAt};
use rho_kernels::remote::{ServerShell, Shell, SlurmClient, SshPlace};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// The programs and folders places use (one per service, shared by its projects).
#[derive(Debug, Clone, Default)]
pub struct RemoteRuntime {
    /// The ssh program (none: `ssh` on PATH, with the person's own config).
    pub ssh: Option<PathBuf>,
    /// The serverctl program (none: `serverctl` on PATH); its `SSM_*` settings come from the
    /// service's environment.
    pub serverctl: Option<PathBuf>,
    /// The private (0700) folder of ssh's control sockets, below the service's state; none: no
    /// ssh place can be reached (a service without a state folder).
    pub control_dir: Option<PathBuf>,
    /// The ssh places reached so far: their masters end at [`RemoteRuntime::close_all`].
    masters: Arc<Mutex<Vec<SshPlace>>>,
}

impl RemoteRuntime {
    pub fn new(
        ssh: Option<PathBuf>,
        serverctl: Option<PathBuf>,
        control_dir: Option<PathBuf>,
    ) -> Self {
        Self {
            ssh,
            serverctl,
            control_dir,
            masters: Arc::default(),
        }
    }

    /// The ssh program as places run it.
    pub fn ssh_program(&self) -> PathBuf {
        self.ssh.clone().unwrap_or_else(|| PathBuf::from("ssh"))
    }

    /// The serverctl program as servers are read with it.
    pub fn serverctl_program(&self) -> PathBuf {
        self.serverctl
            .clone()
            .unwrap_or_else(|| PathBuf::from("serverctl"))
    }

    /// The person's serverctl.
    pub fn serverctl(&self) -> rho_kernels::remote::Serverctl {
        rho_kernels::remote::Serverctl {
            program: self.serverctl_program(),
            env: Vec::new(),
        }
    }

    /// An ssh place as the person's ssh reaches it; remembered so its master is ended later.
    pub fn ssh_place(&self, at: &SshAt) -> Result<SshPlace, ActorError> {
        let control_dir = self.control_dir.clone().ok_or_else(|| {
            ActorError::unavailable("this service has no folder for ssh's control sockets")
        })?;
        let place = SshPlace {
            program: self.ssh_program(),
            destination: at.destination.clone(),
            args: at.args.clone(),
            control_dir,
        };
        let mut masters = self.masters.lock().unwrap_or_else(|p| p.into_inner());
        if !masters.contains(&place) {
            masters.push(place.clone());
        }
        Ok(place)
    }

    /// Ends every multiplexing master this service started (at its stop).
    pub fn close_all(&self) {
        let places: Vec<SshPlace> = self
            .masters
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain(..)
            .collect();
        for p in places {
            p.close();
        }
    }
}

/// A Slurm place's client commands.
pub fn slurm_client(at: &SlurmAt) -> SlurmClient {
    SlurmClient {
        bin: at.bin.as_ref().map(PathBuf::from),
        conf: at.conf.as_ref().map(PathBuf::from),
        partition: at.partition.clone(),
    }
}

/// The ssh place a Slurm place's commands run on (its `via`), if any.
pub fn login(
    runtime: &RemoteRuntime,
    book: &super::book::PlaceBook,
    at: &SlurmAt,
) -> Result<Option<SshPlace>, ActorError> {
    let Some(via) = &at.via else {
        return Ok(None);
    };
    let def = book
        .place(via)
        .and_then(|p| p.definition.ssh.clone())
        .ok_or_else(|| ActorError::NotFound {
            what: format!("ssh place {via}"),
        })?;
    runtime.ssh_place(&def).map(Some)
}

/// Where the files of `definition` are listed and copied: its own ssh, a Slurm place's login
/// node, or `serverctl exec` on a server.
pub fn files_place(
    runtime: &RemoteRuntime,
    book: &super::book::PlaceBook,
    name: &str,
    definition: &PlaceDefinition,
) -> Result<Box<dyn Shell>, ActorError> {
    if let Some(ssh) = &definition.ssh {
        return Ok(Box::new(runtime.ssh_place(ssh)?));
    }
    if let Some(slurm) = &definition.slurm {
        let login = login(runtime, book, slurm)?.ok_or_else(|| {
            ActorError::invalid(
                "place",
                format!("{name} is a Slurm cluster on this machine: its files are this machine's"),
            )
        })?;
        return Ok(Box::new(login));
    }
    match &definition.server {
        Some(server) => Ok(Box::new(ServerShell {
            serverctl: runtime.serverctl(),
            server: server.clone(),
        })),
        None => Err(ActorError::invalid(
            "place",
            format!("{name} names no ssh, slurm or server"),
        )),
    }
}
