//! The PostgreSQL adapter over TLS, against a server of our own (see
//! `pg_server`) with a CA and a server certificate made here: the right CA
//! verifies, a wrong CA or a wrong host name is refused, `require`
//! encrypts without verifying, a server without TLS is never used in plain
//! text when TLS was asked for, and an unknown `sslmode` is a config error.

mod pg_server;

use std::sync::Arc;
use std::time::Duration;

use libauth_core::adapter::{from_config, Adapter, AdapterError, NewUser, PostgresAdapter, PostgresOptions};
use libauth_core::NoHooks;
use pg_server::Server;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use serde_json::json;

/// A CA, and its PEM certificate.
fn new_ca(name: &str) -> (CertifiedIssuer<'static, KeyPair>, String) {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.distinguished_name.push(rcgen::DnType::CommonName, name);
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
    let pem = ca.pem();
    (ca, pem)
}

fn adapter(url: String) -> PostgresAdapter {
    let options =
        PostgresOptions { pool_size: 1, connect_timeout: Duration::from_secs(2), ..PostgresOptions::new(url) };
    PostgresAdapter::new(&options).expect("valid options")
}

fn user(email: &str) -> NewUser {
    NewUser { email: Some(email.into()), name: Some("TLS".into()), ..NewUser::default() }
}

/// The call must fail as `Unavailable`, naming TLS.
fn expect_tls_failure<T: std::fmt::Debug>(what: &str, result: Result<T, AdapterError>) {
    match result {
        Err(e @ AdapterError::Unavailable { .. }) => {
            assert!(e.to_string().contains("TLS"), "{what}: the error should name TLS: {e}");
            eprintln!("{what}: {e}");
        }
        other => panic!("{what}: expected an Unavailable TLS error, got {other:?}"),
    }
}

#[test]
fn tls_modes_against_a_real_server() {
    let server = Server::init("tls");
    let dir = std::env::temp_dir().join(format!("libauth-pg-tls-ca-{}", libauth_core::random::hex(6)));
    std::fs::create_dir(&dir).unwrap();
    struct Cleanup(std::path::PathBuf);
    impl Drop for Cleanup {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    let _cleanup = Cleanup(dir.clone());

    // (4) Plain server first: asking for TLS must fail, not fall back.
    server.start();
    let plain = server.url();
    let adapter_require = adapter(format!("{plain}?sslmode=require"));
    expect_tls_failure("require against a server without TLS", adapter_require.create_user(&user("a@example.com")));
    // `prefer` stays plain, as before.
    adapter(format!("{plain}?sslmode=prefer"))
        .create_user(&user("plain@example.com"))
        .expect("prefer connects in plain text");
    server.stop();

    // The CA, a server certificate for localhost and 127.0.0.1, another CA.
    let (ca, ca_pem) = new_ca("libauth test CA");
    let server_key = KeyPair::generate().unwrap();
    let mut params = CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()]).unwrap();
    params.distinguished_name.push(rcgen::DnType::CommonName, "localhost");
    let server_cert = params.signed_by(&server_key, &ca).unwrap();
    let (_other, other_pem) = new_ca("some other CA");
    let ca_file = dir.join("ca.pem");
    let other_file = dir.join("other-ca.pem");
    std::fs::write(&ca_file, &ca_pem).unwrap();
    std::fs::write(&other_file, &other_pem).unwrap();
    let cert_path = server.write_private_file("server.crt", &server_cert.pem());
    let key_path = server.write_private_file("server.key", &server_key.serialize_pem());
    server.start_with(&format!(
        "-c ssl=on -c ssl_cert_file={} -c ssl_key_file={}",
        cert_path.display(),
        key_path.display()
    ));
    let ca = ca_file.display();
    let other = other_file.display();

    // (1) verify-full with the right CA: the adapter works.
    let verified = adapter(format!("{plain}?sslmode=verify-full&sslrootcert={ca}"));
    let created = verified.create_user(&user("full@example.com")).expect("verify-full with the right CA");
    let read = verified.get_user(&created.id).expect("read back").expect("the user exists");
    assert_eq!(read.email.as_deref(), Some("full@example.com"));
    // The key-value form, by host name.
    let kv = format!(
        "host=localhost port={} user=postgres dbname=postgres sslmode=verify-full sslrootcert='{ca}'",
        server.port()
    );
    assert!(adapter(kv).get_user(&created.id).expect("key-value form").is_some());

    // (2) verify-full with a wrong CA fails; so does a wrong host name.
    expect_tls_failure(
        "verify-full with another CA",
        adapter(format!("{plain}?sslmode=verify-full&sslrootcert={other}")).get_user(&created.id),
    );
    expect_tls_failure(
        "verify-ca with another CA",
        adapter(format!("{plain}?sslmode=verify-ca&sslrootcert={other}")).get_user(&created.id),
    );
    let wrong_name = format!(
        "postgres://postgres@db.invalid:{}/postgres?hostaddr=127.0.0.1&sslmode=verify-full&sslrootcert={ca}",
        server.port()
    );
    expect_tls_failure("verify-full with another host name", adapter(wrong_name.clone()).get_user(&created.id));
    // verify-ca does not check the name.
    let any_name = wrong_name.replace("verify-full", "verify-ca");
    assert!(adapter(any_name).get_user(&created.id).expect("verify-ca ignores the host name").is_some());

    // (3) require: encrypted, whatever the certificate.
    let required = adapter(format!("{plain}?sslmode=require"));
    assert!(required.get_user(&created.id).expect("require connects").is_some());
    server.stop();
}

#[test]
fn an_unknown_sslmode_is_a_config_error() {
    let e = match from_config(
        &json!({ "type": "postgres", "url": "postgres://postgres@127.0.0.1:1/postgres?sslmode=verify-everything" }),
        Arc::new(NoHooks),
    ) {
        Err(e) => e,
        Ok(_) => panic!("an unknown sslmode was accepted"),
    };
    assert!(e.message.contains("sslmode") && e.message.contains("verify-everything"), "{e:?}");
    // verify-* without a CA file, and a CA file that does not exist.
    for url in
        ["postgres://h/db?sslmode=verify-full", "postgres://h/db?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem"]
    {
        let e = from_config(&json!({ "type": "postgres", "url": url }), Arc::new(NoHooks)).err();
        assert!(e.is_some_and(|e| e.message.contains("sslrootcert")), "{url}");
    }
}
