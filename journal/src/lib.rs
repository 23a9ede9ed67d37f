//! rho-journal: the framed, append-only, group-committed journal that is the only source of truth for a project.
