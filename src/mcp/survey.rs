//! Every MCP server of a config asked what it offers, all at once, as `tools` and
//! `lock` need them.

use std::future::Future;

use crate::config::McpServer;

use super::{Catalog, McpClient, McpFailure};

/// Each server and what it answered, in the order given; `None` when `stop` came
/// first (every server is killed then). Every server is shut down before this ends.
pub async fn ask_all<'a>(
    servers: impl IntoIterator<Item = &'a McpServer>,
    stop: impl Future<Output = ()>,
) -> Option<Vec<(McpServer, Result<Catalog, McpFailure>)>> {
    let clients: Vec<(&McpServer, McpClient)> = servers
        .into_iter()
        .map(|server| (server, McpClient::new(server)))
        .collect();
    let asking = futures::future::join_all(
        clients
            .iter()
            .map(|(server, client)| async move { ((*server).clone(), client.catalog().await) }),
    );
    let asked = tokio::select! {
        asked = asking => asked,
        () = stop => {
            clients.iter().for_each(|(_, client)| client.kill());
            return None;
        }
    };
    futures::future::join_all(clients.iter().map(|(_, client)| client.shutdown())).await;
    Some(asked)
}
