//! The summary of a conversation's earlier messages that a fresh Agent session is given when
//! the person chose to go on without the old one (its history could not be loaded): each
//! message's text and the end of its answer with its steps named, newest kept within a bound.

use super::entity::{Message, MessageState, Part};

/// Bytes of summary a fresh session gets at most (the newest messages are kept).
const MAX_SUMMARY_BYTES: usize = 16 * 1024;
/// Characters kept of a person's message and of an answer.
const MESSAGE_CHARS: usize = 600;
const ANSWER_CHARS: usize = 1200;

fn head(s: &str, n: usize) -> String {
    let mut out: String = s.chars().take(n).collect();
    if s.chars().nth(n).is_some() {
        out.push('…');
    }
    out
}

fn tail(s: &str, n: usize) -> String {
    let count = s.chars().count();
    if count <= n {
        return s.to_string();
    }
    let mut out = String::from("…");
    out.extend(s.chars().skip(count - n));
    out
}

fn one(i: usize, m: &Message) -> String {
    let answer: String = m
        .parts
        .iter()
        .filter_map(|p| match p {
            Part::Text(t) => Some(t.as_str()),
            Part::Step(_) => None,
        })
        .collect();
    let steps: Vec<String> = m
        .steps
        .iter()
        .map(|s| match &s.input {
            Some(input) => format!("{} ({})", s.title, head(input, 80)),
            None => s.title.clone(),
        })
        .collect();
    let ended = match m.state {
        MessageState::Ended => m.stop_reason.clone().unwrap_or_default(),
        MessageState::Unknown => "outcome unknown".into(),
        MessageState::Running => "running".into(),
    };
    let mut out = format!(
        "{i}. The person wrote: {}\n   The Agent answered ({ended}): {}",
        head(&m.original.text, MESSAGE_CHARS),
        tail(answer.trim(), ANSWER_CHARS)
    );
    if !steps.is_empty() {
        out.push_str(&format!("\n   Its steps: {}", head(&steps.join("; "), 400)));
    }
    out
}

/// The summary of `earlier` (oldest first) for a fresh Agent session.
pub fn summary(earlier: &[&Message]) -> String {
    let intro = "This conversation continues in a fresh session: the earlier session could not be loaded, and the person chose to go on. A summary of the earlier messages, as Rho recorded them:";
    let mut kept: Vec<String> = Vec::new();
    let mut bytes = intro.len();
    for (i, m) in earlier.iter().enumerate().rev() {
        let line = one(i + 1, m);
        if bytes + line.len() > MAX_SUMMARY_BYTES {
            kept.push(format!(
                "(the {} earlier message(s) before these are left out)",
                i + 1
            ));
            break;
        }
        bytes += line.len();
        kept.push(line);
    }
    kept.reverse();
    format!(
        "{intro}\n{}\n(End of the summary. The person's new message follows.)",
        kept.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::conversation::entity::Original;
    use crate::agent::conversation::launch::Backend;
    use crate::agent::conversation::record::ToolStep;

    fn message(text: &str, answer: &str) -> Message {
        Message {
            original: Original {
                message_id: text.into(),
                change_id: text.into(),
                text: text.into(),
                contexts: Vec::new(),
                backend: Backend::ClaudeAgentAcp,
                sent_ms: 0,
                sent_by: "local".into(),
            },
            state: MessageState::Ended,
            parts: vec![Part::Text(answer.into()), Part::Step("s".into())],
            steps: vec![ToolStep {
                id: "s".into(),
                title: "`ls`".into(),
                input: Some("ls".into()),
                ..ToolStep::default()
            }],
            stop_reason: Some("end_turn".into()),
            usage: None,
            error: None,
            ended_ms: None,
            permissions: Vec::new(),
            stopping: false,
            cut: Default::default(),
            spend: Default::default(),
            retries: Vec::new(),
            calls: Vec::new(),
            images: Vec::new(),
            cut_by: Vec::new(),
            kept: Vec::new(),
            kept_omitted: Vec::new(),
            decisions: Vec::new(),
        }
    }

    #[test]
    fn the_summary_names_each_message_and_keeps_the_newest_within_its_bound() {
        let a = message("Count the rows", "There are 42 rows.");
        let b = message("Plot them", "Done.");
        let s = summary(&[&a, &b]);
        assert!(s.contains("1. The person wrote: Count the rows"), "{s}");
        assert!(s.contains("There are 42 rows."), "{s}");
        assert!(s.contains("Its steps: `ls` (ls)"), "{s}");
        let big: Vec<Message> = (0..60)
            .map(|i| message(&format!("m{i} {}", "x".repeat(600)), &"y".repeat(1200)))
            .collect();
        let refs: Vec<&Message> = big.iter().collect();
        let s = summary(&refs);
        assert!(s.len() <= MAX_SUMMARY_BYTES + 400, "{}", s.len());
        assert!(s.contains("m59 "), "the newest is kept");
        assert!(s.contains("left out"), "what went is said");
    }
}
