//! A crash between a save's temp write and its rename leaves the original file intact; the restart settles the intent.
//!
//! Needs `--features failpoints`: the test re-runs the test binary as a writer (this same test,
//! selected with `--exact`, told by `RHO_SAVE_CRASH_WRITER`) that crashes (`abort`) at
//! `documents::after_temp_write_before_rename`.

#![allow(clippy::print_stdout)] // the writer child reports on stdout

use crate::support;

use rho_actors::documents::handlers::{DocWrite, DocWriteOp, OpenDocument, SaveDocument};
use rho_actors::documents::text::Edit;
use rho_actors::service::{GetProject, OpenFolder};
use rho_actors::Principal;
use std::path::Path;

const NAME: &str = "save_crash::a_crash_before_the_saves_rename_leaves_the_original_file_intact";

#[test]
fn a_crash_before_the_saves_rename_leaves_the_original_file_intact() {
    if let Some(dir) = std::env::var_os("RHO_SAVE_CRASH_WRITER") {
        writer(Path::new(&dir));
        std::process::exit(0);
    }
    run().unwrap_or_else(|e| panic!("{e}"));
}

/// How many temp files of an interrupted save are in `dir` (None if it cannot be read).
fn save_temps(dir: &Path) -> Option<usize> {
    let entries = std::fs::read_dir(dir).ok()?;
    Some(
        entries
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().contains("rho-save"))
            .count(),
    )
}

/// Opens `a.txt`, edits it, saves: the fail point aborts the process before the rename.
fn writer(dir: &Path) {
    let _scenario = fail::FailScenario::setup();
    let state = std::env::var_os("RHO_SAVE_CRASH_STATE").unwrap();
    actix::System::new().block_on(async {
        let service =
            support::service_at(dir.parent().unwrap(), Path::new(&state), support::config());
        let id = service
            .send(OpenFolder {
                dir: dir.into(),
                principal: Principal::Local,
            })
            .await
            .unwrap()
            .unwrap()
            .id;
        let project = service.send(GetProject { id }).await.unwrap().unwrap();
        let doc = project
            .send(OpenDocument {
                path: "a.txt".into(),
                create: false,
                ctx: support::ctx(Principal::Local),
            })
            .await
            .unwrap()
            .unwrap();
        let edit = DocWrite {
            id: doc.id,
            op: DocWriteOp::Edit {
                expected_version: 1,
                edits: vec![Edit {
                    start: 0,
                    end: 0,
                    text: "new ".into(),
                }],
                burst: None,
            },
            ctx: support::ctx_with("e1", &serde_json::json!({"e": 1})),
        };
        project.send(edit).await.unwrap().unwrap();
        println!("edited {}", doc.id);
        let save = SaveDocument {
            id: doc.id,
            expected_version: 2,
            base_digest: None,
            ctx: support::ctx_with("s1", &serde_json::json!({"s": 1})),
        };
        let _ = project.send(save).await;
        println!("save returned: the fail point did not fire");
    });
}

fn run() -> Result<(), String> {
    let root = tempfile::tempdir().map_err(|e| e.to_string())?;
    let state = tempfile::tempdir().map_err(|e| e.to_string())?;
    let dir = actix::System::new().block_on(async {
        let service = support::service_at(root.path(), state.path(), support::config());
        let info = support::create(&service, "p").await;
        service.send(rho_actors::service::CloseAll).await.unwrap();
        info.dir
    });
    std::fs::write(dir.join("a.txt"), "original\n").map_err(|e| e.to_string())?;
    let out = std::process::Command::new(std::env::current_exe().map_err(|e| e.to_string())?)
        .args(["--exact", NAME, "--nocapture", "--test-threads=1"])
        .env("RHO_SAVE_CRASH_WRITER", &dir)
        .env("RHO_SAVE_CRASH_STATE", state.path())
        .env(
            "FAILPOINTS",
            "documents::after_temp_write_before_rename=return(abort)",
        )
        .output()
        .map_err(|e| e.to_string())?;
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    if out.status.success() || !said.contains("edited") || said.contains("save returned") {
        return Err(format!(
            "the writer did not crash at the fail point: {said}"
        ));
    }
    if std::fs::read_to_string(dir.join("a.txt")).map_err(|e| e.to_string())? != "original\n" {
        return Err("the original file was changed by an interrupted save".into());
    }
    let temps = std::fs::read_dir(&dir)
        .map_err(|e| e.to_string())?
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains("rho-save"))
        .count();
    if temps == 0 {
        return Err(
            "the crash left no temp file: the fail point fired before the temp write".into(),
        );
    }
    // Restart: the intent is settled (abandoned), the temp removed, the acknowledged edit kept.
    actix::System::new()
        .block_on(async {
            let service = support::service_at(root.path(), state.path(), support::config());
            let id = service
                .send(OpenFolder {
                    dir: dir.clone(),
                    principal: Principal::Local,
                })
                .await
                .unwrap()?
                .id;
            let project = service.send(GetProject { id }).await.unwrap()?;
            let doc = project
                .send(OpenDocument {
                    path: "a.txt".into(),
                    create: false,
                    ctx: support::ctx(Principal::Local),
                })
                .await
                .unwrap()?;
            // The restart settles the interrupted save: its temp file goes.
            support::until("the interrupted save is settled", async || {
                save_temps(&dir) == Some(0)
            })
            .await;
            let read = project
                .send(rho_actors::documents::handlers::ReadDocument {
                    id: doc.id,
                    range: None,
                    version: None,
                })
                .await
                .unwrap()?;
            Ok::<_, rho_actors::ActorError>((read.text, read.dirty))
        })
        .map_err(|e| e.to_string())
        .and_then(|(text, dirty)| {
            if text != "new original\n" || !dirty {
                return Err(format!(
                    "after restart the buffer is {text:?} (dirty {dirty})"
                ));
            }
            Ok(())
        })?;
    let temps = std::fs::read_dir(&dir)
        .map_err(|e| e.to_string())?
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains("rho-save"))
        .count();
    if temps != 0 {
        let names: Vec<String> = std::fs::read_dir(&dir)
            .map_err(|e| e.to_string())?
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        return Err(format!(
            "the restart did not remove the interrupted save's temp file: {names:?}"
        ));
    }
    Ok(())
}
