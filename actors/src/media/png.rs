//! PNG: width and height from the IHDR chunk that must follow the signature.

use super::error::MediaError;

/// The eight bytes every PNG starts with.
pub const SIGNATURE: &[u8] = &[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

/// `(width, height)` in pixels.
pub fn size(bytes: &[u8]) -> Result<(u32, u32), MediaError> {
    let bad = |r: &str| MediaError::malformed("png", r);
    if !bytes.starts_with(SIGNATURE) {
        return Err(bad("no PNG signature"));
    }
    let ihdr = bytes
        .get(8..8 + 8 + 13)
        .ok_or_else(|| bad("truncated before IHDR"))?;
    if be32(&ihdr[0..4]) != 13 || &ihdr[4..8] != b"IHDR" {
        return Err(bad("the first chunk is not a 13-byte IHDR"));
    }
    let (w, h) = (be32(&ihdr[8..12]), be32(&ihdr[12..16]));
    if w == 0 || h == 0 || w > i32::MAX as u32 || h > i32::MAX as u32 {
        return Err(bad("IHDR width and height must be 1 to 2^31-1"));
    }
    Ok((w, h))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A PNG signature and IHDR chunk (CRC not checked by `size`, but written as zeros).
    pub(crate) fn minimal(w: u32, h: u32) -> Vec<u8> {
        let mut b = SIGNATURE.to_vec();
        b.extend_from_slice(&13u32.to_be_bytes());
        b.extend_from_slice(b"IHDR");
        b.extend_from_slice(&w.to_be_bytes());
        b.extend_from_slice(&h.to_be_bytes());
        b.extend_from_slice(&[8, 6, 0, 0, 0]);
        b.extend_from_slice(&[0; 4]);
        b
    }

    #[test]
    fn reads_ihdr() {
        assert_eq!(size(&minimal(640, 480)), Ok((640, 480)));
        assert!(size(&minimal(640, 480)[..20]).is_err());
        assert!(size(&minimal(0, 480)).is_err());
        let mut other = minimal(1, 1);
        other[12..16].copy_from_slice(b"IDAT");
        assert!(size(&other).is_err());
    }
}
