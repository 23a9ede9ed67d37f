//! The DPoP keys of a run, per server (kept in the 0600 key file beside the credential
//! file when the run has one).

use std::sync::{Arc, Mutex, PoisonError};

use super::error::OAuthError;
use super::{dpop, store};

/// Per-server DPoP keys of a run, each with the token endpoint its proofs are for.
#[derive(Debug, Clone, Default)]
pub struct DpopKeys(Arc<Mutex<std::collections::HashMap<String, DpopBinding>>>);

/// A server's DPoP key and the token endpoint its token-request proofs name.
type DpopBinding = (Arc<dpop::DpopKey>, String);

impl DpopKeys {
    /// The server's key of this run, else the one in the key file next to `store`.
    pub(super) fn get(
        &self,
        server: &str,
        store: Option<&std::path::Path>,
    ) -> Result<Option<DpopBinding>, OAuthError> {
        let mut keys = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(b) = keys.get(server) {
            return Ok(Some(b.clone()));
        }
        let Some(store) = store else {
            return Ok(None);
        };
        let Some((pkcs8, endpoint)) = store::load_dpop_key(store, server)? else {
            return Ok(None);
        };
        let binding = (dpop::DpopKey::from_pkcs8(&pkcs8)?, endpoint);
        keys.insert(server.to_owned(), binding.clone());
        Ok(Some(binding))
    }

    /// The server's key (made on first use, and kept in the key file next to `store`), now
    /// for `token_endpoint`.
    pub(super) fn get_or_make(
        &self,
        server: &str,
        token_endpoint: &str,
        store: Option<&std::path::Path>,
    ) -> Result<Arc<dpop::DpopKey>, OAuthError> {
        let key = match self.get(server, store)? {
            Some((k, _)) => k,
            None => dpop::DpopKey::generate()?,
        };
        if let Some(store) = store {
            store::save_dpop_key(store, server, key.pkcs8(), token_endpoint)?;
        }
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(server.to_owned(), (key.clone(), token_endpoint.to_owned()));
        Ok(key)
    }
}
