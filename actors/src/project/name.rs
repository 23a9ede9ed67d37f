//! Project names: exactly one path segment a person can read.

/// Checks a project name: exactly one path segment a person can read.
pub fn validate_name(name: &str) -> Result<(), crate::ActorError> {
    let bad = |reason: &str| Err(crate::ActorError::invalid("name", reason));
    if name.is_empty() {
        return bad("a project name must not be empty");
    }
    if name.len() > 255 {
        return bad("a project name is at most 255 bytes");
    }
    if name == "." || name == ".." {
        return bad("a project name cannot be . or ..");
    }
    if name.contains(['/', '\\', '\0']) {
        return bad("a project name is one path segment: no /, \\ or NUL");
    }
    if name.starts_with('.') {
        return bad("a project name cannot start with a dot");
    }
    if name.chars().any(char::is_control) {
        return bad("a project name cannot contain control characters");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_one_readable_segment() {
        for ok in ["example", "my project", "Ünïcode-é", "a.b"] {
            assert!(validate_name(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            ".",
            "..",
            "a/b",
            ".rho",
            "a\\b",
            "a\nb",
            &"x".repeat(256),
        ] {
            assert!(validate_name(bad).is_err(), "{bad:?}");
        }
    }
}
