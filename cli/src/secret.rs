//! `libauth secret`: a new `AUTH_SECRET`, written into an env file.
//!
//! The engine reads `AUTH_SECRET` and, for rotation, `AUTH_SECRET_1` to
//! `AUTH_SECRET_3`, in the order `_3, _2, _1, AUTH_SECRET`: the first signs
//! and encrypts, every one still reads. `--rotate` therefore puts the new
//! secret first and keeps the ones in use after it (the one that signed
//! until now second), up to the four names there are, so sessions and
//! links issued before the rotation keep working until they expire.

use std::io::Write;
use std::path::{Path, PathBuf};

use base64::Engine;
use clap::Args;
use serde_json::json;

use crate::output::{print_json, write_line, Exit, Failure, Outcome};

#[derive(Args, Debug)]
pub struct SecretArgs {
    /// Keep the secret in use as the second one (it still reads existing
    /// sessions) and make the new one first.
    #[arg(long)]
    rotate: bool,
    /// The env file to write.
    #[arg(long, value_name = "PATH", default_value = ".env")]
    env_file: PathBuf,
    /// Replace an existing AUTH_SECRET (every session signed with it ends).
    #[arg(long, conflicts_with = "rotate")]
    force: bool,
    /// Print the secret instead of writing a file.
    #[arg(long, conflicts_with_all = ["rotate", "force"])]
    print: bool,
    /// Report as JSON (the secret itself is never printed unless --print).
    #[arg(long)]
    json: bool,
}

/// The secrets the engine reads: `AUTH_SECRET` and `AUTH_SECRET_1` to `_3`.
const MAX_SECRETS: usize = 4;

/// 32 random bytes from the operating system, base64url without padding
/// (43 characters).
pub fn new_secret() -> Result<String, Failure> {
    let mut bytes = [0u8; 32];
    getrandom::getrandom(&mut bytes)
        .map_err(|e| Failure::Failed(format!("the operating system gave no randomness: {e}")))?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

pub fn run(args: &SecretArgs, out: &mut dyn Write) -> Outcome {
    let secret = new_secret()?;
    if args.print {
        if args.json {
            print_json(out, &json!({ "AUTH_SECRET": secret }))?;
        } else {
            write_line(out, &format!("AUTH_SECRET={secret}"))?;
        }
        return Ok(Exit::Ok);
    }
    let existing = match std::fs::read_to_string(&args.env_file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(Failure::Failed(format!("cannot read {}: {e}", args.env_file.display()))),
    };
    let file = EnvFile::parse(&existing);
    let in_use = file.secret_in_use();
    let (text, what) = match (in_use, args.rotate, args.force) {
        (None, true, _) => {
            return Err(Failure::Failed(format!(
                "{} has no AUTH_SECRET to rotate; run without --rotate to create one",
                args.env_file.display()
            )))
        }
        (None, false, _) => (file.with_secret_list(std::slice::from_ref(&secret)), "created AUTH_SECRET".to_owned()),
        (Some(_), true, _) => {
            let mut secrets = vec![secret.clone()];
            secrets.extend(file.secrets_in_order());
            let dropped = secrets.len().saturating_sub(MAX_SECRETS);
            secrets.truncate(MAX_SECRETS);
            let what = if dropped == 0 {
                "rotated: the new secret signs, the previous ones still read".to_owned()
            } else {
                format!("rotated: the new secret signs, the previous ones still read; the oldest {dropped} dropped (four at most)")
            };
            (file.with_secret_list(&secrets), what)
        }
        (Some(_), false, true) => (file.with_secret_list(std::slice::from_ref(&secret)), "replaced AUTH_SECRET".to_owned()),
        (Some(_), false, false) => {
            return Err(Failure::Failed(format!(
                "{} already has AUTH_SECRET; --rotate keeps it for existing sessions, --force replaces it (signing everyone out)",
                args.env_file.display()
            )))
        }
    };
    write_private(&args.env_file, &text)?;
    if args.json {
        print_json(out, &json!({ "file": args.env_file.display().to_string(), "action": what }))?;
    } else {
        write_line(out, &format!("{}: {what}", args.env_file.display()))?;
    }
    Ok(Exit::Ok)
}

/// Write `text` to `path`, readable by its owner only (it holds a secret).
fn write_private(path: &Path, text: &str) -> Result<(), Failure> {
    let fail = |e: std::io::Error| Failure::Failed(format!("cannot write {}: {e}", path.display()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path).map_err(fail)?;
    // An existing file keeps its mode on open: make it owner-only too.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o600)).map_err(fail)?;
    }
    file.write_all(text.as_bytes()).map_err(fail)
}

/// An env file's lines, with the secret variables found.
struct EnvFile<'a> {
    lines: Vec<&'a str>,
}

