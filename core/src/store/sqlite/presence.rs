//! Making this process's SQLite connections visible to *other copies of
//! SQLite in the same process*.
//!
//! The engine links its own SQLite (rusqlite's bundled one). The host
//! process often has another: Python's `sqlite3` module (Django, a script
//! reading the same file), Node's `node:sqlite`, a C host's libsqlite3.
//! SQLite coordinates connections with POSIX record locks (`fcntl`), which
//! belong to a *process*: locks taken by one copy never conflict with
//! locks taken by the other copy in the same process. So when the host's
//! copy closes its last connection to the file, it takes the "exclusive"
//! lock (nothing it can see refuses it), checkpoints, and **deletes the
//! `-wal` and `-shm` files while the engine's connection still has them
//! open**. The engine's connection goes on committing into the deleted WAL:
//! its writes are invisible to every other connection and process, until
//! the engine's connection is closed and checkpoints them back (or lost,
//! if the process dies first). A host copy opening the file when it thinks
//! it is alone also re-initialises the `-shm` under the engine's
//! connection.
//!
//! Open file description (OFD) locks, unlike the locks SQLite takes, do
//! conflict with every other lock on the file, those of the same process
//! included. So, for as long as one of the engine's connections to a
//! database is open, this module holds OFD *read* locks on the two bytes a
//! lone SQLite tests before it deletes or resets anything:
//!
//! - one byte of the database file's "shared" range: another copy's
//!   exclusive lock (taken at close, to checkpoint and delete the WAL)
//!   fails as busy, as it would against a connection in another process,
//!   and that copy leaves the WAL alone;
//! - the `-shm` file's "dead man switch" byte: another copy opening the
//!   file sees a live user and does not truncate the shared memory.
//!
//! Read locks, so nothing a reader or writer needs is refused: SQLite's own
//! shared locks are read locks too, and WAL-mode writes lock other bytes
//! (in the `-shm`). Linux on x86-64 and ARM64 only (OFD locks are
//! Linux's; `struct flock` is spelt per architecture); elsewhere
//! [`SqliteAdapter`](super::SqliteAdapter) falls back on noticing a deleted
//! WAL before each call.
//!
//! The descriptors opened for the locks are **never closed**: closing any
//! descriptor of a file drops every POSIX lock the process holds on it,
//! SQLite's own included (the very hazard above). They are kept per file
//! for the life of the process (two per database file, and one more each
//! time its `-shm` is recreated) and unlocked, not closed, when the last
//! connection goes.

use std::path::Path;

/// Held while one connection to a database is open; unlocks the file when
/// the last one for that file is dropped.
pub(super) struct Presence {
    #[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
    key: (u64, u64),
    /// The process that took it: a child after `fork()` shares the
    /// parent's locks (OFD locks belong to the open file description) and
    /// must not unlock them.
    #[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
    pid: u32,
}

#[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
mod imp {
    use std::collections::HashMap;
    use std::fs::File;
    use std::os::unix::fs::MetadataExt;

    use nix::fcntl::{fcntl, FcntlArg};
    use nix::libc;
    use std::path::Path;
    use std::sync::Mutex;

    /// SQLite's unix VFS: the first byte of the database file's shared
    /// range (`PENDING_BYTE + 2`; the pending byte is at 1 GiB).
    const SHARED_FIRST: i64 = 0x4000_0000 + 2;
    /// SQLite's unix VFS: the `-shm` "dead man switch" byte
    /// (`UNIX_SHM_BASE + SQLITE_SHM_NLOCK` = 120 + 8).
    const SHM_DMS: i64 = 128;

    struct Locked {
        db: File,
        /// The `-shm` file locked, with its inode (it is recreated after
        /// the last connection of every process closes).
        shm: Option<(u64, File)>,
        holders: usize,
        /// The process that opened the descriptors. A child after `fork()`
        /// shares them with its parent (and so the locks): it opens its own.
        pid: u32,
    }

    /// By the database file's (device, inode).
    static FILES: Mutex<Option<HashMap<(u64, u64), Locked>>> = Mutex::new(None);
    /// Descriptors of `-shm` files since replaced: kept open (see the
    /// module's documentation).
    static RETIRED: Mutex<Vec<File>> = Mutex::new(Vec::new());

