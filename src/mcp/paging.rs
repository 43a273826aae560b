//! A paginated listing (`tools/list`, `prompts/list`, `resources/list`,
//! `resources/templates/list`) read page by page within limits. A server decides how many pages there are by handing out a
//! `nextCursor`, so without limits one that never stops would be read until the
//! deadline, its items piling up in memory. Here the listing ends with an error at
//! [`MAX_PAGES`] pages, [`MAX_ITEMS`] items or [`MAX_BYTES`] of items and cursors,
//! and at once when a cursor comes back a second time.

use std::collections::HashMap;
use std::io;

use rmcp::ServiceError;
use rmcp::model::{
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams,
};
use serde::Serialize;
use serde_json::Value as Json;

/// The most pages one listing may take.
pub const MAX_PAGES: usize = 1_000;
/// The most items one listing may hold, over all its pages.
pub const MAX_ITEMS: usize = 100_000;
/// The most bytes one listing's items (as JSON) and cursors may take together: as
/// much as one message from a server may hold. Read into memory, JSON takes several
/// times its size, so this is what bounds a listing's memory.
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// Why a listing was stopped before its last page.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Overrun {
    #[error("it kept handing out a next page past {MAX_PAGES} pages, the most promptexec reads")]
    Pages,
    #[error("it listed more than {MAX_ITEMS} {what}, the most promptexec takes")]
    Items { what: &'static str },
    #[error(
        "its {what} came to more than {} MiB of JSON, the most promptexec takes",
        MAX_BYTES >> 20
    )]
    Bytes { what: &'static str },
    #[error(
        "page {again} handed out the same next-page cursor as page {first}, so the listing would never end"
    )]
    RepeatedCursor { first: usize, again: usize },
}

/// Why a listing ended without its items.
#[derive(Debug)]
pub(super) enum PagingError {
    /// A request for a page failed.
    Request(ServiceError),
    /// The server listed more than the limits allow.
    Overrun(Overrun),
}

/// One page of a listing: its items and the cursor of the next page, if any.
pub(super) trait Page {
    type Item: Serialize;
    fn split(self) -> (Vec<Self::Item>, Option<String>);
}

impl Page for ListToolsResult {
    type Item = rmcp::model::Tool;
    fn split(self) -> (Vec<Self::Item>, Option<String>) {
        (self.tools, self.next_cursor)
    }
}

impl Page for ListPromptsResult {
    type Item = rmcp::model::Prompt;
    fn split(self) -> (Vec<Self::Item>, Option<String>) {
        (self.prompts, self.next_cursor)
    }
}

impl Page for ListResourcesResult {
    type Item = rmcp::model::Resource;
    fn split(self) -> (Vec<Self::Item>, Option<String>) {
        (self.resources, self.next_cursor)
    }
}

impl Page for ListResourceTemplatesResult {
    type Item = rmcp::model::ResourceTemplate;
    fn split(self) -> (Vec<Self::Item>, Option<String>) {
        (self.resource_templates, self.next_cursor)
    }
}

/// Every item of a listing of `what` (`tools`, …), as JSON: `page` is asked for the
/// first page, then for each next one, until a page has no next cursor.
pub(super) async fn list_all<P, F, Fut>(
    what: &'static str,
    mut page: F,
) -> Result<Vec<Json>, PagingError>
where
    P: Page,
    F: FnMut(Option<PaginatedRequestParams>) -> Fut,
    Fut: Future<Output = Result<P, ServiceError>>,
{
    let mut listed = Listed::new(what);
    let mut cursor: Option<String> = None;
    for number in 1..=MAX_PAGES {
        let params = PaginatedRequestParams::default().with_cursor(cursor.take());
        let (items, next) = page(Some(params))
            .await
            .map_err(PagingError::Request)?
            .split();
        listed.take(items).map_err(PagingError::Overrun)?;
        match next {
            None => return Ok(listed.items),
            Some(next) => {
                listed.cursor(&next, number).map_err(PagingError::Overrun)?;
                cursor = Some(next);
            }
        }
    }
    Err(PagingError::Overrun(Overrun::Pages))
}

/// The items so far, and what they and the cursors cost.
struct Listed {
    what: &'static str,
    items: Vec<Json>,
    bytes: u64,
    /// Each cursor handed out, with the page that handed it out.
    cursors: HashMap<String, usize>,
}

impl Listed {
    fn new(what: &'static str) -> Self {
        Self {
            what,
            items: Vec::new(),
            bytes: 0,
            cursors: HashMap::new(),
        }
    }

    /// Takes a page's items, unless they go past a limit.
    fn take<T: Serialize>(&mut self, items: Vec<T>) -> Result<(), Overrun> {
        if self.items.len() + items.len() > MAX_ITEMS {
            return Err(Overrun::Items { what: self.what });
        }
        self.items.reserve(items.len());
        for item in items {
            self.spend(json_len(&item))?;
            // Each item was read from JSON, so it turns back into JSON.
            if let Ok(value) = serde_json::to_value(item) {
                self.items.push(value);
            }
        }
        Ok(())
    }

    /// Notes the cursor page `number` handed out; one handed out before would start
    /// the same pages over.
    fn cursor(&mut self, cursor: &str, number: usize) -> Result<(), Overrun> {
        if let Some(&first) = self.cursors.get(cursor) {
            return Err(Overrun::RepeatedCursor {
                first,
                again: number,
            });
        }
        self.spend(cursor.len() as u64)?;
        self.cursors.insert(cursor.to_string(), number);
        Ok(())
    }

