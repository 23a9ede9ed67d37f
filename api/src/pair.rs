//! `GET /pair/{token}`: redeems a one-time pairing link into the tab's `rho_pair` cookie, then redirects to `/`.

use crate::access::PAIR_COOKIE;
use crate::envelope::{new_request_id, ApiError};
use crate::state::AppState;
use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use std::time::SystemTime;

/// The route handler. The token is a credential: it is never logged, and a used, late or
/// unknown link gets `unauthorized` and no cookie.
pub(crate) async fn redeem(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let token = req.match_info().get("token").unwrap_or_default();
    match state.pairing.redeem(token) {
        Ok(session) => {
            let max_age = session
                .expires_at
                .duration_since(SystemTime::now())
                .map_or(0, |d| d.as_secs());
            tracing::info!(paired = %session.id, "pairing link redeemed");
            HttpResponse::build(StatusCode::SEE_OTHER)
                .insert_header((header::LOCATION, "/"))
                .insert_header((header::CACHE_CONTROL, "no-store"))
                .insert_header((header::REFERRER_POLICY, "no-referrer"))
                .insert_header((
                    header::SET_COOKIE,
                    format!(
                        "{PAIR_COOKIE}={}; HttpOnly; SameSite=Strict; Path=/; Max-Age={max_age}",
                        session.secret
                    ),
                ))
                .finish()
        }
        Err(e) => {
            tracing::info!(reason = %e, "pairing link refused");
            ApiError::unauthorized(format!("{e}; ask for a new link (rho --pair)"))
                .to_response(&new_request_id())
        }
    }
}
