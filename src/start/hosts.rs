//! Service shutdown of Core Hosts: only Hosts this service started are stopped (their running
//! runs get stop facts naming `shutdown`); each Host's confirmation is printed on its own line.

use actix::Addr;
use rho_actors::runs::entity::RunEvent;
use rho_actors::runs::handlers::state::LearnRun;
use rho_actors::runs::host;
use rho_actors::service::{GetProject, ListProjects, ServiceActor};
use std::io::Write;

/// Stops every Host this service started (`hosts`) and journals what each reports about its runs.
#[allow(clippy::print_stdout)]
pub(crate) async fn stop_owned(service: &Addr<ServiceActor>, hosts: &host::OwnedHosts) {
    let owned = hosts.list();
    if owned.is_empty() {
        return;
    }
    let projects = service.send(ListProjects).await.unwrap_or_default();
    for (dir, pid) in owned {
        let (d, h) = (dir.clone(), hosts.clone());
        let res = tokio::task::spawn_blocking(move || host::shutdown(&d, &h))
            .await
            .unwrap_or_else(|e| Err(e.to_string()));
        let line = match &res {
            Ok(records) => format!(
                "Core Host pid {pid} for {} stopped ({} run(s) it held)",
                dir.display(),
                records.len()
            ),
            Err(e) => format!(
                "Core Host pid {pid} for {}: no confirmation ({e})",
                dir.display()
            ),
        };
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
        tracing::info!("{line}");
        let Ok(records) = res else { continue };
        let canonical = std::fs::canonicalize(&dir).unwrap_or(dir.clone());
        let Some(p) = projects
            .iter()
            .find(|p| std::fs::canonicalize(&p.dir).unwrap_or(p.dir.clone()) == canonical)
        else {
            continue;
        };
        let Ok(Ok(addr)) = service.send(GetProject { id: p.id }).await else {
            continue;
        };
        for r in records {
            let _ = addr
                .send(LearnRun {
                    event: RunEvent::Observed {
                        operation_id: r.operation_id.clone(),
                        observation: host::observation(&r),
                    },
                })
                .await;
        }
    }
}
