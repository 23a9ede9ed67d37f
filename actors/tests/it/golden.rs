//! Golden journal bytes: a project journal written by today's format keeps opening and replaying to the recorded state.
//!
//! `tests/golden/v<STATE_FORMAT>/journal/` holds a segment, the watermark and a snapshot written
//! by the generator below; `state.txt` is the replayed state (`{:#?}`) and `state.sha256` the
//! hash of its canonical encoding. Regenerate with
//! `RHO_GOLDEN_WRITE=1 cargo test -p rho-actors --test it golden::` (see `journal/FORMAT.md`,
//! "Golden files"): only when the format changes, and then into a new folder.

// Test code: an unwrap or expect that fails is a failing test (clippy.toml cannot see helpers here).

use crate::support;

use rho_actors::agent::conversation::driver::{Setup, INSTRUCTIONS};
use rho_actors::agent::conversation::entity::{DecisionRecord, Info, MessageState, Original};
use rho_actors::agent::conversation::handlers::{
    DecideMessage, ReadConversation, StartConversation,
};
use rho_actors::agent::conversation::{Backend, RecordLimits, Runtimes};
use rho_actors::agent::entity::{Activity, AgentCommand, Binding};
use rho_actors::agent::handlers::{BindingWrite, RecordActivity};
use rho_actors::console::entity::{CommandRecord, CommandState, ConsoleEvent, Ended, Started};
use rho_actors::console::handlers::state::{AcceptCommand, LearnCommand};
use rho_actors::contexts::handlers::{ContextSource, MakeContext};
use rho_actors::documents::handlers::{
    DocWrite, DocWriteOp, OpenDocument, ReloadBuffers, SaveDocument,
};
use rho_actors::documents::text::Edit;
use rho_actors::files::handlers::{Declared, PutResource};
use rho_actors::files::PutBounds;
use rho_actors::kernel::contract::Language;
use rho_actors::kernel::handlers::KernelPort;
use rho_actors::kernel::{KernelCommand, KernelEvent, QueueLimits};
use rho_actors::open::{journal_dir, open_project};
use rho_actors::project::ProjectCommand;
use rho_actors::project_actor::{ProjectRead, ProjectWrite, TakeSnapshot};
use rho_actors::replay::replay;
use rho_actors::service::{CloseAll, GetProject, OpenFolder};
use rho_actors::state::{describe_record, ProjectState, STATE_FORMAT};
use rho_actors::tables::entity::{SelectionEvent, SelectionScope};
use rho_actors::tables::handlers::SetSelection;
use rho_actors::Principal;
use rho_journal::inspect::scan;
use rho_journal::{Journal, JournalConfig};
use serde_json::json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use support::{config, ctx, ctx_with, Env};
use uuid::Uuid;

/// The journal format version (`journal/FORMAT.md`) the golden segment was written with (v6 on:
/// 2, the preallocated segments every new segment is; v5 holds format 1).
const JOURNAL_FORMAT: u32 = 2;

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("v{STATE_FORMAT}"))
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A temporary project folder holding a copy of the golden journal.
fn golden_copy() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("golden");
    copy_tree(&golden_dir().join("journal"), &journal_dir(&project));
    (tmp, project)
}

/// `{:#?}` of the state, with runs of bare numbers (digests) on one line each.
fn dump(state: &ProjectState) -> String {
    let mut out = String::new();
    let mut in_run = false;
    for line in format!("{state:#?}").lines() {
        let bare = line.trim().trim_end_matches(',');
        if !bare.is_empty() && bare.bytes().all(|b| b.is_ascii_digit()) {
            if in_run {
                out.pop();
                out.push(' ');
                out.push_str(line.trim());
            } else {
                out.push_str(line);
            }
            in_run = true;
        } else {
            out.push_str(line);
            in_run = false;
        }
        out.push('\n');
    }
    out
}

fn expected() -> (String, String) {
    let dir = golden_dir();
    let text = std::fs::read_to_string(dir.join("state.txt")).unwrap();
    let hash = std::fs::read_to_string(dir.join("state.sha256")).unwrap();
    (text, hash.trim().to_string())
}

/// Asserts `state` is the recorded one (a readable diff first, then the canonical hash).
fn assert_recorded(state: &ProjectState, how: &str) {
    let (text, hash) = expected();
    assert_eq!(dump(state), text, "{how}: the replayed state changed");
    assert_eq!(state.hash(), hash, "{how}: the canonical encoding changed");
}

