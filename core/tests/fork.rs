//! Fork safety, as a pre-fork server (gunicorn, a C server's workers) uses
//! the engine: built and used in the parent, then `fork()`ed. Each child
//! signs in and reads sessions from several threads at once and must
//! succeed on connections of its own; the parent, busy at the same time,
//! must keep its own connections: no child uses them, and none closes them
//! (for PostgreSQL, a child closing one would end the parent's session on
//! the server; for SQLite, it could checkpoint and remove the WAL file
//! under the parent). The children also drop an adapter they inherited
//! (after using it, or without), as a worker that shuts down cleanly does.
//!
//! One test in this file, running PostgreSQL then SQLite: `fork()` copies
//! only the calling thread, so no other test may be running (and holding a
//! lock) in this process when it forks.

mod common;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use common::*;
use libauth_core::store::{from_config, Adapter, Authenticator};
use libauth_core::{Auth, NoHooks};
use serde_json::{json, Value};

const CHILDREN: usize = 3;
const THREADS_PER_CHILD: usize = 8;
const READS: usize = 5;

#[test]
fn forked_workers_use_connections_of_their_own() {
    // PostgreSQL. The adapter's connections are told apart by their
    // application_name, the parent's by their server process ids.
    let schema = temp_schema();
    let app = format!("libauth-fork-{}", libauth_core::random::hex(4));
    let url = format!("{}?application_name={app}", postgres_url());
    let mut admin = ::postgres::Client::connect(&postgres_url(), ::postgres::NoTls).unwrap();
    let mut backends = || -> BTreeSet<i32> {
        let rows = admin.query("SELECT pid FROM pg_stat_activity WHERE application_name = $1", &[&app]).unwrap();
        rows.iter().map(|r| r.get(0)).collect()
    };
    let config = json!({ "type": "postgres", "url": url, "schema": schema.0, "poolSize": 4 });
    let engine = auth(json!({ "adapter": config }), hooks());
    let mut parent = Browser::new(&engine);
    warm_up(&engine, &mut parent);
    let spare = spare_adapter(&config);
    let parents = backends();
    assert!(parents.len() >= 2, "the parent holds pooled connections when it forks: {parents:?}");
    let took = fork_workers(&engine, &spare, &mut parent, || {});
    let now = backends();
    assert!(parents.is_subset(&now), "the parent's connections were closed: had {parents:?}, now {now:?}");
    eprintln!("fork, postgres: {CHILDREN} children x {THREADS_PER_CHILD} threads signed in and read in {took:?}");

    // SQLite: one file, the parent's connection open when it forks.
    let file = temp_db_path();
    let config = json!({ "type": "sqlite", "path": file.0 });
    let engine = auth(json!({ "adapter": config }), hooks());
    let mut parent = Browser::new(&engine);
    warm_up(&engine, &mut parent);
    let spare = spare_adapter(&config);
    let took = fork_workers(&engine, &spare, &mut parent, || {
        assert!(std::path::Path::new(&format!("{}-wal", file.0.display())).exists(), "the WAL file is there");
    });
    let db = rusqlite::Connection::open(&file.0).unwrap();
    let integrity: String = db.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(integrity, "ok");
    let sessions: i64 = db.query_row("SELECT count(*) FROM sessions", [], |r| r.get(0)).unwrap();
    assert!(sessions > (CHILDREN * THREADS_PER_CHILD) as i64, "every child's sessions are stored: {sessions}");
    eprintln!("fork, sqlite: {CHILDREN} children x {THREADS_PER_CHILD} threads signed in and read in {took:?}");
}

/// A second adapter on the same database, used by the parent (so it has
/// connections open), for the children to drop.
fn spare_adapter(config: &Value) -> Mutex<Option<Arc<dyn Adapter>>> {
    let adapter = from_config(config, Arc::new(NoHooks)).unwrap();
    assert!(adapter.get_user("42").unwrap().is_some());
    Mutex::new(Some(adapter))
}

/// Sign the parent in, then read from several threads at once, so the
/// adapter has connections open (PostgreSQL: several pooled ones) when the
/// parent forks.
fn warm_up(auth: &Auth, parent: &mut Browser) {
    assert_eq!(location(&parent.sign_in("ada", "secret")), ORIGIN);
    let cookie = parent.cookie_header();
    thread::scope(|s| {
        for _ in 0..4 {
            let cookie = cookie.clone();
            s.spawn(move || {
                let req =
                    libauth_core::AuthRequest::get(format!("{ORIGIN}/auth/session")).with_header("cookie", cookie);
                assert!(auth.get_session(&req).unwrap().is_some());
            });
        }
    });
}

