//! The Streamable HTTP client for DPoP-bound tokens (RFC 9449 §7): the token goes out as
//! `Authorization: DPoP <token>` with a fresh proof bound to it (`ath`) on every request, and
//! a resource server's `use_dpop_nonce` challenge is answered once with its nonce (§9).

use std::collections::HashMap;
use std::sync::Arc;

use futures::stream::BoxStream;
use reqwest::header::{HeaderName, HeaderValue, AUTHORIZATION};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};

use super::dpop::DpopKey;

type Error = StreamableHttpError<reqwest::Error>;
type Headers = HashMap<HeaderName, HeaderValue>;

/// rmcp's reqwest client with DPoP presentation instead of Bearer.
#[derive(Clone)]
pub(crate) struct DpopHttp {
    pub(super) inner: reqwest::Client,
    pub(super) key: Arc<DpopKey>,
}

fn unexpected(e: impl std::fmt::Display) -> Error {
    StreamableHttpError::UnexpectedServerResponse(e.to_string().into())
}

impl DpopHttp {
    /// The caller's headers plus the DPoP authorization and a fresh proof for `htm` `uri`.
    fn present(
        &self,
        htm: &str,
        uri: &str,
        token: Option<&str>,
        mut headers: Headers,
    ) -> Result<Headers, Error> {
        let Some(token) = token else {
            return Ok(headers);
        };
        let proof = self.key.proof(htm, uri, Some(token)).map_err(unexpected)?;
        headers.insert(
            AUTHORIZATION,
            HeaderValue::from_str(&format!("DPoP {token}")).map_err(unexpected)?,
        );
        headers.insert(
            HeaderName::from_static("dpop"),
            HeaderValue::from_str(&proof).map_err(unexpected)?,
        );
        Ok(headers)
    }

    /// After a `use_dpop_nonce` challenge: rmcp's client keeps only the challenge, so the
    /// nonce is read from the answer to one harmless `ping` carrying a proof (the server
    /// refuses it, or answers it, with its `DPoP-Nonce`). True when a nonce was learned.
    async fn learn_nonce(&self, uri: &str, token: &str) -> bool {
        let Ok(headers) = self.present("POST", uri, Some(token), Headers::new()) else {
            return false;
        };
        let mut request = self
            .inner
            .post(uri)
            .header(
                reqwest::header::ACCEPT,
                "application/json, text/event-stream",
            )
            .json(&serde_json::json!({"jsonrpc": "2.0", "id": "rho-dpop-nonce", "method": "ping"}));
        for (name, value) in headers {
            request = request.header(name, value);
        }
        let Ok(response) = request.send().await else {
            return false;
        };
        match response
            .headers()
            .get("dpop-nonce")
            .and_then(|v| v.to_str().ok())
        {
            Some(nonce) => {
                self.key.set_rs_nonce(nonce.to_owned());
                true
            }
            None => false,
        }
    }
}

fn asks_for_nonce(e: &Error) -> bool {
    matches!(e, StreamableHttpError::AuthRequired(c) if c.www_authenticate_header.contains("use_dpop_nonce"))
}

impl StreamableHttpClient for DpopHttp {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_token: Option<String>,
        custom_headers: Headers,
    ) -> Result<StreamableHttpPostResponse, Error> {
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_token,
            custom_headers,
            StreamableHttpResponseLimits::default(),
        )
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_token: Option<String>,
        custom_headers: Headers,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, Error> {
        let token = auth_token.as_deref();
        let headers = self.present("POST", &uri, token, custom_headers.clone())?;
        let first = self
            .inner
            .post_message_with_response_limits(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                None,
                headers,
                limits,
            )
            .await;
        match (first, token) {
            (Err(e), Some(t)) if asks_for_nonce(&e) && self.learn_nonce(&uri, t).await => {
                let headers = self.present("POST", &uri, token, custom_headers)?;
                self.inner
                    .post_message_with_response_limits(
                        uri, message, session_id, None, headers, limits,
                    )
                    .await
            }
            (first, _) => first,
        }
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_token: Option<String>,
        custom_headers: Headers,
    ) -> Result<(), Error> {
        let headers = self.present("DELETE", &uri, auth_token.as_deref(), custom_headers)?;
        self.inner
            .delete_session(uri, session_id, None, headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_token: Option<String>,
        custom_headers: Headers,
    ) -> Result<BoxStream<'static, Result<sse_stream::Sse, SseError>>, Error> {
        let headers = self.present("GET", &uri, auth_token.as_deref(), custom_headers)?;
        self.inner
            .get_stream(uri, session_id, last_event_id, None, headers)
            .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_token: Option<String>,
        custom_headers: Headers,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<sse_stream::Sse, SseError>>, Error> {
        let headers = self.present("GET", &uri, auth_token.as_deref(), custom_headers)?;
        self.inner
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                None,
                headers,
                max_sse_event_size,
            )
            .await
    }
}
