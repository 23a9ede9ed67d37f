//! `project.work.read`'s reply from the relay records: connected (the relay process is alive and
//! has not closed) first, then most recent; at most eight, the rest counted.

use super::contract::{ExternalView, PromptView, WorkReply, SHOWN};
use super::entity::RelayRecord;
use rho_plumbing::time::rfc3339_ms;

/// Whether the relay that wrote `r` is still running: same pid, same start time, not closed.
pub fn connected(r: &RelayRecord) -> bool {
    r.closed_ms.is_none()
        && i32::try_from(r.header.pid)
            .ok()
            .and_then(rho_kernels::console::files::proc_start)
            == Some(r.header.proc_start)
}

/// The reply, with `alive` deciding which relays are connected.
pub fn work_reply(records: Vec<RelayRecord>, alive: impl Fn(&RelayRecord) -> bool) -> WorkReply {
    let mut rows: Vec<(bool, RelayRecord)> = records.into_iter().map(|r| (alive(&r), r)).collect();
    rows.sort_by(|(ca, a), (cb, b)| cb.cmp(ca).then(b.last_ms.cmp(&a.last_ms)));
    let omitted = rows.len().saturating_sub(SHOWN) as u64;
    let external = rows
        .into_iter()
        .take(SHOWN)
        .map(|(connected, r)| ExternalView {
            relay_id: r.header.relay_id,
            agent: r.header.agent,
            connected,
            first_at: rfc3339_ms(r.first_ms),
            last_at: rfc3339_ms(r.last_ms),
            closed_at: r.closed_ms.map(rfc3339_ms),
            sessions: r.sessions,
            prompts: r.prompts,
            last_prompt: r.last_prompt.map(|p| PromptView {
                session_id: p.session_id,
                started_at: rfc3339_ms(p.started_ms),
                ended_at: p.ended_ms.map(rfc3339_ms),
                stop_reason: p.stop_reason,
            }),
            steps: r.steps,
        })
        .collect();
    WorkReply { external, omitted }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::relay::entity::RelayHeader;

    fn record(id: &str, last_ms: i64, closed: bool) -> RelayRecord {
        RelayRecord {
            header: RelayHeader {
                relay_id: id.into(),
                agent: "claude".into(),
                pid: 1,
                proc_start: 1,
            },
            first_ms: 0,
            last_ms,
            closed_ms: closed.then_some(last_ms),
            last_n: 0,
            sessions: Vec::new(),
            prompts: 0,
            last_prompt: None,
            steps: Vec::new(),
        }
    }

    #[test]
    fn connected_first_then_recent_eight_shown_rest_counted() {
        let mut records: Vec<RelayRecord> =
            (0..10).map(|i| record(&format!("r{i}"), i, true)).collect();
        records.push(record("live-old", -5, false));
        let reply = work_reply(records, |r| r.closed_ms.is_none());
        let ids: Vec<&str> = reply.external.iter().map(|e| e.relay_id.as_str()).collect();
        assert_eq!(ids, ["live-old", "r9", "r8", "r7", "r6", "r5", "r4", "r3"]);
        assert!(reply.external[0].connected && !reply.external[1].connected);
        assert_eq!(reply.omitted, 3);
    }
}