/// Fork the workers; while they run, the parent reads its session from
/// its own threads. Then every worker must have exited 0, and the parent's
/// session must still read (and `check` must hold). How long the workers
/// took.
fn fork_workers(
    auth: &Auth,
    spare: &Mutex<Option<Arc<dyn Adapter>>>,
    parent: &mut Browser,
    check: impl Fn(),
) -> Duration {
    let started = Instant::now();
    let mut pids = Vec::new();
    for child in 0..CHILDREN {
        // SAFETY: the only thread of this process that runs is this one
        // (the test harness's main thread waits on a channel, holding no
        // lock); the child runs the engine and then `_exit`s.
        match unsafe { libc::fork() } {
            0 => {
                let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let spare = spare.lock().unwrap().take().expect("the spare adapter");
                    // Even children use it first; odd ones drop it as
                    // inherited. Its last reference here: dropping it closes
                    // the child's own connections and leaves the parent's.
                    // Even ones also store a passkey through it (on their own
                    // connection), which the parent then reads.
                    let used = child % 2 == 1
                        || (spare.get_user("42").is_ok_and(|u| u.is_some())
                            && spare.create_authenticator(&passkey(child)).is_ok()
                            && spare.list_authenticators_by_user_id("42").is_ok_and(|l| l.contains(&passkey(child))));
                    drop(spare);
                    used && worker(auth)
                }))
                .unwrap_or(false);
                // SAFETY: ends the child without running the parent's
                // exit handlers or unwinding into the test harness.
                unsafe { libc::_exit(if ok { 0 } else { 1 }) };
            }
            -1 => panic!("fork failed: {}", std::io::Error::last_os_error()),
            pid => pids.push(pid),
        }
    }
    let cookie = parent.cookie_header();
    let statuses = thread::scope(|s| {
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let cookie = cookie.clone();
                s.spawn(move || {
                    let req =
                        libauth_core::AuthRequest::get(format!("{ORIGIN}/auth/session")).with_header("cookie", cookie);
                    for _ in 0..20 {
                        assert!(auth.get_session(&req).unwrap().is_some(), "the parent reads while the workers run");
                        thread::sleep(Duration::from_millis(5));
                    }
                })
            })
            .collect();
        let statuses = wait_for(&pids);
        for r in readers {
            r.join().unwrap();
        }
        statuses
    });
    let took = started.elapsed();
    assert!(statuses.iter().all(|s| *s == Some(0)), "every worker succeeded: exit statuses {statuses:?}");
    assert_eq!(parent.session()["user"]["email"], "ada@example.com", "the parent's session reads after the fork");
    let spare = spare.lock().unwrap().clone().expect("the parent keeps its spare adapter");
    for child in (0..CHILDREN).filter(|c| c % 2 == 0) {
        assert_eq!(spare.get_authenticator(&passkey(child).credential_id).unwrap(), Some(passkey(child)));
    }
    check();
    took
}

/// The passkey child `child` stores for user 42.
fn passkey(child: usize) -> Authenticator {
    Authenticator {
        credential_id: format!("fork-{child}"),
        user_id: "42".into(),
        provider_account_id: format!("fork-{child}"),
        credential_public_key: "pQECAyYgASFYIA==".into(),
        counter: 0,
        credential_device_type: "multiDevice".into(),
        credential_backed_up: true,
        transports: None,
        name: None,
        created_at: Some(1_763_800_000_123),
        last_used_at: None,
    }
}

/// In a worker: `THREADS_PER_CHILD` concurrent sign-ins, each reading its
/// session `READS` times.
fn worker(auth: &Auth) -> bool {
    thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS_PER_CHILD)
            .map(|_| {
                s.spawn(move || {
                    let mut b = Browser::new(auth);
                    let signed_in = b.sign_in("ada", "secret").header("location") == Some(ORIGIN);
                    signed_in && (0..READS).all(|_| b.session()["user"]["email"] == "ada@example.com")
                })
            })
            .collect();
        handles.into_iter().all(|h| h.join().unwrap_or(false))
    })
}

/// The exit status of each child (`None`: killed, or not done within a
/// minute, then killed).
fn wait_for(pids: &[libc::pid_t]) -> Vec<Option<i32>> {
    let deadline = Instant::now() + Duration::from_secs(60);
    pids.iter()
        .map(|&pid| loop {
            let mut status = 0;
            // SAFETY: waits for our own child; `status` is ours to write.
            let done = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
            if done == pid {
                break libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
            }
            if done == -1 || Instant::now() > deadline {
                // SAFETY: our own child.
                unsafe { libc::kill(pid, libc::SIGKILL) };
                break None;
            }
            thread::sleep(Duration::from_millis(10));
        })
        .collect()
}
