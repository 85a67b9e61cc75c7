//! libpq's TLS options (`sslmode`, `sslrootcert`), which tokio-postgres
//! does not know (beyond `sslmode=require`), and the rustls connector they
//! describe.

use std::sync::Arc;

use percent_encoding::percent_decode_str;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres_rustls::MakeRustlsConnect;

/// What `sslmode` (and `sslrootcert`) ask for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Tls {
    /// Plain TCP (`disable`, or no `sslmode`).
    Off,
    /// Plain TCP first; TLS (any certificate) if the server refuses it.
    Allow,
    /// TLS (any certificate) first; plain TCP if the server has no TLS or
    /// the TLS attempt fails.
    Prefer,
    /// Encrypted; any certificate.
    Require,
    /// The chain must lead to a CA of the file; any host name.
    VerifyCa(String),
    /// The chain must lead to a CA of the file and name the host.
    VerifyFull(String),
}

impl Tls {
    /// The connector for this mode (also built, unused, when TLS is off, so
    /// the pool has one connection type).
    pub(super) fn connector(&self) -> Result<MakeRustlsConnect, String> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS setup failed: {e}"))?;
        let config = match self {
            Tls::Off => builder.with_root_certificates(RootCertStore::empty()).with_no_client_auth(),
            // `allow` and `prefer` check no certificate, as libpq (whose
            // `prefer` would fall back to plain text anyway).
            Tls::Allow | Tls::Prefer | Tls::Require => builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(AnyCertificate(provider)))
                .with_no_client_auth(),
            Tls::VerifyCa(path) | Tls::VerifyFull(path) => {
                let roots = Arc::new(load_roots(path)?);
                let webpki = WebPkiServerVerifier::builder_with_provider(roots, provider)
                    .build()
                    .map_err(|e| format!("sslrootcert {path}: {e}"))?;
                if matches!(self, Tls::VerifyFull(_)) {
                    builder.with_webpki_verifier(webpki).with_no_client_auth()
                } else {
                    builder
                        .dangerous()
                        .with_custom_certificate_verifier(Arc::new(AnyHostName(webpki)))
                        .with_no_client_auth()
                }
            }
        };
        Ok(MakeRustlsConnect::new(config))
    }
}

fn load_roots(path: &str) -> Result<RootCertStore, String> {
    let pem = std::fs::read(path).map_err(|e| format!("sslrootcert {path}: cannot read: {e}"))?;
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(&pem) {
        let cert = cert.map_err(|e| format!("sslrootcert {path}: not a PEM certificate file: {e}"))?;
        roots.add(cert).map_err(|e| format!("sslrootcert {path}: unusable CA certificate: {e}"))?;
    }
    if roots.is_empty() {
        return Err(format!("sslrootcert {path}: holds no PEM certificate"));
    }
    Ok(roots)
}

/// Take `sslmode` and `sslrootcert` out of a connection string (URL or
/// key-value form), returning the rest for tokio-postgres and the mode.
pub(super) fn split_options(conninfo: &str) -> Result<(String, Tls), String> {
    let mut mode = None;
    let mut root_cert = None;
    let mut take = |key: &str, value: String| match key {
        "sslmode" => {
            mode = Some(value);
            true
        }
        "sslrootcert" => {
            root_cert = Some(value);
            true
        }
        _ => false,
    };
    let rest = if conninfo.starts_with("postgres://") || conninfo.starts_with("postgresql://") {
        match conninfo.split_once('?') {
            None => conninfo.to_owned(),
            Some((base, query)) => {
                let mut kept = Vec::new();
                for pair in query.split('&') {
                    let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                    let value = percent_decode_str(value)
                        .decode_utf8()
                        .map_err(|_| format!("invalid value for option `{key}`: not UTF-8"))?;
                    if !take(key, value.into_owned()) {
                        kept.push(pair);
                    }
                }
                if kept.is_empty() {
                    base.to_owned()
                } else {
                    format!("{base}?{}", kept.join("&"))
                }
            }
        }
    } else {
        let mut kept = Vec::new();
        for (key, value) in key_values(conninfo)? {
            if !take(&key, value.clone()) {
                let quoted = value.replace('\\', "\\\\").replace('\'', "\\'");
                kept.push(format!("{key}='{quoted}'"));
            }
        }
        kept.join(" ")
    };
    let tls = match (mode.as_deref(), root_cert) {
        // `sslrootcert` means nothing to the modes that may end in plain
        // text: use `require` or `verify-*` to rely on it.
        (None | Some("disable"), _) => Tls::Off,
        (Some("allow"), _) => Tls::Allow,
        (Some("prefer"), _) => Tls::Prefer,
        (Some("require"), None) => Tls::Require,
        (Some("require" | "verify-ca"), Some(path)) => Tls::VerifyCa(path),
        (Some("verify-full"), Some(path)) => Tls::VerifyFull(path),
        (Some(mode @ ("verify-ca" | "verify-full")), None) => {
            return Err(format!(
                "sslmode={mode} needs the CA certificates to verify against: add sslrootcert=/path/to/ca.pem"
            ))
        }
        (Some(other), _) => {
            return Err(format!(
            "invalid value for option `sslmode`: \"{other}\"; use disable, allow, prefer, require, verify-ca or verify-full"
        ))
        }
    };
    Ok((rest, tls))
}

