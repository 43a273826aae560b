//! One pass over text from outside that tells whether it is one JSON value, by the
//! grammar serde_json reads, and whether a tree might still fail to hold it. It is
//! the check every raw value passes, so it is written for speed: no recursion, open
//! containers kept as bits, and long strings searched a vector at a time. On the
//! way it can note what a reader of the value needs next (where containers close,
//! where the members of a small object are), so that nothing walks it twice.

use std::ops::Range;

use super::words::{self, HEAD};

/// Nesting this deep may reach serde_json's recursion limit (128).
pub(super) const DEEP: usize = 100;

/// What a syntax check found in text that is valid JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fit {
    /// A tree reads it.
    Tree,
    /// It may not fit a tree: a number with an exponent or over 300 digits (which
    /// may be out of `f64` range), a `\u` escape of a surrogate (which may stand
    /// alone), or nesting deep enough to reach the recursion limit.
    Unsure,
}

/// Whether `text` is exactly one JSON value with optional whitespace around it,
/// and if so how it fits a tree; `None` when it is not JSON.
pub(super) fn check(text: &str) -> Option<Fit> {
    check_noting(text, 0).map(|noted| noted.fit)
}

/// What a check notes on the way, for finding members without a second pass.
#[derive(Debug)]
pub(super) struct Noted {
    pub fit: Fit,
    /// Where the containers of the outer levels close.
    pub ends: ContainerEnds,
    /// The members of the value itself, when it is a small object.
    pub members: OuterMembers,
}

/// [`check`], also noting where the containers of the outer `levels` levels of
/// nesting close (the value itself is level 0), and the members of the value.
pub(super) fn check_noting(text: &str, levels: usize) -> Option<Noted> {
    let mut reader = Reader {
        text: text.as_bytes(),
        at: 0,
        unsure: false,
        levels,
        ends: ContainerEnds::default(),
        members: OuterMembers::default(),
        member: None,
    };
    reader.document()?;
    let fit = if reader.unsure {
        Fit::Unsure
    } else {
        Fit::Tree
    };
    Some(Noted {
        fit,
        ends: reader.ends,
        members: reader.members,
    })
}

/// The members of an object that is the whole text, as its check met them: where
/// each name and value lie. Noted for an object of a few members whose names have
/// no escapes, as a JSON-RPC envelope is; any other is left to a scan.
#[derive(Debug, Default)]
pub(super) struct OuterMembers {
    /// In the order written.
    noted: [NotedMember; OuterMembers::MOST],
    len: usize,
    /// Every member is noted.
    complete: bool,
}

/// Where a member's name (without its quotes) and its value lie, as offsets that
/// keep the list small: a check notes none in text of 4 GiB or more.
#[derive(Debug, Default, Clone, Copy)]
struct NotedMember {
    name: [u32; 2],
    value: [u32; 2],
}

impl OuterMembers {
    /// Enough for a JSON-RPC envelope (`jsonrpc`, `id`, `result` or `error`) and
    /// one more.
    const MOST: usize = 4;

    /// Where the members called `names` hold their values (the last of a name
    /// counts, as in a tree); `None` unless every member was noted.
    pub(super) fn find<const N: usize>(
        &self,
        text: &str,
        names: [&str; N],
    ) -> Option<[Option<Range<usize>>; N]> {
        if !self.complete {
            return None;
        }
        let mut found = [const { None }; N];
        for member in &self.noted[..self.len] {
            let [start, end] = member.name.map(|at| at as usize);
            let name = &text.as_bytes()[start..end];
            if let Some(i) = names.iter().position(|n| n.as_bytes() == name) {
                let [start, end] = member.value.map(|at| at as usize);
                found[i] = Some(start..end);
            }
        }
        Some(found)
    }

    fn push(&mut self, name: [u32; 2], value: [u32; 2]) {
        if self.len == Self::MOST {
            self.complete = false;
        } else {
            self.noted[self.len] = NotedMember { name, value };
            self.len += 1;
        }
    }
}

