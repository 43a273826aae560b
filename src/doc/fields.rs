use super::{Key, Node};

/// The entries of one mapping, read by name. Every name asked for is remembered as a
/// known key, so whatever is left afterwards is a key nobody expected.
pub struct Fields<'a> {
    entries: &'a [(Key, Node)],
    known: Vec<&'static str>,
}

impl<'a> Fields<'a> {
    pub fn new(entries: &'a [(Key, Node)]) -> Self {
        Self {
            entries,
            known: Vec::new(),
        }
    }

    /// The value under `name`, if present.
    pub fn get(&mut self, name: &'static str) -> Option<&'a Node> {
        self.entry(name).map(|(_, node)| node)
    }

    /// The key and value under `name`, if present.
    pub fn entry(&mut self, name: &'static str) -> Option<(&'a Key, &'a Node)> {
        if !self.known.contains(&name) {
            self.known.push(name);
        }
        self.entries
            .iter()
            .find(|(key, _)| key.name == name)
            .map(|(key, node)| (key, node))
    }

    /// Declares names that are accepted without being read.
    pub fn allow(&mut self, names: &[&'static str]) {
        for name in names {
            self.get(name);
        }
    }

    /// Keys that no `get`, `entry` or `allow` call named.
    pub fn unknown(&self) -> impl Iterator<Item = &'a Key> + '_ {
        self.entries
            .iter()
            .map(|(key, _)| key)
            .filter(|key| !self.known.contains(&key.name.as_str()))
    }

    pub fn known(&self) -> &[&'static str] {
        &self.known
    }
}