/// libpq's key-value form: `key = value` pairs separated by white space,
/// a value either bare or single-quoted, with `\` escaping the next
/// character in both.
fn key_values(s: &str) -> Result<Vec<(String, String)>, String> {
    let mut pairs = Vec::new();
    let mut chars = s.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.peek().is_none() {
            return Ok(pairs);
        }
        let mut key = String::new();
        while let Some(c) = chars.next_if(|c| !c.is_whitespace() && *c != '=') {
            key.push(c);
        }
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.next() != Some('=') {
            return Err(format!("invalid connection string: missing \"=\" after `{key}`"));
        }
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let quoted = chars.next_if_eq(&'\'').is_some();
        let mut value = String::new();
        loop {
            match chars.next() {
                Some('\\') => match chars.next() {
                    Some(c) => value.push(c),
                    None => return Err(format!("invalid value for option `{key}`: ends in \\")),
                },
                Some('\'') if quoted => break,
                Some(c) if !quoted && c.is_whitespace() => break,
                Some(c) => value.push(c),
                None if quoted => return Err(format!("invalid value for option `{key}`: unterminated quote")),
                None => break,
            }
        }
        pairs.push((key, value));
    }
}

/// `require`: any certificate, as libpq (the handshake signatures are still
/// checked, so the connection is encrypted to whoever holds the key).
#[derive(Debug)]
struct AnyCertificate(Arc<CryptoProvider>);

impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// `verify-ca`: the full webpki check except the host name. webpki checks
/// the chain before the name, so a name error means the chain was good.
#[derive(Debug)]
struct AnyHostName(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for AnyHostName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.0.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now) {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_options_are_taken_out() {
        let (rest, tls) =
            split_options("postgres://u:p@h:5/db?sslmode=verify-full&connect_timeout=3&sslrootcert=%2Ftmp%2Fca.pem")
                .unwrap();
        assert_eq!(rest, "postgres://u:p@h:5/db?connect_timeout=3");
        assert_eq!(tls, Tls::VerifyFull("/tmp/ca.pem".into()));
        let (rest, tls) = split_options("postgresql://h/db?sslmode=require").unwrap();
        assert_eq!((rest.as_str(), tls), ("postgresql://h/db", Tls::Require));
        let (_, tls) = split_options("postgres://h/db?sslmode=require&sslrootcert=/ca").unwrap();
        assert_eq!(tls, Tls::VerifyCa("/ca".into()));
        assert_eq!(split_options("postgres://h/db").unwrap().1, Tls::Off);
        assert_eq!(split_options("postgres://h/db?sslmode=disable").unwrap().1, Tls::Off);
        assert_eq!(split_options("postgres://h/db?sslmode=prefer").unwrap().1, Tls::Prefer);
        assert_eq!(split_options("postgres://h/db?sslmode=allow&sslrootcert=/ca").unwrap().1, Tls::Allow);
    }

    #[test]
    fn key_value_options_are_taken_out() {
        let (rest, tls) =
            split_options("host=h password='a b\\'c' sslmode = verify-ca sslrootcert='/x y/ca.pem'").unwrap();
        assert_eq!(rest, "host='h' password='a b\\'c'");
        assert_eq!(tls, Tls::VerifyCa("/x y/ca.pem".into()));
        assert!(rest.parse::<postgres::Config>().is_ok());
    }

    #[test]
    fn bad_modes_are_refused_naming_the_option() {
        let e = split_options("postgres://h/db?sslmode=verify-everything").unwrap_err();
        assert!(e.contains("sslmode") && e.contains("verify-everything"), "{e}");
        let e = split_options("host=h sslmode=verify-full").unwrap_err();
        assert!(e.contains("sslrootcert"), "{e}");
    }
}
