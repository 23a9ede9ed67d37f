//! Replay fails closed: unknown event kinds and corrupt journals make one project unavailable, not the service.

use crate::support;

use crate::support::{config, Env};
use rho_actors::open::{journal_dir, open_project, OpenError};
use rho_actors::project_actor::ProjectRead;
use rho_actors::replay::ReplayError;
use rho_actors::service::{CloseAll, GetProject, ListProjects};
use rho_journal::{EntityRef, Journal, JournalConfig, NewRecord};

#[test]
fn an_unknown_event_kind_fails_closed() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("p");
    std::fs::create_dir(&dir).unwrap();
    let id = uuid::Uuid::new_v4();
    let journal = Journal::create(&journal_dir(&dir), id, JournalConfig::default()).unwrap();
    journal
        .append(vec![NewRecord {
            entity: EntityRef {
                kind: "mystery".into(),
                id,
            },
            time_ms: 0,
            principal: "system".into(),
            change_id: None,
            kind: "mystery.happened".into(),
            codec: 1,
            payload: vec![1, 2, 3],
        }])
        .unwrap();
    journal.close().unwrap();
    drop(journal);
    match open_project(&dir, &config()) {
        Err(OpenError::Replay(ReplayError::Fold(e))) => {
            assert!(e.to_string().contains("mystery.happened"), "{e}")
        }
        Err(e) => panic!("expected a fold error, got {e}"),
        Ok(_) => panic!("an unknown event kind was accepted"),
    }
}

#[actix::test]
async fn a_corrupt_project_is_unavailable_while_others_keep_working() {
    let env = Env::new();
    let service = env.service();
    let mut dirs = Vec::new();
    for name in ["broken", "fine"] {
        let info = support::create(&service, name).await;
        dirs.push((info.id, info.dir));
    }
    service.send(CloseAll).await.unwrap();
    drop(service);
    support::released(&dirs.iter().map(|(_, d)| d.as_path()).collect::<Vec<_>>()).await;

    // Flip a byte inside the first segment's first record: valid records follow it, so this is
    // corruption, not a torn tail.
    let jdir = journal_dir(&dirs[0].1);
    let seg = std::fs::read_dir(&jdir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "seg"))
        .unwrap();
    let mut bytes = std::fs::read(&seg).unwrap();
    let at = bytes.len() / 3;
    bytes[at] ^= 0x40;
    std::fs::write(&seg, &bytes).unwrap();

    let service = env.reopen().await;
    let err = service
        .send(GetProject { id: dirs[0].0 })
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(err.code(), "unavailable");
    assert!(err.to_string().contains("rho journal inspect"), "{err}");
    let project = service
        .send(GetProject { id: dirs[1].0 })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        project.send(ProjectRead).await.unwrap().unwrap().name,
        "fine"
    );
    let listing = service.send(ListProjects).await.unwrap();
    let broken = listing.iter().find(|l| l.id == dirs[0].0).unwrap();
    assert!(
        !broken.available && broken.reason.as_deref().unwrap_or("").contains("corrupt"),
        "{broken:?}"
    );
}
