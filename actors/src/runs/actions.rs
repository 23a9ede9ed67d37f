//! The runs owner's registered actions: `r.execute` (seed 003 line 14).

use crate::contract::actions::{ActionSpec, Runtime};
use crate::owners::Owner;

pub const ACTIONS: &[ActionSpec] = &[ActionSpec {
    name: "r.execute",
    version: "0.2.0",
    owner: Owner::R,
    needs: &[Owner::R, Owner::Requirements],
    runtimes: &[Runtime::Core, Runtime::Rscript],
    submit: "action.submit",
    summary: "Run an explicit project R script (or a document buffer, which also needs documents) with its requirements, arguments and output declarations under a Core Host.",
}];
