//! What the requirements owner knows: declared packages, probe facts, configured repositories.

use super::contract::{PackageStateView, PackageView, ProbeReply, ProbeState, RFacts};
use crate::error::ActorError;
use serde::{Deserialize, Serialize};

/// Where a package comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Source {
    Cran,
    Bioconductor,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::Cran => "cran",
            Source::Bioconductor => "bioconductor",
        }
    }

    pub fn parse(text: &str) -> Option<Source> {
        match text {
            "cran" => Some(Source::Cran),
            "bioconductor" => Some(Source::Bioconductor),
            _ => None,
        }
    }
}

/// One declared package.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Requirement {
    pub package: String,
    pub source: Source,
    pub minimum_version: Option<String>,
}

impl Requirement {
    /// A CRAN declaration (tests and examples).
    pub fn cran(package: &str, minimum: Option<&str>) -> Self {
        Requirement {
            package: package.into(),
            source: Source::Cran,
            minimum_version: minimum.map(str::to_string),
        }
    }
}

/// R's rule for package names: letters, digits and dots, starting with a letter, not ending in a dot.
fn valid_package(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && b.len() <= 128
        && b[0].is_ascii_alphabetic()
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'.')
        && b[b.len() - 1] != b'.'
}

fn valid_version(v: &str) -> bool {
    !v.is_empty()
        && v.len() <= 64
        && v.split(['.', '-'])
            .all(|p| !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()))
}

/// Validates declarations (names, sources, versions) and refuses duplicates; `field` prefixes
/// the offending field (`requirements` or `input.requirements`).
pub fn validate(
    field: &str,
    raw: &[(String, String, Option<String>)],
) -> Result<Vec<Requirement>, ActorError> {
    let mut out: Vec<Requirement> = Vec::with_capacity(raw.len());
    for (i, (package, source, minimum)) in raw.iter().enumerate() {
        let bad = |what: &str, reason: String| ActorError::Invalid {
            field: Some(format!("{field}.{what}")),
            index: Some(i as u64),
            reason,
        };
        if !valid_package(package) {
            return Err(bad(
                "package",
                format!("{package:?} is not an R package name"),
            ));
        }
        let source = Source::parse(source).ok_or_else(|| {
            bad(
                "source",
                format!("{source:?} is not \"cran\" or \"bioconductor\""),
            )
        })?;
        if let Some(m) = minimum {
            if !valid_version(m) {
                return Err(bad(
                    "minimumVersion",
                    format!("{m:?} is not a package version"),
                ));
            }
        }
        if out.iter().any(|r| r.package == *package) {
            return Err(bad("package", format!("{package} is declared twice")));
        }
        out.push(Requirement {
            package: package.clone(),
            source,
            minimum_version: minimum.clone(),
        });
    }
    Ok(out)
}

/// One package as the probe found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PackageState {
    Present,
    Missing,
    Unknown,
}

impl PackageState {
    pub fn name(self) -> &'static str {
        match self {
            PackageState::Present => "present",
            PackageState::Missing => "missing",
            PackageState::Unknown => "unknown",
        }
    }
}

/// The probe's facts about one declared package.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackageFacts {
    pub requirement: Requirement,
    pub state: PackageState,
    pub version: Option<String>,
    /// Present packages only: whether `version` is at least the declared minimum.
    pub meets_minimum: Option<bool>,
}

impl PackageFacts {
    /// Present and new enough.
    pub fn satisfied(&self) -> bool {
        self.state == PackageState::Present && self.meets_minimum == Some(true)
    }
}

/// One probe's facts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Probe {
    /// False when the probe as a whole is unknown (no Rscript, timeout, failure).
    pub complete: bool,
    pub reason: Option<String>,
    pub r_version: Option<String>,
    pub platform: Option<String>,
    pub library_paths: Vec<String>,
    pub time_ms: i64,
    pub packages: Vec<PackageFacts>,
}

impl Probe {
    /// A probe that could not tell anything: every package `unknown`.
    pub fn unknown(requirements: &[Requirement], reason: String, now_ms: i64) -> Probe {
        Probe {
            complete: false,
            reason: Some(reason),
            r_version: None,
            platform: None,
            library_paths: Vec::new(),
            time_ms: now_ms,
            packages: requirements
                .iter()
                .map(|r| PackageFacts {
                    requirement: r.clone(),
                    state: PackageState::Unknown,
                    version: None,
                    meets_minimum: None,
                })
                .collect(),
        }
    }

    /// Declared packages that are not present and new enough.
    pub fn unmet(&self) -> Vec<&PackageFacts> {
        self.packages.iter().filter(|p| !p.satisfied()).collect()
    }

    /// The wire form.
    pub fn view(&self) -> ProbeReply {
        ProbeReply {
            packages: self
                .packages
                .iter()
                .map(|p| PackageView {
                    meets_minimum: p.meets_minimum,
                    minimum_version: p.requirement.minimum_version.clone(),
                    package: p.requirement.package.clone(),
                    source: p.requirement.source.name().to_string(),
                    state: match p.state {
                        PackageState::Present => PackageStateView::Present,
                        PackageState::Missing => PackageStateView::Missing,
                        PackageState::Unknown => PackageStateView::Unknown,
                    },
                    version: p.version.clone(),
                })
                .collect(),
            probe: if self.complete {
                ProbeState::Complete
            } else {
                ProbeState::Unknown
            },
            r: RFacts {
                library_paths: self.library_paths.clone(),
                platform: self.platform.clone(),
                version: self.r_version.clone(),
            },
            reason: self.reason.clone(),
            satisfied: self.complete && self.unmet().is_empty(),
            time: rho_plumbing::time::rfc3339_ms(self.time_ms),
        }
    }
}

/// Package repositories the service may install from (`--r-repos` / `RHO_R_REPOS`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Repos {
    #[serde(default)]
    pub cran: Vec<String>,
    #[serde(default)]
    pub bioconductor: Vec<String>,
}

impl Repos {
    /// Parses `{"cran":[urls],"bioconductor":[urls]}`.
    pub fn parse(text: &str) -> Result<Repos, String> {
        let r: Repos = serde_json::from_str(text).map_err(|e| {
            format!("the R repositories are not {{\"cran\":[urls],\"bioconductor\":[urls]}}: {e}")
        })?;
        if r.cran.iter().chain(&r.bioconductor).any(|u| u.is_empty()) {
            return Err("an R repository URL is empty".into());
        }
        Ok(r)
    }

    pub fn for_source(&self, s: Source) -> &[String] {
        match s {
            Source::Cran => &self.cran,
            Source::Bioconductor => &self.bioconductor,
        }
    }
}