/// Where containers close, by where they open, in the order they open: what lets
/// a scan for members step over a large value instead of walking through it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct ContainerEnds(Vec<Range<usize>>);

impl ContainerEnds {
    /// How many a check notes at most: enough for the members a reply is routed
    /// by, and a bound on the memory a reply of many small containers takes.
    const MOST: usize = 64;

    /// One past the bracket that closes the container opened at `start`, when noted.
    pub(super) fn end_of(&self, start: usize) -> Option<usize> {
        let at = self
            .0
            .binary_search_by_key(&start, |span| span.start)
            .ok()?;
        Some(self.0[at].end)
    }

    /// Those inside `span`, counted from its start.
    pub(super) fn within(&self, span: &Range<usize>) -> Self {
        let first = self.0.partition_point(|s| s.start < span.start);
        let last = self.0.partition_point(|s| s.start < span.end);
        let inside = self.0[first..last].iter();
        Self(
            inside
                .map(|s| s.start - span.start..s.end - span.start)
                .collect(),
        )
    }
}

/// The containers open at a point of the text, innermost last, each an object or
/// an array. The first levels are bits, so that most text is checked without
/// allocating.
#[derive(Default)]
struct OpenContainers {
    len: usize,
    /// Bit `i` is set when the container at level `i` is an object.
    near: u64,
    deeper: Vec<bool>,
}

impl OpenContainers {
    /// How many levels are kept as bits.
    const NEAR: usize = u64::BITS as usize;

    fn len(&self) -> usize {
        self.len
    }

    fn push(&mut self, object: bool) {
        if self.len < Self::NEAR {
            self.near |= u64::from(object) << self.len;
        } else {
            self.deeper.push(object);
        }
        self.len += 1;
    }

    fn pop(&mut self) {
        self.len -= 1;
        if self.len < Self::NEAR {
            self.near &= !(1 << self.len);
        } else {
            self.deeper.pop();
        }
    }

    /// Whether the innermost is an object; `None` when none is open.
    fn last(&self) -> Option<bool> {
        let level = self.len.checked_sub(1)?;
        if level < Self::NEAR {
            Some(self.near >> level & 1 == 1)
        } else {
            self.deeper.last().copied()
        }
    }
}

struct Reader<'t> {
    text: &'t [u8],
    at: usize,
    unsure: bool,
    /// Containers this close to the top have their ends noted.
    levels: usize,
    ends: ContainerEnds,
    members: OuterMembers,
    /// The name of the outer object's member being read, and where its value starts.
    member: Option<([u32; 2], u32)>,
}

