//! Tests of the `AgentAccess` actor: the grant lifecycle with its 0600 connection file, and two services in one process sharing nothing.

use super::*;
use crate::agent::grants::GrantRegistry;
use crate::open::ProjectConfig;
use crate::registry::Registry;
use crate::service::{CreateProject, ServiceActor};
use crate::Principal;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

struct One {
    _dirs: (tempfile::TempDir, tempfile::TempDir),
    state: PathBuf,
    grants: GrantRegistry,
    access: Addr<AgentAccess>,
    project: uuid::Uuid,
    events: crate::events::EventBus,
}

async fn one(url: &str) -> One {
    let (root, state) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (registry, _) = Registry::open(state.path()).unwrap();
    let grants = GrantRegistry::load(registry.clone()).unwrap();
    let config = ProjectConfig {
        holder: "access test".into(),
        ..ProjectConfig::default()
    };
    let canonical = root.path().canonicalize().unwrap();
    let service = ServiceActor::new(config, registry, canonical.clone())
        .unwrap()
        .start();
    let project = service
        .send(CreateProject {
            name: "p".into(),
            principal: Principal::Operator,
        })
        .await
        .unwrap()
        .unwrap()
        .id;
    let events = crate::events::EventBus::new(crate::events::BusConfig {
        retention: 64,
        max_subscriptions: 4,
        max_event_bytes: 65536,
    });
    let setup = AgentSetup {
        grants: grants.clone(),
        state_dir: state.path().to_path_buf(),
        exe: PathBuf::from("/bin/rho"),
        claude: None,
        codex: None,
    };
    let access = AgentAccess::new(
        setup,
        AccessConfig {
            service,
            root: canonical,
            selection: Selection::all(),
            max_methods: 96,
            url: url.into(),
            events: Some(events.clone()),
        },
    )
    .start();
    One {
        state: state.path().to_path_buf(),
        _dirs: (root, state),
        grants,
        access,
        project,
        events,
    }
}

fn grant(project: uuid::Uuid, folder: Option<&str>) -> GrantAccess {
    GrantAccess {
        project: folder.map_or(ProjectRef::Id(project), |f| ProjectRef::Folder(f.into())),
        session: "s1".into(),
        methods: Some(vec!["project.entries".into()]),
        profile: None,
        expires_at: None,
    }
}

fn token_in(file: &Path) -> String {
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    v["token"].as_str().unwrap().to_string()
}

#[actix::test]
async fn grant_keep_replace_revoke_with_the_connection_file() {
    let a = one("http://127.0.0.1:1").await;
    let g = a
        .access
        .send(grant(a.project, None))
        .await
        .unwrap()
        .unwrap();
    assert!(!g.reused);
    let file = a
        .state
        .join("agents")
        .join(a.project.to_string())
        .join("s1.json");
    assert_eq!(g.connection_file, file);
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let first = token_in(&file);
    assert_eq!(a.grants.resolve(&first).unwrap().session, "s1");
    // The same grant again (by folder): kept, with its token.
    let again = a
        .access
        .send(grant(a.project, Some("p")))
        .await
        .unwrap()
        .unwrap();
    assert!(again.reused);
    assert_eq!(token_in(&file), first);
    // A file that lost its token gets a fresh one; the old token is refused at once.
    std::fs::write(&file, b"{}").unwrap();
    let fresh = a
        .access
        .send(grant(a.project, None))
        .await
        .unwrap()
        .unwrap();
    assert!(!fresh.reused);
    let second = token_in(&file);
    assert!(a.grants.resolve(&first).is_none() && a.grants.resolve(&second).is_some());
    // Revocation: refused at once, file gone; a second revocation finds nothing.
    let revoke = RevokeAccess {
        project: a.project,
        session: "s1".into(),
    };
    assert!(a.access.send(revoke.clone()).await.unwrap().unwrap());
    assert!(a.grants.resolve(&second).is_none() && !file.exists());
    assert!(!a.access.send(revoke).await.unwrap().unwrap());
    // Refusals keep their facts.
    let unknown = a
        .access
        .send(grant(uuid::Uuid::new_v4(), None))
        .await
        .unwrap();
    assert!(matches!(unknown, Err(AccessError::NotFound { .. })));
    let mut bad = grant(a.project, None);
    bad.methods = Some(vec!["no.such".into()]);
    let refused = a.access.send(bad).await.unwrap().unwrap_err();
    assert_eq!(
        refused,
        AccessError::NotGrantable {
            methods: vec!["no.such".into()]
        }
    );
    let connect = a
        .access
        .send(ConnectAgent {
            project: a.project,
            agent: "codex".into(),
        })
        .await
        .unwrap();
    assert!(matches!(connect, Err(AccessError::NoClient { .. })));
}

#[actix::test]
async fn two_services_in_one_process_share_nothing() {
    let (a, b) = (
        one("http://127.0.0.1:1").await,
        one("http://127.0.0.1:2").await,
    );
    let ga = a
        .access
        .send(grant(a.project, None))
        .await
        .unwrap()
        .unwrap();
    let gb = b
        .access
        .send(grant(b.project, None))
        .await
        .unwrap()
        .unwrap();
    let (ta, tb) = (token_in(&ga.connection_file), token_in(&gb.connection_file));
    assert!(a.grants.resolve(&tb).is_none() && b.grants.resolve(&ta).is_none());
    let url = |f: &Path| -> String {
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(f).unwrap()).unwrap();
        v["url"].as_str().unwrap().to_string()
    };
    assert_eq!(url(&ga.connection_file), "http://127.0.0.1:1");
    assert_eq!(url(&gb.connection_file), "http://127.0.0.1:2");
    let listed = b
        .access
        .send(ProjectGrants { project: b.project })
        .await
        .unwrap();
    assert_eq!(listed.len(), 1);
    assert!(a
        .access
        .send(ProjectGrants { project: b.project })
        .await
        .unwrap()
        .is_empty());
}

#[actix::test]
async fn grant_changes_are_announced_without_a_credential() {
    let a = one("http://127.0.0.1:1").await;
    let mut sub = a.events.subscribe(None, |_| true).unwrap();
    let g = a
        .access
        .send(grant(a.project, None))
        .await
        .unwrap()
        .unwrap();
    let token = token_in(&g.connection_file);
    a.access
        .send(grant(a.project, None))
        .await
        .unwrap()
        .unwrap();
    let revoke = RevokeAccess {
        project: a.project,
        session: "s1".into(),
    };
    assert!(a.access.send(revoke.clone()).await.unwrap().unwrap());
    // A second revoke changes nothing and announces nothing.
    assert!(!a.access.send(revoke).await.unwrap().unwrap());
    let mut seen = Vec::new();
    for _ in 0..3 {
        match sub.next().await {
            Some(crate::events::Delivery::Event(e)) => seen.push(e),
            other => panic!("{other:?}"),
        }
    }
    let changes: Vec<String> = seen
        .iter()
        .map(|e| {
            assert_eq!(e.kind, "grant.changed");
            assert_eq!(e.project, Some(a.project));
            assert!(!e.data.contains(&token), "{}", e.data);
            let v: serde_json::Value = serde_json::from_str(&e.data).unwrap();
            assert_eq!(v["principal"], "agent:s1");
            v["change"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(changes, ["granted", "kept", "revoked"]);
    assert_eq!(a.events.current_cursor().rsplit_once('-').unwrap().1, "3");
}