    fn ofd_lock(file: &File, kind: libc::c_int, start: i64) -> std::io::Result<()> {
        let lock = libc::flock {
            l_type: kind as libc::c_short,
            l_whence: libc::SEEK_SET as libc::c_short,
            l_start: start,
            l_len: 1,
            l_pid: 0,
        };
        fcntl(file, FcntlArg::F_OFD_SETLK(&lock)).map(|_| ()).map_err(std::io::Error::from)
    }

    /// A read lock, tried again for a moment while another process holds
    /// a write lock on the byte (SQLite's exclusive lock at its close, or
    /// the `-shm` switch while it sets up the shared memory: brief).
    fn ofd_read_lock(file: &File, start: i64) -> std::io::Result<()> {
        let mut tries = 0;
        loop {
            match ofd_lock(file, libc::F_RDLCK, start) {
                Err(e) if tries < 20 && matches!(e.raw_os_error(), Some(libc::EAGAIN) | Some(libc::EACCES)) => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                other => return other,
            }
        }
    }

    /// Lock the database file and its `-shm` (the `-shm` exists while a
    /// WAL-mode connection is open; it may be a new file since this
    /// database was last locked). All or nothing.
    fn lock_files(entry: &mut Locked, path: &Path) -> std::io::Result<()> {
        ofd_read_lock(&entry.db, SHARED_FIRST)?;
        let shm = (|| {
            let meta = match std::fs::metadata(shm_path(path)) {
                Ok(meta) => meta,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
                Err(e) => return Err(e),
            };
            if entry.shm.as_ref().map(|(ino, _)| *ino) != Some(meta.ino()) {
                let file = File::open(shm_path(path))?;
                if let Some((_, old)) = entry.shm.replace((meta.ino(), file)) {
                    RETIRED.lock().unwrap_or_else(|p| p.into_inner()).push(old);
                }
            }
            match &entry.shm {
                Some((_, file)) => ofd_read_lock(file, SHM_DMS),
                None => Ok(()),
            }
        })();
        if shm.is_err() {
            let _ = ofd_lock(&entry.db, libc::F_UNLCK, SHARED_FIRST);
        }
        shm
    }

    fn shm_path(db: &Path) -> std::path::PathBuf {
        let mut p = db.as_os_str().to_owned();
        p.push("-shm");
        p.into()
    }

    pub(super) fn hold(path: &Path) -> std::io::Result<(u64, u64)> {
        let meta = std::fs::metadata(path)?;
        let key = (meta.dev(), meta.ino());
        let mut files = FILES.lock().unwrap_or_else(|p| p.into_inner());
        let files = files.get_or_insert_with(HashMap::new);
        let pid = std::process::id();
        if let Some(inherited) = files.remove(&key) {
            if inherited.pid == pid {
                files.insert(key, inherited);
            } else {
                // The parent's: left locked as the parent holds them.
                let mut retired = RETIRED.lock().unwrap_or_else(|p| p.into_inner());
                retired.push(inherited.db);
                retired.extend(inherited.shm.map(|(_, f)| f));
            }
        }
        let entry = match files.entry(key) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(Locked { db: File::open(path)?, shm: None, holders: 0, pid })
            }
        };
        if entry.holders == 0 {
            lock_files(entry, path)?;
        }
        entry.holders += 1;
        Ok(key)
    }

    pub(super) fn release(key: (u64, u64)) {
        let mut files = FILES.lock().unwrap_or_else(|p| p.into_inner());
        let Some(entry) = files.as_mut().and_then(|f| f.get_mut(&key)) else { return };
        if entry.pid != std::process::id() {
            return;
        }
        entry.holders = entry.holders.saturating_sub(1);
        if entry.holders == 0 {
            // Unlocked, not closed (see the module's documentation).
            let _ = ofd_lock(&entry.db, libc::F_UNLCK, SHARED_FIRST);
            if let Some((_, shm)) = &entry.shm {
                let _ = ofd_lock(shm, libc::F_UNLCK, SHM_DMS);
            }
        }
    }
}

impl Presence {
    /// Lock `path` (a database file in WAL mode, with a connection of ours
    /// open on it). `None` where OFD locks are not available or the locks
    /// could not be taken (the adapter then relies on its WAL check).
    pub(super) fn hold(path: &Path) -> Option<Presence> {
        #[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
        {
            imp::hold(path).ok().map(|key| Presence { key, pid: std::process::id() })
        }
        #[cfg(not(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64"))))]
        {
            let _ = path;
            None
        }
    }
}

impl Drop for Presence {
    fn drop(&mut self) {
        #[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
        if self.pid == std::process::id() {
            imp::release(self.key);
        }
    }
}
