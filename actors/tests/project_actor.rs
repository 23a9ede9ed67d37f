//! Black-box tests of project actors: create, write, close, reopen, identities, snapshots, leases, failures.

mod support;

use actix::prelude::*;
use rho_actors::open::{open_project, OpenError};
use rho_actors::project::ProjectCommand;
use rho_actors::project_actor::{ProjectRead, ProjectWrite, TakeSnapshot};
use rho_actors::replay::replay;
use rho_actors::service::{CloseAll, CreateProject, GetProject, OpenDir, ServiceActor};
use rho_actors::Principal;
use serde_json::json;
use std::collections::BTreeMap;
use support::{config, ctx, ctx_with};

fn set(key: &str, value: &str) -> ProjectCommand {
    ProjectCommand::SetSetting {
        key: key.into(),
        value: Some(value.into()),
    }
}

#[actix::test]
async fn create_write_close_reopen_replays_the_same_state() {
    let root = tempfile::tempdir().unwrap();
    let service = ServiceActor::new(config()).start();
    let info = service
        .send(CreateProject {
            root: root.path().to_path_buf(),
            name: "alpha".into(),
            principal: Principal::Local,
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(info.dir, root.path().join("alpha"));
    let project = service
        .send(GetProject { id: info.id })
        .await
        .unwrap()
        .unwrap();
    for i in 0..20 {
        let reply = project
            .send(ProjectWrite {
                command: set(&format!("k{i}"), &i.to_string()),
                ctx: ctx(Principal::Agent("claude-code".into())),
            })
            .await
            .unwrap()
            .unwrap();
        assert_eq!(reply.version, i + 2, "versions grow by one per event");
    }
    let before = project.send(ProjectRead).await.unwrap().unwrap();
    assert_eq!(before.name, "alpha");
    assert_eq!(before.created_by, "local");
    assert_eq!(before.settings.len(), 20);
    for (_, res) in service.send(CloseAll).await.unwrap() {
        res.unwrap();
    }
    drop(project);
    drop(service);
    actix::clock::sleep(std::time::Duration::from_millis(50)).await;

    let service = ServiceActor::new(config()).start();
    let id = service
        .send(OpenDir {
            dir: info.dir.clone(),
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(id, info.id);
    let project = service.send(GetProject { id }).await.unwrap().unwrap();
    let after = project.send(ProjectRead).await.unwrap().unwrap();
    assert_eq!(
        after, before,
        "replay rebuilds exactly the acknowledged state"
    );
    let reply = project
        .send(ProjectWrite {
            command: set("k0", "again"),
            ctx: ctx(Principal::Local),
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        reply.version,
        before.version + 1,
        "versions keep growing across restarts"
    );
}

#[actix::test]
async fn a_retried_identity_returns_its_original_reply_and_a_changed_one_conflicts() {
    let root = tempfile::tempdir().unwrap();
    let service = ServiceActor::new(config()).start();
    let info = service
        .send(CreateProject {
            root: root.path().into(),
            name: "ids".into(),
            principal: Principal::Operator,
        })
        .await
        .unwrap()
        .unwrap();
    let project = service
        .send(GetProject { id: info.id })
        .await
        .unwrap()
        .unwrap();
    let input = json!({"key": "a", "value": "1"});
    let first = project
        .send(ProjectWrite {
            command: set("a", "1"),
            ctx: ctx_with("c1", &input),
        })
        .await
        .unwrap()
        .unwrap();
    let again = project
        .send(ProjectWrite {
            command: set("a", "1"),
            ctx: ctx_with("c1", &input),
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first, again);
    let state = project.send(ProjectRead).await.unwrap().unwrap();
    assert_eq!(state.version, first.version, "a retry journals nothing");
    let changed = json!({"key": "a", "value": "2"});
    let err = project
        .send(ProjectWrite {
            command: set("a", "2"),
            ctx: ctx_with("c1", &changed),
        })
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(err.code(), "conflict");
    service.send(CloseAll).await.unwrap();
    drop((project, service));
    actix::clock::sleep(std::time::Duration::from_millis(50)).await;

    // The identity survives a restart: it is rebuilt from the journal.
    let service = ServiceActor::new(config()).start();
    service
        .send(OpenDir {
            dir: info.dir.clone(),
        })
        .await
        .unwrap()
        .unwrap();
    let project = service
        .send(GetProject { id: info.id })
        .await
        .unwrap()
        .unwrap();
    let after = project
        .send(ProjectWrite {
            command: set("a", "1"),
            ctx: ctx_with("c1", &input),
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(after, first);
    let err = project
        .send(ProjectWrite {
            command: set("a", "2"),
            ctx: ctx_with("c1", &changed),
        })
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(err.code(), "conflict");
}

#[actix::test]
async fn a_transaction_is_all_or_nothing_and_invalid_input_changes_nothing() {
    let root = tempfile::tempdir().unwrap();
    let service = ServiceActor::new(config()).start();
    let info = service
        .send(CreateProject {
            root: root.path().into(),
            name: "tx".into(),
            principal: Principal::Local,
        })
        .await
        .unwrap()
        .unwrap();
    let project = service
        .send(GetProject { id: info.id })
        .await
        .unwrap()
        .unwrap();
    let mut values = BTreeMap::new();
    values.insert("good".to_string(), Some("1".to_string()));
    values.insert(String::new(), Some("bad key".to_string()));
    let err = project
        .send(ProjectWrite {
            command: ProjectCommand::SetSettings { values },
            ctx: ctx(Principal::Local),
        })
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(err.code(), "invalid");
    let state = project.send(ProjectRead).await.unwrap().unwrap();
    assert!(
        state.settings.is_empty(),
        "nothing of a refused transaction is applied"
    );
    assert_eq!(state.version, 1);
    let err = service
        .send(CreateProject {
            root: root.path().into(),
            name: "../escape".into(),
            principal: Principal::Local,
        })
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(err.code(), "invalid");
    let err = service
        .send(CreateProject {
            root: root.path().into(),
            name: "tx".into(),
            principal: Principal::Local,
        })
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(err.code(), "conflict");
}

#[actix::test]
async fn snapshot_plus_tail_equals_full_replay() {
    let root = tempfile::tempdir().unwrap();
    let service = ServiceActor::new(config()).start();
    let info = service
        .send(CreateProject {
            root: root.path().into(),
            name: "snap".into(),
            principal: Principal::Local,
        })
        .await
        .unwrap()
        .unwrap();
    let project = service
        .send(GetProject { id: info.id })
        .await
        .unwrap()
        .unwrap();
    for i in 0..50 {
        project
            .send(ProjectWrite {
                command: set(&format!("k{}", i % 7), &i.to_string()),
                ctx: ctx(Principal::Local),
            })
            .await
            .unwrap()
            .unwrap();
    }
    let snap_seq = project.send(TakeSnapshot).await.unwrap().unwrap();
    assert!(snap_seq > 50);
    for i in 0..30 {
        project
            .send(ProjectWrite {
                command: set(&format!("t{i}"), "x"),
                ctx: ctx(Principal::Local),
            })
            .await
            .unwrap()
            .unwrap();
    }
    service.send(CloseAll).await.unwrap();
    drop((project, service));
    actix::clock::sleep(std::time::Duration::from_millis(50)).await;

    let opened = open_project(&info.dir, &config()).unwrap();
    let (with_snapshot, stats) = replay(&opened.journal, true).unwrap();
    assert_eq!(stats.snapshot_seq, Some(snap_seq));
    let (full, full_stats) = replay(&opened.journal, false).unwrap();
    assert_eq!(full_stats.snapshot_seq, None);
    assert_eq!(with_snapshot.hash(), full.hash());
    let (again, _) = replay(&opened.journal, false).unwrap();
    assert_eq!(
        again.hash(),
        full.hash(),
        "replaying twice gives the same state hash"
    );
    assert_eq!(full.project.settings.len(), 37);
}

#[actix::test]
async fn a_second_writer_is_refused_with_the_holder_named() {
    let root = tempfile::tempdir().unwrap();
    let service = ServiceActor::new(config()).start();
    let info = service
        .send(CreateProject {
            root: root.path().into(),
            name: "lease".into(),
            principal: Principal::Local,
        })
        .await
        .unwrap()
        .unwrap();
    let mut other = config();
    other.holder = "another service".into();
    match open_project(&info.dir, &other) {
        Err(OpenError::Held { holder }) => assert!(holder.contains("test"), "{holder}"),
        Err(e) => panic!("expected Held, got {e}"),
        Ok(_) => panic!("a second writer was let in"),
    }
}

#[actix::test]
async fn a_missing_journal_is_unavailable_and_never_recreated() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("empty");
    std::fs::create_dir(&dir).unwrap();
    assert!(matches!(
        open_project(&dir, &config()),
        Err(OpenError::JournalMissing(_))
    ));
    assert!(!dir.join(".rho").exists(), "opening created nothing");
    let service = ServiceActor::new(config()).start();
    let err = service
        .send(OpenDir { dir: dir.clone() })
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(err.code(), "unavailable");
    assert!(!dir.join(".rho").exists());
}
