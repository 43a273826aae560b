//! How MCP tools are named in the tool set (`mcp__<server>__<tool>`, as PromptKit
//! names them) and which of a server's tools its `tool_filter` lets in.

use crate::config::McpToolFilter;

const PREFIX: &str = "mcp__";
const SEPARATOR: &str = "__";

/// The name a server's tool has in the tool set.
pub fn qualified(server: &str, tool: &str) -> String {
    format!("{PREFIX}{server}{SEPARATOR}{tool}")
}

/// The server and the tool's own name, when `name` is an MCP tool's name. Server
/// names cannot hold `__`, so the first separator after the prefix ends the server.
pub fn split(name: &str) -> Option<(&str, &str)> {
    let rest = name.strip_prefix(PREFIX)?;
    let (server, tool) = rest.split_once(SEPARATOR)?;
    (!server.is_empty() && !tool.is_empty()).then_some((server, tool))
}

/// Whether `name` looks like an MCP tool's name, or a glob over some.
pub fn is_mcp(name: &str) -> bool {
    name.starts_with(PREFIX)
}

/// Whether `entry` (`mcp__<server>__<tool>`, globs allowed in both parts) can name a
/// tool of server `server`.
pub fn names_server(entry: &str, server: &str) -> bool {
    let Some(rest) = entry.strip_prefix(PREFIX) else {
        return false;
    };
    let server_part = rest.split_once(SEPARATOR).map_or(rest, |(s, _)| s);
    // `mcp__*` has no separator: its `*` may reach into any server's names.
    glob_matches(server_part, server) || (!rest.contains(SEPARATOR) && rest.contains('*'))
}

/// Whether `server`'s tool `tool` joins the tool set: the allowlist (when it has
/// any pattern) admits it, and the blocklist does not name it. A pattern matches
/// the tool's own name or its qualified one.
pub fn admitted(filter: &McpToolFilter, server: &str, tool: &str) -> bool {
    let full = qualified(server, tool);
    let named = |pattern: &String| glob_matches(pattern, tool) || glob_matches(pattern, &full);
    let allowed = filter.allowlist.is_empty() || filter.allowlist.iter().any(named);
    allowed && !filter.blocklist.iter().any(named)
}

/// A glob over names: `*` stands for any run of characters, `?` for one.
pub fn glob_matches(pattern: &str, text: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let text: Vec<char> = text.chars().collect();
    // The classic two-pointer walk: on a mismatch, go back to just after the last
    // `*` and let it swallow one more character.
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, t));
                p += 1;
            }
            Some(&c) if c == '?' || c == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(allow: &[&str], block: &[&str]) -> McpToolFilter {
        McpToolFilter {
            allowlist: allow.iter().map(|s| s.to_string()).collect(),
            blocklist: block.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn names_round_trip_and_the_server_ends_at_the_first_separator() {
        assert_eq!(qualified("fs", "read_file"), "mcp__fs__read_file");
        assert_eq!(split("mcp__fs__read_file"), Some(("fs", "read_file")));
        assert_eq!(split("mcp__fs__odd__name"), Some(("fs", "odd__name")));
        assert_eq!(split("mcp__fs"), None);
        assert_eq!(split("lookup_order"), None);
    }

    #[test]
    fn globs_match_whole_names() {
        assert!(glob_matches("mcp__fs__*", "mcp__fs__read"));
        assert!(glob_matches("*", ""));
        assert!(glob_matches("re?d", "read"));
        assert!(glob_matches("a*b*c", "aXbYbZc"));
        assert!(!glob_matches("mcp__fs__*", "mcp__fsx__read"));
        assert!(!glob_matches("read", "read_file"));
        assert!(!glob_matches("*.txt", "a.txt.bak"));
    }

    #[test]
    fn entries_name_servers_exactly_or_by_glob() {
        assert!(names_server("mcp__store__echo", "store"));
        assert!(!names_server("mcp__store__echo", "stores"));
        assert!(names_server("mcp__st*__echo", "store"));
        assert!(names_server("mcp__*", "store"));
        assert!(!names_server("lookup_order", "store"));
    }

    #[test]
    fn the_allowlist_admits_and_the_blocklist_wins() {
        assert!(admitted(&filter(&[], &[]), "fs", "read"));
        let only_reads = filter(&["mcp__fs__read*"], &["read_secret"]);
        assert!(admitted(&only_reads, "fs", "read_file"));
        assert!(!admitted(&only_reads, "fs", "write_file"));
        assert!(!admitted(&only_reads, "fs", "read_secret"));
        assert!(!admitted(&filter(&[], &["mcp__fs__*"]), "fs", "read"));
    }
}
