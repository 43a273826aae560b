//! TLS for every HTTP client in the process: rustls with ring, trusting the
//! Mozilla root certificates built into the binary.

use reqwest::{Certificate, ClientBuilder};
use rustls::crypto::CryptoProvider;

/// Makes ring the process's rustls crypto provider, unless one is already set.
///
/// reqwest is built without a provider of its own (its default one, aws-lc-rs, is a
/// large C build), and building a client before one is installed panics.
pub fn ensure_crypto_provider() {
    if CryptoProvider::get_default().is_none() {
        // Losing a race to another thread is fine: a provider is installed either way.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

/// A client builder with the crypto provider installed and the Mozilla roots built
/// into the binary as the only ones trusted: the same on every machine, with no file
/// to read. Left alone, reqwest would read the system's store on every build, and fail
/// to build any client, even one for a server on loopback, where there is none.
pub fn client_builder() -> ClientBuilder {
    ensure_crypto_provider();
    let roots = webpki_root_certs::TLS_SERVER_ROOT_CERTS
        .iter()
        // With rustls this only copies the bytes; a root is checked when the client is built.
        .filter_map(|der| Certificate::from_der(der).ok());
    reqwest::Client::builder().tls_certs_only(roots)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_provider_is_installed_and_a_second_call_keeps_it() {
        ensure_crypto_provider();
        let first = CryptoProvider::get_default().expect("a provider");
        ensure_crypto_provider();
        let second = CryptoProvider::get_default().expect("a provider");
        assert!(std::sync::Arc::ptr_eq(first, second));
    }

    #[test]
    fn a_client_that_speaks_tls_can_be_built() {
        client_builder().https_only(true).build().expect("a client");
    }
}
