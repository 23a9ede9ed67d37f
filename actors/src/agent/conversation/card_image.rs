//! A call card's image in the project's content-addressed store (`.rho/store/sha256/`, the one
//! captured resources and frozen run inputs use): stored when the call ends, within a message's
//! budget, and read back for `conversation.image` after the session (or Rho) is gone.

use super::ledger::CardImage;
use crate::error::ActorError;
use crate::files::store;
use base64::Engine;
use rho_mcp::render::ImageAsset;
use std::path::{Path, PathBuf};

/// Decoded bytes of call-card images one message stores at most (the oldest calls' images are
/// stored first; later ones keep only their descriptor).
pub const IMAGE_BYTES_STORED: u64 = 8 * 1024 * 1024;
/// The largest image read back: one image is at most the client's 4 MiB budget.
const IMAGE_BYTES_READ: u64 = 4 * 1024 * 1024;

/// Stores `image` (base64 as the server encoded it) under its digest if `room` bytes allow;
/// `None` when it is not valid base64, too large, or the store cannot be written (logged).
pub async fn store_image(
    project: &Path,
    step_id: &str,
    image: &ImageAsset,
    room: u64,
) -> Option<CardImage> {
    let bytes = match base64::engine::general_purpose::STANDARD.decode(image.data.trim()) {
        Ok(b) => b,
        Err(e) => {
            tracing::warn!(target: "rho::agent::conversation", step = %step_id, error = %e, "a call card's image is not valid base64; it is not kept");
            return None;
        }
    };
    if bytes.len() as u64 > room {
        return None;
    }
    let project: PathBuf = project.to_path_buf();
    let stored = tokio::task::spawn_blocking(move || {
        let sha256 = rho_plumbing::sha256_hex(&bytes);
        store::store(&project, &bytes, &sha256).map(|_| (sha256, bytes.len() as u64))
    })
    .await;
    match stored {
        Ok(Ok((sha256, bytes))) => Some(CardImage {
            step_id: step_id.to_string(),
            mime_type: image.mime_type.clone(),
            sha256,
            bytes,
        }),
        Ok(Err(e)) => {
            tracing::warn!(target: "rho::agent::conversation", step = %step_id, error = %e, "a call card's image could not be stored");
            None
        }
        Err(e) => {
            tracing::warn!(target: "rho::agent::conversation", step = %step_id, error = %e, "storing a call card's image failed");
            None
        }
    }
}

/// Reads a stored image back, checked against its digest (base64, standard alphabet).
pub fn load_image(project: &Path, image: &CardImage) -> Result<ImageAsset, ActorError> {
    let path = store::store_dir(project).join(&image.sha256);
    let bytes = store::read_bounded(&path, IMAGE_BYTES_READ)?;
    if rho_plumbing::sha256_hex(&bytes) != image.sha256 {
        return Err(ActorError::internal(format!(
            "the stored image {} does not match its digest",
            path.display()
        )));
    }
    Ok(ImageAsset {
        mime_type: image.mime_type.clone(),
        data: base64::engine::general_purpose::STANDARD.encode(bytes),
    })
}
