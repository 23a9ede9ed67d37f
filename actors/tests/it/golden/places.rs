//! The golden generator's place and Slurm records (from v9): an ssh place defined, checked,
//! chosen for R, a session started there and a copy; a run placed on a Slurm cluster with its job
//! and (from v11) one placed on a cluster behind the login node, with its folder there.

use crate::support::{self, ctx, ctx_with};
use rho_actors::kernel::contract::{CheckView, CopyRecord, Language, PlaceDefinition};
use rho_actors::kernel::handlers::KernelPort;
use rho_actors::kernel::places::{PlaceCommand, PlaceEvent};
use rho_actors::kernel::{KernelCommand, KernelEvent};
use rho_actors::project_actor::ProjectActor;
use rho_actors::runs::entity::RunEvent;
use rho_actors::runs::handlers::state::{AcceptRun, LearnRun};
use rho_actors::runs::slurm::{SlurmLogin, SlurmTarget};
use rho_actors::Principal;
use serde_json::json;

pub(super) async fn places_and_a_slurm_run(p: &actix::Addr<ProjectActor>) {
    let kernel = p.send(KernelPort).await.unwrap().unwrap();
    let definition: PlaceDefinition = serde_json::from_value(json!({
        "ssh": {"destination": "me@lab", "args": ["-p", "2222"]},
        "rscript": "/usr/bin/Rscript"
    }))
    .unwrap();
    let check: CheckView = serde_json::from_value(json!({
        "place": "lab", "atMs": 1, "by": "local", "ok": true, "errorKind": null, "error": null,
        "cwd": "/home/me", "r": {"path": "/usr/bin/Rscript", "version": "R 4.2.2"},
        "jsonlite": true, "python": null, "freeBytes": 1024, "slurm": null, "elapsedMs": 7
    }))
    .unwrap();
    let copy: CopyRecord = serde_json::from_value(json!({
        "copyId": "copy-1", "place": "lab", "source": "/data/a.csv", "to": "a.csv", "bytes": 3,
        "digest": "sha256:00", "modifiedS": 5, "by": "local", "changeId": "c1", "atMs": 9
    }))
    .unwrap();
    for command in [
        PlaceCommand::Define {
            name: "lab".into(),
            definition,
            max_places: 16,
        },
        PlaceCommand::Checked { check },
        PlaceCommand::Choose {
            language: Language::R,
            place: "lab".into(),
        },
        PlaceCommand::Copied {
            record: copy,
            digest: rho_actors::identity::input_digest(&json!({"path": "/data/a.csv"}), "changeId"),
            max_copies: 500,
        },
    ] {
        kernel
            .command(KernelCommand::Place(command), ctx(Principal::Local))
            .await
            .unwrap();
    }
    kernel
        .command(
            KernelCommand::Record {
                events: vec![
                    KernelEvent::SessionStarting {
                        session_id: "session-2".into(),
                        language: Language::R,
                        program: "/usr/bin/Rscript".into(),
                        interpreter: None,
                    },
                    KernelEvent::Place(PlaceEvent::SessionAt {
                        session_id: "session-2".into(),
                        place: "lab".into(),
                    }),
                ],
                max_ended_sessions: 20,
            },
            ctx(Principal::System),
        )
        .await
        .unwrap();
    // A run sent to a Slurm place: its target, then the job id sbatch answered, then sent.
    let op = "slurm-1";
    p.send(AcceptRun {
        record: Box::new(support::run_record(op)),
        ctx: ctx_with(op, &json!({"op": op})),
    })
    .await
    .unwrap()
    .unwrap();
    for event in [
        RunEvent::SlurmPlaced {
            operation_id: op.into(),
            target: SlurmTarget {
                place: "hpc".into(),
                bin: None,
                conf: Some("/etc/slurm/slurm.conf".into()),
                partition: Some("main".into()),
                rscript: "/usr/bin/Rscript".into(),
            },
        },
        RunEvent::SlurmJob {
            operation_id: op.into(),
            job_id: "42".into(),
        },
        RunEvent::Sent {
            operation_id: op.into(),
        },
    ] {
        p.send(LearnRun { event }).await.unwrap().unwrap();
    }
    // From v11: a run sent to a cluster behind the login node `lab`, its folder there.
    let op = "slurm-2";
    p.send(AcceptRun {
        record: Box::new(support::run_record(op)),
        ctx: ctx_with(op, &json!({"op": op})),
    })
    .await
    .unwrap()
    .unwrap();
    for event in [
        RunEvent::SlurmPlacedVia {
            operation_id: op.into(),
            target: SlurmTarget {
                place: "hpc-lab".into(),
                bin: Some("/opt/slurm/bin".into()),
                conf: None,
                partition: None,
                rscript: "Rscript".into(),
            },
            login: SlurmLogin {
                via: "lab".into(),
                destination: "me@lab".into(),
                args: vec!["-p".into(), "2222".into()],
                folder: ".rho-runs/slurm-2-0123456789ab".into(),
            },
        },
        RunEvent::SlurmJob {
            operation_id: op.into(),
            job_id: "43".into(),
        },
        RunEvent::Sent {
            operation_id: op.into(),
        },
    ] {
        p.send(LearnRun { event }).await.unwrap().unwrap();
    }
}
