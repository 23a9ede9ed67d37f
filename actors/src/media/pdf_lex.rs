//! A small PDF object reader: tokens, direct objects, and every `N G obj` in the file (streams skipped).

use std::collections::HashMap;

/// A direct PDF object, reduced to what page sizes need.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Obj {
    Num(f64),
    Name(String),
    Ref(u32),
    Array(Vec<Obj>),
    Dict(Vec<(String, Obj)>),
    Other,
}

impl Obj {
    pub(crate) fn get(&self, key: &str) -> Option<&Obj> {
        match self {
            Obj::Dict(d) => d.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(f64, bool),
    Name(String),
    Word(Vec<u8>),
    Open,
    Close,
    DictOpen,
    DictClose,
    Skipped,
}

struct Lexer<'a> {
    b: &'a [u8],
    i: usize,
}

fn is_space(c: u8) -> bool {
    matches!(c, 0 | 9 | 10 | 12 | 13 | 32)
}

fn is_delim(c: u8) -> bool {
    matches!(
        c,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

impl Lexer<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn regular(&mut self) -> &[u8] {
        let s = self.i;
        while self.peek().is_some_and(|c| !is_space(c) && !is_delim(c)) {
            self.i += 1;
        }
        &self.b[s..self.i]
    }

    fn next(&mut self) -> Option<Tok> {
        loop {
            let c = self.peek()?;
            if is_space(c) {
                self.i += 1;
            } else if c == b'%' {
                while self.peek().is_some_and(|c| c != b'\n' && c != b'\r') {
                    self.i += 1;
                }
            } else {
                break;
            }
        }
        let c = self.peek()?;
        self.i += 1;
        Some(match c {
            b'[' => Tok::Open,
            b']' => Tok::Close,
            b'<' if self.peek() == Some(b'<') => {
                self.i += 1;
                Tok::DictOpen
            }
            b'>' if self.peek() == Some(b'>') => {
                self.i += 1;
                Tok::DictClose
            }
            b'<' => {
                while self.peek().is_some_and(|c| c != b'>') {
                    self.i += 1;
                }
                self.i = (self.i + 1).min(self.b.len());
                Tok::Skipped
            }
            b'(' => {
                let mut depth = 1;
                while depth > 0 {
                    match self.peek()? {
                        b'\\' => self.i += 1,
                        b'(' => depth += 1,
                        b')' => depth -= 1,
                        _ => {}
                    }
                    self.i += 1;
                }
                Tok::Skipped
            }
            b'/' => Tok::Name(String::from_utf8_lossy(self.regular()).into_owned()),
            b')' | b'>' | b'{' | b'}' => Tok::Skipped,
            _ => {
                self.i -= 1;
                let w = self.regular().to_vec();
                match std::str::from_utf8(&w)
                    .ok()
                    .and_then(|s| s.parse::<f64>().ok())
                {
                    Some(n) if n.is_finite() => Tok::Num(n, !w.contains(&b'.')),
                    _ => Tok::Word(w),
                }
            }
        })
    }

    /// One direct object starting with `first` (an `N G R` reference counts as one).
    fn value(&mut self, first: Tok, depth: usize) -> Option<Obj> {
        if depth > 32 {
            return None;
        }
        Some(match first {
            Tok::Num(n, true) if n >= 0.0 => {
                let save = self.i;
                match (self.next(), self.next()) {
                    (Some(Tok::Num(_, true)), Some(Tok::Word(w))) if w == b"R" => {
                        Obj::Ref(n as u32)
                    }
                    _ => {
                        self.i = save;
                        Obj::Num(n)
                    }
                }
            }
            Tok::Num(n, _) => Obj::Num(n),
            Tok::Name(n) => Obj::Name(n),
            Tok::Open => {
                let mut items = Vec::new();
                loop {
                    match self.next()? {
                        Tok::Close => break Obj::Array(items),
                        t => items.push(self.value(t, depth + 1)?),
                    }
                }
            }
            Tok::DictOpen => {
                let mut entries = Vec::new();
                loop {
                    match self.next()? {
                        Tok::DictClose => break Obj::Dict(entries),
                        Tok::Name(k) => {
                            let t = self.next()?;
                            entries.push((k, self.value(t, depth + 1)?));
                        }
                        _ => return None,
                    }
                }
            }
            _ => Obj::Other,
        })
    }
}

/// Every indirect object `N G obj <value>` in file order (a later definition replaces an earlier one),
/// plus the trailer dictionaries.
pub(crate) fn objects(b: &[u8]) -> (HashMap<u32, Obj>, Vec<Obj>) {
    let mut lx = Lexer { b, i: 0 };
    let mut objs = HashMap::new();
    let mut trailers = Vec::new();
    let (mut prev2, mut prev1): (Option<Tok>, Option<Tok>) = (None, None);
    while let Some(t) = lx.next() {
        match &t {
            Tok::Word(w) if w == b"obj" => {
                if let (Some(Tok::Num(n, true)), Some(Tok::Num(_, true))) = (&prev2, &prev1) {
                    let num = *n as u32;
                    if let Some(first) = lx.next() {
                        if let Some(v) = lx.value(first, 0) {
                            objs.insert(num, v);
                        }
                    }
                }
            }
            Tok::Word(w) if w == b"stream" => {
                let rest = &b[lx.i..];
                lx.i += rest
                    .windows(9)
                    .position(|w| w == b"endstream")
                    .map_or(rest.len(), |p| p + 9);
            }
            Tok::Word(w) if w == b"trailer" => {
                if let Some(first) = lx.next() {
                    if let Some(v) = lx.value(first, 0) {
                        trailers.push(v);
                    }
                }
            }
            _ => {}
        }
        prev2 = prev1;
        prev1 = Some(t);
    }
    (objs, trailers)
}
