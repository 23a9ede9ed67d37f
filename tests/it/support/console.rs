//! The Console as the local browser drives it: run, list, wait for an end, read all kept output.

use super::env::Env;
use super::poll::until;
use base64::Engine;
use serde_json::{json, Value};
use std::time::Duration;

impl Env {
    /// Calls `op` as the local browser with this project's `projectId`.
    pub fn local(&self, op: &str, mut body: Value) -> (u16, Value) {
        body["projectId"] = json!(self.project);
        self.service.call_local(op, body)
    }

    /// `console.run` as the local browser; asserts success and answers the record.
    pub fn console_run(&self, change_id: &str, command: &str) -> Value {
        let (status, v) = self.local(
            "console.run",
            json!({"changeId": change_id, "command": command}),
        );
        assert_eq!(status, 200, "console.run: {v}");
        v["value"].clone()
    }

    /// The current record of one command.
    pub fn console_record(&self, command_id: &str) -> Value {
        let (status, v) = self.local("console.list", json!({}));
        assert_eq!(status, 200, "console.list: {v}");
        v["value"]["commands"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["commandId"] == command_id)
            .cloned()
            .unwrap_or(Value::Null)
    }

    /// Waits until the command's state is one of `states`; answers its record.
    pub fn console_wait(&self, command_id: &str, states: &[&str], secs: u64) -> Value {
        let mut rec = Value::Null;
        until(
            &format!("command {command_id} reaches {states:?}"),
            Duration::from_secs(secs),
            || {
                rec = self.console_record(command_id);
                states.iter().any(|s| rec["state"] == *s)
            },
        );
        rec
    }

    /// Every kept chunk of a command, page by page: (stream, bytes), the cut as ("cut", omitted
    /// count as decimal text).
    pub fn console_chunks(&self, command_id: &str, page: u64) -> Vec<(String, Vec<u8>)> {
        self.console_read_on(command_id, 0, page).0
    }

    /// The chunks from `offset` to the end of what is written so far, page by page, and the
    /// offset reached.
    pub fn console_read_on(
        &self,
        command_id: &str,
        mut offset: u64,
        page: u64,
    ) -> (Vec<(String, Vec<u8>)>, u64) {
        let mut out = Vec::new();
        loop {
            let (status, v) = self.local(
                "console.output",
                json!({"commandId": command_id, "offset": offset, "maxBytes": page}),
            );
            assert_eq!(status, 200, "console.output: {v}");
            let p = &v["value"];
            for c in p["chunks"].as_array().unwrap() {
                let stream = c["stream"].as_str().unwrap().to_string();
                let bytes = match c["bytes"].as_str() {
                    Some(b) => base64::engine::general_purpose::STANDARD.decode(b).unwrap(),
                    None => c["omittedBytes"].to_string().into_bytes(),
                };
                out.push((stream, bytes));
            }
            let next = p["nextOffset"].as_u64().unwrap();
            let end = next == offset || next >= p["size"].as_u64().unwrap();
            if p["complete"] == true || end {
                return (out, next);
            }
            offset = next;
        }
    }

    /// The kept stdout and stderr bytes of a command, joined per stream.
    pub fn console_text(&self, command_id: &str) -> (String, String) {
        let (mut o, mut e) = (Vec::new(), Vec::new());
        for (s, b) in self.console_chunks(command_id, 64 * 1024) {
            match s.as_str() {
                "stdout" => o.extend(b),
                "stderr" => e.extend(b),
                _ => {}
            }
        }
        (
            String::from_utf8_lossy(&o).into_owned(),
            String::from_utf8_lossy(&e).into_owned(),
        )
    }
}
