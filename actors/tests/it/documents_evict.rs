//! Idle buffers leave memory without closing and come back from the journal, text and undo history intact.

use crate::support;

use crate::support::Env;
use rho_actors::documents::handlers::{
    DocWrite, DocWriteOp, OpenDocument, ReadDocument, ResidentDocuments,
};
use rho_actors::documents::text::Edit;
use rho_actors::Principal;
use std::time::Duration;

#[actix::test]
async fn an_idle_buffer_is_evicted_and_rebuilt_with_its_undo_history() {
    let env = Env::new();
    let mut cfg = support::config();
    cfg.document_idle = Duration::from_millis(60);
    let service = support::service_at(env.root.path(), env.state.path(), cfg);
    let info = support::create(&service, "e").await;
    std::fs::write(info.dir.join("a.txt"), "abc").unwrap();
    let project = support::project(&service, info.id).await;
    let doc = project
        .send(OpenDocument {
            path: "a.txt".into(),
            create: false,
            ctx: support::ctx(Principal::Local),
        })
        .await
        .unwrap()
        .unwrap();
    let edit = |v: u64, text: &str, change: &str| DocWrite {
        id: doc.id,
        op: DocWriteOp::Edit {
            expected_version: v,
            edits: vec![Edit {
                start: 3,
                end: 3,
                text: text.into(),
            }],
            burst: None,
        },
        ctx: support::ctx_with(change, &serde_json::json!({ "c": change })),
    };
    project.send(edit(1, "d", "e1")).await.unwrap().unwrap();
    evicted(&project).await;
    // Two requests at once both wait for the one rebuild.
    let (r1, r2) = futures_join(
        project.send(ReadDocument {
            id: doc.id,
            range: None,
            version: None,
        }),
        project.send(ReadDocument {
            id: doc.id,
            range: None,
            version: Some(2),
        }),
    )
    .await;
    assert_eq!(r1.unwrap().unwrap().text, "abcd");
    assert_eq!(r2.unwrap().unwrap().version, 2);
    assert_eq!(project.send(ResidentDocuments).await.unwrap(), 1);
    // The identity of e1 survived eviction: a retry returns the original reply.
    assert_eq!(
        project
            .send(edit(1, "d", "e1"))
            .await
            .unwrap()
            .unwrap()
            .version,
        2
    );
    evicted(&project).await;
    // Undo after another eviction reverts the edit made before it.
    let undo = DocWrite {
        id: doc.id,
        op: DocWriteOp::Undo {
            expected_version: 2,
        },
        ctx: support::ctx_with("u", &serde_json::json!({"u": 1})),
    };
    assert_eq!(project.send(undo).await.unwrap().unwrap().version, 3);
    let read = project
        .send(ReadDocument {
            id: doc.id,
            range: None,
            version: None,
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!((read.text.as_str(), read.dirty), ("abc", true));
}

/// Waits until the project's idle buffers have left memory.
async fn evicted(project: &actix::Addr<rho_actors::project_actor::ProjectActor>) {
    support::until("the idle buffer left memory", async || {
        project.send(ResidentDocuments).await.unwrap() == 0
    })
    .await;
}

async fn futures_join<A: std::future::Future, B: std::future::Future + 'static>(
    a: A,
    b: B,
) -> (A::Output, B::Output)
where
    B::Output: 'static,
{
    let b = actix::spawn(b);
    (a.await, b.await.unwrap())
}
