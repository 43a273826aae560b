//! The MCP protocol revisions promptexec speaks, by the date that names each.

crate::wire_enum! {
    /// One revision of the MCP specification.
    pub enum Revision {
        /// Sessions opened with `initialize`; the oldest revision spoken.
        V2025_06_18 = "2025-06-18",
        /// Input-validation failures as tool errors; JSON Schema 2020-12 by default.
        V2025_11_25 = "2025-11-25",
        /// Stateless: `server/discover` instead of `initialize`, `_meta` on every
        /// request.
        V2026_07_28 = "2026-07-28",
    }
}

/// A revision name promptexec does not speak.
#[derive(Debug, Clone, thiserror::Error)]
#[error("`{0}` is not an MCP revision promptexec speaks (2025-06-18, 2025-11-25, 2026-07-28)")]
pub struct UnknownRevision(String);

impl std::str::FromStr for Revision {
    type Err = UnknownRevision;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::from_wire(text).ok_or_else(|| UnknownRevision(text.to_string()))
    }
}
