//! Property test: random transactions (emoji, combining marks, CJK), some in bursts, through the buffer entity equal an independent UTF-16 model after every step and undo.

use super::entity::{DocCommand, DocumentEntity};
use super::text::Edit;
use crate::entity::{CommandContext, Entity, EventMeta};
use crate::Principal;
use proptest::prelude::*;

fn ctx() -> CommandContext {
    CommandContext {
        principal: Principal::Local,
        time_ms: 0,
        identity: None,
        needs: Vec::new(),
    }
}

fn run(doc: &mut DocumentEntity, command: DocCommand) -> Result<(), crate::ActorError> {
    let d = doc.decide(&command, &ctx())?;
    for e in &d.events {
        doc.apply(
            e,
            &EventMeta {
                seq: 0,
                entity_seq: 0,
                time_ms: 0,
                principal: "local".into(),
            },
        );
    }
    Ok(())
}

fn piece() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "a", "é", "e\u{301}", "😀", "中", "文", "\n", "👍🏽", " ",
        ]),
        0..4,
    )
    .prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn buffer_equals_the_utf16_model_after_every_step(steps in prop::collection::vec((0u16..1000, 0u16..4, piece(), any::<bool>(), any::<bool>()), 1..40)) {
        let mut doc = DocumentEntity::default();
        run(&mut doc, DocCommand::Open { path: "m.txt".into(), text: "start😀中".into(), disk_digest: None }).unwrap();
        let mut model: Vec<u16> = "start😀中".encode_utf16().collect();
        let mut history: Vec<Vec<u16>> = Vec::new();
        // True right after an edit of burst "b": the next edit of it folds into the same step.
        let mut in_burst = false;
        for (pos, width, text, undo, burst) in steps {
            if undo && !history.is_empty() {
                let v = doc.version;
                run(&mut doc, DocCommand::Undo { expected_version: v }).unwrap();
                model = history.pop().unwrap();
                in_burst = false;
            } else {
                // A start and end on valid boundaries of the model (never inside a surrogate pair).
                let bounds: Vec<usize> = (0..=model.len()).filter(|&i| i == model.len() || !(0xDC00..0xE000).contains(&model[i])).collect();
                let start = bounds[pos as usize % bounds.len()];
                let end = bounds.iter().copied().filter(|&b| b >= start).nth(width as usize % 2).unwrap_or(start);
                let edit = Edit { start: start as u64, end: end as u64, text: text.clone() };
                let v = doc.version;
                let named = burst.then(|| "b".to_string());
                run(&mut doc, DocCommand::Edit { expected_version: v, edits: vec![edit], burst: named, max_bytes: 1 << 20, max_undo_bytes: 1 << 30 }).unwrap();
                if !(burst && in_burst) {
                    history.push(model.clone());
                }
                in_burst = burst;
                model.splice(start..end, text.encode_utf16());
            }
            prop_assert_eq!(doc.text.encode_utf16().collect::<Vec<_>>(), model.clone());
            prop_assert_eq!(doc.len16, model.len() as u64);
            prop_assert_eq!(doc.undo.len(), history.len(), "one undo step per burst");
        }
    }
}
