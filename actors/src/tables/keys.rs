//! The row of each key of a keyed table: an open-addressing table of row numbers tagged with their key's hash, over the key column's own texts.

use std::hash::BuildHasher;

/// The keyed hash of key texts (a random seed per table). The threads that read a table's
/// chunks hash its keys as they go, so building the index on one thread hashes nothing.
#[derive(Debug, Clone, Default)]
pub struct KeyHasher(std::collections::hash_map::RandomState);

impl KeyHasher {
    pub fn hash(&self, key: &str) -> u64 {
        self.0.hash_one(key)
    }
}

/// Rows by key text; the texts stay in the key column (no copy per key).
#[derive(Debug, Default)]
pub struct KeyIndex {
    /// Per slot 0 when empty, else the high 32 bits of the key's hash above row + 1: a probe
    /// past another key compares tags, and reads a key's text only when its tag is equal.
    slots: Vec<u64>,
    hasher: KeyHasher,
    len: usize,
}

const ROW: u64 = 0xFFFF_FFFF;

impl KeyIndex {
    /// An index with room for `n` keys hashed by `hasher`.
    pub fn with_capacity(n: usize, hasher: KeyHasher) -> KeyIndex {
        KeyIndex {
            slots: vec![0; (n.max(4) * 2).next_power_of_two()],
            hasher,
            len: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn hasher(&self) -> &KeyHasher {
        &self.hasher
    }

    /// The slot of `key` (hashed `hash`), or the empty slot where it would go.
    fn slot<'a>(&self, key: &str, hash: u64, text: impl Fn(usize) -> &'a str) -> usize {
        let mask = self.slots.len() - 1;
        let tag = hash & !ROW;
        let mut i = hash as usize & mask;
        loop {
            let s = self.slots[i];
            if s == 0 || (s & !ROW == tag && text((s & ROW) as usize - 1) == key) {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    /// Maps `key` (whose hash by [`KeyIndex::hasher`] is `hash`) to `row`, returning the row it
    /// mapped to before (like `HashMap::insert`).
    pub fn insert<'a>(
        &mut self,
        key: &str,
        hash: u64,
        row: usize,
        text: impl Fn(usize) -> &'a str,
    ) -> Option<usize> {
        if self.slots.is_empty() || (self.len + 1) * 2 > self.slots.len() {
            let mut bigger = KeyIndex::with_capacity((self.len + 1) * 2, self.hasher.clone());
            for &s in self.slots.iter().filter(|&&s| s != 0) {
                let k = text((s & ROW) as usize - 1);
                let i = bigger.slot(k, bigger.hasher.hash(k), &text);
                bigger.slots[i] = s;
            }
            bigger.len = self.len;
            *self = bigger;
        }
        let i = self.slot(key, hash, &text);
        let before = self.slots[i];
        // A table is bounded by `resources.maxRows`, far below 2^32 rows.
        let row = u64::from(u32::try_from(row + 1).unwrap_or(u32::MAX));
        self.slots[i] = (hash & !ROW) | row;
        if before == 0 {
            self.len += 1;
            None
        } else {
            Some((before & ROW) as usize - 1)
        }
    }

    /// The row of `key`.
    pub fn get<'a>(&self, key: &str, text: impl Fn(usize) -> &'a str) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let s = self.slots[self.slot(key, self.hasher.hash(key), text)];
        (s != 0).then(|| (s & ROW) as usize - 1)
    }

    pub fn heap_bytes(&self) -> usize {
        self.slots.capacity() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The index answers what a `HashMap` answers, whatever the keys, their repeats and growth.
        #[test]
        fn it_maps_keys_as_a_hash_map_does(keys in proptest::collection::vec("[a-c]{0,3}", 0..60), sized in proptest::bool::ANY) {
            let hasher = KeyHasher::default();
            let mut index = KeyIndex::with_capacity(if sized { keys.len() } else { 0 }, hasher.clone());
            let mut want = std::collections::HashMap::new();
            let text = |r: usize| keys[r].as_str();
            for (row, k) in keys.iter().enumerate() {
                let got = index.insert(k, hasher.hash(k), row, text);
                proptest::prop_assert_eq!(got, want.insert(k.clone(), row));
            }
            proptest::prop_assert_eq!(index.len(), want.len());
            for k in ["", "a", "ab", "abc", "cc", "zzz"] {
                proptest::prop_assert_eq!(index.get(k, text), want.get(k).copied());
            }
        }
    }
}
