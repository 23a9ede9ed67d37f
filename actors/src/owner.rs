//! The capability owners by name: the `Owner` enum every contract names (a leaf module; what
//! an owner requires and provides is its spec in the owner table).

use serde::Serialize;
use std::fmt;

/// One capability owner: the seed's nine packages plus Console and Notebook (`kernel`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Owner {
    Annotations,
    Documents,
    Files,
    R,
    Requirements,
    Tables,
    Media,
    Charts,
    Agent,
    Console,
    Kernel,
}

impl Owner {
    pub const ALL: [Owner; 11] = [
        Owner::Annotations,
        Owner::Documents,
        Owner::Files,
        Owner::R,
        Owner::Requirements,
        Owner::Tables,
        Owner::Media,
        Owner::Charts,
        Owner::Agent,
        Owner::Console,
        Owner::Kernel,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Owner::Annotations => "annotations",
            Owner::Documents => "documents",
            Owner::Files => "files",
            Owner::R => "r",
            Owner::Requirements => "requirements",
            Owner::Tables => "tables",
            Owner::Media => "media",
            Owner::Charts => "charts",
            Owner::Agent => "agent",
            Owner::Console => "console",
            Owner::Kernel => "kernel",
        }
    }

    pub fn parse(name: &str) -> Option<Owner> {
        Owner::ALL.into_iter().find(|o| o.name() == name)
    }
}

impl fmt::Display for Owner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
