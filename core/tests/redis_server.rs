//! Redis servers of the tests' own (`redis-server` on a free port):
//!
//! - `rediss://` against one speaking TLS, with a certificate from a test
//!   CA: verified against `caFile`, refused with another CA, and a plain
//!   `redis://` to the TLS port fails rather than talking in clear. Bounded
//!   by `timeout` each.
//! - A restart: the pooled connections the old server closed are replaced
//!   without failing a call; while it is down, calls fail fast.

use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use libauth_core::store::redis::{RedisOptions, RedisPool};
use libauth_core::store::{CounterStore, RedisStore};
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};

/// A CA, and its PEM certificate.
fn new_ca(name: &str) -> (CertifiedIssuer<'static, KeyPair>, String) {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.distinguished_name.push(rcgen::DnType::CommonName, name);
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
    let pem = ca.pem();
    (ca, pem)
}

/// A TLS-only redis-server, stopped (and its files removed) when dropped.
struct TlsRedis {
    child: Child,
    port: u16,
    dir: std::path::PathBuf,
}

impl Drop for TlsRedis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn start(ca: &CertifiedIssuer<'static, KeyPair>, ca_pem: &str) -> TlsRedis {
    let dir = std::env::temp_dir().join(format!("libauth-redis-tls-{}", libauth_core::random::hex(6)));
    std::fs::create_dir_all(&dir).unwrap();
    let key = KeyPair::generate().unwrap();
    let mut params = CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()]).unwrap();
    params.distinguished_name.push(rcgen::DnType::CommonName, "localhost");
    let cert = params.signed_by(&key, ca).unwrap();
    let (cert_file, key_file, ca_file) = (dir.join("server.crt"), dir.join("server.key"), dir.join("ca.pem"));
    std::fs::write(&cert_file, cert.pem()).unwrap();
    std::fs::write(&key_file, key.serialize_pem()).unwrap();
    std::fs::write(&ca_file, ca_pem).unwrap();
    let port = {
        let probe = TcpListener::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap().port()
    };
    let child = Command::new("redis-server")
        .args(["--port", "0", "--tls-port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--tls-cert-file", cert_file.to_str().unwrap(), "--tls-key-file", key_file.to_str().unwrap()])
        .args(["--tls-ca-cert-file", ca_file.to_str().unwrap(), "--tls-auth-clients", "no"])
        .args(["--save", "", "--appendonly", "no", "--dir", dir.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("redis-server runs (scripts/test.sh installs it)");
    let server = TlsRedis { child, port, dir };
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "redis-server did not listen on {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
    server
}

fn store(url: String, ca_file: Option<std::path::PathBuf>) -> RedisStore {
    let options = RedisOptions { ca_file, timeout: Duration::from_millis(500), ..RedisOptions::new(url) };
    RedisStore::new(Arc::new(RedisPool::new(&options).expect("valid options")))
}

#[test]
fn rediss_is_verified_against_the_ca_file_and_never_plain() {
    let (ca, ca_pem) = new_ca("libauth test CA");
    let server = start(&ca, &ca_pem);
    let (_other, other_pem) = new_ca("some other CA");
    let other_file = server.dir.join("other-ca.pem");
    std::fs::write(&other_file, other_pem).unwrap();
    let window = Duration::from_secs(60);

    let good = store(format!("rediss://localhost:{}", server.port), Some(server.dir.join("ca.pem")));
    assert_eq!(good.consume("k", 1, window).expect("TLS with the right CA").count, 1);
    assert_eq!(good.consume("k", 1, window).unwrap().count, 2);

    let started = Instant::now();
    let wrong = store(format!("rediss://localhost:{}", server.port), Some(other_file));
    let err = wrong.consume("k", 1, window).expect_err("a certificate from another CA is refused");
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
    assert!(err.to_string().contains("redis"), "{err}");

    // No TLS to a TLS port: an error, not a hang and not a clear-text talk.
    let started = Instant::now();
    let plain = store(format!("redis://127.0.0.1:{}", server.port), None);
    assert!(plain.consume("k", 1, window).is_err());
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());

    // A CA file is for TLS only, and must be readable: config errors.
    let options = RedisOptions { ca_file: Some(server.dir.join("ca.pem")), ..RedisOptions::new("redis://localhost") };
    assert!(RedisPool::new(&options).is_err());
    let options = RedisOptions { ca_file: Some("/no/such/ca.pem".into()), ..RedisOptions::new("rediss://localhost") };
    assert!(RedisPool::new(&options).err().is_some_and(|e| e.contains("/no/such/ca.pem")));
}

/// A plain redis-server on `port`.
fn start_plain(port: u16, dir: &std::path::Path) -> Child {
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        .args(["--dir", dir.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("redis-server runs (scripts/test.sh installs it)");
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "redis-server did not listen on {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
    child
}

#[test]
fn a_restarted_redis_costs_no_failed_call_and_a_down_one_fails_fast() {
    let dir = std::env::temp_dir().join(format!("libauth-redis-restart-{}", libauth_core::random::hex(6)));
    std::fs::create_dir_all(&dir).unwrap();
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut server = start_plain(port, &dir);
    let options = RedisOptions {
        pool_size: 4,
        timeout: Duration::from_millis(500),
        ..RedisOptions::new(format!("redis://127.0.0.1:{port}"))
    };
    let store = Arc::new(RedisStore::new(Arc::new(RedisPool::new(&options).unwrap())));
    let window = Duration::from_secs(60);
    // Fill the pool with connections (4 threads at once).
    let threads: Vec<_> = (0..4)
        .map(|i| {
            let store = store.clone();
            std::thread::spawn(move || store.consume(&format!("k{i}"), 1, window).unwrap())
        })
        .collect();
    threads.into_iter().for_each(|t| assert_eq!(t.join().unwrap().count, 1));

    // Restarted (empty: no persistence) while the pool holds 4 connections
    // to the old server: they are replaced, and no call fails.
    server.kill().unwrap();
    server.wait().unwrap();
    let mut server = start_plain(port, &dir);
    for i in 0..8 {
        let counted = store.consume("after", 1, window).unwrap_or_else(|e| panic!("call {i} after the restart: {e}"));
        assert_eq!(counted.count, i + 1);
    }

    // Down: an error within the timeout, then at once (the breaker).
    server.kill().unwrap();
    server.wait().unwrap();
    let started = Instant::now();
    assert!(store.consume("k0", 1, window).is_err());
    assert!(store.consume("k0", 1, window).is_err());
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    let _ = server.kill();
    let _ = server.wait();
    let _ = std::fs::remove_dir_all(&dir);
}
