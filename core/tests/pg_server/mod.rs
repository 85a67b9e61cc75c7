//! A throwaway PostgreSQL server for tests (initdb + pg_ctl from the
//! installed PostgreSQL, on a free port, data under the temp directory).
//!
//! The server binaries are found in `/usr/lib/postgresql/<version>/bin`
//! (newest version), or `LIBAUTH_PG_BIN`. initdb refuses to run as root, so
//! as root the server runs as the `postgres` user (through `runuser`).
#![allow(dead_code)]

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Command, Output};

pub fn pg_bin_dir() -> PathBuf {
    if let Ok(dir) = std::env::var("LIBAUTH_PG_BIN") {
        return PathBuf::from(dir);
    }
    let mut candidates: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL server binaries under /usr/lib/postgresql (apt install postgresql), or set LIBAUTH_PG_BIN")
        .filter_map(|e| e.ok())
        .filter_map(|e| Some((e.file_name().to_str()?.parse().ok()?, e.path().join("bin"))))
        .filter(|(_, bin)| bin.join("initdb").exists())
        .collect();
    candidates.sort();
    candidates.pop().map(|(_, bin)| bin).expect("an installed PostgreSQL with initdb")
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0").unwrap_or(false)
}

/// A throwaway PostgreSQL server. Dropping it stops the server and removes
/// its data directory, whether the test passed or not.
pub struct Server {
    bin: PathBuf,
    data: PathBuf,
    port: u16,
    as_postgres_user: bool,
}

impl Server {
    /// initdb a new cluster under the temp directory; `name` goes into
    /// the directory name.
    pub fn init(name: &str) -> Server {
        let bin = pg_bin_dir();
        let as_postgres_user = is_root();
        let data = std::env::temp_dir().join(format!("libauth-pg-{name}-{}", libauth_core::random::hex(6)));
        std::fs::create_dir(&data).expect("create the data directory");
        // Construct the guard now, so a failure below still cleans up.
        let server = Server { bin, data, port: free_port(), as_postgres_user };
        if as_postgres_user {
            server.check(Command::new("chown").arg("postgres:postgres").arg(&server.data).output(), "chown");
        }
        let initdb = server
            .command("initdb")
            .args(["-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync", "-D"])
            .arg(&server.data)
            .output();
        server.check(initdb, "initdb");
        server
    }

    /// A command running one of the server binaries, as the right user.
    pub fn command(&self, program: &str) -> Command {
        let path = self.bin.join(program);
        if self.as_postgres_user {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(path);
            c
        } else {
            Command::new(path)
        }
    }

    pub fn check(&self, output: std::io::Result<Output>, what: &str) {
        match output {
            Ok(o) if o.status.success() => {}
            Ok(o) => panic!(
                "{what} failed ({}):\n{}{}\nserver log:\n{}",
                o.status,
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr),
                std::fs::read_to_string(self.data.join("server.log")).unwrap_or_default()
            ),
            Err(e) => panic!("cannot run {what}: {e}"),
        }
    }

    pub fn start(&self) {
        self.start_with("");
    }

    /// Start with extra server options (`-c name=value …`).
    pub fn start_with(&self, extra: &str) {
        // The socket directory is the data directory: nothing outside it is
        // needed (or writable by the postgres user) on every machine.
        let options = format!("-p {} -c listen_addresses=127.0.0.1 -k {} {extra}", self.port, self.data.display());
        let start = self
            .command("pg_ctl")
            .args(["start", "-w", "-t", "60", "-o", &options, "-l"])
            .arg(self.data.join("server.log"))
            .arg("-D")
            .arg(&self.data)
            .output();
        self.check(start, "pg_ctl start");
    }

    /// Stop as an administrator would for maintenance: `-m fast` ends every
    /// session (open connections see `57P01 admin_shutdown`).
    pub fn stop(&self) {
        let stop = self.command("pg_ctl").args(["stop", "-w", "-m", "fast", "-D"]).arg(&self.data).output();
        self.check(stop, "pg_ctl stop");
    }

    /// Write a file into the data directory, owned by the server's user
    /// and readable by it alone (as PostgreSQL wants of a key file), and
    /// return its path.
    pub fn write_private_file(&self, name: &str, contents: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = self.data.join(name);
        std::fs::write(&path, contents).expect("write into the data directory");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod 600");
        if self.as_postgres_user {
            self.check(Command::new("chown").arg("postgres:postgres").arg(&path).output(), "chown");
        }
        path
    }

    /// Re-read the configuration files (`pg_hba.conf` among them) without
    /// a restart; new connections see the change a moment later.
    pub fn reload(&self) {
        let reload = self.command("pg_ctl").args(["reload", "-D"]).arg(&self.data).output();
        self.check(reload, "pg_ctl reload");
    }

    /// Where the server's Unix socket is (its data directory).
    pub fn socket_dir(&self) -> &std::path::Path {
        &self.data
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.command("pg_ctl").args(["stop", "-w", "-m", "immediate", "-D"]).arg(&self.data).output();
        let _ = std::fs::remove_dir_all(&self.data);
    }
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("a free port")
}
