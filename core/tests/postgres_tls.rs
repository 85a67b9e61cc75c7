//! The PostgreSQL adapter over TLS, against a server of our own (see
//! `pg_server`) with a CA and a server certificate made here: the right CA
//! verifies, a wrong CA or a wrong host name is refused, `require`
//! encrypts without verifying, a server without TLS is never used in plain
//! text when TLS was required, `prefer` and `allow` try TLS and plain text
//! in libpq's order (whether a connection is encrypted is asked of the
//! server, `pg_stat_ssl`), and an unknown `sslmode` is a config error.

mod pg_server;

use std::sync::Arc;
use std::time::Duration;

use libauth_core::store::prelude::*;
use libauth_core::store::{from_config, AdapterError, NewUser, PostgresAdapter, PostgresOptions};
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
    // `prefer` and `allow` work in plain text: the server said "no TLS".
    for mode in ["prefer", "allow", "disable"] {
        let app = format!("plain-{mode}");
        let a = adapter(format!("{plain}?sslmode={mode}&application_name={app}"));
        a.create_user(&user(&format!("{mode}@example.com"))).unwrap_or_else(|e| panic!("{mode}: {e}"));
        assert_eq!(encrypted(&server, &app), [false], "{mode} against a server without TLS");
    }
    // A server that says yes to TLS and then breaks the handshake: `prefer`
    // tries again in plain text (as libpq does), `require` fails.
    let front = broken_tls_front(server.port());
    let via_front = format!("postgres://postgres@127.0.0.1:{front}/postgres");
    let a = adapter(format!("{via_front}?sslmode=prefer&application_name=after-broken-tls"));
    a.create_user(&user("fallback@example.com")).expect("prefer falls back to plain text after a failed handshake");
    assert_eq!(encrypted(&server, "after-broken-tls"), [false]);
    expect_tls_failure(
        "require after a broken handshake",
        adapter(format!("{via_front}?sslmode=require")).get_user("x"),
    );
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
    // Our own pg_hba.conf, rewritten below to accept only TLS, or only plain.
    let local = "local all all trust\n";
    let hba = server.write_private_file("hba.conf", &format!("{local}host all all 127.0.0.1/32 trust\n"));
    server.start_with(&format!(
        "-c ssl=on -c ssl_cert_file={} -c ssl_key_file={} -c hba_file={}",
        cert_path.display(),
        key_path.display(),
        hba.display()
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
    let required = adapter(format!("{plain}?sslmode=require&application_name=require"));
    assert!(required.get_user(&created.id).expect("require connects").is_some());
    assert_eq!(encrypted(&server, "require"), [true]);

    // (5) A server that takes both: `prefer` encrypts, `allow` (plain
    // first) does not, and neither checks the certificate (`sslrootcert`
    // of another CA changes nothing).
    for (mode, tls) in [("prefer", true), ("allow", false), ("disable", false)] {
        let app = format!("both-{mode}");
        let a = adapter(format!("{plain}?sslmode={mode}&sslrootcert={other}&application_name={app}"));
        assert!(a.get_user(&created.id).unwrap_or_else(|e| panic!("{mode}: {e}")).is_some());
        assert_eq!(encrypted(&server, &app), [tls], "{mode} against a server with TLS");
    }

    // (6) A server that takes only TLS: `allow` retries with TLS, `prefer`
    // has it at once; `disable` is refused.
    std::fs::write(&hba, format!("{local}hostssl all all 127.0.0.1/32 trust\n")).unwrap();
    server.reload();
    wait_until("plain text refused", || adapter(format!("{plain}?sslmode=disable")).get_user("x").is_err());
    for mode in ["allow", "prefer"] {
        let app = format!("tls-only-{mode}");
        let a = adapter(format!("{plain}?sslmode={mode}&application_name={app}"));
        assert!(a.get_user(&created.id).unwrap_or_else(|e| panic!("{mode}: {e}")).is_some());
        assert_eq!(encrypted(&server, &app), [true], "{mode} against a server that takes only TLS");
    }

    // (7) A server that refuses TLS connections (a hostnossl-only
    // pg_hba.conf): `prefer` tries again in plain text; `require` fails.
    std::fs::write(&hba, format!("{local}hostnossl all all 127.0.0.1/32 trust\n")).unwrap();
    server.reload();
    wait_until("TLS refused", || adapter(format!("{plain}?sslmode=require")).get_user("x").is_err());
    let a = adapter(format!("{plain}?sslmode=prefer&application_name=no-tls-prefer"));
    assert!(a.get_user(&created.id).expect("prefer falls back to plain text").is_some());
    assert_eq!(encrypted(&server, "no-tls-prefer"), [false]);
    assert!(adapter(format!("{plain}?sslmode=require")).get_user(&created.id).is_err());
    server.stop();
}

/// Whether each connection named `app` (its `application_name`) is
/// encrypted, as the server sees it (asked over its Unix socket, which
/// every pg_hba.conf here accepts).
fn encrypted(server: &Server, app: &str) -> Vec<bool> {
    let mut admin = postgres::Config::new()
        .host_path(server.socket_dir())
        .port(server.port())
        .user("postgres")
        .dbname("postgres")
        .connect(postgres::NoTls)
        .expect("connect over the Unix socket");
    admin
        .query(
            "SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.application_name = $1",
            &[&app],
        )
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect()
}

/// Poll until `done` (a reloaded pg_hba.conf applies a moment later).
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let started = std::time::Instant::now();
    while !done() {
        assert!(started.elapsed() < Duration::from_secs(10), "{what}: not within 10 s");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A port in front of the server at `port` that answers an SSL request
/// with "yes" and then garbage (a TLS handshake that fails midway), and
/// passes any plain-text connection through to the server.
fn broken_tls_front(port: u16) -> u16 {
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};
    const SSL_REQUEST: [u8; 8] = [0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f];
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let front = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(mut client) = client else { continue };
            let mut first = [0u8; 8];
            if client.read_exact(&mut first).is_err() {
                continue;
            }
            if first == SSL_REQUEST {
                let _ = client.write_all(b"Snot a TLS server hello, just bytes\n");
                continue;
            }
            let Ok(mut server) = TcpStream::connect(("127.0.0.1", port)) else { continue };
            if server.write_all(&first).is_err() {
                continue;
            }
            // Each direction copied until its end, which then ends the
            // other (a socket stays open while any clone of it lives).
            let pipe = |mut from: TcpStream, mut to: TcpStream| {
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut from, &mut to);
                    let _ = to.shutdown(std::net::Shutdown::Both);
                    let _ = from.shutdown(std::net::Shutdown::Both);
                })
            };
            pipe(client.try_clone().unwrap(), server.try_clone().unwrap());
            pipe(server, client);
        }
    });
    front
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
