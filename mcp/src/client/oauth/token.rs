//! One token request of a machine grant: the form POSTed to the token endpoint within the
//! discovery bound, and its JSON answer or the server's refusal.

use serde_json::Value;

use super::error::{bounded, OAuthError, DISCOVERY_BOUND};

/// `application/x-www-form-urlencoded` as OAuth uses it.
fn form_encode(pairs: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

/// POSTs a token request form and returns the JSON body of a success; a refusal names the
/// server's error code and `what` was refused. Bounded like discovery.
pub(super) async fn post_token(
    request: reqwest::RequestBuilder,
    pairs: &[(&str, &str)],
    what: &str,
) -> Result<Value, OAuthError> {
    let response = bounded("token request", DISCOVERY_BOUND, async {
        request
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .header(reqwest::header::ACCEPT, "application/json")
            .body(form_encode(pairs))
            .send()
            .await
            .map_err(|e| OAuthError::Auth(format!("the token request failed: {e}")))
    })
    .await?;
    let status = response.status();
    let body: Value = response
        .json()
        .await
        .map_err(|e| OAuthError::Auth(format!("the token response is not JSON: {e}")))?;
    if !status.is_success() {
        return Err(OAuthError::Auth(format!(
            "the token endpoint refused {what} ({status}): {} {}",
            body["error"].as_str().unwrap_or("no error code"),
            body["error_description"].as_str().unwrap_or("")
        )));
    }
    Ok(body)
}