/// `AUTH_SECRET` (0) or `AUTH_SECRET_1` to `_3`, and the value, when `line`
/// assigns one (`export ` allowed, quotes removed).
fn secret_assignment(line: &str) -> Option<(u8, String)> {
    let line = line.trim_start();
    let line = line.strip_prefix("export ").map_or(line, str::trim_start);
    let (name, value) = line.split_once('=')?;
    let index = match name.trim_end() {
        "AUTH_SECRET" => 0,
        "AUTH_SECRET_1" => 1,
        "AUTH_SECRET_2" => 2,
        "AUTH_SECRET_3" => 3,
        _ => return None,
    };
    let value = value.trim();
    let unquoted =
        ['"', '\''].iter().find_map(|q| value.strip_prefix(*q).and_then(|v| v.strip_suffix(*q))).unwrap_or(value);
    Some((index, unquoted.to_owned()))
}

impl<'a> EnvFile<'a> {
    fn parse(text: &'a str) -> EnvFile<'a> {
        EnvFile { lines: text.lines().collect() }
    }

    /// The secret the engine signs with: the highest-numbered one set.
    fn secret_in_use(&self) -> Option<String> {
        self.secrets_in_order().into_iter().next()
    }

    /// The secrets set, in the engine's order (`_3, _2, _1, AUTH_SECRET`:
    /// the first signs).
    fn secrets_in_order(&self) -> Vec<String> {
        let mut set: Vec<(u8, String)> =
            self.lines.iter().filter_map(|l| secret_assignment(l)).filter(|(_, v)| !v.is_empty()).collect();
        set.sort_by_key(|(i, _)| std::cmp::Reverse(*i));
        set.dedup_by_key(|(i, _)| *i);
        set.into_iter().map(|(_, v)| v).collect()
    }

    /// The file with every secret line replaced by `secrets` (the first
    /// signs; at most four), named so the engine reads them in this order:
    /// the last is `AUTH_SECRET`, the one before it `AUTH_SECRET_1`, and so
    /// on. Other lines stay as they were.
    fn with_secret_list(&self, secrets: &[String]) -> String {
        let mut text: String =
            self.lines.iter().filter(|l| secret_assignment(l).is_none()).flat_map(|l| [*l, "\n"]).collect();
        for (i, secret) in secrets.iter().enumerate().rev() {
            let index = secrets.len() - 1 - i;
            let name = if index == 0 { "AUTH_SECRET".to_owned() } else { format!("AUTH_SECRET_{index}") };
            text.push_str(&format!("{name}={secret}\n"));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_is_43_base64url_characters_and_new_each_time() {
        let (a, b) = (new_secret().unwrap(), new_secret().unwrap());
        assert_eq!(a.len(), 43);
        assert!(a.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
        assert_ne!(a, b);
    }

    #[test]
    fn the_secret_in_use_is_the_highest_numbered() {
        let f = EnvFile::parse("A=1\nexport AUTH_SECRET=\"old\"\nAUTH_SECRET_1='newer'\n");
        assert_eq!(f.secret_in_use().as_deref(), Some("newer"));
        let f = EnvFile::parse("AUTH_SECRET=only\nAUTH_SECRET_EXTRA=x\n");
        assert_eq!(f.secret_in_use().as_deref(), Some("only"));
        assert_eq!(EnvFile::parse("AUTH_SECRET=\n").secret_in_use(), None);
    }

    #[test]
    fn rotation_keeps_other_lines_and_the_previous_secrets_after_the_new_one() {
        let f = EnvFile::parse("DB=x\nAUTH_SECRET=old\nAUTH_SECRET_1=current\nPORT=1\n");
        assert_eq!(f.secrets_in_order(), ["current", "old"]);
        let list = ["new".to_owned(), "current".to_owned(), "old".to_owned()];
        assert_eq!(
            f.with_secret_list(&list),
            "DB=x\nPORT=1\nAUTH_SECRET=old\nAUTH_SECRET_1=current\nAUTH_SECRET_2=new\n"
        );
        assert_eq!(f.with_secret_list(&["only".to_owned()]), "DB=x\nPORT=1\nAUTH_SECRET=only\n");
    }
}
