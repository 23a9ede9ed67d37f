//! Exported tool names: `mcp__<server>__<tool>`, the injective component encoding and the
//! deterministic, collision-free shortening to the 64-character limit of model APIs.

use std::collections::{BTreeMap, BTreeSet};

/// Model APIs cap tool names at this many characters.
pub const MAX_TOOL_NAME: usize = 64;
/// Reserved prefix of encoded components.
pub const ENCODED_PREFIX: &str = "_rho_";
/// Characters kept from the full name when it must be shortened (with the default hash).
const SHORT_PREFIX: usize = 47;
/// Hex digits of SHA-256 appended to a shortened name before any collision.
const SHORT_HASH: usize = 16;

/// Encodes one name component: kept as-is when it is non-empty `[A-Za-z0-9_]` that neither
/// starts nor ends with `_` and has no `__`; otherwise `_rho_` + lowercase hex of its UTF-8.
pub fn encode_component(raw: &str) -> String {
    let plain = !raw.is_empty()
        && raw.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !raw.starts_with('_')
        && !raw.ends_with('_')
        && !raw.contains("__");
    if plain {
        return raw.to_owned();
    }
    let mut out = String::with_capacity(ENCODED_PREFIX.len() + raw.len() * 2);
    out.push_str(ENCODED_PREFIX);
    out.push_str(&rho_plumbing::hex::encode(raw.as_bytes()));
    out
}

/// The full (possibly over-long) exported name of a server's tool.
pub fn full_name(server: &str, tool: &str) -> String {
    format!(
        "mcp__{}__{}",
        encode_component(server),
        encode_component(tool)
    )
}

fn sha_hex(s: &str) -> String {
    rho_plumbing::sha256_hex(s.as_bytes())
}

/// Assigns exported names to full names: names within the limit stay; longer ones become the
/// first 47 characters + `_` + 16 hex of SHA-256 of the full name, taking more hex (and fewer
/// prefix characters) on a collision. Input order does not matter: the result is a function
/// of the set of full names.
pub fn assign_exported(full_names: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut taken: BTreeSet<String> = full_names
        .iter()
        .filter(|n| n.len() <= MAX_TOOL_NAME)
        .cloned()
        .collect();
    let mut out: BTreeMap<String, String> = taken.iter().map(|n| (n.clone(), n.clone())).collect();
    for long in full_names.iter().filter(|n| n.len() > MAX_TOOL_NAME) {
        let hash = sha_hex(long);
        let mut chosen = None;
        // Up to 63 hex digits: the prefix shrinks to nothing, the name stays within 64.
        for hex_len in SHORT_HASH..=(SHORT_HASH + SHORT_PREFIX) {
            let prefix_len = SHORT_PREFIX - (hex_len - SHORT_HASH);
            // Full names are ASCII (encoding guarantees it), so byte slicing is char-safe.
            let candidate = format!("{}_{}", &long[..prefix_len], &hash[..hex_len]);
            if !taken.contains(&candidate) {
                chosen = Some(candidate);
                break;
            }
        }
        // 2^-256 territory: fall back to the whole hash under a fixed prefix, still unique
        // because the hash of distinct names differs.
        let name = chosen.unwrap_or_else(|| format!("mcp_{}", &hash[..59]));
        taken.insert(name.clone());
        out.insert(long.clone(), name);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_components_stay() {
        assert_eq!(full_name("github", "read_file"), "mcp__github__read_file");
        assert_eq!(full_name("a1", "B2"), "mcp__a1__B2");
    }

    #[test]
    fn others_are_hex_encoded() {
        assert_eq!(encode_component("my-server"), "_rho_6d792d736572766572");
        assert_eq!(encode_component("a__b"), "_rho_615f5f62");
        assert_eq!(encode_component("_rho_x"), "_rho_5f72686f5f78");
        assert_eq!(encode_component("_x"), "_rho_5f78");
        assert_eq!(encode_component("x_"), "_rho_785f");
        assert_eq!(encode_component(""), "_rho_");
        assert_eq!(encode_component("é"), "_rho_c3a9");
        assert_eq!(encode_component("p/s"), "_rho_702f73");
    }

    #[test]
    fn distinct_inputs_give_distinct_names() {
        let parts = [
            "", "a", "_", "__", "a_", "_a", "a__b", "a_b", "_rho_", "_rho_61", "rho", "61", "a-b",
            "é", "mcp", "x__y__z", "s", "s__t",
        ];
        let mut seen = BTreeMap::new();
        for s in parts.iter().filter(|s| !s.is_empty()) {
            for t in parts {
                let n = full_name(s, t);
                if let Some(prev) = seen.insert(n.clone(), (s.to_string(), t.to_string())) {
                    panic!("{n} from both {prev:?} and {:?}", (s, t));
                }
            }
        }
    }

    #[test]
    fn long_names_are_shortened_deterministically() {
        let long = full_name("server", &"t".repeat(80));
        let set: BTreeSet<String> = [long.clone(), "mcp__server__short".to_owned()].into();
        let map = assign_exported(&set);
        let short = &map[&long];
        assert_eq!(short.len(), MAX_TOOL_NAME);
        assert_eq!(&short[..47], &long[..47]);
        assert_eq!(&short[47..48], "_");
        assert_eq!(map["mcp__server__short"], "mcp__server__short");
        assert_eq!(assign_exported(&set), map);
    }

    #[test]
    fn colliding_short_names_take_more_hash() {
        let long = full_name("server", &"t".repeat(80));
        let first = assign_exported(&[long.clone()].into())[&long].clone();
        // A configured name equal to the default short form forces a longer hash.
        let set: BTreeSet<String> = [long.clone(), first.clone()].into();
        let map = assign_exported(&set);
        assert_eq!(map[&first], first);
        assert_ne!(map[&long], first);
        assert_eq!(map[&long].len(), MAX_TOOL_NAME);
        assert_eq!(&map[&long][46..47], "_");
    }

    #[test]
    fn shortening_never_runs_out_even_with_every_candidate_taken() {
        let long = full_name("server", &"t".repeat(80));
        let mut set: BTreeSet<String> = [long.clone()].into();
        // Take every hash-based candidate the shortening could pick.
        let hash = sha_hex(&long);
        for hex_len in 16..=63 {
            set.insert(format!(
                "{}_{}",
                &long[..47 - (hex_len - 16)],
                &hash[..hex_len]
            ));
        }
        let map = assign_exported(&set);
        assert!(map[&long].len() <= MAX_TOOL_NAME);
        let values: BTreeSet<&String> = map.values().collect();
        assert_eq!(values.len(), set.len());
    }

    #[test]
    fn many_long_names_stay_distinct() {
        let set: BTreeSet<String> = (0..500)
            .map(|i| full_name("s", &format!("{}{i}", "x".repeat(70))))
            .collect();
        let map = assign_exported(&set);
        let values: BTreeSet<&String> = map.values().collect();
        assert_eq!(values.len(), set.len());
        assert!(values.iter().all(|v| v.len() <= MAX_TOOL_NAME));
    }
}
