//! Second factors: time-based one-time codes (TOTP, RFC 6238) and recovery
//! codes, the parts a two-factor sign-in is built from.
//!
//! - [`TotpProfile`] (`totp.rs`): the code's algorithm, digits and period
//!   (SHA-1, 6 digits, 30 s by default: what authenticator apps expect);
//!   [`TotpProfile::enrol`] makes a new secret with its `otpauth://` URI and
//!   that URI's QR code as SVG; [`TotpProfile::verify`] accepts a code within
//!   one step of drift and never a step at or before the last one used, so
//!   no code is accepted twice.
//! - [`SecretBox`] (`sealing.rs`): a TOTP secret sealed for storage
//!   (AES-256-GCM, the key derived from the auth secret, the user id as
//!   associated data), opened with any configured secret (rotation).
//! - [`RecoveryCodes`] (`recovery.rs`): ten single-use codes, shown once,
//!   stored as keyed hashes.
//!
//! A user's factor, kept and checked with these, is `user_two_factor`; the
//! second step at sign-in and its pages are the next step.

mod recovery;
mod sealing;
mod totp;

pub use recovery::{RecoveryCodes, RECOVERY_CODE_COUNT};
pub use sealing::{SealError, SecretBox};
pub use totp::{Enrolment, TotpAlgorithm, TotpProfile};
