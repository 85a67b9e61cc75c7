//! Fork safety of the Redis pool, as a pre-fork server uses it: the parent
//! counts on Redis (so its pool holds connections), then `fork()`s; the
//! children count from several threads at once while the parent goes on
//! counting. If a child used a connection of the parent's, two processes
//! would read each other's replies on one socket: counts would repeat,
//! skip, or come back as errors. Each must see exactly its own sequence.
//!
//! One test in this file: `fork()` copies only the calling thread, so no
//! other test may be running (and holding a lock) in this process.

use std::sync::Arc;
use std::time::{Duration, Instant};

use libauth_core::store::redis::{RedisOptions, RedisPool};
use libauth_core::store::{CounterStore, RedisStore};

const CHILDREN: usize = 3;
const THREADS: usize = 4;
const CALLS: u64 = 50;
const WINDOW: Duration = Duration::from_secs(600);

fn redis_url() -> String {
    std::env::var("LIBAUTH_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".to_owned())
}

/// In a child: `THREADS` threads count on `key`; every count seen once.
fn child_counts(store: &Arc<RedisStore>, key: &str) -> bool {
    let threads: Vec<_> = (0..THREADS)
        .map(|_| {
            let (store, key) = (store.clone(), key.to_owned());
            std::thread::spawn(move || {
                (0..CALLS).map(|_| store.consume(&key, 1, WINDOW).map(|c| c.count)).collect::<Result<Vec<_>, _>>()
            })
        })
        .collect();
    let mut counts = Vec::new();
    for thread in threads {
        match thread.join() {
            Ok(Ok(mine)) => counts.extend(mine),
            _ => return false,
        }
    }
    counts.sort_unstable();
    counts == (1..=THREADS as u64 * CALLS).collect::<Vec<_>>()
}

#[test]
fn forked_workers_count_on_connections_of_their_own() {
    let prefix = format!("libauth-test:{}:", libauth_core::random::hex(6));
    let pool = RedisPool::new(&RedisOptions { key_prefix: prefix, ..RedisOptions::new(redis_url()) }).unwrap();
    let store = Arc::new(RedisStore::new(Arc::new(pool)));
    assert_eq!(store.consume("parent", 1, WINDOW).unwrap().count, 1, "the parent's pool holds a connection");

    let mut pids = Vec::new();
    for child in 0..CHILDREN {
        // SAFETY: the only thread of this process that runs is this one
        // (the harness's main thread waits, holding no lock); the child
        // counts and then `_exit`s.
        match unsafe { libc::fork() } {
            0 => {
                let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    child_counts(&store, &format!("child-{child}"))
                }))
                .unwrap_or(false);
                // SAFETY: ends the child without running the parent's exit
                // handlers or unwinding into the test harness.
                unsafe { libc::_exit(if ok { 0 } else { 1 }) };
            }
            -1 => panic!("fork failed: {}", std::io::Error::last_os_error()),
            pid => pids.push(pid),
        }
    }
    // The parent counts on its own connections meanwhile.
    for expected in 2..=200 {
        assert_eq!(store.consume("parent", 1, WINDOW).unwrap().count, expected);
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    for pid in pids {
        let mut status = 0;
        loop {
            // SAFETY: waits for a child of this process.
            let done = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
            if done == pid {
                break;
            }
            assert!(Instant::now() < deadline, "child {pid} did not finish");
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "child {pid} failed: status {status}");
    }
    for child in 0..CHILDREN {
        let total = THREADS as u64 * CALLS;
        assert_eq!(store.consume(&format!("child-{child}"), 0, WINDOW).unwrap().count, total);
    }
}
