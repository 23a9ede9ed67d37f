//! Black-box tests of project actors: create, write, close, reopen, identities, snapshots, leases, failures.

use crate::support;

use crate::support::{config, ctx, ctx_with, Env};
use rho_actors::open::{open_project, OpenError};
use rho_actors::project::ProjectCommand;
use rho_actors::project_actor::{ProjectRead, ProjectWrite, TakeSnapshot};
use rho_actors::replay::replay;
use rho_actors::service::{CloseAll, CreateProject, GetProject, OpenAll, OpenFolder};
use rho_actors::Principal;
use serde_json::json;
use std::collections::BTreeMap;

fn set(key: &str, value: &str) -> ProjectCommand {
    ProjectCommand::SetSetting {
        key: key.into(),
        value: Some(value.into()),
    }
}

#[actix::test]
async fn create_write_close_reopen_replays_the_same_state() {
    let env = Env::new();
    let service = env.service();
    let info = support::create(&service, "alpha").await;
    assert_eq!(
        info.dir,
        env.root.path().canonicalize().unwrap().join("alpha")
    );
    let project = support::project(&service, info.id).await;
    for i in 0..20 {
        let reply = support::write(
            &project,
            set(&format!("k{i}"), &i.to_string()),
            ctx(Principal::Agent("claude-code".into())),
        )
        .await
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
    support::released(&[&info.dir]).await;

    let service = env.reopen().await;
    for (_, res) in service.send(OpenAll).await.unwrap() {
        res.unwrap();
    }
    let id = info.id;
    let project = service.send(GetProject { id }).await.unwrap().unwrap();
    let after = project.send(ProjectRead).await.unwrap().unwrap();
    assert_eq!(
        after, before,
        "replay rebuilds exactly the acknowledged state"
    );
    let reply = support::write(&project, set("k0", "again"), ctx(Principal::Local))
        .await
        .unwrap();
    assert_eq!(
        reply.version,
        before.version + 1,
        "versions keep growing across restarts"
    );
}

#[actix::test]
async fn a_retried_identity_returns_its_original_reply_and_a_changed_one_conflicts() {
    let env = Env::new();
    let service = env.service();
    let info = service
        .send(CreateProject {
            name: "ids".into(),
            principal: Principal::Operator,
        })
        .await
        .unwrap()
        .unwrap();
    let project = support::project(&service, info.id).await;
    let input = json!({"key": "a", "value": "1"});
    let first = support::write(&project, set("a", "1"), ctx_with("c1", &input))
        .await
        .unwrap();
    let again = support::write(&project, set("a", "1"), ctx_with("c1", &input))
        .await
        .unwrap();
    assert_eq!(first, again);
    let state = project.send(ProjectRead).await.unwrap().unwrap();
    assert_eq!(state.version, first.version, "a retry journals nothing");
    let changed = json!({"key": "a", "value": "2"});
    let err = support::write(&project, set("a", "2"), ctx_with("c1", &changed))
        .await
        .unwrap_err();
    assert_eq!(err.code(), "conflict");
    service.send(CloseAll).await.unwrap();
    drop((project, service));
    support::released(&[&info.dir]).await;

    // The identity survives a restart: it is rebuilt from the journal.
    let service = env.reopen().await;
    let project = support::project(&service, info.id).await;
    let after = support::write(&project, set("a", "1"), ctx_with("c1", &input))
        .await
        .unwrap();
    assert_eq!(after, first);
    let err = support::write(&project, set("a", "2"), ctx_with("c1", &changed))
        .await
        .unwrap_err();
    assert_eq!(err.code(), "conflict");
}

#[actix::test]
async fn a_transaction_is_all_or_nothing_and_invalid_input_changes_nothing() {
    let env = Env::new();
    let service = env.service();
    let info = support::create(&service, "tx").await;
    let project = support::project(&service, info.id).await;
    let mut values = BTreeMap::new();
    values.insert("good".to_string(), Some("1".to_string()));
    values.insert(String::new(), Some("bad key".to_string()));
    let err = support::write(
        &project,
        ProjectCommand::SetSettings { values },
        ctx(Principal::Local),
    )
    .await
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
            name: "../escape".into(),
            principal: Principal::Local,
        })
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(err.code(), "invalid");
    let err = service
        .send(CreateProject {
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
    let env = Env::new();
    let service = env.service();
    let info = support::create(&service, "snap").await;
    let project = support::project(&service, info.id).await;
    for i in 0..50 {
        support::write(
            &project,
            set(&format!("k{}", i % 7), &i.to_string()),
            ctx(Principal::Local),
        )
        .await
        .unwrap();
    }
    let snap_seq = project.send(TakeSnapshot).await.unwrap().unwrap();
    assert!(snap_seq > 50);
    for i in 0..30 {
        support::write(&project, set(&format!("t{i}"), "x"), ctx(Principal::Local))
            .await
            .unwrap();
    }
    service.send(CloseAll).await.unwrap();
    drop((project, service));
    support::released(&[&info.dir]).await;

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
    let env = Env::new();
    let service = env.service();
    let info = support::create(&service, "lease").await;
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
    let env = Env::new();
    let service = env.service();
    let info = support::create(&service, "gone").await;
    service.send(CloseAll).await.unwrap();
    drop(service);
    support::released(&[&info.dir]).await;
    std::fs::remove_dir_all(info.dir.join(".rho")).unwrap();
    assert!(matches!(
        open_project(&info.dir, &config()),
        Err(OpenError::JournalMissing(_))
    ));
    assert!(!info.dir.join(".rho").exists(), "opening created nothing");
    let service = env.reopen().await;
    let err = service
        .send(GetProject { id: info.id })
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(err.code(), "unavailable");
    assert!(
        !info.dir.join(".rho").exists(),
        "a registered project is never recreated empty"
    );
    let listing = service
        .send(rho_actors::service::ListProjects)
        .await
        .unwrap();
    assert!(!listing[0].available && listing[0].reason.is_some());
}

#[actix::test]
async fn open_folder_registers_existing_folders_and_refuses_a_moved_duplicate() {
    let env = Env::new();
    let service = env.service();
    let plain = env.root.path().join("plain");
    std::fs::create_dir(&plain).unwrap();
    std::fs::write(plain.join("data.csv"), "a\n1\n").unwrap();
    let info = service
        .send(OpenFolder {
            dir: plain.clone(),
            principal: Principal::Operator,
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(info.name, "plain");
    let again = service
        .send(OpenFolder {
            dir: plain.clone(),
            principal: Principal::Operator,
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        again.id, info.id,
        "opening a registered folder again is idempotent"
    );
    service.send(CloseAll).await.unwrap();
    drop(service);
    support::released(&[&plain]).await;
    // A copy of the folder (same journal id) at another path is a conflict naming the id.
    let copy = env.root.path().join("copy");
    std::fs::create_dir_all(copy.join(".rho/journal")).unwrap();
    for f in std::fs::read_dir(plain.join(".rho/journal"))
        .unwrap()
        .flatten()
    {
        if f.path().is_file() {
            std::fs::copy(f.path(), copy.join(".rho/journal").join(f.file_name())).unwrap();
        }
    }
    let service = env.reopen().await;
    let err = service
        .send(OpenFolder {
            dir: copy,
            principal: Principal::Operator,
        })
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(err.code(), "conflict");
    let missing = service
        .send(OpenFolder {
            dir: env.root.path().join("nope"),
            principal: Principal::Operator,
        })
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(missing.code(), "not_found");
}

#[actix::test]
async fn writes_beyond_max_queue_are_refused_with_the_limit_named_and_not_journaled() {
    let env = Env::new();
    let mut cfg = config();
    cfg.max_queue = 2;
    let service = support::service_at(env.root.path(), env.state.path(), cfg);
    let info = support::create(&service, "q").await;
    let project = support::project(&service, info.id).await;
    let sends: Vec<_> = (0..40)
        .map(|i| {
            project.send(ProjectWrite {
                command: set(&format!("k{i}"), "v"),
                ctx: ctx(Principal::Local),
            })
        })
        .collect();
    let mut ok = 0u64;
    let mut refused = 0;
    for s in sends {
        match s.await.unwrap() {
            Ok(_) => ok += 1,
            Err(rho_actors::ActorError::Limit { limit, value }) => {
                assert_eq!((limit.as_str(), value), ("maxQueue", 2));
                refused += 1;
            }
            Err(e) => panic!("unexpected {e}"),
        }
    }
    assert!(
        refused > 0,
        "40 concurrent writes never exceeded a queue of 2"
    );
    let state = project.send(ProjectRead).await.unwrap().unwrap();
    assert_eq!(
        state.settings.len() as u64,
        ok,
        "a refused write is not journaled"
    );
    assert_eq!(state.version, ok + 1);
}
