use tokio::io::{AsyncRead, AsyncReadExt};

use super::STDERR_TAIL_BYTES;

/// The last [`STDERR_TAIL_BYTES`] of a stream.
#[derive(Default)]
pub struct Tail(Vec<u8>);

impl Tail {
    pub fn push(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
        if self.0.len() > 2 * STDERR_TAIL_BYTES {
            let cut = self.0.len() - STDERR_TAIL_BYTES;
            self.0.drain(..cut);
        }
    }

    pub fn into_string(self) -> String {
        let start = self.0.len().saturating_sub(STDERR_TAIL_BYTES);
        String::from_utf8_lossy(&self.0[start..]).into_owned()
    }
}

pub async fn read_tail(pipe: Option<impl AsyncRead + Unpin>, tail: &mut Tail) {
    let Some(mut pipe) = pipe else { return };
    let mut buf = vec![0u8; 16 * 1024];
    while let Ok(n) = pipe.read(&mut buf).await {
        if n == 0 {
            break;
        }
        tail.push(&buf[..n]);
    }
}

impl Tail {
    /// The kept bytes as text, without consuming them.
    pub fn to_text(&self) -> String {
        let start = self.0.len().saturating_sub(STDERR_TAIL_BYTES);
        String::from_utf8_lossy(&self.0[start..]).into_owned()
    }
}
