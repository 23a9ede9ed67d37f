//! `outputSchema` contracts: structured content must exist and validate (JSON Schema
//! 2020-12 by default, no network `$ref`), failing with the JSON pointer of the first error.

use serde_json::Value;

/// Why a result breaks its tool's output contract.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OutputContractError {
    /// The tool declares `outputSchema` but returned no `structuredContent`.
    #[error("the tool declares an outputSchema but returned no structuredContent")]
    Missing,
    /// `structuredContent` does not validate.
    #[error("structuredContent does not match the tool's outputSchema at `{pointer}`: {message}")]
    Invalid {
        /// JSON pointer into the structured content (`""` is the root).
        pointer: String,
        /// The validator's message.
        message: String,
    },
    /// The declared schema itself cannot be used (including `$ref`s Rho will not fetch).
    #[error("the tool's outputSchema cannot be used: {0}")]
    BadSchema(String),
}

/// Checks a non-error result against its tool's `outputSchema`.
pub fn check_output(schema: &Value, structured: Option<&Value>) -> Result<(), OutputContractError> {
    let structured = structured.ok_or(OutputContractError::Missing)?;
    let validator = jsonschema::validator_for(schema)
        .map_err(|e| OutputContractError::BadSchema(e.to_string()))?;
    let first = validator
        .iter_errors(structured)
        .next()
        .map(|e| (e.instance_path().as_str().to_owned(), e.to_string()));
    match first {
        None => Ok(()),
        Some((pointer, message)) => Err(OutputContractError::Invalid { pointer, message }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {"items": {"type": "array", "items": {"type": "integer"}}},
            "required": ["items"]
        })
    }

    #[test]
    fn valid_passes() {
        assert_eq!(
            check_output(&schema(), Some(&json!({"items": [1, 2]}))),
            Ok(())
        );
    }

    #[test]
    fn missing_fails() {
        assert_eq!(
            check_output(&schema(), None),
            Err(OutputContractError::Missing)
        );
    }

    #[test]
    fn invalid_names_the_pointer() {
        let err = check_output(&schema(), Some(&json!({"items": [1, "x"]}))).unwrap_err();
        let OutputContractError::Invalid { pointer, .. } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(pointer, "/items/1");
    }

    #[test]
    fn remote_refs_are_not_fetched() {
        let s = json!({"$ref": "https://example.com/schema.json"});
        assert!(matches!(
            check_output(&s, Some(&json!({}))),
            Err(OutputContractError::BadSchema(_))
        ));
    }
}
