//! Every bound of the seeds' "Protected resource" tables: one `Limits` structure, its defaults, and `--limits FILE`.
//!
//! A limits file is JSON with the keys of CONVENTIONS (scalars at the top, one object per owner).
//! An unknown key or a wrong type is refused naming the key; where the seed calls a value a
//! maximum, a file may only lower it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

const KIB: u64 = 1024;
const MIB: u64 = 1024 * 1024;

macro_rules! limits_group {
    ($(#[$doc:meta])* $name:ident { $($(#[$fdoc:meta])* $field:ident : $ty:ty = $default:expr),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
        #[serde(rename_all = "camelCase", deny_unknown_fields, default)]
        pub struct $name { $($(#[$fdoc])* pub $field: $ty),* }
        impl Default for $name {
            fn default() -> Self { $name { $($field: $default),* } }
        }
    };
}

limits_group!(
    /// Journal numbers (`journal`).
    JournalLimits {
        segment_bytes: u64 = 64 * MIB,
        snapshot_every_events: u64 = 100_000,
        snapshot_every_bytes: u64 = 64 * MIB,
        max_record_bytes: u64 = 4 * MIB,
    }
);

limits_group!(
    /// Shared document buffers (`documents`), counted per project.
    DocumentLimits {
        max_buffers: u64 = 64,
        max_buffer_bytes: u64 = MIB,
        max_total_bytes: u64 = 8 * MIB,
        max_undo_bytes: u64 = 8 * MIB,
    }
);

limits_group!(
    /// Files, tables, charts and media (`resources`).
    ResourceLimits {
        max_file_bytes: u64 = 64 * MIB,
        max_resources: u64 = 1024,
        max_artifact_bytes: u64 = 512 * MIB,
        max_rows: u64 = 100_000,
        max_page_rows: u64 = 1000,
        max_chart_points: u64 = 20_000,
        max_read_bytes: u64 = 64 * KIB,
        max_artifact_files: u64 = 128,
    }
);

limits_group!(
    /// Managed R runs (`r`).
    RLimits {
        max_script_bytes: u64 = MIB,
        stop_grace_ms: u64 = 3000,
        max_log_bytes: u64 = 2 * MIB,
    }
);

limits_group!(
    /// Conversations started in Rho (`conversations`); step and wall-time caps are off unless set.
    ConversationLimits {
        max_snapshot_bytes: u64 = 8 * MIB,
        max_capture_files: u64 = 64,
        max_capture_bytes: u64 = 32 * MIB,
        max_capture_concurrent: u64 = 2,
        max_compared_files: u64 = 10_000,
        max_agent_turns: Option<u64> = None,
        turn_wall_ms: Option<u64> = None,
        /// Milliseconds a session of Rho's own agent stays open with nothing asked of it (no
        /// message, no palette read); then its MCP servers close in order (0: never).
        rho_idle_ms: u64 = 30 * 60 * 1000,
        /// Bytes one message keeps: the person's text (a longer one is refused), and the
        /// Agent's text with its steps (a full one gives up commands' output, then cuts text).
        max_message_bytes: u64 = 256 * KIB,
        /// Tool steps one message keeps (later ones are counted, not kept).
        max_steps: u64 = 500,
        /// Lines of a command's output a step keeps (its last ones).
        max_output_lines: u64 = 20,
        /// Bytes of a command's output a step keeps.
        max_output_bytes: u64 = 2 * KIB,
        /// Characters of a step's title, identifying input and purpose line.
        max_input_chars: u64 = 200,
        /// Messages one conversation keeps (the oldest ended ones go first).
        max_messages: u64 = 1000,
        /// Conversations one project keeps (the oldest idle ones go first).
        max_conversations: u64 = 200,
    }
);

limits_group!(
    /// Live R and Python sessions (`kernel`).
    KernelLimits {
        max_queued: u64 = 16,
        max_code_bytes: u64 = 64 * KIB,
        max_output_bytes: u64 = 256 * KIB,
        max_plots: u64 = 8,
        max_plot_bytes: u64 = 4 * MIB,
        max_cells: u64 = 500,
        max_variables: u64 = 200,
        inspect_rows: u64 = 50,
        inspect_columns: u64 = 50,
        inspect_children: u64 = 200,
        inspect_cell_chars: u64 = 120,
        inspect_text_bytes: u64 = 16 * KIB,
        inspect_sort_rows: u64 = 1_000_000,
        inspect_timeout_ms: u64 = 10_000,
        inspect_give_up_ms: u64 = 5000,
        max_wait_ms: u64 = 600_000,
        start_timeout_ms: u64 = 30_000,
        stop_grace_ms: u64 = 3000,
        max_ended_sessions: u64 = 20,
        max_places: u64 = 16,
        remote_start_timeout_ms: u64 = 90_000,
        remote_check_timeout_ms: u64 = 60_000,
        remote_list_timeout_ms: u64 = 30_000,
        remote_signal_timeout_ms: u64 = 15_000,
        serverctl_session_s: u64 = 7 * 24 * 3600,
        serverctl_read_ms: u64 = 15_000,
        server_skill_bytes: u64 = 256 * KIB,
        remote_entries: u64 = 500,
        remote_list_bytes: u64 = MIB,
        remote_copy_bytes: u64 = 64 * MIB,
        remote_copy_timeout_ms: u64 = 600_000,
        max_copies: u64 = 500,
    }
);

limits_group!(
    /// The Console (`console`).
    ConsoleLimits {
        max_records: u64 = 200,
        max_running: u64 = 4,
        max_output_bytes: u64 = MIB,
        tail_bytes: u64 = 64 * KIB,
        max_read_bytes: u64 = 64 * KIB,
        stop_grace_ms: u64 = 3000,
    }
);

limits_group!(
    /// Offline evidence packages (`evidence`).
    EvidenceLimits {
        max_bytes: u64 = 512 * MIB,
        max_files: u64 = 128,
        max_metadata_bytes: u64 = 4 * MIB,
    }
);

limits_group!(
    /// File descriptions while a message runs (`describe`).
    DescribeLimits {
        every_ms: u64 = 5000,
        settle_ms: u64 = 2000,
        max_fact_bytes: u64 = 4 * MIB,
        max_digest_bytes: u64 = 256 * MIB,
        max_per_message: u64 = 24,
        max_calls: u64 = 24,
        again_ms: u64 = 60_000,
        max_image_bytes: u64 = 3_670_016,
    }
);

limits_group!(
    /// Durable feedback delivery (`agentDelivery`); every value is a maximum.
    AgentDeliveryLimits {
        max_records: u64 = 128,
        max_bytes: u64 = 4 * MIB,
        max_fetch_receipts_per_delivery: u64 = 128,
        max_feedback_object_bytes: u64 = 12 * KIB,
    }
);

limits_group!(
    /// Binding witnesses and layout intents (`presentationWitness`).
    PresentationWitnessLimits {
        max_records: u64 = 256,
        max_bytes: u64 = 4 * MIB,
        max_configurations: u64 = 32,
    }
);

limits_group!(
    /// DOM visibility receipts and their indexes (`visibility`).
    VisibilityLimits {
        max_records: u64 = 256,
        max_record_bytes: u64 = 16 * KIB,
        max_bytes: u64 = 4 * MIB,
        max_index_entries: u64 = 512,
        max_index_bytes: u64 = 2 * MIB,
    }
);

limits_group!(
    /// Layered MCP grants (`layeredGrantLimits`); every value is a maximum.
    LayeredGrantLimits {
        max_methods: u64 = 96,
        max_entries: u64 = 16,
        max_known_refs: u64 = 128,
    }
);

limits_group!(
    /// Native Agent activity history (`agentNativeActivity`).
    AgentNativeActivityLimits {
        max_event_bytes: u64 = 16 * KIB,
        max_batch_events: u64 = 64,
        max_batch_bytes: u64 = 256 * KIB,
        max_events: u64 = 256,
        max_bytes: u64 = 4 * MIB,
        max_epochs: u64 = 128,
    }
);

limits_group!(
    /// Compositions and workspace exports (`workspace`).
    WorkspaceLimits {
        max_compositions: u64 = 32,
        max_views: u64 = 32,
        max_metadata_bytes: u64 = 32 * MIB,
    }
);

limits_group!(
    /// Every limit in force; `observation.snapshot` shows it.
    Limits {
        max_request_bytes: u64 = MIB,
        max_queue: u64 = 32,
        max_concurrent_actions: u64 = 2,
        max_operations: u64 = 256,
        max_code_bytes: u64 = MIB,
        max_log_page_bytes: u64 = 64 * KIB,
        event_retention: u64 = 256,
        max_subscriptions: u64 = 8,
        max_event_bytes: u64 = 64 * KIB,
        max_contexts: u64 = 128,
        max_context_bytes: u64 = MIB,
        max_bindings: u64 = 64,
        max_activities: u64 = 256,
        max_retained_metadata_bytes: u64 = 32 * MIB,
        journal: JournalLimits = JournalLimits::default(),
        documents: DocumentLimits = DocumentLimits::default(),
        resources: ResourceLimits = ResourceLimits::default(),
        r: RLimits = RLimits::default(),
        conversations: ConversationLimits = ConversationLimits::default(),
        kernel: KernelLimits = KernelLimits::default(),
        console: ConsoleLimits = ConsoleLimits::default(),
        evidence: EvidenceLimits = EvidenceLimits::default(),
        describe: DescribeLimits = DescribeLimits::default(),
        agent_delivery: AgentDeliveryLimits = AgentDeliveryLimits::default(),
        presentation_witness: PresentationWitnessLimits = PresentationWitnessLimits::default(),
        visibility: VisibilityLimits = VisibilityLimits::default(),
        layered_grant_limits: LayeredGrantLimits = LayeredGrantLimits::default(),
        agent_native_activity: AgentNativeActivityLimits = AgentNativeActivityLimits::default(),
        workspace: WorkspaceLimits = WorkspaceLimits::default(),
    }
);

/// Keys the seed calls maxima: a limits file may lower them, never raise them.
const MAXIMA: &[&str] = &[
    "agentDelivery.maxRecords",
    "agentDelivery.maxFetchReceiptsPerDelivery",
    "agentDelivery.maxFeedbackObjectBytes",
    "layeredGrantLimits.maxMethods",
    "layeredGrantLimits.maxEntries",
    "layeredGrantLimits.maxKnownRefs",
    "journal.maxRecordBytes",
];

/// A limits file that cannot be used; `key` names the offending key (dotted path).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("limits file: {key}: {reason}")]
pub struct LimitsError {
    pub key: String,
    pub reason: String,
}

fn err(key: &str, reason: impl Into<String>) -> LimitsError {
    LimitsError {
        key: key.to_string(),
        reason: reason.into(),
    }
}

/// Checks `user` against the shape of `defaults`, key by key.
fn check(path: &str, user: &Value, defaults: &Value) -> Result<(), LimitsError> {
    let Value::Object(map) = user else {
        return Err(err(
            if path.is_empty() { "(top)" } else { path },
            "must be an object",
        ));
    };
    let Value::Object(known) = defaults else {
        return Err(err(path, "is not an object of limits"));
    };
    for (key, value) in map {
        let full = if path.is_empty() {
            key.clone()
        } else {
            format!("{path}.{key}")
        };
        let Some(default) = known.get(key) else {
            return Err(err(&full, "unknown key"));
        };
        match default {
            Value::Object(_) => check(&full, value, default)?,
            _ => {
                let Some(n) = value.as_u64() else {
                    return Err(err(&full, "must be a non-negative integer"));
                };
                if MAXIMA.contains(&full.as_str()) {
                    if let Some(max) = default.as_u64() {
                        if n > max {
                            return Err(err(
                                &full,
                                format!("is a maximum ({max}); a limits file may only lower it"),
                            ));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

fn merge(base: &mut Value, user: &Value) {
    match (base, user) {
        (Value::Object(b), Value::Object(u)) => {
            for (k, v) in u {
                match b.get_mut(k) {
                    Some(slot @ Value::Object(_)) => merge(slot, v),
                    Some(slot) => *slot = v.clone(),
                    None => {}
                }
            }
        }
        (b, u) => *b = u.clone(),
    }
}

impl Limits {
    /// Parses a limits file's text: the defaults, overridden by the file's keys.
    pub fn from_json(text: &str) -> Result<Limits, LimitsError> {
        let user: Value = serde_json::from_str(text)
            .map_err(|e| err("(file)", format!("not valid JSON: {e}")))?;
        let mut base = serde_json::to_value(Limits::default())
            .map_err(|e| err("(defaults)", e.to_string()))?;
        check("", &user, &base)?;
        merge(&mut base, &user);
        serde_json::from_value(base).map_err(|e| err("(file)", e.to_string()))
    }

    /// Reads and parses `--limits FILE`.
    pub fn from_file(path: &std::path::Path) -> Result<Limits, LimitsError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| err("(file)", format!("cannot read {}: {e}", path.display())))?;
        Limits::from_json(&text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_seeds() {
        let l = Limits::default();
        assert_eq!(l.max_request_bytes, 1 << 20);
        assert_eq!(l.max_queue, 32);
        assert_eq!(l.event_retention, 256);
        assert_eq!(l.documents.max_buffers, 64);
        assert_eq!(l.resources.max_rows, 100_000);
        assert_eq!(l.journal.segment_bytes, 64 << 20);
        assert_eq!(l.layered_grant_limits.max_methods, 96);
        assert_eq!(l.kernel.inspect_sort_rows, 1_000_000);
        let v = serde_json::to_value(&l).unwrap();
        assert!(v["agentDelivery"]["maxFetchReceiptsPerDelivery"].is_u64());
        assert!(v["conversations"]["maxAgentTurns"].is_null());
    }

    #[test]
    fn a_file_overrides_only_its_keys() {
        let l = Limits::from_json(r#"{"maxQueue": 4, "documents": {"maxBuffers": 2}}"#).unwrap();
        assert_eq!(l.max_queue, 4);
        assert_eq!(l.documents.max_buffers, 2);
        assert_eq!(l.documents.max_buffer_bytes, 1 << 20);
        let l = Limits::from_json(r#"{"conversations": {"maxAgentTurns": 40}}"#).unwrap();
        assert_eq!(l.conversations.max_agent_turns, Some(40));
    }

    #[test]
    fn unknown_keys_wrong_types_and_raised_maxima_are_named() {
        let cases = [
            (r#"{"maxQeue": 4}"#, "maxQeue"),
            (r#"{"documents": {"maxBufers": 2}}"#, "documents.maxBufers"),
            (r#"{"maxQueue": "4"}"#, "maxQueue"),
            (r#"{"maxQueue": -1}"#, "maxQueue"),
            (r#"{"documents": 3}"#, "documents"),
            (
                r#"{"layeredGrantLimits": {"maxMethods": 200}}"#,
                "layeredGrantLimits.maxMethods",
            ),
            ("[1]", "(top)"),
            ("{", "(file)"),
        ];
        for (text, key) in cases {
            let e = Limits::from_json(text).unwrap_err();
            assert_eq!(e.key, key, "{text}: {e}");
        }
        assert!(Limits::from_json(r#"{"layeredGrantLimits": {"maxMethods": 50}}"#).is_ok());
    }
}
