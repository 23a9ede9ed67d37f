//! The row of each key of a keyed table: an open-addressing table of row numbers over the key column's own texts.

use std::hash::BuildHasher;

/// Rows by key text; the texts stay in the key column (no copy per key).
#[derive(Debug, Default)]
pub struct KeyIndex {
    /// Row + 1 per slot, 0 for an empty slot.
    slots: Vec<u32>,
    hasher: std::collections::hash_map::RandomState,
    len: usize,
}

impl KeyIndex {
    pub fn with_capacity(n: usize) -> KeyIndex {
        KeyIndex {
            slots: vec![0; (n.max(4) * 2).next_power_of_two()],
            hasher: Default::default(),
            len: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn slot<'a>(&self, key: &str, text: impl Fn(usize) -> &'a str) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = self.hasher.hash_one(key) as usize & mask;
        loop {
            let s = self.slots[i];
            if s == 0 || text(s as usize - 1) == key {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    /// Maps `key` to `row`, returning the row it mapped to before (like `HashMap::insert`).
    pub fn insert<'a>(
        &mut self,
        key: &str,
        row: usize,
        text: impl Fn(usize) -> &'a str,
    ) -> Option<usize> {
        if self.slots.is_empty() || (self.len + 1) * 2 > self.slots.len() {
            let mut bigger = KeyIndex::with_capacity((self.len + 1) * 2);
            bigger.hasher = std::mem::take(&mut self.hasher);
            for &s in self.slots.iter().filter(|&&s| s != 0) {
                let i = bigger.slot(text(s as usize - 1), &text);
                bigger.slots[i] = s;
            }
            bigger.len = self.len;
            *self = bigger;
        }
        let i = self.slot(key, &text);
        let before = self.slots[i];
        self.slots[i] = u32::try_from(row + 1).unwrap_or(u32::MAX);
        if before == 0 {
            self.len += 1;
            None
        } else {
            Some(before as usize - 1)
        }
    }

    /// The row of `key`.
    pub fn get<'a>(&self, key: &str, text: impl Fn(usize) -> &'a str) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let s = self.slots[self.slot(key, text)];
        (s != 0).then(|| s as usize - 1)
    }

    pub fn heap_bytes(&self) -> usize {
        self.slots.capacity() * 4
    }
}
