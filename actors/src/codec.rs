//! The one codec module: how typed events and state become journal payload bytes and back.
//!
//! Every payload carries a codec version byte in its journal frame. Version 1 is bincode 2.0.1
//! (serde mode, standard config). bincode's last release is unmaintained, so nothing outside
//! this file names it: a replacement codec gets a new version number and both are decoded.

use serde::{de::DeserializeOwned, Serialize};

/// Codec version of bincode 2.0.1, serde mode, standard configuration.
pub const CODEC_BINCODE_V1: u8 = 1;

/// The codec new records are written with.
pub const CURRENT_CODEC: u8 = CODEC_BINCODE_V1;

/// A payload could not be encoded or decoded.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum CodecError {
    #[error("unknown codec version {0}")]
    UnknownCodec(u8),
    #[error("payload does not decode: {0}")]
    Decode(String),
    #[error("value does not encode: {0}")]
    Encode(String),
    #[error("payload has {0} trailing bytes")]
    Trailing(usize),
}

/// Encodes `value` with the current codec.
pub fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, CodecError> {
    bincode::serde::encode_to_vec(value, bincode::config::standard())
        .map_err(|e| CodecError::Encode(e.to_string()))
}

/// Decodes a payload written with codec `codec`; the whole payload must be consumed.
pub fn decode<T: DeserializeOwned>(codec: u8, bytes: &[u8]) -> Result<T, CodecError> {
    match codec {
        CODEC_BINCODE_V1 => {
            let (value, used) =
                bincode::serde::decode_from_slice(bytes, bincode::config::standard())
                    .map_err(|e| CodecError::Decode(e.to_string()))?;
            if used != bytes.len() {
                return Err(CodecError::Trailing(bytes.len() - used));
            }
            Ok(value)
        }
        other => Err(CodecError::UnknownCodec(other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn round_trips_and_rejects_unknown_codec() {
        let mut m = BTreeMap::new();
        m.insert("b".to_string(), 2u64);
        m.insert("a".to_string(), 1u64);
        let bytes = encode(&m).unwrap();
        let back: BTreeMap<String, u64> = decode(CURRENT_CODEC, &bytes).unwrap();
        assert_eq!(back, m);
        assert_eq!(
            decode::<BTreeMap<String, u64>>(9, &bytes),
            Err(CodecError::UnknownCodec(9))
        );
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(
            decode::<BTreeMap<String, u64>>(CURRENT_CODEC, &longer),
            Err(CodecError::Trailing(1))
        );
    }

    /// Golden bytes: the v1 encoding of a fixed value must never change.
    #[test]
    fn v1_encoding_is_stable() {
        let v = ("project.created".to_string(), 7u64, Some(true));
        let bytes = encode(&v).unwrap();
        assert_eq!(
            bytes,
            [
                15, b'p', b'r', b'o', b'j', b'e', b'c', b't', b'.', b'c', b'r', b'e', b'a', b't',
                b'e', b'd', 7, 1, 1
            ]
        );
    }
}
