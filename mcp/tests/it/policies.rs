//! Test stand-ins for the host's surfaces: a scripted person, a deterministic local model
//! (no model is reachable here) and an in-memory usage ledger.

use std::sync::{Arc, Mutex};

use rho_mcp::policy::{
    Answer, AnswerValue, BoxFuture, Completion, FieldKind, Model, Policies, Question, Responder,
    SamplingAsk, Usage, UsageLedger,
};

/// How the scripted person behaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Person {
    /// Fills every field (defaults, else a typed value) and submits; approves sampling.
    Agreeable,
    /// Dismisses forms and refuses sampling.
    Dismissive,
}

#[derive(Default)]
pub(crate) struct Seen {
    pub(crate) questions: Vec<Question>,
    pub(crate) sampling: Vec<SamplingAsk>,
}

pub(crate) struct ScriptedPerson {
    pub(crate) mode: Person,
    pub(crate) seen: Arc<Mutex<Seen>>,
}

pub(crate) fn fill(q: &Question) -> Answer {
    let mut out = std::collections::BTreeMap::new();
    for f in &q.fields {
        let v = match (&f.default, &f.kind) {
            (Some(serde_json::Value::String(s)), _) => s.clone(),
            (Some(serde_json::Value::Bool(b)), _) => if *b { "yes" } else { "no" }.to_owned(),
            (Some(serde_json::Value::Number(n)), _) => n.to_string(),
            (_, FieldKind::Text) => format!("typed {}", f.name),
            (_, FieldKind::Confirm) => "yes".to_owned(),
            (_, FieldKind::Number { .. }) => "3".to_owned(),
            (
                _,
                FieldKind::Choice {
                    options,
                    multi: true,
                },
            ) => {
                out.insert(
                    f.name.clone(),
                    AnswerValue::Many(vec![options[0].0.clone()]),
                );
                continue;
            }
            (_, FieldKind::Choice { options, .. }) => options[0].0.clone(),
        };
        out.insert(f.name.clone(), AnswerValue::One(v));
    }
    Answer::Submitted(out)
}

impl Responder for ScriptedPerson {
    fn ask(&self, question: Question) -> BoxFuture<'_, Answer> {
        let answer = match self.mode {
            Person::Agreeable => fill(&question),
            Person::Dismissive => Answer::Dismissed,
        };
        self.seen.lock().unwrap().questions.push(question);
        Box::pin(async move { answer })
    }

    fn confirm_sampling(&self, ask: SamplingAsk) -> BoxFuture<'_, bool> {
        self.seen.lock().unwrap().sampling.push(ask);
        let yes = self.mode == Person::Agreeable;
        Box::pin(async move { yes })
    }
}

/// A deterministic local stand-in model.
pub(crate) struct StandInModel;

impl Model for StandInModel {
    fn name(&self) -> String {
        "stand-in-model".to_owned()
    }

    fn complete(
        &self,
        _system: Option<String>,
        user: String,
    ) -> BoxFuture<'_, Result<Completion, String>> {
        Box::pin(async move {
            Ok(Completion {
                text: format!("stand-in reply to {} bytes", user.len()),
                input_tokens: user.len() as u64,
                output_tokens: 5,
            })
        })
    }
}

#[derive(Default)]
pub(crate) struct Ledger(pub(crate) Mutex<Vec<Usage>>);

impl UsageLedger for Ledger {
    fn record(&self, usage: Usage) {
        self.0.lock().unwrap().push(usage);
    }
}

/// Policies with a scripted person, the stand-in model (optional) and a ledger.
pub(crate) fn policies(
    mode: Person,
    with_model: bool,
) -> (Policies, Arc<Mutex<Seen>>, Arc<Ledger>) {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let ledger = Arc::new(Ledger::default());
    let p = Policies {
        responder: Some(Arc::new(ScriptedPerson {
            mode,
            seen: Arc::clone(&seen),
        })),
        model: with_model.then(|| Arc::new(StandInModel) as Arc<dyn Model>),
        ledger: Some(Arc::clone(&ledger) as Arc<dyn UsageLedger>),
    };
    (p, seen, ledger)
}