impl Reader<'_> {
    fn document(&mut self) -> Option<()> {
        let mut open = OpenContainers::default();
        // Where in `ends` the open containers whose ends are noted are.
        let mut noted: Vec<usize> = Vec::new();
        self.skip_space();
        'value: loop {
            match self.peek()? {
                open_byte @ (b'{' | b'[') => {
                    let object = open_byte == b'{';
                    let start = self.at;
                    if open.len() + 1 >= DEEP {
                        self.unsure = true;
                    }
                    if object && open.len() == 0 {
                        // The outer object: its members are noted until one cannot be.
                        self.members.complete = true;
                    }
                    self.at += 1;
                    self.skip_space();
                    let close = if object { b'}' } else { b']' };
                    if self.peek() == Some(close) {
                        self.at += 1;
                    } else {
                        if open.len() < self.levels && self.ends.0.len() < ContainerEnds::MOST {
                            noted.push(self.ends.0.len());
                            self.ends.0.push(start..start);
                        }
                        open.push(object);
                        if object {
                            self.key(open.len() == 1)?;
                        }
                        continue 'value;
                    }
                }
                b'"' => {
                    self.string()?;
                }
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'n' => self.literal(b"null")?,
                _ => self.number()?,
            }
            if open.len() == 1 {
                self.member_ends();
            }
            // A value has ended: go on in its container, closing those that end.
            loop {
                self.skip_space();
                let Some(object) = open.last() else {
                    return (self.at == self.text.len()).then_some(());
                };
                let close = if object { b'}' } else { b']' };
                match self.peek()? {
                    b',' => {
                        self.at += 1;
                        self.skip_space();
                        if object {
                            self.key(open.len() == 1)?;
                        }
                        continue 'value;
                    }
                    byte if byte == close => {
                        self.at += 1;
                        open.pop();
                        if open.len() < noted.len() {
                            let span = noted.pop().expect("noted containers are open");
                            self.ends.0[span].end = self.at;
                        }
                        if open.len() == 1 {
                            self.member_ends();
                        }
                    }
                    _ => return None,
                }
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// A member name and its colon, leaving the reader at the value; for a member
    /// of the `outer` object, where its name and value start are kept.
    #[inline(always)]
    fn key(&mut self, outer: bool) -> Option<()> {
        (self.peek()? == b'"').then_some(())?;
        let start = self.at + 1;
        let escaped = self.string()?;
        let end = self.at - 1;
        self.skip_space();
        (self.peek()? == b':').then_some(())?;
        self.at += 1;
        self.skip_space();
        if outer {
            // A name with escapes is compared as decoded, by a scan.
            match (escaped, u32::try_from(start), u32::try_from(self.at)) {
                (false, Ok(start), Ok(value)) => {
                    self.member = Some(([start, end as u32], value));
                }
                _ => self.members.complete = false,
            }
        }
        Some(())
    }

    /// The value of a member of the outer object ends here.
    fn member_ends(&mut self) {
        if let Some((name, start)) = self.member.take() {
            match u32::try_from(self.at) {
                Ok(end) => self.members.push(name, [start, end]),
                Err(_) => self.members.complete = false,
            }
        }
    }

    /// A string, from its opening quote; whether it holds escapes. The text is
    /// UTF-8 already; what remains is to refuse control characters and malformed
    /// escapes.
    #[inline(always)]
    fn string(&mut self) -> Option<bool> {
        self.at += 1;
        let mut escaped = false;
        loop {
            self.at += self.plain_run()?;
            if self.text[self.at] == b'"' {
                self.at += 1;
                return Some(escaped);
            }
            self.escape()?;
            escaped = true;
        }
    }

    /// How many bytes from the reader on come before the next quote or backslash,
    /// when none of them is a control character. Most strings are short: their
    /// first bytes are looked at a word at a time, and only the rest a vector at a
    /// time.
    #[inline(always)]
    fn plain_run(&self) -> Option<usize> {
        let rest = &self.text[self.at..];
        if let Some(at) = words::first_marked(rest, words::quote_backslash_or_control) {
            return (rest[at] >= 0x20).then_some(at);
        }
        let run = HEAD + memchr::memchr2(b'"', b'\\', rest.get(HEAD..)?)?;
        // Counted without stopping early, so that it runs a vector at a time.
        let controls = rest[HEAD..run]
            .iter()
            .fold(false, |seen, &b| seen | (b < 0x20));
        (!controls).then_some(run)
    }

    fn escape(&mut self) -> Option<()> {
        match *self.text.get(self.at + 1)? {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.at += 2,
            b'u' => {
                let hex = self.text.get(self.at + 2..self.at + 6)?;
                if !hex.iter().all(u8::is_ascii_hexdigit) {
                    return None;
                }
                if hex[0] | 0x20 == b'd' && matches!(hex[1] | 0x20, b'8'..=b'9' | b'a'..=b'f') {
                    self.unsure = true;
                }
                self.at += 6;
            }
            _ => return None,
        }
        Some(())
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        self.text[self.at..].starts_with(word).then_some(())?;
        self.at += word.len();
        Some(())
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    fn number(&mut self) -> Option<()> {
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek()? {
            b'0' => self.at += 1,
            b'1'..=b'9' => self.digits()?,
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            self.digits()?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.unsure = true;
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            self.digits()?;
        }
        Some(())
    }

    /// One or more digits.
    fn digits(&mut self) -> Option<()> {
        let run = self.text[self.at..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if run == 0 {
            return None;
        }
        if run > 300 {
            self.unsure = true;
        }
        self.at += run;
        Some(())
    }
}

#[cfg(test)]
mod tests;