    fn spend(&mut self, bytes: u64) -> Result<(), Overrun> {
        self.bytes = self.bytes.saturating_add(bytes);
        if self.bytes > MAX_BYTES {
            return Err(Overrun::Bytes { what: self.what });
        }
        Ok(())
    }
}

/// The length of `value` written as compact JSON, without writing it anywhere.
fn json_len<T: Serialize>(value: &T) -> u64 {
    struct Count(u64);
    impl io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0 += buf.len() as u64;
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing to a counter cannot fail; a value that cannot be written costs nothing.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::Tool;
    use serde_json::json;
    use std::sync::Arc;

    fn tools(count: usize, next: Option<&str>) -> ListToolsResult {
        let tools = (0..count)
            .map(|i| Tool::new(format!("t{i}"), "", Arc::new(serde_json::Map::new())))
            .collect();
        let mut page = ListToolsResult::with_all_items(tools);
        page.next_cursor = next.map(str::to_string);
        page
    }

    /// Lists from `pages`, one per request in turn; the cursors asked for are kept.
    async fn listing(
        pages: Vec<ListToolsResult>,
        asked: &mut Vec<Option<String>>,
    ) -> Result<Vec<Json>, PagingError> {
        let mut pages = pages.into_iter();
        list_all("tools", |params| {
            asked.push(params.and_then(|p| p.cursor));
            let page = pages.next().ok_or(ServiceError::TransportClosed);
            async move { page }
        })
        .await
    }

    fn overrun(result: Result<Vec<Json>, PagingError>) -> Overrun {
        match result {
            Err(PagingError::Overrun(overrun)) => overrun,
            other => panic!("not an overrun: {other:?}"),
        }
    }

    #[tokio::test(flavor = "current_thread")]
    async fn pages_are_followed_to_the_last_and_their_items_kept_in_order() {
        let mut asked = Vec::new();
        let pages = vec![tools(2, Some("a")), tools(0, Some("b")), tools(1, None)];
        let items = listing(pages, &mut asked).await.expect("listed");
        let names: Vec<&Json> = items.iter().map(|i| &i["name"]).collect();
        assert_eq!(names, [&json!("t0"), &json!("t1"), &json!("t0")]);
        assert_eq!(asked, [None, Some("a".into()), Some("b".into())]);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn the_page_limit_is_reached_exactly_and_not_passed() {
        let page = |n: usize, last: bool| tools(1, (!last).then(|| format!("c{n}")).as_deref());
        let exact: Vec<_> = (1..=MAX_PAGES).map(|n| page(n, n == MAX_PAGES)).collect();
        let items = listing(exact, &mut Vec::new()).await.expect("listed");
        assert_eq!(items.len(), MAX_PAGES);

        let endless: Vec<_> = (1..=MAX_PAGES + 1).map(|n| page(n, false)).collect();
        let mut asked = Vec::new();
        assert_eq!(overrun(listing(endless, &mut asked).await), Overrun::Pages);
        assert_eq!(
            asked.len(),
            MAX_PAGES,
            "no page past the limit is asked for"
        );
    }

    #[tokio::test(flavor = "current_thread")]
    async fn the_item_limit_counts_over_all_pages() {
        let exact = vec![tools(MAX_ITEMS - 1, Some("a")), tools(1, None)];
        assert_eq!(
            listing(exact, &mut Vec::new()).await.expect("listed").len(),
            MAX_ITEMS
        );
        let over = vec![tools(MAX_ITEMS, Some("a")), tools(1, None)];
        assert_eq!(
            overrun(listing(over, &mut Vec::new()).await),
            Overrun::Items { what: "tools" }
        );
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_cursor_handed_out_twice_ends_the_listing_at_once() {
        let pages = vec![
            tools(1, Some("a")),
            tools(1, Some("b")),
            tools(1, Some("a")),
            tools(1, None),
        ];
        let mut asked = Vec::new();
        assert_eq!(
            overrun(listing(pages, &mut asked).await),
            Overrun::RepeatedCursor { first: 1, again: 3 }
        );
        assert_eq!(asked.len(), 3);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn items_and_cursors_past_the_byte_limit_end_the_listing() {
        let big = "x".repeat(1024 * 1024);
        let pages: Vec<_> = (0..20)
            .map(|n| tools(0, Some(&format!("{n}{big}"))))
            .collect();
        assert_eq!(
            overrun(listing(pages, &mut Vec::new()).await),
            Overrun::Bytes { what: "tools" }
        );
        let mut page = tools(0, None);
        page.tools = (0..20)
            .map(|i| {
                Tool::new(
                    format!("t{i}"),
                    big.clone(),
                    Arc::new(serde_json::Map::new()),
                )
            })
            .collect();
        assert_eq!(
            overrun(listing(vec![page], &mut Vec::new()).await),
            Overrun::Bytes { what: "tools" }
        );
    }

    #[test]
    fn overruns_say_the_limit() {
        assert_eq!(
            Overrun::Pages.to_string(),
            "it kept handing out a next page past 1000 pages, the most promptexec reads"
        );
        assert_eq!(
            Overrun::Items { what: "tools" }.to_string(),
            "it listed more than 100000 tools, the most promptexec takes"
        );
        assert_eq!(
            Overrun::Bytes { what: "prompts" }.to_string(),
            "its prompts came to more than 16 MiB of JSON, the most promptexec takes"
        );
    }
}