/// `rho journal inspect --verify` as a library call: the scan finds no problem and every record
/// decodes; the fold of the scanned records is the state.
fn verify_and_fold(journal: &Path) -> (rho_journal::inspect::Scan, ProjectState) {
    let s = scan(journal, false).unwrap();
    assert_eq!(s.problem, None, "the golden journal verifies");
    assert!(
        s.watermark.as_ref().is_ok_and(|w| w.clean),
        "closed cleanly"
    );
    let mut state = ProjectState::default();
    for rec in &s.records {
        describe_record(rec).unwrap();
        state.apply_record(rec).unwrap();
    }
    (s, state)
}

#[test]
fn the_golden_journal_verifies_read_only_and_folds_to_the_recorded_state() {
    let (_tmp, project) = golden_copy();
    let (s, state) = verify_and_fold(&journal_dir(&project));
    assert!(!s.segments.is_empty());
    for seg in &s.segments {
        assert_eq!(seg.format_version, JOURNAL_FORMAT);
    }
    assert_eq!(s.snapshots.len(), 1, "one snapshot is checked in");
    assert_eq!(s.snapshots[0].problem, None, "the snapshot verifies");
    assert!(
        s.snapshots[0].seq < s.last_seq,
        "records follow the snapshot, so replay from it folds a tail"
    );
    assert_recorded(&state, "scan and fold");
}

#[test]
fn the_golden_journal_opens_and_replays_from_its_snapshot() {
    let (_tmp, project) = golden_copy();
    let snap_seq = scan(&journal_dir(&project), false).unwrap().snapshots[0].seq;
    let (journal, _) = Journal::open(&journal_dir(&project), JournalConfig::default()).unwrap();
    let (mut state, stats) = replay(&journal, true).unwrap();
    assert_eq!(stats.snapshot_seq, Some(snap_seq), "the snapshot decodes");
    // Opening journals `journal.opened`, one internal record past the recorded state.
    state.last_seq -= 1;
    assert_recorded(&state, "open, replay from the snapshot");
    journal.close().unwrap();
}

#[test]
fn the_golden_journal_replays_from_its_segments_alone() {
    let (_tmp, project) = golden_copy();
    std::fs::remove_dir_all(journal_dir(&project).join("snapshots")).unwrap();
    let (journal, _) = Journal::open(&journal_dir(&project), JournalConfig::default()).unwrap();
    let (mut state, stats) = replay(&journal, true).unwrap();
    assert_eq!(stats.snapshot_seq, None);
    state.last_seq -= 1;
    assert_recorded(&state, "open, replay from the segments");
}

#[test]
fn the_golden_project_opens_with_its_lease() {
    let (_tmp, project) = golden_copy();
    let opened = open_project(&project, &config()).unwrap();
    let mut state = opened.state.clone();
    state.last_seq -= 1;
    assert_recorded(&state, "open_project");
}

