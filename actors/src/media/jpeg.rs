//! JPEG: width and height from the first SOFn marker segment (EXIF orientation not applied).

use super::error::MediaError;

/// `(width, height)` in pixels as the frame header states them.
pub fn size(bytes: &[u8]) -> Result<(u32, u32), MediaError> {
    let bad = |r: &str| MediaError::malformed("jpeg", r);
    if !bytes.starts_with(&[0xFF, 0xD8]) {
        return Err(bad("no SOI marker"));
    }
    let mut i = 2;
    loop {
        // A marker is 0xFF (possibly repeated as fill) then a non-0xFF, non-zero byte.
        if bytes.get(i) != Some(&0xFF) {
            return Err(bad("expected a marker"));
        }
        while bytes.get(i) == Some(&0xFF) {
            i += 1;
        }
        let marker = *bytes.get(i).ok_or_else(|| bad("truncated marker"))?;
        i += 1;
        match marker {
            0x01 | 0xD0..=0xD7 => continue,
            0xD9 | 0xDA => return Err(bad("no frame header (SOFn) before the scan")),
            _ => {}
        }
        let len = bytes
            .get(i..i + 2)
            .map(|l| usize::from(u16::from_be_bytes([l[0], l[1]])))
            .ok_or_else(|| bad("truncated segment length"))?;
        if len < 2 {
            return Err(bad("segment length below 2"));
        }
        let is_sof = matches!(marker, 0xC0..=0xCF) && !matches!(marker, 0xC4 | 0xC8 | 0xCC);
        if is_sof {
            let seg = bytes
                .get(i + 2..i + 7)
                .ok_or_else(|| bad("truncated frame header"))?;
            let h = u32::from(u16::from_be_bytes([seg[1], seg[2]]));
            let w = u32::from(u16::from_be_bytes([seg[3], seg[4]]));
            if w == 0 || h == 0 {
                return Err(bad("the frame header gives no size (DNL is not supported)"));
            }
            return Ok((w, h));
        }
        i += len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SOI, an APP0 segment, SOF0 for `w` x `h`, EOI.
    fn minimal(w: u16, h: u16) -> Vec<u8> {
        let mut b = vec![0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10];
        b.extend_from_slice(b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0");
        b.extend_from_slice(&[0xFF, 0xFF, 0xC0, 0x00, 0x0B, 0x08]);
        b.extend_from_slice(&h.to_be_bytes());
        b.extend_from_slice(&w.to_be_bytes());
        b.extend_from_slice(&[0x01, 0x01, 0x11, 0x00, 0xFF, 0xD9]);
        b
    }

    #[test]
    fn reads_sof0_after_other_segments_and_fill_bytes() {
        assert_eq!(size(&minimal(320, 200)), Ok((320, 200)));
        let mut sof2 = minimal(7, 9);
        sof2[22] = 0xC2;
        assert_eq!(size(&sof2), Ok((7, 9)));
    }

    #[test]
    fn refuses_truncated_or_frameless_bytes() {
        assert!(size(&minimal(320, 200)[..24]).is_err());
        assert!(size(&[0xFF, 0xD8, 0xFF, 0xDA, 0, 2]).is_err());
        assert!(size(&minimal(0, 5)).is_err());
    }
}
