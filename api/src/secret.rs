//! Secrets at the edge: random tokens, their SHA-256 digests, and constant-time comparison.

use rand::RngCore;

/// The SHA-256 of a secret; what the edge keeps instead of the secret itself.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SecretDigest([u8; 32]);

impl std::fmt::Debug for SecretDigest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretDigest(..)")
    }
}

impl SecretDigest {
    pub fn of(secret: &str) -> Self {
        SecretDigest(rho_plumbing::hex::sha256(secret.as_bytes()))
    }

    /// Whether `presented` is the secret, in time independent of where they differ (both sides
    /// are hashed first, so not even the length of the secret shows).
    pub fn matches(&self, presented: &str) -> bool {
        let other = SecretDigest::of(presented);
        self.0
            .iter()
            .zip(other.0.iter())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
    }
}

/// A new random secret: 32 bytes from the OS-seeded CSPRNG, as 64 lowercase hex digits.
pub fn random_token() -> String {
    let mut bytes = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut bytes);
    rho_plumbing::hex::encode(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_only_the_secret() {
        let d = SecretDigest::of("s3cret");
        assert!(d.matches("s3cret"));
        assert!(!d.matches("s3cres"));
        assert!(!d.matches(""));
        assert_ne!(random_token(), random_token());
        assert_eq!(random_token().len(), 64);
        assert_eq!(format!("{d:?}"), "SecretDigest(..)");
    }
}