#[actix::test]
async fn a_service_opens_the_golden_project_and_serves_its_state() {
    let (tmp, project) = golden_copy();
    let (_, recorded) = verify_and_fold(&journal_dir(&project));
    let state = tempfile::tempdir().unwrap();
    let service = support::service_at(tmp.path(), state.path(), config());
    let info = service
        .send(OpenFolder {
            dir: project.canonicalize().unwrap(),
            principal: Principal::Local,
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(info.id, recorded.project.id);
    let project = service
        .send(GetProject {
            id: recorded.project.id,
        })
        .await
        .unwrap()
        .unwrap();
    let read = project.send(ProjectRead).await.unwrap().unwrap();
    assert_eq!(read, recorded.project);
    service.send(CloseAll).await.unwrap();
}

/// Every golden folder, of today's format or older, still verifies, opens and replays, from its
/// snapshot (when the format still reads it) to the same state as from its segments. A format
/// change adds a folder; this keeps the older ones opening (their exact state is the migration
/// test's business).
#[test]
fn every_golden_folder_still_opens_and_replays() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut seen = 0;
    for entry in std::fs::read_dir(&root).unwrap() {
        let dir = entry.unwrap().path();
        let tmp = tempfile::tempdir().unwrap();
        let journal = journal_dir(&tmp.path().join("p"));
        copy_tree(&dir.join("journal"), &journal);
        let (_, folded) = verify_and_fold(&journal);
        let (j, _) = Journal::open(&journal, JournalConfig::default()).unwrap();
        let (mut from_snapshot, _) = replay(&j, true).unwrap();
        let (mut from_segments, _) = replay(&j, false).unwrap();
        from_snapshot.last_seq -= 1;
        from_segments.last_seq -= 1;
        assert_eq!(from_snapshot, folded, "{}", dir.display());
        assert_eq!(from_segments, folded, "{}", dir.display());
        seen += 1;
    }
    assert!(seen >= 1);
    assert!(golden_dir().exists(), "today's format has a golden folder");
}

const T0: i64 = 1_700_000_000_000;

/// The Notebook's queue limits the generator's cells are checked against (the seed's defaults).
const KERNEL_LIMITS: QueueLimits = QueueLimits {
    max_queued: 16,
    max_code_bytes: 65536,
    max_cells: 500,
};

/// Writes one project through the actors, touching every owner reachable without R: project
/// settings, a document (open, edits with a burst, undo, save, close), a resource, a context, a selection,
/// agent activity, a binding and a Console command's facts; a snapshot in the middle; then a clean close.
async fn generate(env: &Env) -> PathBuf {
    let service = env.service();
    let (info, p) = support::created(&service, "golden").await;
    let input = json!({"key": "title", "value": "Golden"});
    p.send(ProjectWrite {
        command: ProjectCommand::SetSetting {
            key: "title".into(),
            value: Some("Golden".into()),
        },
        ctx: ctx_with("setting-1", &input),
    })
    .await
    .unwrap()
    .unwrap();

    // Documents: open (new file), edit, edit, undo, save, close.
    let doc = p
        .send(OpenDocument {
            path: "notes.md".into(),
            create: true,
            ctx: ctx(Principal::Local),
        })
        .await
        .unwrap()
        .unwrap();
    let mut version = doc.reply.version;
    // The last two edits are one typing burst (decision 0413): the undo below reverts both.
    let steps = [
        (0, "# Notes\n", None),
        (8, "one ", Some("b1")),
        (12, "line\n", Some("b1")),
    ];
    for (i, (at, text, burst)) in steps.into_iter().enumerate() {
        let input = json!({"i": i});
        version = p
            .send(DocWrite {
                id: doc.id,
                op: DocWriteOp::Edit {
                    expected_version: version,
                    edits: vec![Edit {
                        start: at,
                        end: at,
                        text: text.into(),
                    }],
                    burst: burst.map(String::from),
                },
                ctx: ctx_with(&format!("edit-{i}"), &input),
            })
            .await
            .unwrap()
            .unwrap()
            .version;
    }
    version = p
        .send(DocWrite {
            id: doc.id,
            op: DocWriteOp::Undo {
                expected_version: version,
            },
            ctx: ctx(Principal::Agent("claude-code".into())),
        })
        .await
        .unwrap()
        .unwrap()
        .version;
    p.send(SaveDocument {
        id: doc.id,
        expected_version: version,
        base_digest: None,
        ctx: ctx_with("save-1", &json!({"save": 1})),
    })
    .await
    .unwrap()
    .unwrap();

    // Files: register a table the project folder holds.
    std::fs::write(info.dir.join("data.csv"), "a,b\n1,2\n").unwrap();
    p.send(PutResource {
        path: "data.csv".into(),
        declared: Some(Declared {
            kind: "table".into(),
            format: "csv".into(),
            partial: false,
            table: None,
            media: None,
        }),
        capture: false,
        max_file_bytes: 1 << 20,
        bounds: PutBounds {
            max_resources: 100,
            max_artifact_bytes: 1 << 20,
        },
        ctx: ctx_with("resource-1", &json!({"path": "data.csv"})),
        operation_id: None,
    })
    .await
    .unwrap()
    .unwrap();

    let snap = p.send(TakeSnapshot).await.unwrap().unwrap();
    assert!(snap > 0);

    // After the snapshot: a context, a selection, agent activity, a binding, a closed buffer.
    p.send(MakeContext {
        source: ContextSource::Entities {
            namespace: "row".into(),
            keys: vec!["1".into(), "2".into()],
        },
        ctx: ctx(Principal::Agent("claude-code".into())),
    })
    .await
    .unwrap()
    .unwrap();
    p.send(SetSelection {
        set: SelectionEvent::Set {
            scope: SelectionScope::Shared,
            namespace: "row".into(),
            keys: vec!["2".into()],
        },
        ctx: ctx(Principal::Local),
    })
    .await
    .unwrap()
    .unwrap();
    p.send(RecordActivity {
        activity: Activity {
            seq: 0,
            time_ms: T0,
            session: "claude-code".into(),
            method: "document.edit".into(),
            outcome: "ok".into(),
            code: None,
            source: "service".into(),
            ids: BTreeMap::from([("documentId".into(), doc.id.to_string())]),
        },
        max_activities: 100,
    })
    .await
    .unwrap()
    .unwrap();
    let binding = Uuid::from_u128(0x0060_1de4);
    p.send(BindingWrite {
        command: AgentCommand::Open {
            binding: Binding {
                id: binding,
                label: "golden".into(),
                client: "mcp".into(),
                session: "claude-code".into(),
                principal: "agent:claude-code".into(),
                opened_ms: T0,
                closed_ms: None,
            },
            max: 10,
        },
        ctx: ctx_with("binding-1", &json!({"binding": 1})),
    })
    .await
    .unwrap()
    .unwrap();
    p.send(BindingWrite {
        command: AgentCommand::Close {
            id: binding,
            session: None,
        },
        ctx: ctx(Principal::Local),
    })
    .await
    .unwrap()
    .unwrap();
    // A Console command's facts (no process: the record and what its guard reported).
    let command = "11111111-2222-4333-8444-555555555555".to_string();
    p.send(AcceptCommand {
        record: Box::new(CommandRecord {
            command_id: command.clone(),
            change_id: "cmd-1".into(),
            text: "echo golden".into(),
            cwd: String::new(),
            by: "local".into(),
            accepted_at_ms: T0,
            state: CommandState::Starting,
            started: None,
            stop: None,
            ended: None,
            note: None,
        }),
        ctx: ctx_with("cmd-1", &json!({"command": "echo golden"})),
    })
    .await
    .unwrap()
    .unwrap();
    for event in [
        ConsoleEvent::Started {
            command_id: command.clone(),
            started: Started {
                pid: 4242,
                pid_start: 77,
                guard_pid: 4241,
                guard_start: 76,
                started_at_ms: T0 + 5,
            },
        },
        ConsoleEvent::StopRequested {
            command_id: command.clone(),
            by: "local".into(),
        },
        ConsoleEvent::Ended {
            command_id: command.clone(),
            ended: Ended {
                exit_code: None,
                signal: Some(15),
                ended_at_ms: T0 + 9,
                stdout_bytes: 7,
                stderr_bytes: 0,
                omitted_bytes: 0,
                error: None,
            },
        },
    ] {
        p.send(LearnCommand { event }).await.unwrap().unwrap();
    }
    // A Notebook cell queued by the Agent and interrupted by the person while it waited.
    let kernel = p.send(KernelPort).await.unwrap().unwrap();
    kernel
        .command(
            KernelCommand::Queue {
                cell_id: "cell-1".into(),
                language: Language::R,
                code: "1+1".into(),
                change_id: "cell-a".into(),
                digest: rho_actors::identity::input_digest(&json!({"code": "1+1"}), "changeId"),
                purpose: Some("golden".into()),
                limits: KERNEL_LIMITS,
                start_in: None,
            },
            ctx(Principal::Agent("claude-code".into())),
        )
        .await
        .unwrap();
    kernel
        .command(
            KernelCommand::Interrupt {
                cell_id: "cell-1".into(),
            },
            ctx(Principal::Local),
        )
        .await
        .unwrap();
    // From v7: a second cell started and the person's interrupt asked (journaled before SIGINT).
    kernel
        .command(
            KernelCommand::Queue {
                cell_id: "cell-2".into(),
                language: Language::R,
                code: "Sys.sleep(30)".into(),
                change_id: "cell-b".into(),
                digest: rho_actors::identity::input_digest(&json!({"code": "2"}), "changeId"),
                purpose: None,
                limits: KERNEL_LIMITS,
                start_in: None,
            },
            ctx(Principal::Local),
        )
        .await
        .unwrap();
    kernel
        .command(
            KernelCommand::Record {
                events: vec![KernelEvent::CellStarted {
                    cell_id: "cell-2".into(),
                    session_id: "session-1".into(),
                }],
                max_ended_sessions: 20,
            },
            ctx(Principal::System),
        )
        .await
        .unwrap();
    kernel
        .command(
            KernelCommand::Interrupt {
                cell_id: "cell-2".into(),
            },
            ctx(Principal::Local),
        )
        .await
        .unwrap();
    p.send(DocWrite {
        id: doc.id,
        op: DocWriteOp::Close,
        ctx: ctx(Principal::Local),
    })
    .await
    .unwrap()
    .unwrap();
    conversation_v8(&p, &info.dir).await;
    for (_, res) in service.send(CloseAll).await.unwrap() {
        res.unwrap();
    }
    info.dir
}

/// From v8: a buffer reloaded from a file an Agent wrote, then marked changed on disk under
/// unsaved changes; a conversation whose Agent could not start, and a decision on its message.
async fn conversation_v8(p: &actix::Addr<rho_actors::project_actor::ProjectActor>, dir: &Path) {
    std::fs::write(dir.join("agent.txt"), "one\n").unwrap();
    let doc = p
        .send(OpenDocument {
            path: "agent.txt".into(),
            create: false,
            ctx: ctx(Principal::Local),
        })
        .await
        .unwrap()
        .unwrap();
    let agent = Principal::Agent("conversation-0123456789ab".into());
    std::fs::write(dir.join("agent.txt"), "one and two\n").unwrap();
    p.send(ReloadBuffers {
        principal: agent.clone(),
    })
    .await
    .unwrap()
    .unwrap();
    p.send(DocWrite {
        id: doc.id,
        op: DocWriteOp::Edit {
            expected_version: doc.reply.version + 1,
            edits: vec![Edit {
                start: 0,
                end: 0,
                text: "my ".into(),
            }],
            burst: None,
        },
        ctx: ctx_with("edit-agent", &json!({"agent": 1})),
    })
    .await
    .unwrap()
    .unwrap();
    std::fs::write(dir.join("agent.txt"), "three\n").unwrap();
    p.send(ReloadBuffers { principal: agent })
        .await
        .unwrap()
        .unwrap();

    let id = Uuid::from_u128(0x0c0a_7e55);
    let missing = dir.join("no-runtimes");
    let original = Original {
        message_id: "golden-message".into(),
        change_id: "conv-1".into(),
        text: "Say hello".into(),
        contexts: Vec::new(),
        backend: Backend::ClaudeAgentAcp,
        sent_ms: T0,
        sent_by: "local".into(),
    };
    p.send(StartConversation {
        info: Info {
            conversation_id: id,
            backend: Backend::ClaudeAgentAcp,
            title: "Say hello".into(),
            started_ms: T0,
            started_by: "local".into(),
            mode: None,
            agent_session_id: None,
            note: None,
            needs_choice: false,
            pgid: None,
        },
        original,
        ctx: ctx_with("conv-1", &json!({"text": "Say hello"})),
        setup: Setup {
            runtimes: Runtimes {
                node: missing.join("node"),
                adapters: missing.clone(),
                claude: missing.join("claude"),
                codex: missing.join("codex"),
                env: Vec::new(),
            },
            backend: Backend::ClaudeAgentAcp,
            cwd: PathBuf::new(),
            mcp: Vec::new(),
            resume: None,
            mode: None,
            limits: RecordLimits::default(),
            turn: Default::default(),
            keep: Default::default(),
            instructions: Some(INSTRUCTIONS.into()),
        },
        context: None,
    })
    .await
    .unwrap()
    .unwrap();
    // The driver finds no adapter: the message ends `agent_unavailable`.
    for _ in 0..200 {
        let c = p
            .send(ReadConversation {
                conversation_id: id,
            })
            .await
            .unwrap()
            .unwrap();
        if c.message("golden-message").unwrap().state != MessageState::Running {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    p.send(DecideMessage {
        conversation_id: id,
        message_id: "golden-message".into(),
        decision: DecisionRecord {
            decision_id: "golden-decision".into(),
            change_id: "decide-1".into(),
            decision: "needs-changes".into(),
            note: Some("start it again".into()),
            at_ms: T0,
            by: "local".into(),
            supersedes: None,
            files: Vec::new(),
        },
        ctx: ctx_with("decide-1", &json!({"decision": "needs-changes"})),
    })
    .await
    .unwrap()
    .unwrap();
}

/// The generator still runs on today's code; with `RHO_GOLDEN_WRITE=1` it replaces the golden
/// folder of the current state format with what it wrote.
#[actix::test]
async fn the_generator_writes_a_journal_touching_every_reachable_owner() {
    let env = Env::new();
    let project = generate(&env).await;
    let journal = journal_dir(&project);
    let (s, state) = verify_and_fold(&journal);
    let kinds: std::collections::BTreeSet<&str> =
        s.records.iter().map(|r| r.entity.kind.as_str()).collect();
    for kind in [
        "journal",
        "project",
        "document",
        "resources",
        "contexts",
        "selections",
        "agent",
        "console",
        "kernel",
        "conversation",
    ] {
        assert!(kinds.contains(kind), "no {kind} record in {kinds:?}");
    }
    assert_eq!(s.snapshots.len(), 1);
    if std::env::var_os("RHO_GOLDEN_WRITE").is_some_and(|v| v == "1") {
        let dir = golden_dir();
        if dir.exists() {
            std::fs::remove_dir_all(&dir).unwrap();
        }
        copy_tree(&journal, &dir.join("journal"));
        std::fs::write(dir.join("state.txt"), dump(&state)).unwrap();
        std::fs::write(dir.join("state.sha256"), format!("{}\n", state.hash())).unwrap();
    }
}
